/* test_cancel.c - deferred cancellation at each cancellation point, and where
 * POSIX says there is none. */
#include <errno.h>
#include <semaphore.h>
#include "testutil.h"

/* Generous: a cancelled sleeper must end long before its sleep would, even on
 * a loaded machine under Wine. */
#define PROMPT_MS 3000.0
#define LONG_SLEEP_S 30

static volatile long started;
static volatile long cleanup_ran;
static volatile long destructor_ran;
static volatile long reached_after_point;

static void reset_flags(void)
{
    started = 0;
    cleanup_ran = 0;
    destructor_ran = 0;
    reached_after_point = 0;
}

static void wait_until_started(void)
{
    while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        slimtest_sleep_ms(1);
}

static void mark_cleanup(void *argument)
{
    (void)argument;
    cleanup_ran++;
}

/* Cancels thread once it has started, joins it and returns what join gave. */
static void *cancel_and_join(pthread_t thread, double *elapsed_ms)
{
    void *result = NULL;
    double begin;

    wait_until_started();
    slimtest_sleep_ms(50); /* let it reach its cancellation point */
    begin = slimtest_now_ms();
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    if (elapsed_ms != NULL)
        *elapsed_ms = slimtest_now_ms() - begin;
    return result;
}

/* ---- pthread_testcancel and the cancel state ---- */

static void *spin_on_testcancel(void *unused)
{
    (void)unused;
    pthread_cleanup_push(mark_cleanup, NULL);
    started = 1;
    for (;;) {
        pthread_testcancel();
        slimtest_sleep_ms(1);
    }
    pthread_cleanup_pop(0);
    return NULL;
}

static void test_testcancel_acts(void)
{
    pthread_t thread;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, spin_on_testcancel, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, NULL), PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(cleanup_ran, 1);
}

static volatile long may_enable;

static void *disabled_then_enabled(void *unused)
{
    int old;

    (void)unused;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    started = 1;
    while (!may_enable) {
        pthread_testcancel(); /* disabled: must not act */
        slimtest_sleep_ms(1);
    }
    reached_after_point = 1;
    pthread_setcancelstate(old, NULL); /* deferred: still waits for a point */
    reached_after_point = 2;
    pthread_testcancel();
    reached_after_point = 3;
    return NULL;
}

static void test_disabled_request_stays_pending(void)
{
    pthread_t thread;
    void *result = NULL;

    reset_flags();
    may_enable = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, disabled_then_enabled, NULL), 0);
    wait_until_started();
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    slimtest_sleep_ms(100);
    CU_ASSERT_EQUAL(reached_after_point, 0);
    may_enable = 1;
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(reached_after_point, 2);
}

static void test_cancel_state_and_type_values(void)
{
    int old;

    CU_ASSERT_EQUAL(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old), 0);
    CU_ASSERT_EQUAL(old, PTHREAD_CANCEL_ENABLE);
    CU_ASSERT_EQUAL(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old), 0);
    CU_ASSERT_EQUAL(old, PTHREAD_CANCEL_DISABLE);
    CU_ASSERT_EQUAL(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old), 0);
    CU_ASSERT_EQUAL(old, PTHREAD_CANCEL_DEFERRED);
    CU_ASSERT_EQUAL(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old), 0);
    CU_ASSERT_EQUAL(old, PTHREAD_CANCEL_ASYNCHRONOUS);
    CU_ASSERT_EQUAL(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL), 0);
}

static void test_cancel_errors(void)
{
    int old = 1234;

    CU_ASSERT_EQUAL(pthread_setcancelstate(77, &old), EINVAL);
    CU_ASSERT_EQUAL(old, 1234);
    CU_ASSERT_EQUAL(pthread_setcanceltype(-3, &old), EINVAL);
    CU_ASSERT_EQUAL(old, 1234);
    CU_ASSERT_EQUAL(pthread_cancel((pthread_t)0), ESRCH);
}

