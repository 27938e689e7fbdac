/*
 * test_cond.c - pthread_cond_* and pthread_condattr_*.
 *
 * Threads come from _beginthreadex so that these tests do not depend on
 * pthread_create; hand-offs between the test's own threads use semaphores
 * (tested in test_sem). Helper threads never call CUnit: they record what they
 * saw and the main thread asserts. Waits that would hang on a lost wakeup are
 * timed, generously, so that a lost wakeup fails a case instead of the run.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define JOIN_TIMEOUT_MS 20000
/* A bound for waits that must be woken: long enough never to pass by itself. */
#define MUST_WAKE_MS 10000

static struct timespec must_wake_deadline(void)
{
    return slimtest_time_after_ms(CLOCK_REALTIME, MUST_WAKE_MS);
}

static void init_mutex_of_kind(pthread_mutex_t *mutex, int kind)
{
    pthread_mutexattr_t attr;

    CU_ASSERT_EQUAL_FATAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutexattr_settype(&attr, kind), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(mutex, &attr), 0);
    pthread_mutexattr_destroy(&attr);
}

/* Polls, under the mutex, until *counter reaches target (bounded). A waiter
 * that bumped the counter under the mutex and then called wait is queued once
 * we hold the mutex and see its bump: wait queues before it unlocks. */
static int await_count(pthread_mutex_t *mutex, volatile long *counter, long target)
{
    double give_up = slimtest_now_ms() + MUST_WAKE_MS;

    for (;;) {
        long seen;

        pthread_mutex_lock(mutex);
        seen = *counter;
        pthread_mutex_unlock(mutex);
        if (seen >= target)
            return 1;
        if (slimtest_now_ms() > give_up)
            return 0;
        slimtest_sleep_ms(1);
    }
}

/* ---- Attributes ---- */

static void test_condattr(void)
{
    pthread_condattr_t attr;
    clockid_t clock = -1;
    int pshared = -1;

    CU_ASSERT_EQUAL(pthread_condattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_getclock(&attr, &clock), 0);
    CU_ASSERT_EQUAL(clock, CLOCK_REALTIME);
    CU_ASSERT_EQUAL(pthread_condattr_getpshared(&attr, &pshared), 0);
    CU_ASSERT_EQUAL(pshared, PTHREAD_PROCESS_PRIVATE);

    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), 0);
    CU_ASSERT_EQUAL(pthread_condattr_getclock(&attr, &clock), 0);
    CU_ASSERT_EQUAL(clock, CLOCK_MONOTONIC);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, CLOCK_REALTIME), 0);
    CU_ASSERT_EQUAL(pthread_condattr_getclock(&attr, &clock), 0);
    CU_ASSERT_EQUAL(clock, CLOCK_REALTIME);
    CU_ASSERT_EQUAL(pthread_condattr_setpshared(&attr, PTHREAD_PROCESS_PRIVATE), 0);
    CU_ASSERT_EQUAL(pthread_condattr_destroy(&attr), 0);
}

