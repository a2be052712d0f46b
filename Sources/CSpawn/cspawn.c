#define _GNU_SOURCE
#include "cspawn.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <spawn.h>

int cspawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
           int stderr_fd, int new_session, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }

    // dup2 clears close-on-exec on the target, so these survive the closefrom.
    if ((result = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0)) != 0) goto done;
    if ((result = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1)) != 0) goto done;
    if ((result = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2)) != 0) goto done;
    if ((result = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) != 0) goto done;

    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (new_session) flags |= POSIX_SPAWN_SETSID;
    if ((result = posix_spawnattr_setsigmask(&attributes, &empty)) != 0) goto done;
    if ((result = posix_spawnattr_setsigdefault(&attributes, &all)) != 0) goto done;
    if ((result = posix_spawnattr_setflags(&attributes, flags)) != 0) goto done;

    result = posix_spawn(pid, path, &actions, &attributes, argv, envp);

done:
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}

int cspawn_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
