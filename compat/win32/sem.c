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
 *
 * A process-shared semaphore (sem_init with pshared != 0) keeps the same words,
 * and in __named no pointer (each process maps it at its own address) but its
 * object id (shared.h) shifted left, tagged with the low bit, which no kernel
 * handle has (they are multiples of 4). So the private paths tell it by the
 * test they make already, __named != NULL, and only the calls that hand over
 * a named semaphore look at the tag. Its sleepers sleep on the doorbell of its
 * id instead of the address, and its posts ring the doorbell where a private
 * post wakes the address: one token where that wakes one. Where a private post
 * wakes all (it clears SLEEPERS), it rings once too: a token for every sleeper
 * would stay in the doorbell and make each later sleep a loop through them.
 * A sleeper the hint missed (it counted itself after the post read the count)
 * is covered by the waiter side instead: a waiter that leaves while others are
 * counted sets SLEEPERS again, so that the next post rings, and rings for the
 * tokens it finds there already (leave_shared_wait).
 */
#include "spin.h"
#include "sem_calls.h"
#include "shared.h"
#include "cancel_point.h"
#include "check.h"

SLIM_STATIC_ASSERT(sizeof(long) == 4, "the token count and its flag share one 32-bit word");
SLIM_STATIC_ASSERT(SEM_VALUE_MAX == LONG_MAX, "the tokens are the low 31 bits of the word");

#define TOKENS_MASK SEM_VALUE_MAX
#define SLEEPERS LONG_MIN /* the top bit */
#define SHARED_TAG ((uintptr_t)1) /* __named of a shared semaphore: id << 1 | this */

SLIM_STATIC_ASSERT(sizeof(void *) == sizeof(uintptr_t), "__named holds a tagged id as well");
SLIM_STATIC_ASSERT(sizeof(unsigned long) == 4, "an id is 32 bits; 31 of them survive on 32-bit");

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

/* The house's wait spin (spin.h) while no token is there: a poster on another
 * core is caught before the sleep, private or shared (a shared semaphore's
 * sleep costs system calls: its doorbell). Always inlined, so that the private
 * wait keeps its instructions. */
static inline __attribute__((always_inline)) void spin_while_no_token(sem_t *sem)
{
    struct slim_spin spin;

    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (tokens_of(slim_load_relaxed(&sem->__value)) == 0 && slim_spin_again(&spin))
        continue;
}

/* Sleeps until a token is ours (0) or the deadline passes (ETIMEDOUT); a
 * cancellable wait also ends with ECANCELED. Takes a token left at the deadline
 * rather than report a timeout next to it. */
