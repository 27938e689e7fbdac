/*
 * slimpthreads_spin_inline.h - slimpthreads: the inline paths of a spinlock's
 * lock, trylock and unlock (spin.c), and the word's states they share with the
 * library. Part of <pthread.h>, which includes it after every declaration;
 * kept apart for the same reason as slimpthreads_mutex_inline.h. Users need
 * not read it. Installed, never included by itself.
 */
#ifndef SLIMPTHREADS_SPIN_INLINE_H
#define SLIMPTHREADS_SPIN_INLINE_H

#ifndef SLIMPTHREADS_PTHREAD_H
#error "slimpthreads: slimpthreads_spin_inline.h is part of <pthread.h>: include <pthread.h> instead"
#endif

/* The word of a spinlock (spin.c): zero-filled memory is an unlocked one. Its
 * uncontended lock, its trylock and its unlock are inline in the caller, as a
 * mutex's are, and for the same reason: the call and return around one
 * interlocked instruction cost as much as the instruction. A busy lock's
 * wait is the library's. */
#define __SLIM_SPIN_UNLOCKED 0
#define __SLIM_SPIN_LOCKED 1
#define __SLIM_SPIN_DESTROYED 2 /* a later use gives EINVAL */

int __slim_spin_lock_slow(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(spin_lock_slow);

#if defined(__GNUC__)
__SLIM_INLINE_HELPER int __slim_spin_try_acquire(pthread_spinlock_t *lock)
{
    long expected = __SLIM_SPIN_UNLOCKED;

    return __atomic_compare_exchange_n(lock, &expected, __SLIM_SPIN_LOCKED, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

/* The three calls, POSIX results: the library's functions and the GNU inline
 * ones below are each one of these. */
__SLIM_INLINE_HELPER int __slim_spin_lock(pthread_spinlock_t *lock)
{
    return __slim_spin_try_acquire(lock) ? 0 : __slim_spin_lock_slow(lock);
}

__SLIM_INLINE_HELPER int __slim_spin_trylock(pthread_spinlock_t *lock)
{
    if (__slim_spin_try_acquire(lock))
        return 0;
    return __atomic_load_n(lock, __ATOMIC_RELAXED) == __SLIM_SPIN_DESTROYED ? EINVAL : EBUSY;
}

/* Owners are not recorded (a thread-id store per lock, for a check POSIX does
 * not ask for); an unlocked or destroyed lock is refused rather than resurrected. */
__SLIM_INLINE_HELPER int __slim_spin_unlock(pthread_spinlock_t *lock)
{
    long seen = __atomic_load_n(lock, __ATOMIC_RELAXED);

    if (seen != __SLIM_SPIN_LOCKED)
        return seen == __SLIM_SPIN_DESTROYED ? EINVAL : EPERM;
    __atomic_store_n(lock, __SLIM_SPIN_UNLOCKED, __ATOMIC_RELEASE);
    return 0;
}

#if !defined(SLIMPTHREADS_NO_INLINE)
__SLIM_GNU_INLINE int pthread_spin_lock(pthread_spinlock_t *lock)
{
    return __slim_spin_lock(lock);
}

__SLIM_GNU_INLINE int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    return __slim_spin_trylock(lock);
}

__SLIM_GNU_INLINE int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    return __slim_spin_unlock(lock);
}
#endif /* not SLIMPTHREADS_NO_INLINE */
#endif /* __GNUC__ */

#endif /* SLIMPTHREADS_SPIN_INLINE_H */