static void test_condattr_errors(void)
{
    pthread_condattr_t attr;
    clockid_t clock = CLOCK_MONOTONIC;
    int pshared;

    CU_ASSERT_EQUAL(pthread_condattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, CLOCK_PROCESS_CPUTIME_ID), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, CLOCK_THREAD_CPUTIME_ID), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, 4242), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_getclock(&attr, &clock), 0);
    CU_ASSERT_EQUAL(clock, CLOCK_REALTIME); /* unchanged by the failures */

    SLIMTEST_CHECK_PSHARED(pthread_condattr_getpshared, pthread_condattr_setpshared, &attr, 7);
    CU_ASSERT_EQUAL(pthread_condattr_getpshared(&attr, &pshared), 0);
    CU_ASSERT_EQUAL(pshared, PTHREAD_PROCESS_PRIVATE);

    CU_ASSERT_EQUAL(pthread_condattr_init(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_destroy(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(NULL, CLOCK_REALTIME), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_getclock(NULL, &clock), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_getclock(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_setpshared(NULL, PTHREAD_PROCESS_PRIVATE), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_getpshared(NULL, &pshared), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_getpshared(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_condattr_destroy(&attr), 0);
}

/* ---- Life cycle, single-threaded ---- */

static void test_init_destroy(void)
{
    pthread_cond_t cond;
    pthread_condattr_t attr;

    CU_ASSERT_EQUAL(pthread_cond_init(&cond, NULL), 0);
    CU_ASSERT_EQUAL(pthread_cond_signal(&cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);

    CU_ASSERT_EQUAL(pthread_condattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), 0);
    CU_ASSERT_EQUAL(pthread_cond_init(&cond, &attr), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
    CU_ASSERT_EQUAL(pthread_condattr_destroy(&attr), 0);
}

static void test_null_arguments(void)
{
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    struct timespec at = slimtest_time_after_ms(CLOCK_REALTIME, 1000);

    CU_ASSERT_EQUAL(pthread_cond_init(NULL, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_destroy(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_signal(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_wait(NULL, &mutex), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_wait(&cond, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(NULL, &mutex, &at), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, NULL, &at), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_clockwait(NULL, &mutex, CLOCK_REALTIME, &at), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_clockwait(&cond, NULL, CLOCK_REALTIME, &at), EINVAL);
}

/* A timed wait that must time out, not early on its own clock, with the mutex
 * held again afterwards (an errorcheck mutex tells). */
static void expect_timeout(pthread_cond_t *cond, clockid_t clock, int use_clockwait)
{
    pthread_mutex_t mutex;
    struct timespec at = slimtest_time_after_ms(clock, 60);

    init_mutex_of_kind(&mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    if (use_clockwait) {
        CU_ASSERT_EQUAL(pthread_cond_clockwait(cond, &mutex, clock, &at), ETIMEDOUT);
    } else {
        CU_ASSERT_EQUAL(pthread_cond_timedwait(cond, &mutex, &at), ETIMEDOUT);
    }
    CU_ASSERT(slimtest_clock_reached(clock, &at));
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0); /* held again */
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(cond), 0); /* the timed-out node is gone */
}

static void test_static_and_zero_filled(void)
{
    pthread_cond_t by_initializer = PTHREAD_COND_INITIALIZER;
    pthread_cond_t zero_filled;

    memset(&zero_filled, 0, sizeof zero_filled);
    CU_ASSERT_EQUAL(pthread_cond_signal(&by_initializer), 0);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&zero_filled), 0);
    expect_timeout(&by_initializer, CLOCK_REALTIME, 0);
    expect_timeout(&zero_filled, CLOCK_REALTIME, 0); /* the zero clock is REALTIME */
}

static void test_timedwait_etimedout(void)
{
    pthread_cond_t cond;
    pthread_condattr_t attr;

    CU_ASSERT_EQUAL(pthread_cond_init(&cond, NULL), 0);
    expect_timeout(&cond, CLOCK_REALTIME, 0);

    CU_ASSERT_EQUAL(pthread_condattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), 0);
    CU_ASSERT_EQUAL(pthread_cond_init(&cond, &attr), 0);
    expect_timeout(&cond, CLOCK_MONOTONIC, 0); /* the deadline is on the cond's clock */
    pthread_condattr_destroy(&attr);
}

/* A wait marks its mutex as it releases it (its waiters then take over
 * eagerly, mutex.c); init starts every mutex unmarked. */
static void test_wait_marks_its_mutex(void)
{
    pthread_mutex_t by_initializer = PTHREAD_MUTEX_INITIALIZER, mutex;
    pthread_cond_t cond;
    struct timespec past = {0, 0};

    CU_ASSERT_EQUAL(by_initializer.__cond_waited, 0);
    CU_ASSERT_EQUAL(pthread_cond_init(&cond, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, NULL), 0);
    CU_ASSERT_EQUAL(mutex.__cond_waited, 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, &past), ETIMEDOUT);
    CU_ASSERT_NOT_EQUAL(mutex.__cond_waited, 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, NULL), 0);
    CU_ASSERT_EQUAL(mutex.__cond_waited, 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
}

static void test_clockwait_etimedout(void)
{
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

    expect_timeout(&cond, CLOCK_MONOTONIC, 1);
    expect_timeout(&cond, CLOCK_REALTIME, 1);
}

static void test_timed_einval(void)
{
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    pthread_mutex_t mutex;
    struct timespec bad = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec good = bad;

    init_mutex_of_kind(&mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    bad.tv_nsec = 1000000000L;
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, &bad), EINVAL);
    bad.tv_nsec = -1;
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, &bad), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &bad), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_clockwait(&cond, &mutex, CLOCK_PROCESS_CPUTIME_ID, &good),
                    EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_clockwait(&cond, &mutex, 4242, &good), EINVAL);
    /* None of them let go of the mutex or left a waiter behind. */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

static void test_errorcheck_not_held_eperm(void)
{
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    pthread_mutex_t mutex;
    struct timespec at = slimtest_time_after_ms(CLOCK_REALTIME, 5000);

    init_mutex_of_kind(&mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL(pthread_cond_wait(&cond, &mutex), EPERM);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, &at), EPERM);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0); /* no waiter left queued */
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

/* ---- Waking ---- */

struct flagged {
    pthread_cond_t cond;
    pthread_mutex_t mutex;
    volatile long waiting;   /* waiters that have entered the wait (under the mutex) */
    volatile long flag;      /* the predicate */
    volatile long woken;
    volatile long result;
    int use_timedwait;
};

