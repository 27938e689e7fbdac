/*
 * spin.c - pthread_spinlock_t: one word, UNLOCKED (0, so zero-filled memory is an
 * unlocked spinlock), LOCKED, or DESTROYED (later use gives EINVAL).
 *
 * lock spins on a plain load between pause instructions, looking less and less
 * often (no bus traffic until the word looks free), then yields the processor,
 * then sleeps a millisecond at a time: with more threads than cores the holder
 * may be preempted, and only giving up the core lets it run and release the
 * lock. The word needs nothing but atomics, so a spinlock in memory shared
 * between processes works too.
 *
 * The uncontended lock, the trylock and the unlock are inline in
 * include/pthread.h (__slim_spin_lock, _trylock, _unlock; the library's own
 * functions are the same helpers); only a lock that finds the word taken calls
 * __slim_spin_lock_slow here. The three states are pinned to pthread.h's.
 */
#include "internal.h"

enum {
    SPIN_UNLOCKED = __SLIM_SPIN_UNLOCKED,
    SPIN_LOCKED = __SLIM_SPIN_LOCKED,
    SPIN_DESTROYED = __SLIM_SPIN_DESTROYED
};
SLIM_STATIC_ASSERT(SPIN_UNLOCKED == 0, "a zero-filled spinlock is an unlocked one");

/* Attempts of each kind of backing off, in this order (internal.h's spin block). */
#define SPIN_LOOKS SLIM_SPINLOCK_LOOKS
#define SPIN_YIELDS SLIM_SPINLOCK_YIELDS
#define SPIN_SLEEP_MS SLIM_SPINLOCK_SLEEP_MS


/* The pauses between two looks double: each look pulls the lock's cache line
 * away from a holder that may be running a tight loop (6 threads on 2 cores:
 * 55 ns a pair looking after every pause, as often as the mutex's 45). The
 * first look waits SLIM_SPIN_FIRST_GAP pauses, as the mutex's does: a waiter
 * that looks at once catches the holder's next unlock, and two threads then
 * hand the lock and its data across cores every pair or two for good. */
static void back_off(unsigned attempt)
{
    if (attempt < SPIN_LOOKS)
        slim_pause(SLIM_SPIN_FIRST_GAP << attempt);
    else if (attempt < SPIN_LOOKS + SPIN_YIELDS)
        SwitchToThread();
    else
        Sleep(SPIN_SLEEP_MS);
}

/* pthread.h's inline lock comes here when the word was not free. */
int __slim_spin_lock_slow(pthread_spinlock_t *lock)
{
    unsigned attempt = 0;

    for (;;) {
        long seen = slim_load_relaxed(lock);

        if (seen == SPIN_DESTROYED)
            return EINVAL;
        if (seen == SPIN_UNLOCKED && __slim_spin_try_acquire(lock))
            return 0;
        back_off(attempt);
        if (attempt < SPIN_LOOKS + SPIN_YIELDS)
            attempt++;
    }
}

int pthread_spin_init(pthread_spinlock_t *lock, int pshared)
{
    if (lock == NULL ||
        (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED))
        return EINVAL;
    slim_store_release(lock, SPIN_UNLOCKED);
    return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *lock)
{
    long seen = slim_load_relaxed(lock);

    if (seen == SPIN_UNLOCKED && slim_cas(lock, SPIN_UNLOCKED, SPIN_DESTROYED))
        return 0;
    return seen == SPIN_DESTROYED ? EINVAL : EBUSY;
}

int pthread_spin_lock(pthread_spinlock_t *lock)
{
    return __slim_spin_lock(lock);
}

int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    return __slim_spin_trylock(lock);
}

int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    return __slim_spin_unlock(lock);
}
