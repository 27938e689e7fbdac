/*
 * slimpthreads_rwlock_inline.h - slimpthreads: the inline paths of an rwlock's
 * uncontended write lock, write trylock and write unlock (rwlock.c, "Inline
 * write paths"), and the bits of the lock word they share with the library.
 * Part of <pthread.h>, which includes it after every declaration and after
 * slimpthreads_mutex_inline.h (whose thread id it reads); kept apart for the
 * same reason as that one. Users need not read it. Installed, never included
 * by itself.
 */
#ifndef SLIMPTHREADS_RWLOCK_INLINE_H
#define SLIMPTHREADS_RWLOCK_INLINE_H

#ifndef SLIMPTHREADS_PTHREAD_H
#error "slimpthreads: slimpthreads_rwlock_inline.h is part of <pthread.h>: include <pthread.h> instead"
#endif

/* A write lock of a lock nobody holds or biases, and its unlock when it has
 * nobody to wake, are one compare-exchange each on the lock word and a store
 * of the writer's id: as cheap as the mutex's section pair, so the call into
 * the library and back around them costs as much again. So they are inline
 * in the caller, and everything else goes to the library's functions: a lock
 * held, read-biased, process-shared or destroyed, or with readers asleep, a
 * relock by the writer (EDEADLK), an unlock by a reader or by a thread that
 * holds nothing (EPERM), an unlock with somebody to wake. Writers that wait
 * do not send the calls to the library by themselves: a newcomer may take a
 * free lock ahead of them (the library's first try does too), and while one
 * of them has been woken and is on its way (WRITER_WOKEN) a release wakes
 * nobody; so the holder of a contended lock keeps its streak inline. Read
 * locks are the library's: a reader's holds live in its thread record. A
 * caller compiled without inlining (-O0, a function pointer) calls the
 * library's functions of the same link names, which answer the same.
 * SLIMPTHREADS_NO_INLINE (and the checked build) turn this off too. */
/* rwlock.c's bits of the same names (its static asserts pin them): */
#define __SLIM_RWLOCK_WRITER_HELD ((int64_t)1 << 56)
#define __SLIM_RWLOCK_WRITER_WOKEN ((int64_t)1 << 59)
#define __SLIM_RWLOCK_EPOCH_MASK ((int64_t)0xFFFF << 16)   /* READER_EPOCH_MASK */
#define __SLIM_RWLOCK_WRITERS_WAITING_MASK ((int64_t)0xFFFF)