static void wait_for_flag(void *raw)
{
    struct flagged *shared = raw;
    int result = 0;

    pthread_mutex_lock(&shared->mutex);
    shared->waiting++;
    while (!shared->flag && result == 0) {
        struct timespec at = must_wake_deadline();

        result = shared->use_timedwait ? pthread_cond_timedwait(&shared->cond, &shared->mutex, &at)
                                       : pthread_cond_wait(&shared->cond, &shared->mutex);
    }
    shared->result = result;
    shared->woken++;
    pthread_mutex_unlock(&shared->mutex);
}

/* Clears shared for one waiter and gives it a fresh condvar; the caller
 * initializes the mutex. */
static void init_flagged(struct flagged *shared, int use_timedwait)
{
    memset(shared, 0, sizeof *shared);
    shared->use_timedwait = use_timedwait;
    shared->result = -1;
    CU_ASSERT_EQUAL(pthread_cond_init(&shared->cond, NULL), 0);
}

/* Starts a waiter for shared's flag; returns once it is inside the wait. */
static struct slimtest_thread *start_flag_waiter(struct flagged *shared)
{
    struct slimtest_thread *thread = slimtest_start_thread(wait_for_flag, shared);

    CU_ASSERT_FATAL(await_count(&shared->mutex, &shared->waiting, 1));
    return thread;
}

/* Joins the waiter that the flag and a signal woke: it returned 0, once. Then
 * destroys the condvar and the mutex. */
static void join_woken_waiter(struct flagged *shared, struct slimtest_thread *thread)
{
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(shared->result, 0);
    CU_ASSERT_EQUAL(shared->woken, 1);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&shared->cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared->mutex), 0);
}

/* The mark is there while the waiter still sleeps, so that its relock after
 * the first wake spins as a condvar's waiter does (mutex.c): whoever locks the
 * mutex after the wait released it sees it. */
static void test_mutex_marked_before_the_wake(void)
{
    struct flagged shared;
    struct slimtest_thread *thread;

    init_flagged(&shared, 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(&shared.mutex, NULL), 0);
    CU_ASSERT_EQUAL(shared.mutex.__cond_waited, 0);
    thread = start_flag_waiter(&shared);

    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared.mutex), 0);
    CU_ASSERT_NOT_EQUAL(shared.mutex.__cond_waited, 0); /* the waiter is still asleep */
    shared.flag = 1;
    CU_ASSERT_EQUAL(pthread_cond_signal(&shared.cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared.mutex), 0);
    join_woken_waiter(&shared, thread);
}

static void check_wakes_waiter(int kind, int signal_holding_mutex, int use_timedwait)
{
    struct flagged shared;
    struct slimtest_thread *thread;

    init_flagged(&shared, use_timedwait);
    init_mutex_of_kind(&shared.mutex, kind);
    thread = start_flag_waiter(&shared);

    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared.mutex), 0);
    shared.flag = 1;
    if (signal_holding_mutex) {
        CU_ASSERT_EQUAL(pthread_cond_signal(&shared.cond), 0);
    }
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared.mutex), 0);
    if (!signal_holding_mutex) {
        CU_ASSERT_EQUAL(pthread_cond_signal(&shared.cond), 0);
    }
    join_woken_waiter(&shared, thread);
}

/* The wakes tried: the waiter's mutex kind (a recursive one held once), whether
 * the signal is sent holding the mutex, and whether the waiter waits timed. */
static const struct wake_case {
    int kind, signal_holding_mutex, use_timedwait;
} wake_cases[] = {
    {PTHREAD_MUTEX_DEFAULT, 1, 0},    {PTHREAD_MUTEX_NORMAL, 1, 1},
    {PTHREAD_MUTEX_DEFAULT, 0, 0},    {PTHREAD_MUTEX_DEFAULT, 0, 1},
    {PTHREAD_MUTEX_RECURSIVE, 1, 0},  {PTHREAD_MUTEX_RECURSIVE, 0, 1},
    {PTHREAD_MUTEX_ERRORCHECK, 1, 1}, {PTHREAD_MUTEX_ERRORCHECK, 0, 0},
};

static void test_signal_wakes_waiter(void)
{
    size_t i;

    for (i = 0; i < sizeof wake_cases / sizeof wake_cases[0]; i++)
        check_wakes_waiter(wake_cases[i].kind, wake_cases[i].signal_holding_mutex,
                           wake_cases[i].use_timedwait);
}

static void test_destroy_ebusy_with_waiter(void)
{
    struct flagged shared;
    struct slimtest_thread *thread;

    init_flagged(&shared, 0);
    init_mutex_of_kind(&shared.mutex, PTHREAD_MUTEX_DEFAULT);
    thread = start_flag_waiter(&shared);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&shared.cond), EBUSY);

    pthread_mutex_lock(&shared.mutex);
    shared.flag = 1;
    pthread_mutex_unlock(&shared.mutex);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&shared.cond), 0);
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(shared.result, 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&shared.cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared.mutex), 0);
}

/* ---- Exact wake semantics ---- */