static void *cancel_self(void *unused)
{
    (void)unused;
    CU_ASSERT_EQUAL(pthread_cancel(pthread_self()), 0); /* deferred: returns */
    reached_after_point = 1;
    pthread_testcancel();
    reached_after_point = 2;
    return NULL;
}

static void test_cancel_self_deferred(void)
{
    pthread_t thread;
    void *result = NULL;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, cancel_self, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(reached_after_point, 1);
}

static void *become_asynchronous(void *unused)
{
    (void)unused;
    CU_ASSERT_EQUAL(pthread_cancel(pthread_self()), 0);
    reached_after_point = 1;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL); /* acts at once */
    reached_after_point = 2;
    return NULL;
}

static void test_asynchronous_acts_on_pending_request(void)
{
    pthread_t thread;
    void *result = NULL;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, become_asynchronous, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(reached_after_point, 1);
}

/* ---- Blocking cancellation points ---- */

static void *sleep_long(void *unused)
{
    struct timespec request = {LONG_SLEEP_S, 0};

    (void)unused;
    pthread_cleanup_push(mark_cleanup, NULL);
    started = 1;
    nanosleep(&request, NULL);
    reached_after_point = 1;
    pthread_cleanup_pop(0);
    return NULL;
}

static void test_cancel_in_nanosleep(void)
{
    pthread_t thread;
    double elapsed;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, sleep_long, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, &elapsed), PTHREAD_CANCELED);
    CU_ASSERT(elapsed < PROMPT_MS);
    CU_ASSERT_EQUAL(cleanup_ran, 1);
    CU_ASSERT_EQUAL(reached_after_point, 0);
}

static void *sleep_until_absolute(void *unused)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_MONOTONIC, LONG_SLEEP_S * 1000L);

    (void)unused;
    started = 1;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
    reached_after_point = 1;
    return NULL;
}

static void test_cancel_in_clock_nanosleep(void)
{
    pthread_t thread;
    double elapsed;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, sleep_until_absolute, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, &elapsed), PTHREAD_CANCELED);
    CU_ASSERT(elapsed < PROMPT_MS);
    CU_ASSERT_EQUAL(reached_after_point, 0);
}

static pthread_t long_sleeper;

static void *join_the_sleeper(void *unused)
{
    (void)unused;
    started = 1;
    pthread_join(long_sleeper, NULL);
    reached_after_point = 1;
    return NULL;
}

static void *sleep_quietly(void *unused)
{
    struct timespec request = {LONG_SLEEP_S, 0};

    (void)unused;
    nanosleep(&request, NULL);
    return NULL;
}

/* A cancelled joiner leaves its target joinable, as POSIX asks. */
static void test_cancel_in_join(void)
{
    pthread_t joiner;
    double elapsed;
    void *result = NULL;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&long_sleeper, NULL, sleep_quietly, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&joiner, NULL, join_the_sleeper, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(joiner, &elapsed), PTHREAD_CANCELED);
    CU_ASSERT(elapsed < PROMPT_MS);
    CU_ASSERT_EQUAL(reached_after_point, 0);
    CU_ASSERT_EQUAL(pthread_cancel(long_sleeper), 0);
    CU_ASSERT_EQUAL(pthread_join(long_sleeper, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
}

static pthread_mutex_t checked_mutex = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static volatile long unlock_result_in_cleanup;

/* An errorcheck unlock says whether the cancelled waiter held the mutex again. */
static void unlock_checked_mutex(void *unused)
{
    (void)unused;
    unlock_result_in_cleanup = pthread_mutex_unlock(&checked_mutex);
}

static void *wait_on_cond(void *timed)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_SLEEP_S * 1000L);

    pthread_mutex_lock(&checked_mutex);
    pthread_cleanup_push(unlock_checked_mutex, NULL);
    started = 1;
    for (;;) { /* no predicate ever comes true: only cancellation ends this */
        if (timed != NULL)
            pthread_cond_timedwait(&cond, &checked_mutex, &until);
        else
            pthread_cond_wait(&cond, &checked_mutex);
    }
    pthread_cleanup_pop(1);
    return NULL;
}