int slim_sem_wait(sem_t *sem, const struct slim_deadline *deadline, enum slim_wait_kind kind)
{
    int error = 0;

    if (take_token(sem) == 0)
        return 0;
    spin_while_no_token(sem);
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

/* ---- Process-shared semaphores: the doorbell of their id ---- */

static int is_shared(const void *named)
{
    return ((uintptr_t)named & SHARED_TAG) != 0;
}

/* The id back from __named: all 32 bits on 64-bit Windows, the low 31 on
 * 32-bit, where two live shared semaphores whose ids differ in the top bit
 * alone (2^31 inits apart in one logon session) would share a doorbell. */
static void shared_bell(const void *named, struct slim_doorbell *bell)
{
    bell->object_id = (unsigned long)((uintptr_t)named >> 1);
    bell->generation = 0;
}

/* A waiter leaving while others are counted: SLEEPERS again (a post that woke
 * one of several may have cleared it), and a token for each sleeper the tokens
 * there can serve, since the posts that left them may have rung nobody. */
static void leave_shared_wait(sem_t *sem, const struct slim_doorbell *bell)
{
    long others = slim_decrement(&sem->__waiters), value;

    if (others <= 0)
        return;
    value = slim_load_relaxed(&sem->__value);
    while ((value & SLEEPERS) == 0) {
        if (slim_cas(&sem->__value, value, value | SLEEPERS)) {
            if (tokens_of(value) > 0)
                slim_doorbell_ring(bell, tokens_of(value) < others ? tokens_of(value) : others);
            return;
        }
        value = slim_load_relaxed(&sem->__value);
    }
}

/* slim_sem_wait's sleeping part on the doorbell, after a first try failed: 0,
 * ETIMEDOUT or ECANCELED; a token found at the end is taken, as there. */
static int shared_wait(sem_t *sem, const void *named, const struct slim_deadline *deadline)
{
    struct slim_doorbell bell;
    struct slim_wait_target target = {&sem->__value, SLEEPERS, NULL, &bell};
    int error, taken;

    shared_bell(named, &bell);
    for (;;) {
        slim_increment(&sem->__waiters);
        slim_cas(&sem->__value, 0, SLEEPERS);
        error = slim_wait(&target, deadline, SLIM_WAIT_CANCELLABLE);
        taken = take_token(sem) == 0;
        if (taken || error != 0) {
            leave_shared_wait(sem, &bell);
            return taken ? 0 : error;
        }
        slim_decrement(&sem->__waiters); /* another thread was quicker */
    }
}

/* A post's exchange: one token more, SLEEPERS kept while another sleeper is
 * counted; *value gets the word replaced, *desired the word written. 0, or
 * EOVERFLOW at SEM_VALUE_MAX with nothing changed. */
static inline int add_token(sem_t *sem, long *value, long *desired)
{
    long waiters;

    do {
        /* Read before the CAS: after it, this semaphore may be gone. */
        waiters = slim_load_relaxed(&sem->__waiters);
        *value = slim_load_relaxed(&sem->__value);
        if (tokens_of(*value) == SEM_VALUE_MAX)
            return EOVERFLOW;
        *desired = *value + 1;
        if (waiters <= 1)
            *desired = tokens_of(*desired);
    } while (!slim_cas(&sem->__value, *value, *desired));
    return 0;
}

/* slim_sem_post's twin: named (the tagged id) read before the exchange. */
static int shared_post(sem_t *sem, const void *named)
{
    struct slim_doorbell bell;
    long value, desired;

    shared_bell(named, &bell);
    if (add_token(sem, &value, &desired) != 0)
        return EOVERFLOW;
    if (value & SLEEPERS)
        slim_doorbell_ring(&bell, 1);
    return 0;
}

int slim_sem_post(sem_t *sem)
{
    long value, desired;

    if (add_token(sem, &value, &desired) != 0)
        return EOVERFLOW;
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

/* A semaphore whose __named is set, named (a handle) or shared (tagged): one
 * wait (try_only: no sleep), 0 or the errno; a cancellation request acts. */
static int __attribute__((noinline))
other_wait(sem_t *sem, const struct slim_deadline *deadline, int try_only)
{
    const void *named = sem->__named;
    int error;

    if (!is_shared(named))
        return slim_sem_named_wait(sem, deadline, try_only);
    if (take_token(sem) == 0)
        return 0;
    if (try_only)
        return EAGAIN;
    spin_while_no_token(sem);
    if (take_token(sem) == 0)
        return 0;
    error = shared_wait(sem, named, deadline);
    if (error == ECANCELED)
        slim_cancel_act();
    return error;
}

/* sem_post and sem_getvalue of a semaphore whose __named is set: 0 or the
 * errno. Out of line, as other_wait: the private paths keep their code. */
static int __attribute__((noinline)) other_post(sem_t *sem)
{
    const void *named = sem->__named;

    return is_shared(named) ? shared_post(sem, named) : slim_sem_named_post(sem);
}

static int __attribute__((noinline)) other_getvalue(sem_t *sem, int *value)
{
    if (!is_shared(sem->__named))
        return slim_sem_named_getvalue(sem, value);
    *value = (int)tokens_of(slim_load_relaxed(&sem->__value));
    return 0;
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
    unsigned long id = 0;
    int error;

    if (sem == NULL || value > (unsigned int)SEM_VALUE_MAX)
        return slim_fail(EINVAL);
    /* POSIX names ENOSPC for a system out of what a semaphore needs. */
    if (pshared != 0 && (error = slim_shared_id_new(&id)) != 0)
        return slim_fail(error == EPERM ? EPERM : ENOSPC);
    sem->__value = (long)value;
    sem->__waiters = 0;
    sem->__named = pshared != 0 ? (void *)(((uintptr_t)id << 1) | SHARED_TAG) : NULL;
    return 0;
}

static int do_destroy(sem_t *sem)
{
    /* A named one ends with sem_close. */
    if (sem == NULL || (sem->__named != NULL && !is_shared(sem->__named)))
        return slim_fail(EINVAL);
    /* Threads still inside a sleeping wait, in any process for a shared one:
     * POSIX leaves this undefined; say so. */
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
        return named_result(other_wait(sem, NULL, 1));
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
        return named_result(other_wait(sem, NULL, 0));
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
    if (sem->__named != NULL ? other_wait(sem, NULL, 1) == 0 : take_token(sem) == 0)
        return 0;
    error = slim_deadline_absolute(&deadline, clock, abstime);
    if (error != 0)
        return slim_fail(error);
    if (sem->__named != NULL)
        return named_result(other_wait(sem, &deadline, 0));
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
        return named_result(other_post(sem));
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
        return named_result(other_getvalue(sem, value));
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