/* Waiter A is queued; the main thread, holding the mutex, signals and then
 * starts waiting itself (B) before A can run: A needs the mutex to return,
 * and B releases it only once queued. The signal was A's: B must time out. */
struct lone_waiter {
    pthread_cond_t *cond;
    pthread_mutex_t *mutex;
    volatile long waiting;
    volatile long result;
};

static void wait_once_unconditionally(void *raw)
{
    struct lone_waiter *waiter = raw;
    struct timespec at = must_wake_deadline();

    pthread_mutex_lock(waiter->mutex);
    waiter->waiting = 1;
    waiter->result = pthread_cond_timedwait(waiter->cond, waiter->mutex, &at);
    pthread_mutex_unlock(waiter->mutex);
}

static void test_later_waiter_cannot_steal_signal(void)
{
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    int round;

    for (round = 0; round < 5; round++) {
        struct lone_waiter a = {&cond, &mutex, 0, -1};
        struct timespec b_deadline;
        struct slimtest_thread *thread = slimtest_start_thread(wait_once_unconditionally, &a);

        CU_ASSERT_FATAL(await_count(&mutex, &a.waiting, 1));
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_cond_signal(&cond), 0);
        b_deadline = slimtest_time_after_ms(CLOCK_REALTIME, 150);
        CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, &b_deadline), ETIMEDOUT);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
        CU_ASSERT_EQUAL(a.result, 0);
    }
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
}

/* A broadcast wakes exactly the waiters queued when it was called: those that
 * start waiting after it stay asleep until the next one. */
#define EARLY_WAITERS 4
#define LATE_WAITERS 2
#define GENERATION_ROUNDS 10

struct generation {
    pthread_cond_t cond;
    pthread_mutex_t mutex;
    volatile long waiting[2];  /* [0] early, [1] late: entered the wait */
    volatile long returned[2];
    volatile long failures;    /* a wait that did not return 0 */
};

struct generation_member {
    struct generation *shared;
    int late;
};

static void wait_in_generation(void *raw)
{
    struct generation_member *member = raw;
    struct generation *shared = member->shared;
    struct timespec at = must_wake_deadline();

    pthread_mutex_lock(&shared->mutex);
    shared->waiting[member->late]++;
    if (pthread_cond_timedwait(&shared->cond, &shared->mutex, &at) != 0)
        shared->failures++;
    shared->returned[member->late]++;
    pthread_mutex_unlock(&shared->mutex);
}

static long returned_now(struct generation *shared, int late)
{
    long value;

    pthread_mutex_lock(&shared->mutex);
    value = shared->returned[late];
    pthread_mutex_unlock(&shared->mutex);
    return value;
}

static void test_broadcast_generations(void)
{
    struct generation shared;
    struct generation_member early = {&shared, 0}, late = {&shared, 1};
    struct slimtest_thread *threads[EARLY_WAITERS + LATE_WAITERS];
    int round;
    double give_up;

    for (round = 0; round < GENERATION_ROUNDS; round++) {
        memset(&shared, 0, sizeof shared);
        CU_ASSERT_EQUAL(pthread_cond_init(&shared.cond, NULL), 0);
        CU_ASSERT_EQUAL(pthread_mutex_init(&shared.mutex, NULL), 0);
        slimtest_start_threads(threads, EARLY_WAITERS, wait_in_generation, &early);
        CU_ASSERT_FATAL(await_count(&shared.mutex, &shared.waiting[0], EARLY_WAITERS));

        /* Broadcast with the mutex held (odd rounds) or without (even rounds);
         * then the late ones start while the early ones are still waking. */
        if (round % 2)
            pthread_mutex_lock(&shared.mutex);
        CU_ASSERT_EQUAL(pthread_cond_broadcast(&shared.cond), 0);
        if (round % 2)
            pthread_mutex_unlock(&shared.mutex);
        slimtest_start_threads(threads + EARLY_WAITERS, LATE_WAITERS, wait_in_generation, &late);
        CU_ASSERT_FATAL(await_count(&shared.mutex, &shared.waiting[1], LATE_WAITERS));

        give_up = slimtest_now_ms() + MUST_WAKE_MS;
        while (returned_now(&shared, 0) < EARLY_WAITERS && slimtest_now_ms() < give_up)
            slimtest_sleep_ms(1);
        CU_ASSERT_EQUAL(returned_now(&shared, 0), EARLY_WAITERS);
        slimtest_sleep_ms(20); /* time for a wrongly woken late waiter to show */
        CU_ASSERT_EQUAL(returned_now(&shared, 1), 0);
        CU_ASSERT_EQUAL(pthread_cond_destroy(&shared.cond), EBUSY);

        CU_ASSERT_EQUAL(pthread_cond_broadcast(&shared.cond), 0);
        slimtest_join_threads(threads, EARLY_WAITERS + LATE_WAITERS, JOIN_TIMEOUT_MS);
        CU_ASSERT_EQUAL(shared.returned[1], LATE_WAITERS);
        CU_ASSERT_EQUAL(shared.failures, 0);
        CU_ASSERT_EQUAL(pthread_cond_destroy(&shared.cond), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared.mutex), 0);
    }
}