static void check_cancel_in_cond_wait(void *timed)
{
    pthread_t thread;
    double elapsed;

    reset_flags();
    unlock_result_in_cleanup = -1;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_on_cond, timed), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, &elapsed), PTHREAD_CANCELED);
    CU_ASSERT(elapsed < PROMPT_MS);
    CU_ASSERT_EQUAL(unlock_result_in_cleanup, 0); /* held again when cleanup ran */
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0); /* the waiter left the queue */
}

static void test_cancel_in_cond_wait(void)
{
    check_cancel_in_cond_wait(NULL);
}

static void test_cancel_in_cond_timedwait(void)
{
    check_cancel_in_cond_wait((void *)1);
}

static pthread_mutex_t queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static volatile long queued_waiters;
static volatile long signals_taken;

static void unlock_queue_mutex(void *unused)
{
    (void)unused;
    pthread_mutex_unlock(&queue_mutex);
}

static void *wait_for_one_signal(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&queue_mutex);
    pthread_cleanup_push(unlock_queue_mutex, NULL);
    queued_waiters++;
    CU_ASSERT_EQUAL(pthread_cond_wait(&queue_cond, &queue_mutex), 0);
    signals_taken++;
    pthread_cleanup_pop(1);
    return NULL;
}

/* Both waiters sit in pthread_cond_wait once the count reaches n: each counted
 * itself under the mutex and then released it inside the wait. */
static void wait_for_queued(long n)
{
    for (;;) {
        pthread_mutex_lock(&queue_mutex);
        if (queued_waiters == n) {
            pthread_mutex_unlock(&queue_mutex);
            return;
        }
        pthread_mutex_unlock(&queue_mutex);
        slimtest_sleep_ms(1);
    }
}