/* The library's paths past the inline ones: the whole of each call. */
int __slim_rwlock_wrlock_slow(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(rwlock_wrlock_slow);
int __slim_rwlock_trywrlock_slow(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(rwlock_trywrlock_slow);
int __slim_rwlock_unlock_slow(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(rwlock_unlock_slow);

/* The word is exchanged whole: only where the target has an 8-byte
 * compare-exchange of its own (i686 from the Pentium on: cmpxchg8b), never a
 * libatomic call. */
#if defined(__GNUC__) && defined(__GCC_HAVE_SYNC_COMPARE_AND_SWAP_8)
/* What a lock free for a writer may carry: the reader epoch (it counts past
 * sleeps and stays), the count of the writers that wait and whether one of
 * them was woken (a newcomer may take a free lock ahead of them: the
 * library's first try does the same). Readers, a writer, readers asleep, the
 * bias, PSHARED, DESTROYED: any other bit is the library's business. */
__SLIM_INLINE_HELPER int __slim_rwlock_word_is_free(int64_t word)
{
    return (word & ~(__SLIM_RWLOCK_EPOCH_MASK | __SLIM_RWLOCK_WRITERS_WAITING_MASK |
                     __SLIM_RWLOCK_WRITER_WOKEN)) == 0;
}

/* Nonzero once the caller holds the write lock of a lock that was free. */
__SLIM_INLINE_HELPER int __slim_rwlock_wrlock_fast(pthread_rwlock_t *rwlock)
{
    int64_t word;

    if (!__builtin_expect(rwlock != 0, 1))
        return 0;
    word = __atomic_load_n(&rwlock->__state, __ATOMIC_RELAXED);
    if (!__builtin_expect(__slim_rwlock_word_is_free(word), 1) ||
        !__builtin_expect(__atomic_compare_exchange_n(&rwlock->__state, &word,
                                                      word | __SLIM_RWLOCK_WRITER_HELD, 0,
                                                      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED),
                          1))
        return 0;
    /* Only the holder writes it; another thread only compares it with its own. */
    __atomic_store_n(&rwlock->__writer_thread_id, __slim_current_thread_id(), __ATOMIC_RELAXED);
    return 1;
}

/* A word whose write release wakes nobody: a writer holds it, free but for
 * that, and writers wait only if one of them was woken already (it takes the
 * lock or sleeps again: the library's release would wake nobody either). A
 * reader's unlock finds readers or the bias there instead, and goes to the
 * library after the first test, without reading the writer's id. */
__SLIM_INLINE_HELPER int __slim_rwlock_release_wakes_nobody(int64_t word)
{
    return (word & __SLIM_RWLOCK_WRITER_HELD) != 0 &&
           __slim_rwlock_word_is_free(word & ~__SLIM_RWLOCK_WRITER_HELD) &&
           ((word & __SLIM_RWLOCK_WRITERS_WAITING_MASK) == 0 ||
            (word & __SLIM_RWLOCK_WRITER_WOKEN) != 0);
}

/* Nonzero once the caller's write lock, which wakes nobody, is released.
 * After the releasing exchange the lock is not touched: it may be freed at
 * once. A failed exchange (a waiter came or went) gives the id back for the
 * library's unlock, which the caller still is. */
__SLIM_INLINE_HELPER int __slim_rwlock_unlock_fast(pthread_rwlock_t *rwlock)
{
    unsigned long self;
    int64_t word;

    if (!__builtin_expect(rwlock != 0, 1))
        return 0;
    word = __atomic_load_n(&rwlock->__state, __ATOMIC_RELAXED);
    if (!__builtin_expect(__slim_rwlock_release_wakes_nobody(word), 1))
        return 0;
    self = __slim_current_thread_id();
    if (!__builtin_expect(__atomic_load_n(&rwlock->__writer_thread_id, __ATOMIC_RELAXED) == self,
                          1))
        return 0;
    __atomic_store_n(&rwlock->__writer_thread_id, 0, __ATOMIC_RELAXED);
    if (__builtin_expect(__atomic_compare_exchange_n(&rwlock->__state, &word,
                                                     word & ~__SLIM_RWLOCK_WRITER_HELD, 0,
                                                     __ATOMIC_RELEASE, __ATOMIC_RELAXED),
                         1))
        return 1;
    __atomic_store_n(&rwlock->__writer_thread_id, self, __ATOMIC_RELAXED);
    return 0;
}

/* The three whole calls, POSIX results: the library's functions and the GNU
 * inline ones below are each one of these. */
__SLIM_INLINE_HELPER int __slim_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    return __slim_rwlock_wrlock_fast(rwlock) ? 0 : __slim_rwlock_wrlock_slow(rwlock);
}

__SLIM_INLINE_HELPER int __slim_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    return __slim_rwlock_wrlock_fast(rwlock) ? 0 : __slim_rwlock_trywrlock_slow(rwlock);
}

__SLIM_INLINE_HELPER int __slim_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    return __slim_rwlock_unlock_fast(rwlock) ? 0 : __slim_rwlock_unlock_slow(rwlock);
}

#if !defined(SLIMPTHREADS_NO_INLINE)
__SLIM_GNU_INLINE int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    return __slim_rwlock_wrlock(rwlock);
}

__SLIM_GNU_INLINE int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    return __slim_rwlock_trywrlock(rwlock);
}

__SLIM_GNU_INLINE int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    return __slim_rwlock_unlock(rwlock);
}
#endif /* not SLIMPTHREADS_NO_INLINE */
#endif /* __GNUC__ with an 8-byte compare-exchange */

#endif /* SLIMPTHREADS_RWLOCK_INLINE_H */