/* A broadcast racing timeouts. A broadcast chooses every waiter queued when it
 * is made; a chosen waiter whose deadline passes before its post arrives must
 * take that post (and return 0), one that timed out first must not be chosen,
 * and neither may cost another chosen waiter its wake-up. Half the waiters have
 * deadlines spread around the moment of the broadcast, half a long one: those
 * must all come back with 0, and soon. (Written for a broadcast that handed its
 * wake-ups down a tree of the woken; it caught a waiter that dropped its part.) */
#define TREE_ROUNDS 300
#define TREE_WAITERS 16
#define TREE_PROMPT_MS 2000
#define TREE_LEAD_NS 4000000L  /* from the start of a round to its broadcast */
#define TREE_SPREAD_NS 120000L /* short deadlines: broadcast -20 us .. +100 us */

struct tree_round {
    pthread_cond_t cond;
    pthread_mutex_t mutex;
    struct timespec broadcast_at; /* CLOCK_MONOTONIC */
    volatile long waiting, long_returned, timed_out, failures;
};

struct tree_member {
    struct tree_round *shared;
    long offset_ns; /* of its deadline from broadcast_at; -1: the long deadline */
};

static struct timespec add_ns(struct timespec at, long ns)
{
    at.tv_nsec += ns;
    while (at.tv_nsec >= 1000000000L) {
        at.tv_nsec -= 1000000000L;
        at.tv_sec++;
    }
    while (at.tv_nsec < 0) {
        at.tv_nsec += 1000000000L;
        at.tv_sec--;
    }
    return at;
}

static void wait_in_tree(void *raw)
{
    struct tree_member *member = raw;
    struct tree_round *shared = member->shared;
    struct timespec at = member->offset_ns < 0
                             ? slimtest_time_after_ms(CLOCK_MONOTONIC, MUST_WAKE_MS)
                             : add_ns(shared->broadcast_at, member->offset_ns);
    int result;

    pthread_mutex_lock(&shared->mutex);
    shared->waiting++;
    result = pthread_cond_clockwait(&shared->cond, &shared->mutex, CLOCK_MONOTONIC, &at);
    if (member->offset_ns < 0) {
        shared->long_returned++;
        if (result != 0)
            shared->failures++;
    } else if (result == ETIMEDOUT) {
        shared->timed_out++;
    } else if (result != 0) {
        shared->failures++;
    }
    pthread_mutex_unlock(&shared->mutex);
}

static void test_broadcast_racing_timeouts(void)
{
    struct tree_round shared;
    struct tree_member members[TREE_WAITERS];
    struct slimtest_thread *threads[TREE_WAITERS];
    int i, round, stuck = 0, raced = 0;

    for (round = 0; round < TREE_ROUNDS && stuck == 0; round++) {
        double give_up;

        memset(&shared, 0, sizeof shared);
        CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&shared.cond, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(&shared.mutex, NULL), 0);
        shared.broadcast_at = slimtest_time_after_ms(CLOCK_MONOTONIC, 0);
        shared.broadcast_at = add_ns(shared.broadcast_at, TREE_LEAD_NS);
        for (i = 0; i < TREE_WAITERS; i++) {
            members[i].shared = &shared;
            members[i].offset_ns =
                i % 2 ? (round * 7919L + i * 104729L) % TREE_SPREAD_NS - 20000L : -1;
            threads[i] = slimtest_start_thread(wait_in_tree, &members[i]);
        }
        CU_ASSERT_FATAL(await_count(&shared.mutex, &shared.waiting, TREE_WAITERS));
        while (!slimtest_clock_reached(CLOCK_MONOTONIC, &shared.broadcast_at))
            YieldProcessor();
        if (round % 2)
            pthread_mutex_lock(&shared.mutex);
        CU_ASSERT_EQUAL(pthread_cond_broadcast(&shared.cond), 0);
        if (round % 2)
            pthread_mutex_unlock(&shared.mutex);

        give_up = slimtest_now_ms() + TREE_PROMPT_MS;
        while (shared.long_returned < TREE_WAITERS / 2 && slimtest_now_ms() < give_up)
            slimtest_sleep_ms(1);
        if (shared.long_returned < TREE_WAITERS / 2) {
            stuck++;
            pthread_cond_broadcast(&shared.cond); /* let the round end */
        }
        slimtest_join_threads(threads, TREE_WAITERS, JOIN_TIMEOUT_MS);
        if (shared.timed_out > 0 && shared.timed_out < TREE_WAITERS / 2)
            raced++;
        CU_ASSERT_EQUAL(shared.failures, 0);
        CU_ASSERT_EQUAL(pthread_cond_destroy(&shared.cond), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared.mutex), 0);
    }
    printf("\n    (%d rounds, %d with some short waiters timed out and some woken) ", round,
           raced);
    CU_ASSERT_EQUAL(stuck, 0);
    CU_ASSERT(raced > 0); /* the race was run, not missed */
}

