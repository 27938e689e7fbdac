/*
 * pthread_signal.h - slimpthreads: thread signal masks.
 *
 * MinGW-w64's <signal.h> includes <pthread_signal.h>, whose winpthreads copy
 * turns pthread_sigmask into a macro that reports success and does nothing.
 * This one, found first on the include path (and included by our <pthread.h>,
 * which declares pthread_kill through it as the peers' do), declares real
 * functions and the sigset_t operations that MinGW-w64 lacks.
 *
 * A project may carry its own stand-ins for these (git's compat/mingw.h has
 * `typedef _sigset_t sigset_t;`, SIG_BLOCK and SIG_UNBLOCK, a sigemptyset
 * macro and static sigaddset/sigprocmask stubs) and include this header after
 * them. What it already defined stays its own: the typedef may repeat (the same
 * type), each SIG_* constant is defined only if missing, and the declarations
 * put the function's name in parentheses, which a function-like macro of the
 * same name does not expand. A project's static function of the same name then
 * keeps its internal linkage, and its calls stay its own.
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

/* A project's own stand-ins, defined before this header (git's compat/mingw.h:
 * its typedef of sigset_t, static sigaddset and sigprocmask), are taken as they
 * are: the repeated typedef is the same type, and the declarations below then
 * name the project's functions, whose link names they cannot change. GCC says
 * nothing of either; clang warns, which -Werror would make an error. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wtypedef-redefinition"
#pragma clang diagnostic ignored "-Wignored-attributes"
#endif

/* MinGW-w64's <sys/types.h> names sigset_t only under _POSIX; the type is its
 * _sigset_t either way, with one bit per signal number. A project's own
 * typedef of it leaves no macro to test; C11 allows the repeat, and
 * __extension__ keeps -std=gnu99 -pedantic from reporting it. */
#if !defined(_POSIX) && !defined(__slim_sigset_t_defined)
#define __slim_sigset_t_defined 1
__extension__ typedef _sigset_t sigset_t;
#endif

#ifndef SIG_BLOCK
#define SIG_BLOCK 0
#endif
#ifndef SIG_UNBLOCK
#define SIG_UNBLOCK 1
#endif
#ifndef SIG_SETMASK
#define SIG_SETMASK 2
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The mask is per thread and inherited by new threads, but cannot hold back
 * what the C runtime delivers. */
int (pthread_sigmask)(int how, const sigset_t *set, sigset_t *old_set)
    SLIMPTHREADS_ABI(pthread_sigmask);
/* Windows runs no signal handler in another thread: a real signal is raised
 * through the C runtime in the calling thread. Signal 0 gives ESRCH once the
 * thread has been joined. */
int (pthread_kill)(pthread_t thread, int signal_number) SLIMPTHREADS_ABI(pthread_kill);
int (sigemptyset)(sigset_t *set) SLIMPTHREADS_ABI(sigemptyset);
int (sigfillset)(sigset_t *set) SLIMPTHREADS_ABI(sigfillset);
int (sigaddset)(sigset_t *set, int signal_number) SLIMPTHREADS_ABI(sigaddset);
int (sigdelset)(sigset_t *set, int signal_number) SLIMPTHREADS_ABI(sigdelset);
int (sigismember)(const sigset_t *set, int signal_number) SLIMPTHREADS_ABI(sigismember);
int (sigprocmask)(int how, const sigset_t *set, sigset_t *old_set) SLIMPTHREADS_ABI(sigprocmask);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

/* A sigemptyset that is already a macro is a project's stand-in (MinGW-w64
 * has none): git's is (void)0, and its sigaddset adds nothing, so its sets are
 * never filled and reading one reads an indeterminate value (which GCC reports
 * at -O2). For such a project pthread_sigmask leaves the set out: blocking or
 * unblocking nothing, as its sets say, still reporting the old mask. */
#ifdef sigemptyset
#define pthread_sigmask(how, set, old_set) pthread_sigmask((how), ((void)(set), (const sigset_t *)0), (old_set))
#endif

#endif /* our <pthread.h> is in */

#endif /* SLIMPTHREADS_PTHREAD_SIGNAL_H */