/* A cancelled waiter leaves the queue: the next signal goes to the other one. */
static void test_cancelled_cond_waiter_takes_no_signal(void)
{
    pthread_t first, second;
    struct timespec until;
    void *result = NULL;

    queued_waiters = 0;
    signals_taken = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&first, NULL, wait_for_one_signal, NULL), 0);
    wait_for_queued(1);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&second, NULL, wait_for_one_signal, NULL), 0);
    wait_for_queued(2);
    slimtest_sleep_ms(20);
    CU_ASSERT_EQUAL(pthread_cancel(first), 0);
    CU_ASSERT_EQUAL(pthread_join(first, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(pthread_tryjoin_np(second, &result), EBUSY); /* still waiting */
    CU_ASSERT_EQUAL(pthread_cond_signal(&queue_cond), 0);
    until = slimtest_time_after_ms(CLOCK_REALTIME, 10000);
    CU_ASSERT_EQUAL(pthread_timedjoin_np(second, &result, &until), 0);
    CU_ASSERT_EQUAL(signals_taken, 1);
}

/* Cancellations racing a broadcast. A waiter cancelled after the broadcast
 * chose it takes its post before it acts on the cancellation, and passes the
 * wake-up on; one cancelled before is not chosen. Either way every other
 * waiter the broadcast chose must wake: half the waiters are cancelled around
 * the broadcast, before or after it; the other half must all return 0,
 * promptly. */
#define TREE_ROUNDS 40
#define TREE_WAITERS 12

static pthread_mutex_t tree_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tree_cond = PTHREAD_COND_INITIALIZER;
static volatile long tree_queued, tree_generation, tree_failures;

static void unlock_tree_mutex(void *unused)
{
    (void)unused;
    pthread_mutex_unlock(&tree_mutex);
}

static void *wait_for_tree_broadcast(void *unused)
{
    long generation;
    int result = 0;

    (void)unused;
    pthread_mutex_lock(&tree_mutex);
    pthread_cleanup_push(unlock_tree_mutex, NULL);
    generation = tree_generation;
    tree_queued++;
    while (tree_generation == generation && result == 0)
        result = pthread_cond_wait(&tree_cond, &tree_mutex);
    if (result != 0)
        tree_failures++;
    pthread_cleanup_pop(1);
    return NULL;
}

static void test_cancel_racing_broadcast(void)
{
    pthread_t threads[TREE_WAITERS];
    int i, round, cancelled = 0, late = 0;

    tree_failures = 0;
    for (round = 0; round < TREE_ROUNDS && late == 0; round++) {
        tree_queued = 0;
        for (i = 0; i < TREE_WAITERS; i++)
            CU_ASSERT_EQUAL_FATAL(
                pthread_create(&threads[i], NULL, wait_for_tree_broadcast, NULL), 0);
        while (__atomic_load_n(&tree_queued, __ATOMIC_ACQUIRE) < TREE_WAITERS)
            slimtest_sleep_ms(1);
        pthread_mutex_lock(&tree_mutex); /* all queued once we hold it */
        tree_generation++;
        pthread_mutex_unlock(&tree_mutex);
        for (i = 1; i < TREE_WAITERS; i += 2) /* odd ones: cancel some before the broadcast */
            if ((i + round) % 4 == 1)
                pthread_cancel(threads[i]);
        CU_ASSERT_EQUAL(pthread_cond_broadcast(&tree_cond), 0);
        for (i = 1; i < TREE_WAITERS; i += 2) /* and the rest right after it */
            if ((i + round) % 4 != 1)
                pthread_cancel(threads[i]);
        for (i = 0; i < TREE_WAITERS; i++) {
            struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, (long)PROMPT_MS);
            void *result = NULL;

            if (pthread_timedjoin_np(threads[i], &result, &until) != 0) {
                late++; /* a lost wake-up: nothing will ever end that wait */
                pthread_detach(threads[i]);
                continue;
            }
            if (i % 2 == 0) {
                CU_ASSERT_PTR_NULL(result);
            } else if (result == PTHREAD_CANCELED) {
                cancelled++;
            }
        }
    }
    printf("\n    (%d rounds, %d waiters cancelled) ", round, cancelled);
    CU_ASSERT_EQUAL(late, 0);
    CU_ASSERT_EQUAL(tree_failures, 0);
    CU_ASSERT(cancelled > 0);
    if (late == 0)
        CU_ASSERT_EQUAL(pthread_cond_destroy(&tree_cond), 0);
}

static sem_t sem;

static void *wait_on_sem(void *unused)
{
    (void)unused;
    pthread_cleanup_push(mark_cleanup, NULL);
    started = 1;
    sem_wait(&sem);
    reached_after_point = 1;
    pthread_cleanup_pop(0);
    return NULL;
}

static void test_cancel_in_sem_wait(void)
{
    pthread_t thread;
    double elapsed;
    int value = -1;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(sem_init(&sem, 0, 0), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_on_sem, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, &elapsed), PTHREAD_CANCELED);
    CU_ASSERT(elapsed < PROMPT_MS);
    CU_ASSERT_EQUAL(cleanup_ran, 1);
    CU_ASSERT_EQUAL(reached_after_point, 0);
    /* The cancelled wait took no token and left no sleeper behind. */
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(sem_getvalue(&sem, &value), 0);
    CU_ASSERT_EQUAL(value, 1);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

/* ---- What runs on the way out ---- */

static pthread_key_t key;

static void mark_destructor(void *value)
{
    (void)value;
    destructor_ran++;
}

static void *store_then_sleep(void *unused)
{
    (void)unused;
    pthread_setspecific(key, (void *)1);
    return sleep_long(NULL);
}

static void test_cancel_runs_key_destructors(void)
{
    pthread_t thread;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_key_create(&key, mark_destructor), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, store_then_sleep, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, NULL), PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(destructor_ran, 1);
    CU_ASSERT_EQUAL(cleanup_ran, 1);
    pthread_key_delete(key);
}

