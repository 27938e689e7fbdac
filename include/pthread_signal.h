/*
 * pthread_signal.h - slimpthreads: thread signal masks.
 *
 * MinGW-w64's <signal.h> includes <pthread_signal.h>, whose winpthreads copy
 * turns pthread_sigmask into a macro that reports success and does nothing.
 * This one, found first on the include path, declares real functions and the
 * sigset_t operations that MinGW-w64 lacks.
 */
#ifndef SLIMPTHREADS_PTHREAD_SIGNAL_H
#define SLIMPTHREADS_PTHREAD_SIGNAL_H

#include "slimpthreads_abi.h"

#ifndef WIN_PTHREADS_SIGNAL_H
#define WIN_PTHREADS_SIGNAL_H
#endif

#include <sys/types.h>
#include <pthread.h>

/* Under winpthreads' <pthread.h> our <pthread.h> has just stopped the build
 * with its one #error; add no errors of our own. */
#if defined(SLIMPTHREADS_VERSION_MAJOR)

#undef pthread_sigmask

/* MinGW-w64's <sys/types.h> names sigset_t only under _POSIX; the type is its
 * _sigset_t either way, with one bit per signal number. */
#if !defined(_POSIX) && !defined(__slim_sigset_t_defined)
#define __slim_sigset_t_defined 1
typedef _sigset_t sigset_t;
#endif

#ifndef SIG_BLOCK
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#endif

#ifdef __cplusplus
extern "C" {
#endif

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old_set)
    SLIMPTHREADS_ABI(pthread_sigmask);
int pthread_kill(pthread_t thread, int signal_number) SLIMPTHREADS_ABI(pthread_kill);
int sigemptyset(sigset_t *set) SLIMPTHREADS_ABI(sigemptyset);
int sigfillset(sigset_t *set) SLIMPTHREADS_ABI(sigfillset);
int sigaddset(sigset_t *set, int signal_number) SLIMPTHREADS_ABI(sigaddset);
int sigdelset(sigset_t *set, int signal_number) SLIMPTHREADS_ABI(sigdelset);
int sigismember(const sigset_t *set, int signal_number) SLIMPTHREADS_ABI(sigismember);
int sigprocmask(int how, const sigset_t *set, sigset_t *old_set) SLIMPTHREADS_ABI(sigprocmask);

#ifdef __cplusplus
}
#endif

#endif /* our <pthread.h> is in */

#endif /* SLIMPTHREADS_PTHREAD_SIGNAL_H */
