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
 * include/slimpthreads_spin_inline.h, part of pthread.h (__slim_spin_lock,
 * _trylock, _unlock; the library's own functions are the same helpers); only a
 * lock that finds the word taken calls __slim_spin_lock_slow here. The three
 * states are pinned to pthread.h's.
 */
#include "atomic.h"
#include "spin.h"
#include "check.h"

enum {
    SPIN_UNLOCKED = __SLIM_SPIN_UNLOCKED,
    SPIN_LOCKED = __SLIM_SPIN_LOCKED,
    SPIN_DESTROYED = __SLIM_SPIN_DESTROYED
};
SLIM_STATIC_ASSERT(SPIN_UNLOCKED == 0, "a zero-filled spinlock is an unlocked one");

/* pthread.h's inline lock comes here when the word was not free. It backs
 * off on the ladder (spin.h, SLIM_SPIN_LADDER) until the lock is its or
 * destroyed: a spinlock has no sleepers to wake, so no wait could end. */
int __slim_spin_lock_slow(pthread_spinlock_t *lock)
{
    struct slim_spin spin;

    slim_spin_begin(&spin, SLIM_SPIN_LADDER);
    for (;;) {
        long seen = slim_load_relaxed(lock);

        if (seen == SPIN_DESTROYED)
            return EINVAL;
        if (seen == SPIN_UNLOCKED && __slim_spin_try_acquire(lock))
            return 0;
        slim_spin_again(&spin);
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

static int do_destroy(pthread_spinlock_t *lock)
{
    long seen = slim_load_relaxed(lock);

    if (seen == SPIN_UNLOCKED && slim_cas(lock, SPIN_UNLOCKED, SPIN_DESTROYED))
        return 0;
    return seen == SPIN_DESTROYED ? EINVAL : EBUSY;
}

int pthread_spin_destroy(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    slim_hook_spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_hook_end(&call, do_destroy(lock));
}

int pthread_spin_lock(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    slim_hook_spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_hook_end(&call, __slim_spin_lock(lock));
}

int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    slim_hook_spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_hook_end(&call, __slim_spin_trylock(lock));
}

int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    slim_hook_spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_hook_end(&call, __slim_spin_unlock(lock));
}

/* DESTROYED, or a word no init or lock writes (never initialized).
 * For check.h's hooks; the normal build never calls it. */
int slim_spin_check_kind(const pthread_spinlock_t *lock)
{
    long seen;

    if (lock == NULL)
        return SLIM_CHECK_SPINLOCK;
    seen = slim_load_relaxed((volatile long *)lock);
    if (seen == SPIN_UNLOCKED || seen == SPIN_LOCKED)
        return SLIM_CHECK_SPINLOCK;
    return SLIM_CHECK_SPINLOCK | SLIM_CHECK_UNUSABLE;
}

#include "code_end.h"