/* A signal racing a timeout. W1 waits with a short timeout, W2 (queued after
 * it) with a long one; one signal arrives around W1's deadline. Either W1
 * returns 0 and W2 sleeps on until a second signal, or W1 times out and W2 is
 * woken by the first: a signal that vanished leaves W2 asleep to its long
 * deadline, a signal that woke both shows as W2 back too early. */
#define RACE_ROUNDS 1500
#define RACE_TIMEOUT_MS 2

struct race {
    pthread_cond_t cond;
    pthread_mutex_t mutex;
    sem_t start[2], ready[2], done[2];
    volatile long signals_sent;
    volatile long result[2];
    volatile long signals_seen_by_w2;
    volatile long quit;
    volatile double w1_started, w1_returned; /* slimtest_now_ms() */
};

/* A waiter's loop: at each post of its start semaphore, one round of its part
 * under the mutex, then a post of its done semaphore; until quit. */
static void race_waiter(struct race *race, int side, void (*round)(struct race *race))
{
    for (;;) {
        sem_wait(&race->start[side]);
        if (race->quit)
            return;
        pthread_mutex_lock(&race->mutex);
        round(race);
        pthread_mutex_unlock(&race->mutex);
        sem_post(&race->done[side]);
    }
}

static void race_w1_round(struct race *race)
{
    struct timespec at;

    race->w1_started = slimtest_now_ms();
    at = slimtest_time_after_ms(CLOCK_REALTIME, RACE_TIMEOUT_MS);
    sem_post(&race->ready[0]);
    race->result[0] = pthread_cond_timedwait(&race->cond, &race->mutex, &at);
    race->w1_returned = slimtest_now_ms();
}

static void race_w2_round(struct race *race)
{
    struct timespec at;

    sem_post(&race->ready[1]);
    at = slimtest_time_after_ms(CLOCK_REALTIME, 2000);
    race->result[1] = pthread_cond_timedwait(&race->cond, &race->mutex, &at);
    race->signals_seen_by_w2 = InterlockedCompareExchange(&race->signals_sent, 0, 0);
}

static void race_w1(void *raw)
{
    race_waiter(raw, 0, race_w1_round);
}

static void race_w2(void *raw)
{
    race_waiter(raw, 1, race_w2_round);
}

static void spin_until_ms(double until)
{
    while (slimtest_now_ms() < until)
        YieldProcessor();
}

static void test_signal_racing_timeout(void)
{
    struct race race;
    struct slimtest_thread *threads[2];
    int i, side, lost = 0, doubled = 0, signal_won = 0, timeout_won = 0;
    double timeout_takes_ms = RACE_TIMEOUT_MS; /* learnt: how long W1 takes to time out */

    memset(&race, 0, sizeof race);
    CU_ASSERT_EQUAL(pthread_cond_init(&race.cond, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(&race.mutex, NULL), 0);
    for (side = 0; side < 2; side++) {
        CU_ASSERT_EQUAL(sem_init(&race.start[side], 0, 0), 0);
        CU_ASSERT_EQUAL(sem_init(&race.ready[side], 0, 0), 0);
        CU_ASSERT_EQUAL(sem_init(&race.done[side], 0, 0), 0);
    }
    threads[0] = slimtest_start_thread(race_w1, &race);
    threads[1] = slimtest_start_thread(race_w2, &race);
    for (i = 0; i < RACE_ROUNDS && lost + doubled == 0; i++) {
        InterlockedExchange(&race.signals_sent, 0);
        sem_post(&race.start[0]);
        sem_wait(&race.ready[0]);
        sem_post(&race.start[1]);
        sem_wait(&race.ready[1]);
        pthread_mutex_lock(&race.mutex); /* W2 is queued once we get this */
        pthread_mutex_unlock(&race.mutex);

        /* Odd rounds aim at the moment W1 times out, give or take 40 us, as
         * learnt from earlier rounds; even rounds land anywhere around it. */
        if (i % 2)
            spin_until_ms(race.w1_started + timeout_takes_ms + ((i * 37) % 81 - 40) / 1000.0);
        else
            spin_until_ms(race.w1_started + (i * 397) % (RACE_TIMEOUT_MS * 1500) / 1000.0);
        InterlockedExchange(&race.signals_sent, 1);
        pthread_cond_signal(&race.cond);
        sem_wait(&race.done[0]);
        if (race.result[0] == 0) {
            signal_won++;
            InterlockedExchange(&race.signals_sent, 2);
            pthread_cond_signal(&race.cond);
        } else {
            timeout_won++;
            timeout_takes_ms = 0.8 * timeout_takes_ms +
                               0.2 * (race.w1_returned - race.w1_started);
        }
        sem_wait(&race.done[1]);
        if (race.result[1] != 0)
            lost++;
        else if (race.result[0] == 0 && race.signals_seen_by_w2 < 2)
            doubled++;
    }
    race.quit = 1;
    sem_post(&race.start[0]);
    sem_post(&race.start[1]);
    slimtest_join_thread(threads[0], JOIN_TIMEOUT_MS);
    slimtest_join_thread(threads[1], JOIN_TIMEOUT_MS);
    printf("\n    (%d rounds: the signal won %d, the timeout won %d) ", i, signal_won, timeout_won);
    CU_ASSERT_EQUAL(lost, 0);
    CU_ASSERT_EQUAL(doubled, 0);
    CU_ASSERT_EQUAL(signal_won + timeout_won, RACE_ROUNDS);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&race.cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&race.mutex), 0);
}