/* ---- A cancelled pthread_once routine ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static volatile long once_runs;

static void once_routine_sleeps_first_time(void)
{
    struct timespec request = {LONG_SLEEP_S, 0};

    if (++once_runs == 1) {
        started = 1;
        nanosleep(&request, NULL); /* cancelled here */
    }
}

static void *run_once(void *unused)
{
    (void)unused;
    pthread_once(&once, once_routine_sleeps_first_time);
    reached_after_point = 1;
    return NULL;
}

/* POSIX: as if pthread_once had never been called; the next caller runs it. */
static void test_cancelled_once_routine_runs_again(void)
{
    pthread_t thread;

    reset_flags();
    once_runs = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, run_once, NULL), 0);
    CU_ASSERT_PTR_EQUAL(cancel_and_join(thread, NULL), PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(reached_after_point, 0);
    CU_ASSERT_EQUAL(pthread_once(&once, once_routine_sleeps_first_time), 0);
    CU_ASSERT_EQUAL(once_runs, 2);
    CU_ASSERT_EQUAL(pthread_once(&once, once_routine_sleeps_first_time), 0);
    CU_ASSERT_EQUAL(once_runs, 2);
}

/* ---- Not cancellation points ---- */

static pthread_mutex_t plain_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;

static void unlock_plain_mutex(void *unused)
{
    (void)unused;
    pthread_mutex_unlock(&plain_mutex);
}

static void *lock_and_wait_with_request_pending(void *unused)
{
    (void)unused;
    pthread_cancel(pthread_self());
    CU_ASSERT_EQUAL(pthread_mutex_lock(&plain_mutex), 0);
    pthread_cleanup_push(unlock_plain_mutex, NULL);
    /* The only thread of its barrier: it is the serial one. */
    CU_ASSERT_EQUAL(pthread_barrier_wait(&barrier), PTHREAD_BARRIER_SERIAL_THREAD);
    reached_after_point = 1;
    pthread_testcancel();
    reached_after_point = 2;
    pthread_cleanup_pop(1);
    return NULL;
}

static void test_mutex_and_barrier_are_not_points(void)
{
    pthread_t thread;
    void *result = NULL;

    reset_flags();
    CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&barrier, NULL, 1), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, lock_and_wait_with_request_pending, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(reached_after_point, 1);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&plain_mutex), 0); /* the cleanup unlocked it */
    pthread_mutex_unlock(&plain_mutex);
    pthread_barrier_destroy(&barrier);
}

static CU_TestInfo cases[] = {
    {"pthread_testcancel acts on a request", test_testcancel_acts},
    {"a request waits while cancellation is disabled", test_disabled_request_stays_pending},
    {"setcancelstate/setcanceltype report old values", test_cancel_state_and_type_values},
    {"cancel errors: EINVAL, ESRCH", test_cancel_errors},
    {"a thread cancelling itself acts at its next point", test_cancel_self_deferred},
    {"asynchronous type acts on a pending request", test_asynchronous_acts_on_pending_request},
    {"cancel wakes nanosleep promptly", test_cancel_in_nanosleep},
    {"cancel wakes clock_nanosleep TIMER_ABSTIME", test_cancel_in_clock_nanosleep},
    {"cancel wakes pthread_join; target stays joinable", test_cancel_in_join},
    {"cancel wakes pthread_cond_wait; mutex held in cleanup", test_cancel_in_cond_wait},
    {"cancel wakes pthread_cond_timedwait; mutex held in cleanup", test_cancel_in_cond_timedwait},
    {"a cancelled cond waiter takes no signal", test_cancelled_cond_waiter_takes_no_signal},
    {"cancellations racing a broadcast: every other waiter wakes", test_cancel_racing_broadcast},
    {"cancel wakes sem_wait; no token taken", test_cancel_in_sem_wait},
    {"cancel runs cleanup handlers and key destructors", test_cancel_runs_key_destructors},
    {"a cancelled once routine runs again for the next caller", test_cancelled_once_routine_runs_again},
    {"mutex lock and barrier wait are not cancellation points", test_mutex_and_barrier_are_not_points},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("cancel", cases, 120);
}
