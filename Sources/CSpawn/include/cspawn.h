// posix_spawn with the set-up a launched program must get, in one call.
// Swift's Glibc module does not see the GNU extensions used here.
#ifndef OPENURLD_CSPAWN_H
#define OPENURLD_CSPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (both NULL-terminated).
///
/// The child gets descriptors 0, 1 and 2 from `stdin_fd`, `stdout_fd` and
/// `stderr_fd` and no other descriptor; an empty signal mask and default
/// signal dispositions (the caller's threads may block or ignore signals); and,
/// when `new_session` is non-zero, a new session (`setsid`).
///
/// Returns 0 and stores the child's PID, or an errno value. glibc reports exec
/// failures (ENOENT, EACCES, ENOEXEC, ...) here, so 0 means the exec succeeded.
int cspawn(const char *path, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd,
           int stderr_fd, int new_session, pid_t *pid);

/// `pipe2(fds, O_CLOEXEC)`: a pipe whose ends no program started meanwhile
/// by another thread inherits. Returns 0, or -1 with errno set.
int cspawn_pipe(int fds[2]);

#endif