/* A woken waiter destroys and unmaps the cond at once, while the signal or
 * broadcast that woke it (made without the mutex) may still be returning: an
 * access it made to the cond after the wake faults. */
#define UNMAP_ROUNDS 2000

struct unmap {
    pthread_mutex_t mutex;
    sem_t control, ready, done;
    pthread_cond_t *volatile victim;
    volatile long failures;
    int rounds;
};

static void wait_then_unmap_cond(void *raw)
{
    struct unmap *shared = raw;
    int i;

    for (i = 0; i < shared->rounds; i++) {
        pthread_cond_t *victim;
        struct timespec at;

        sem_wait(&shared->control);
        victim = shared->victim;
        pthread_mutex_lock(&shared->mutex);
        sem_post(&shared->ready);
        at = must_wake_deadline();
        if (pthread_cond_timedwait(victim, &shared->mutex, &at) != 0)
            InterlockedIncrement(&shared->failures);
        pthread_mutex_unlock(&shared->mutex);
        if (pthread_cond_destroy(victim) != 0)
            InterlockedIncrement(&shared->failures);
        VirtualFree(victim, 0, MEM_RELEASE);
        sem_post(&shared->done);
    }
}

static void test_woken_waiter_frees_cond(void)
{
    struct unmap shared;
    struct slimtest_thread *thread;
    int i;

    memset(&shared, 0, sizeof shared);
    shared.rounds = UNMAP_ROUNDS;
    CU_ASSERT_EQUAL(pthread_mutex_init(&shared.mutex, NULL), 0);
    CU_ASSERT_EQUAL(sem_init(&shared.control, 0, 0), 0);
    CU_ASSERT_EQUAL(sem_init(&shared.ready, 0, 0), 0);
    CU_ASSERT_EQUAL(sem_init(&shared.done, 0, 0), 0);
    thread = slimtest_start_thread(wait_then_unmap_cond, &shared);
    for (i = 0; i < UNMAP_ROUNDS; i++) {
        pthread_cond_t *victim = VirtualAlloc(NULL, sizeof *victim, MEM_COMMIT | MEM_RESERVE,
                                              PAGE_READWRITE);

        CU_ASSERT_PTR_NOT_NULL_FATAL(victim);
        CU_ASSERT_EQUAL_FATAL(pthread_cond_init(victim, NULL), 0);
        shared.victim = victim;
        sem_post(&shared.control);
        sem_wait(&shared.ready);
        pthread_mutex_lock(&shared.mutex); /* the waiter is queued once we get this */
        pthread_mutex_unlock(&shared.mutex);
        if (i % 2)
            pthread_cond_broadcast(victim);
        else
            pthread_cond_signal(victim);
        sem_wait(&shared.done);
    }
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(shared.failures, 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared.mutex), 0);
}

/* ---- Producers and consumers through a bounded queue ---- */

#define QUEUE_SLOTS 64
#define MAX_SIDE 4

struct bounded_queue {
    pthread_mutex_t mutex;
    pthread_cond_t not_empty, not_full;
    long slots[QUEUE_SLOTS];
    unsigned head, count;
    int producing;             /* producers still running */
    long items_each;
    unsigned char *seen;       /* seen[item]: times consumed */
    long consumed;
    long long checksum;
    volatile long failures;    /* a wait that returned an error */
    volatile long next_producer;
    volatile long next_consumer;
};

static void produce_items(void *raw)
{
    struct bounded_queue *queue = raw;
    long first = InterlockedIncrement(&queue->next_producer) - 1;
    long i;

    for (i = 0; i < queue->items_each; i++) {
        pthread_mutex_lock(&queue->mutex);
        while (queue->count == QUEUE_SLOTS) {
            int error = pthread_cond_wait(&queue->not_full, &queue->mutex);

            if (error != 0) {
                InterlockedIncrement(&queue->failures);
                break;
            }
        }
        queue->slots[(queue->head + queue->count) % QUEUE_SLOTS] = first * queue->items_each + i;
        queue->count++;
        pthread_cond_signal(&queue->not_empty);
        pthread_mutex_unlock(&queue->mutex);
    }
    pthread_mutex_lock(&queue->mutex);
    if (--queue->producing == 0)
        pthread_cond_broadcast(&queue->not_empty);
    pthread_mutex_unlock(&queue->mutex);
}

