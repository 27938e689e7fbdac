/*
 * barrier.c - pthread_barrier_t on words waited on with WaitOnAddress.
 *
 * A round: each waiter notes __round, then counts itself into __arrived. The one
 * that completes the count resets __arrived for the next round *before* bumping
 * __round, then wakes everybody sleeping on __round and returns
 * PTHREAD_BARRIER_SERIAL_THREAD. The others sleep until __round moves past the
 * value they noted, so a fast thread that comes back for the next round counts
 * into a fresh __arrived and cannot be mistaken for a late one of this round.
 * __inside counts threads between entry and exit so that destroy can wait for
 * released waiters to leave (the serial thread may destroy the barrier at once,
 * as with glibc) while it refuses, with EBUSY, a barrier with waiters still
 * blocked. __threads_per_round is 0 when destroyed.
 *
 * Process-shared barriers: WaitOnAddress only works within one process: ENOTSUP.
 */
#include "internal.h"

static void leave(pthread_barrier_t *barrier)
{
    /* Only a destroyer waits for __inside to drain: wake it when it does. */
    if (slim_decrement(&barrier->__inside) == 0 &&
        __atomic_load_n(&barrier->__threads_per_round, __ATOMIC_SEQ_CST) == 0)
        slim_wake_all(&barrier->__inside);
}

int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr,
                         unsigned count)
{
    if (barrier == NULL || count == 0 || count > LONG_MAX)
        return EINVAL;
    if (attr != NULL && attr->__pshared != PTHREAD_PROCESS_PRIVATE)
        return EINVAL; /* only a garbage attribute object can hold anything else */
    barrier->__arrived = 0;
    barrier->__round = 0;
    barrier->__inside = 0;
    __atomic_store_n(&barrier->__threads_per_round, count, __ATOMIC_RELEASE);
    return 0;
}

int pthread_barrier_wait(pthread_barrier_t *barrier)
{
    unsigned count;
    long round;

    slim_increment(&barrier->__inside);
    count = __atomic_load_n(&barrier->__threads_per_round, __ATOMIC_SEQ_CST);
    if (count == 0) {
        leave(barrier);
        return EINVAL;
    }
    round = slim_load_acquire(&barrier->__round);
    if ((unsigned long)slim_increment(&barrier->__arrived) == count) {
        slim_store_release(&barrier->__arrived, 0);
        slim_increment(&barrier->__round);
        slim_wake_all(&barrier->__round);
        leave(barrier);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    while (slim_load_acquire(&barrier->__round) == round)
        slim_wait_on(&barrier->__round, round, NULL, SLIM_WAIT_PLAIN);
    leave(barrier);
    return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *barrier)
{
    long inside;

    if (barrier == NULL || __atomic_load_n(&barrier->__threads_per_round, __ATOMIC_SEQ_CST) == 0)
        return EINVAL;
    if (slim_load_acquire(&barrier->__arrived) != 0)
        return EBUSY;
    __atomic_store_n(&barrier->__threads_per_round, 0, __ATOMIC_SEQ_CST);
    while ((inside = slim_load_acquire(&barrier->__inside)) != 0)
        slim_wait_on(&barrier->__inside, inside, NULL, SLIM_WAIT_PLAIN);
    return 0;
}

int pthread_barrierattr_init(pthread_barrierattr_t *attr)
{
    if (attr == NULL)
        return EINVAL;
    attr->__pshared = PTHREAD_PROCESS_PRIVATE;
    return 0;
}

int pthread_barrierattr_destroy(pthread_barrierattr_t *attr)
{
    return attr == NULL ? EINVAL : 0;
}

int pthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared)
{
    int error = attr == NULL ? EINVAL : slim_pshared_error(pshared);

    if (error == 0)
        attr->__pshared = pshared;
    return error;
}

int pthread_barrierattr_getpshared(const pthread_barrierattr_t *attr, int *pshared)
{
    if (attr == NULL || pshared == NULL)
        return EINVAL;
    *pshared = attr->__pshared;
    return 0;
}
