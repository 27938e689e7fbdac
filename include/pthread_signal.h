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

#ifndef WIN_PTHREADS_SIGNAL_H
#define WIN_PTHREADS_SIGNAL_H
#endif

#include <sys/types.h>
#include <pthread.h>

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

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old_set);
int pthread_kill(pthread_t thread, int signal_number);
int sigemptyset(sigset_t *set);
int sigfillset(sigset_t *set);
int sigaddset(sigset_t *set, int signal_number);
int sigdelset(sigset_t *set, int signal_number);
int sigismember(const sigset_t *set, int signal_number);
int sigprocmask(int how, const sigset_t *set, sigset_t *old_set);

#ifdef __cplusplus
}
#endif

#endif /* SLIMPTHREADS_PTHREAD_SIGNAL_H */