static void consume_items(void *raw)
{
    struct bounded_queue *queue = raw;
    int timed = (InterlockedIncrement(&queue->next_consumer) % 2) == 0;

    pthread_mutex_lock(&queue->mutex);
    for (;;) {
        long item;

        while (queue->count == 0 && queue->producing > 0) {
            struct timespec at = must_wake_deadline();
            int error = timed ? pthread_cond_timedwait(&queue->not_empty, &queue->mutex, &at)
                              : pthread_cond_wait(&queue->not_empty, &queue->mutex);

            if (error != 0) {
                InterlockedIncrement(&queue->failures);
                pthread_mutex_unlock(&queue->mutex);
                return;
            }
        }
        if (queue->count == 0)
            break;
        item = queue->slots[queue->head];
        queue->head = (queue->head + 1) % QUEUE_SLOTS;
        queue->count--;
        pthread_cond_signal(&queue->not_full);
        if (queue->seen[item] < 255)
            queue->seen[item]++;
        queue->consumed++;
        queue->checksum += item;
        /* Let go now and then so that the queue also runs full and empty. */
        pthread_mutex_unlock(&queue->mutex);
        pthread_mutex_lock(&queue->mutex);
    }
    pthread_mutex_unlock(&queue->mutex);
}

static void run_queue(int producers, int consumers, long items_each)
{
    struct bounded_queue queue;
    struct slimtest_thread *threads[2 * MAX_SIDE];
    long total = producers * items_each, item, wrong = 0;

    memset(&queue, 0, sizeof queue);
    queue.producing = producers;
    queue.items_each = items_each;
    queue.seen = calloc((size_t)total, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(queue.seen);
    CU_ASSERT_EQUAL(pthread_mutex_init(&queue.mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_cond_init(&queue.not_empty, NULL), 0);
    CU_ASSERT_EQUAL(pthread_cond_init(&queue.not_full, NULL), 0);
    slimtest_start_threads(threads, consumers, consume_items, &queue);
    slimtest_start_threads(threads + consumers, producers, produce_items, &queue);
    slimtest_join_threads(threads, producers + consumers, JOIN_TIMEOUT_MS);

    for (item = 0; item < total; item++)
        wrong += queue.seen[item] != 1;
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(queue.consumed, total);
    CU_ASSERT_EQUAL(queue.checksum, (long long)total * (total - 1) / 2);
    CU_ASSERT_EQUAL(queue.failures, 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&queue.not_empty), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&queue.not_full), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&queue.mutex), 0);
    free(queue.seen);
}

static void test_queue_one_to_one(void)
{
    run_queue(1, 1, 100000);
}

static void test_queue_four_to_four(void)
{
    run_queue(4, 4, 25000);
}

static CU_TestInfo cases[] = {
    {"condattr: defaults, setclock, getclock, pshared", test_condattr},
    {"condattr: EINVAL for bad clocks and NULL; PROCESS_SHARED read back", test_condattr_errors},
    {"init, signal, broadcast, destroy", test_init_destroy},
    {"EINVAL for NULL arguments", test_null_arguments},
    {"PTHREAD_COND_INITIALIZER and zero-filled work without init", test_static_and_zero_filled},
    {"timedwait: ETIMEDOUT on the cond's clock (REALTIME, MONOTONIC)", test_timedwait_etimedout},
    {"clockwait: ETIMEDOUT on MONOTONIC and REALTIME", test_clockwait_etimedout},
    {"a wait marks its mutex for eager waiters", test_wait_marks_its_mutex},
    {"the mutex is marked before the waiter is woken", test_mutex_marked_before_the_wake},
    {"EINVAL for a bad timespec or clock; mutex kept", test_timed_einval},
    {"errorcheck mutex not held: EPERM, nothing queued", test_errorcheck_not_held_eperm},
    {"signal wakes a waiter: each mutex kind, with and without the mutex, timed or not",
     test_signal_wakes_waiter},
    {"destroy: EBUSY with a waiter", test_destroy_ebusy_with_waiter},
    {"a later waiter cannot steal a signal", test_later_waiter_cannot_steal_signal},
    {"broadcast wakes exactly the waiters already waiting", test_broadcast_generations},
    {"signal racing a timeout: every signal accounted for", test_signal_racing_timeout},
    {"broadcast racing timeouts: every waiter it chose wakes", test_broadcast_racing_timeouts},
    {"a woken waiter frees the cond while signal returns", test_woken_waiter_frees_cond},
    {"bounded queue, 1 producer / 1 consumer", test_queue_one_to_one},
    {"bounded queue, 4 producers / 4 consumers", test_queue_four_to_four},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("cond", cases, 90);
}
