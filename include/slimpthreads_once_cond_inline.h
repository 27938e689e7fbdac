/*
 * slimpthreads_once_cond_inline.h - slimpthreads: the inline paths of
 * pthread_once on a once that is done (once.c), and of pthread_cond_signal and
 * pthread_cond_broadcast on a cond nobody waits on (cond.c), and the values
 * they share with the library. Part of <pthread.h>, which includes it after
 * every declaration; kept apart for the same reason as
 * slimpthreads_mutex_inline.h. Users need not read it. Installed, never
 * included by itself.
 */
#ifndef SLIMPTHREADS_ONCE_COND_INLINE_H
#define SLIMPTHREADS_ONCE_COND_INLINE_H

#ifndef SLIMPTHREADS_PTHREAD_H
#error "slimpthreads: slimpthreads_once_cond_inline.h is part of <pthread.h>: include <pthread.h> instead"
#endif

/* Each of these calls usually finds nothing to do: a once whose routine has
 * run, a cond that nobody waits on (a producer signals after every item,
 * whether a consumer sleeps or not). That answer is one load; a call into the
 * library and back costs more than the load. So the load is inline in the
 * caller, and only a once still to run (or being run) and a cond with a waiter
 * (or a process-shared one, whose first field is never null) call the
 * library. A caller compiled without inlining (-O0, a function pointer) calls
 * the library's functions of the same link names, which answer the same.
 * SLIMPTHREADS_NO_INLINE (and the checked build) turn this off too. */
#define __SLIM_ONCE_DONE 3 /* a pthread_once_t whose routine has returned (once.c) */

/* The library's paths past the inline ones: the whole of each call. */
int __slim_once_slow(pthread_once_t *once, void (*init_routine)(void)) SLIMPTHREADS_ABI(once_slow);
int __slim_cond_signal_slow(pthread_cond_t *cond) SLIMPTHREADS_ABI(cond_signal_slow);
int __slim_cond_broadcast_slow(pthread_cond_t *cond) SLIMPTHREADS_ABI(cond_broadcast_slow);

#if defined(__GNUC__)
/* The acquire pairs with the release store of DONE after the routine ran, so
 * what the routine wrote is seen. The tests of the arguments cost nothing when
 * the compiler knows them (the address of a static once, a function). */
__SLIM_INLINE_HELPER int __slim_once(pthread_once_t *once, void (*init_routine)(void))
{
    if (__builtin_expect(once != 0 && init_routine != 0 &&
                             __atomic_load_n(once, __ATOMIC_ACQUIRE) == __SLIM_ONCE_DONE,
                         1))
        return 0;
    return __slim_once_slow(once, init_routine);
}

/* A cond whose queue is empty: nobody to wake (cond.c, "Signalling": a waiter
 * queues itself before it releases the mutex, so a signal made under the
 * mutex after that sees it). */
__SLIM_INLINE_HELPER int __slim_cond_has_no_waiter(pthread_cond_t *cond)
{
    return cond != 0 && __atomic_load_n(&cond->__oldest_waiter, __ATOMIC_ACQUIRE) == 0;
}

__SLIM_INLINE_HELPER int __slim_cond_signal(pthread_cond_t *cond)
{
    if (__builtin_expect(__slim_cond_has_no_waiter(cond), 1))
        return 0;
    return __slim_cond_signal_slow(cond);
}

__SLIM_INLINE_HELPER int __slim_cond_broadcast(pthread_cond_t *cond)
{
    if (__builtin_expect(__slim_cond_has_no_waiter(cond), 1))
        return 0;
    return __slim_cond_broadcast_slow(cond);
}

#if !defined(SLIMPTHREADS_NO_INLINE)
__SLIM_GNU_INLINE int pthread_once(pthread_once_t *once, void (*init_routine)(void))
{
    return __slim_once(once, init_routine);
}

__SLIM_GNU_INLINE int pthread_cond_signal(pthread_cond_t *cond)
{
    return __slim_cond_signal(cond);
}

__SLIM_GNU_INLINE int pthread_cond_broadcast(pthread_cond_t *cond)
{
    return __slim_cond_broadcast(cond);
}
#endif /* not SLIMPTHREADS_NO_INLINE */
#endif /* __GNUC__ */

#endif /* SLIMPTHREADS_ONCE_COND_INLINE_H */
