// The system headers Posix needs that Glibc's module map leaves out.
#ifndef OPENURLD_CPOSIX_SHIM_H
#define OPENURLD_CPOSIX_SHIM_H

#include <sys/eventfd.h>

#endif
