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
 */
#include "internal.h"

enum { SPIN_UNLOCKED = 0, SPIN_LOCKED = 1, SPIN_DESTROYED = 2 };

/* Attempts of each kind of backing off, in this order (internal.h's spin block). */
#define SPIN_LOOKS SLIM_SPINLOCK_LOOKS
#define SPIN_YIELDS SLIM_SPINLOCK_YIELDS
#define SPIN_SLEEP_MS SLIM_SPINLOCK_SLEEP_MS

static inline int try_acquire(pthread_spinlock_t *lock)
{
    return slim_cas(lock, SPIN_UNLOCKED, SPIN_LOCKED);
}

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

static int __attribute__((noinline)) lock_contended(pthread_spinlock_t *lock)
{
    unsigned attempt = 0;

    for (;;) {
        long seen = slim_load_relaxed(lock);

        if (seen == SPIN_DESTROYED)
            return EINVAL;
        if (seen == SPIN_UNLOCKED && try_acquire(lock))
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
    if (try_acquire(lock))
        return 0;
    return lock_contended(lock);
}

int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    if (try_acquire(lock))
        return 0;
    return slim_load_relaxed(lock) == SPIN_DESTROYED ? EINVAL : EBUSY;
}

int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    /* Owners are not recorded (it would cost a thread-id lookup per lock); an
     * unlocked or destroyed lock is refused rather than resurrected. */
    long seen = slim_load_relaxed(lock);

    if (seen != SPIN_LOCKED)
        return seen == SPIN_DESTROYED ? EINVAL : EPERM;
    slim_store_release(lock, SPIN_UNLOCKED);
    return 0;
}
