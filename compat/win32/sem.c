/*
 * sem.c - unnamed POSIX semaphores: a count in user memory that sleeps with
 * WaitOnAddress and wakes with WakeByAddress. No kernel object, no global lock.
 *
 * One word, sem->__value (a 32-bit long), holds everything sem_post needs:
 *   low 31 bits  TOKENS, 0 .. SEM_VALUE_MAX
 *   top bit      SLEEPERS: somebody may be asleep, so sem_post must wake
 * sem->__waiters counts threads in the sleeping part of a wait: only a hint,
 * read by sem_post to choose between waking one and waking all.
 *
 * Who wakes whom, and why no wakeup is lost:
 * - A waiter that finds no token counts itself in __waiters, sets SLEEPERS
 *   (CAS 0 -> SLEEPERS) and sleeps only while the word is exactly SLEEPERS
 *   (no token, flag set): WaitOnAddress compares and sleeps atomically with
 *   respect to wakes, so a post that adds a token either happens before the
 *   compare (no sleep) or finds the flag and wakes it.
 * - A post that finds SLEEPERS wakes. With more than one waiter counted it
 *   keeps the flag and wakes one: the next post wakes the next. Otherwise it
 *   clears the flag and wakes all, so that a waiter the hint missed (it counted
 *   itself after the post read the count) is woken too.
 * - A woken waiter takes a token like anybody else (no hand-over: semaphores
 *   promise no fairness) and sleeps again if another thread was quicker.
 * sem_post reads __waiters BEFORE its CAS on __value, and afterwards uses the
 * address only as a key for the wake: a waiter that got its token may destroy
 * or free the semaphore at once while sem_post is still running (the shape of
 * glibc bug 12674).
 *
 * sem_wait, sem_timedwait and sem_clockwait are cancellation points that act
 * on a pending request at entry, token or not (slim_cancel_point_entry);
 * sem_trywait is none.
 *
 * Named semaphores (sem_open) live in sem_named.c: sem->__named holds their
 * kernel handle, and every sem_* call here checks it first (one load on the
 * unnamed path) and hands a named one over.
 */
#include "spin.h"
#include "sem_calls.h"
#include "cancel_point.h"
#include "check.h"

SLIM_STATIC_ASSERT(sizeof(long) == 4, "the token count and its flag share one 32-bit word");
SLIM_STATIC_ASSERT(SEM_VALUE_MAX == LONG_MAX, "the tokens are the low 31 bits of the word");

#define TOKENS_MASK SEM_VALUE_MAX
#define SLEEPERS LONG_MIN /* the top bit */

static long tokens_of(long value)
{
    return value & TOKENS_MASK;
}

/* One token if there is one: 0, else EAGAIN. Keeps the SLEEPERS flag. */
static int take_token(sem_t *sem)
{
    long value = slim_load_relaxed(&sem->__value);

    while (tokens_of(value) > 0) {
        if (slim_cas(&sem->__value, value, value - 1))
            return 0;
        value = slim_load_relaxed(&sem->__value);
    }
    return EAGAIN;
}

/* Sleeps until a token is ours (0) or the deadline passes (ETIMEDOUT); a
 * cancellable wait also ends with ECANCELED. Takes a token left at the deadline
 * rather than report a timeout next to it. */
int slim_sem_wait(sem_t *sem, const struct slim_deadline *deadline, enum slim_wait_kind kind)
{
    struct slim_spin spin;
    int error = 0;

    if (take_token(sem) == 0)
        return 0;
    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (tokens_of(slim_load_relaxed(&sem->__value)) == 0 && slim_spin_again(&spin))
        continue;
    for (;;) {
        if (take_token(sem) == 0)
            return 0;
        if (error == ETIMEDOUT || error == ECANCELED)
            return error;
        slim_increment(&sem->__waiters);
        slim_cas(&sem->__value, 0, SLEEPERS);
        error = slim_wait_on(&sem->__value, SLEEPERS, deadline, kind);
        slim_decrement(&sem->__waiters);
    }
}

int slim_sem_post(sem_t *sem)
{
    long value, desired, waiters;

    do {
        /* Read before the CAS: after it, this semaphore may be gone. */
        waiters = slim_load_relaxed(&sem->__waiters);
        value = slim_load_relaxed(&sem->__value);
        if (tokens_of(value) == SEM_VALUE_MAX)
            return EOVERFLOW;
        desired = value + 1;
        if (waiters <= 1)
            desired = tokens_of(desired);
    } while (!slim_cas(&sem->__value, value, desired));
    if (value & SLEEPERS) {
        if (desired & SLEEPERS)
            slim_wake_one(&sem->__value);
        else
            slim_wake_all(&sem->__value);
    }
    return 0;
}

