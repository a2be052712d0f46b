// The C library as the fast front sees it: Embedded Swift has no Glibc
// module, so the headers it calls are listed here.
#ifndef OPENURLD_CFRONT_SHIM_H
#define OPENURLD_CFRONT_SHIM_H

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static inline int cfront_errno(void) { return errno; }

#endif
