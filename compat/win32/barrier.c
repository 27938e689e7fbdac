/*
 * barrier.c - pthread_barrier_t on words waited on with WaitOnAddress.
 *
 * __arrived is a ticket counter: every caller takes the next ticket with one
 * CAS, and the ticket alone says which round the caller belongs to (ticket /
 * count) and whether it completes that round (the last ticket of it). Rounds
 * are therefore exact: a thread that arrives while the previous round is being
 * released simply holds a ticket of the next round, however late the serial
 * thread of the old round is. The counter wraps at the largest multiple of the
 * count that fits in 32 bits, so ticket / count stays meaningful across the
 * wrap; a waiter sees its round complete once the counter is at least count
 * tickets past the first ticket of its round (modulo the wrap: only a waiter
 * asleep through about 2^32 arrivals could be confused).
 * Waiters sleep on __arrived itself (arrivals change it but wake nobody); the
 * thread that takes the last ticket of a round wakes them all by address and
 * returns PTHREAD_BARRIER_SERIAL_THREAD. __round counts completed rounds, for
 * debuggers only.
 *
 * Destroy and the rule of release: __inside counts threads between entry and
 * exit (its low bits) plus DESTROYER_WAITING once pthread_barrier_destroy waits
 * for it to drain, as the serial thread may destroy the barrier at once (like
 * glibc) while released waiters are still leaving. A leaving thread's last
 * access is its decrement; from the value it returned alone it knows whether
 * it was the last one a destroyer waits for, and then wakes it by address.
 * Destroy refuses, with EBUSY, a barrier whose current round has arrivals.
 * __threads_per_round is 0 when destroyed.
 *
 * Process-shared barriers keep the same tickets, rounds and __inside, with
 * SHARED_BARRIER set in __threads_per_round (a count is at most LONG_MAX, so
 * the top bit is free) and the object id (shared.h) in __round, which no
 * longer counts rounds. The private wait's own test of the count (0: destroyed)
 * becomes a signed one, which a shared barrier fails too; there it takes the
 * shared way. WaitOnAddress wakes only its own process, so waiters of round r
 * sleep on the doorbell of generation r (round = first ticket / count, distinct
 * for consecutive rounds), and the last arriver leaves count - 1 tokens there:
 * a waiter of the next round sleeps on another doorbell and cannot take them.
 * A shared destroy cannot be woken by address from another process: it naps
 * and looks at __inside until the released waiters have left, and gives up
 * with EBUSY (the barrier usable again) after SHARED_DRAIN_LIMIT_MS, when a
 * process has ended inside the barrier.
 */
#include "atomic.h"
#include "wait.h"
#include "shared.h"
#include "check.h"

/* The top bit of __inside: a destroyer sleeps until the count below it is 0. */
#define DESTROYER_WAITING LONG_MIN
#define INSIDE_COUNT_MASK LONG_MAX

/* The top bit of __threads_per_round: process-shared. */
#define SHARED_BARRIER INT_MIN
SLIM_STATIC_ASSERT(LONG_MAX <= INT_MAX, "a count leaves the top bit free");
/* A shared destroy's look at the threads still leaving, and its patience. */
#define SHARED_DRAIN_NAP_MS 1
#define SHARED_DRAIN_LIMIT_MS 5000

/* __threads_per_round as atomic.h's int word (C lets an unsigned object be
 * reached as its int); the checker's look passes a const barrier, and only reads. */
static volatile int *round_size(const pthread_barrier_t *barrier)
{
    return (volatile int *)&barrier->__threads_per_round;
}

static void leave_barrier(pthread_barrier_t *barrier)
{
    if (slim_decrement(&barrier->__inside) == DESTROYER_WAITING)
        slim_wake_all(&barrier->__inside);
}

/* Tickets run from 0 to wrap - 1: the largest multiple of count below 2^32. */
static unsigned long long ticket_wrap(unsigned count)
{
    return (0x100000000ULL / count) * count;
}

/* Takes the next ticket. */
static unsigned long take_ticket(pthread_barrier_t *barrier, unsigned long long wrap)
{
    for (;;) {
        unsigned long ticket = (unsigned long)slim_load_relaxed(&barrier->__arrived);
        unsigned long long next = (unsigned long long)ticket + 1;

        if (next == wrap)
            next = 0;
        if (slim_cas(&barrier->__arrived, (long)ticket, (long)(unsigned long)next))
            return ticket;
    }
}

/* Nonzero once the counter (now) is count or more tickets past first. */
static int round_complete(unsigned long now, unsigned long first, unsigned count,
                          unsigned long long wrap)
{
    unsigned long long passed = ((unsigned long long)now + wrap - first) % wrap;

    return passed >= count;
}

int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr,
                         unsigned count)
{
    int size = (int)count;
    unsigned long id = 0;
    int error;

    if (barrier == NULL || count == 0 || count > LONG_MAX)
        return EINVAL;
    if (attr != NULL && attr->__pshared != PTHREAD_PROCESS_PRIVATE) {
        if (attr->__pshared != PTHREAD_PROCESS_SHARED)
            return EINVAL; /* only a garbage attribute object can hold anything else */
        if ((error = slim_shared_id_new(&id)) != 0)
            return error == ENOMEM ? ENOMEM : EAGAIN; /* pthread_barrier_init's words */
        size |= SHARED_BARRIER;
    }
    barrier->__arrived = 0;
    barrier->__round = (long)id;
    barrier->__inside = 0;
    slim_int_store_release(round_size(barrier), size);
    return 0;
}

