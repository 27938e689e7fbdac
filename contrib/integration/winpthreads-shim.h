/*
 * winpthreads-shim.h - forced (-include) into the winpthreads BASELINE builds of
 * contrib/integration/run.sh only, never into a slimpthreads build.
 *
 * xz's POSIX threading (src/common/mythread.h) blocks all signals around
 * pthread_create with sigset_t, sigfillset and pthread_sigmask. MinGW-w64 with
 * winpthreads has no sigset_t (without _POSIX) and no sigfillset, so xz
 * --enable-threads=posix does not build against it unchanged; slimpthreads
 * provides all three. To have a baseline at all, this supplies the two missing
 * names; pthread_sigmask stays winpthreads' macro, which does nothing.
 * (CFLAGS also reach xz's i686 assembly files, hence __ASSEMBLER__.)
 */
#if !defined(SLIMPTHREADS_WINPTHREADS_SHIM_H) && !defined(__ASSEMBLER__)
#define SLIMPTHREADS_WINPTHREADS_SHIM_H
#include <sys/types.h>
#include <signal.h>
#ifndef _POSIX
typedef _sigset_t sigset_t;
#endif
#ifndef SIG_SETMASK
#define SIG_SETMASK 2
#endif
static inline int sigfillset(sigset_t *set)
{
    *set = ~(sigset_t)0;
    return 0;
}
#endif