/* A named semaphore's 0 or errno as the POSIX call reports it. */
static int named_result(int error)
{
    return error == 0 ? 0 : slim_fail(error);
}

/* An unnamed semaphore's blocking wait, as a cancellation point: acts on a
 * cancellation request (which never takes a token) or returns 0 / -1 + errno. */
static int unnamed_wait(sem_t *sem, const struct slim_deadline *deadline)
{
    int error = slim_sem_wait(sem, deadline, SLIM_WAIT_CANCELLABLE);

    if (error == ECANCELED)
        slim_cancel_act();
    return error == 0 ? 0 : slim_fail(error);
}

/* ---- Unnamed semaphores ---- */

int sem_init(sem_t *sem, int pshared, unsigned int value)
{
    if (sem == NULL || value > (unsigned int)SEM_VALUE_MAX)
        return slim_fail(EINVAL);
    /* The word lives in this process's memory and WaitOnAddress does not cross
     * processes: POSIX's answer for "no process-shared semaphores". */
    if (pshared != 0)
        return slim_fail(ENOSYS);
    sem->__value = (long)value;
    sem->__waiters = 0;
    sem->__named = NULL;
    return 0;
}

static int do_destroy(sem_t *sem)
{
    if (sem == NULL || sem->__named != NULL) /* a named one ends with sem_close */
        return slim_fail(EINVAL);
    /* Threads still inside a sleeping wait: POSIX leaves this undefined; say so. */
    if (slim_load_acquire(&sem->__waiters) != 0)
        return slim_fail(EBUSY);
    /* Nothing here marks a semaphore destroyed; the checked build does, in
     * the waiter count (a negative one only makes sem_post wake all), so
     * that a later use is reported. */
    slim_hook_sem_destroyed(sem);
    return 0;
}

int sem_destroy(sem_t *sem)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_destroy(sem));
}

/* A negative waiter count: destroyed (the checked build's mark), or never
 * initialized. */
int slim_sem_check_kind(const sem_t *sem)
{
    if (sem == NULL || sem->__named != NULL ||
        slim_load_relaxed((volatile long *)&sem->__waiters) >= 0)
        return SLIM_CHECK_SEMAPHORE;
    return SLIM_CHECK_SEMAPHORE | SLIM_CHECK_UNUSABLE;
}

static int do_trywait(sem_t *sem)
{
    if (sem == NULL)
        return slim_fail(EINVAL);
    if (sem->__named != NULL)
        return named_result(slim_sem_named_wait(sem, NULL, 1));
    return take_token(sem) == 0 ? 0 : slim_fail(EAGAIN);
}

int sem_trywait(sem_t *sem)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_trywait(sem));
}

static int do_wait(sem_t *sem)
{
    slim_cancel_point_entry();
    if (sem == NULL)
        return slim_fail(EINVAL);
    if (sem->__named != NULL)
        return named_result(slim_sem_named_wait(sem, NULL, 0));
    if (take_token(sem) == 0)
        return 0;
    return unnamed_wait(sem, NULL);
}

int sem_wait(sem_t *sem)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_wait(sem));
}

static int do_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error;

    slim_cancel_point_entry();
    if (sem == NULL || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
        return slim_fail(EINVAL);
    /* POSIX: abstime need not be checked when the wait would not block. */
    if (sem->__named != NULL ? slim_sem_named_wait(sem, NULL, 1) == 0 : take_token(sem) == 0)
        return 0;
    error = slim_deadline_absolute(&deadline, clock, abstime);
    if (error != 0)
        return slim_fail(error);
    if (sem->__named != NULL)
        return named_result(slim_sem_named_wait(sem, &deadline, 0));
    return unnamed_wait(sem, &deadline);
}

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_clockwait(sem, clock, abstime));
}

int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_clockwait(sem, CLOCK_REALTIME, abstime));
}

static int do_post(sem_t *sem)
{
    int error;

    if (sem == NULL)
        return slim_fail(EINVAL);
    if (sem->__named != NULL)
        return named_result(slim_sem_named_post(sem));
    error = slim_sem_post(sem);
    return error == 0 ? 0 : slim_fail(error);
}

int sem_post(sem_t *sem)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_post(sem));
}

static int do_getvalue(sem_t *sem, int *value)
{
    if (sem == NULL || value == NULL)
        return slim_fail(EINVAL);
    if (sem->__named != NULL)
        return named_result(slim_sem_named_getvalue(sem, value));
    /* Like glibc: 0, never a negative count, while threads wait. */
    *value = (int)tokens_of(slim_load_relaxed(&sem->__value));
    return 0;
}

int sem_getvalue(sem_t *sem, int *value)
{
    struct slim_check_call call;

    slim_hook_sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_hook_end(&call, do_getvalue(sem, value));
}

#include "code_end.h"