/* ---- Process-shared barriers ---- */

/* A shared barrier's leaver: no wake, its destroyer looks (shared_destroy). */
static void shared_leave(pthread_barrier_t *barrier)
{
    slim_decrement(&barrier->__inside);
}

/* The wait of a shared barrier of count threads per round (the caller is
 * counted inside). Out of line, so that the private wait's code stays its own. */
static __attribute__((noinline, cold)) int shared_wait(pthread_barrier_t *barrier, unsigned count)
{
    unsigned long long wrap = ticket_wrap(count);
    unsigned long ticket, first, now;
    struct slim_doorbell bell;
    struct slim_wait_target target;

    bell.object_id = (unsigned long)slim_load_relaxed(&barrier->__round); /* written at init */
    ticket = take_ticket(barrier, wrap);
    first = ticket - ticket % count;
    bell.generation = first / count;
    if (ticket % count == count - 1) {
        if (count > 1)
            slim_doorbell_ring(&bell, (long)(count - 1));
        shared_leave(barrier);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    target.handle = NULL;
    target.doorbell = &bell;
    target.word = &barrier->__arrived;
    while (!round_complete(now = (unsigned long)slim_load_acquire(&barrier->__arrived), first,
                           count, wrap)) {
        target.expected = (long)now;
        slim_wait(&target, NULL, SLIM_WAIT_PLAIN);
    }
    shared_leave(barrier);
    return 0;
}

/* Nonzero once no thread is inside, within SHARED_DRAIN_LIMIT_MS. */
static int shared_drained(pthread_barrier_t *barrier)
{
    unsigned waited_ms = 0;

    while (slim_load_seq_cst(&barrier->__inside) != 0) {
        if (waited_ms >= SHARED_DRAIN_LIMIT_MS)
            return 0;
        slim_nap_ms(SHARED_DRAIN_NAP_MS);
        waited_ms += SHARED_DRAIN_NAP_MS;
    }
    return 1;
}

/* Destroy of a shared barrier (size: its __threads_per_round). */
static int shared_destroy(pthread_barrier_t *barrier, int size)
{
    unsigned count = (unsigned)(size & ~SHARED_BARRIER);

    if ((unsigned long)slim_load_acquire(&barrier->__arrived) % count != 0)
        return EBUSY; /* the current round has arrivals */
    slim_int_store_seq_cst(round_size(barrier), 0);
    if (shared_drained(barrier))
        return 0;
    slim_int_store_seq_cst(round_size(barrier), size); /* a thread stays inside */
    return EBUSY;
}

/* ---- Private barriers, and the calls ---- */

static int do_wait(pthread_barrier_t *barrier)
{
    unsigned count;
    int size;
    unsigned long long wrap;
    unsigned long ticket, first, now;

    slim_increment(&barrier->__inside);
    size = slim_int_load_seq_cst(round_size(barrier));
    if (__builtin_expect(size <= 0, 0)) { /* destroyed, or shared */
        if (size != 0)
            return shared_wait(barrier, (unsigned)(size & ~SHARED_BARRIER));
        leave_barrier(barrier);
        return EINVAL;
    }
    count = (unsigned)size;
    wrap = ticket_wrap(count);
    ticket = take_ticket(barrier, wrap);
    first = ticket - ticket % count;
    if (ticket % count == count - 1) {
        slim_increment(&barrier->__round);
        slim_wake_all(&barrier->__arrived);
        leave_barrier(barrier);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    while (!round_complete(now = (unsigned long)slim_load_acquire(&barrier->__arrived), first,
                           count, wrap))
        slim_wait_on(&barrier->__arrived, (long)now, NULL, SLIM_WAIT_PLAIN);
    leave_barrier(barrier);
    return 0;
}

int pthread_barrier_wait(pthread_barrier_t *barrier)
{
    struct slim_check_call call;

    slim_hook_barrier_begin(&call, SLIM_CHECK_SITE(), barrier);
    return slim_hook_end(&call, do_wait(barrier));
}

static int do_destroy(pthread_barrier_t *barrier)
{
    unsigned count;
    int size;
    long inside;

    if (barrier == NULL || (size = slim_int_load_seq_cst(round_size(barrier))) == 0)
        return EINVAL;
    if (size < 0)
        return shared_destroy(barrier, size);
    count = (unsigned)size;
    if ((unsigned long)slim_load_acquire(&barrier->__arrived) % count != 0)
        return EBUSY; /* the current round has arrivals */
    slim_int_store_seq_cst(round_size(barrier), 0);
    inside = slim_add(&barrier->__inside, DESTROYER_WAITING);
    while ((inside & INSIDE_COUNT_MASK) != 0) {
        slim_wait_on(&barrier->__inside, inside, NULL, SLIM_WAIT_PLAIN);
        inside = slim_load_acquire(&barrier->__inside);
    }
    slim_store_release(&barrier->__inside, 0);
    return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *barrier)
{
    struct slim_check_call call;

    slim_hook_barrier_begin(&call, SLIM_CHECK_SITE(), barrier);
    return slim_hook_waited_destroyed(&call, do_destroy(barrier));
}

/* No threads per round: destroyed, or never initialized (zero-filled).
 * For check.h's hooks; the normal build never calls it. */
int slim_barrier_check_kind(const pthread_barrier_t *barrier)
{
    if (barrier == NULL || slim_int_load_relaxed(round_size(barrier)) != 0)
        return SLIM_CHECK_BARRIER;
    return SLIM_CHECK_BARRIER | SLIM_CHECK_UNUSABLE;
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

#include "code_end.h"
