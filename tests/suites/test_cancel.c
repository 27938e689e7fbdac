/* test_cancel.c - deferred cancellation at each cancellation point, and where
 * POSIX says there is none; a request pending when a point is called;
 * asynchronous cancellation at any instruction of the program's own code and
 * in Win32 Sleep; sleep, usleep and pause. */
#include <windows.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <semaphore.h>
#include <unistd.h>
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

/* What a case's thread does; it is to be cancelled there (or cancel itself). */
typedef void thread_body(void *argument);

/* The body of the one such thread running at a time. */
static thread_body *current_body;

/* Every case's thread runs its body inside mark_cleanup, so that each case
 * sees that cleanup handlers run on the way out. */
static void *run_current_body(void *argument)
{
    pthread_cleanup_push(mark_cleanup, NULL);
    current_body(argument);
    pthread_cleanup_pop(0);
    return NULL;
}

/* Starts body(argument) on a thread, with the flags reset. */
static pthread_t start_thread(thread_body *body, void *argument)
{
    pthread_t thread;

    reset_flags();
    current_body = body;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, run_current_body, argument), 0);
    return thread;
}

/* A timed join: a cancel that never lands fails the case instead of hanging it. */
static int join_within(pthread_t thread, void **result, double ms)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, (long)ms);
    int error = pthread_timedjoin_np(thread, result, &until);

    if (error != 0)
        pthread_detach(thread); /* left running: the process ends with the run */
    return error;
}

/* Joins a thread cancelled by another or by itself within join_ms: 1 when it
 * left through its cancellation with its cleanup handler run, 0 when it still
 * runs. */
static int joined_cancelled(pthread_t thread, double join_ms)
{
    void *result = NULL;

    if (join_within(thread, &result, join_ms) != 0) {
        CU_FAIL("the cancelled thread is still running");
        return 0;
    }
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(cleanup_ran, 1);
    return 1;
}

/* How a case brings its thread to where the request is to act, and judges a
 * round; any step may be NULL. */
struct cancel_steps {
    void (*settle)(int round);  /* once the thread has started, before the cancel */
    void (*after_cancel)(void); /* between the cancel and the join */
    void (*check)(void);        /* after a join that found it cancelled */
};

/* One round: body(argument) is started, settles, is cancelled and must be
 * gone within join_ms (joined_cancelled), then the round is checked. 1 when
 * it left through its cancellation. */
static int cancel_once(thread_body *body, void *argument, const struct cancel_steps *steps,
                       int round, double join_ms)
{
    pthread_t thread = start_thread(body, argument);

    wait_until_started();
    if (steps->settle != NULL)
        steps->settle(round);
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    if (steps->after_cancel != NULL)
        steps->after_cancel();
    if (!joined_cancelled(thread, join_ms))
        return 0;
    if (steps->check != NULL)
        steps->check();
    return 1;
}

/* Up to rounds rounds of cancel_once, each within PROMPT_MS, until one fails
 * to end its thread: the rounds whose thread left through its cancellation. */
static int cancel_rounds(thread_body *body, const struct cancel_steps *steps, int rounds)
{
    int round;

    for (round = 0; round < rounds; round++)
        if (!cancel_once(body, NULL, steps, round, PROMPT_MS))
            break;
    return round;
}

static void settle_at_its_point(int round)
{
    (void)round;
    slimtest_sleep_ms(50); /* it reaches its cancellation point */
}

static const struct cancel_steps at_its_point = {settle_at_its_point, NULL, NULL};

/* A thread blocked in a cancellation point (or looping on one) leaves through
 * the request promptly, within PROMPT_MS. */
static void check_cancelled_at_its_point(thread_body *body, void *argument)
{
    cancel_once(body, argument, &at_its_point, 0, PROMPT_MS);
}

/* A thread that cancels itself leaves through its cancellation, promptly. */
static void check_cancelled_itself(thread_body *body)
{
    joined_cancelled(start_thread(body, NULL), PROMPT_MS);
}

static volatile long may_enable;
static volatile long progress;

static void allow_enable(void)
{
    may_enable = 1;
}

/* Nothing acts while the thread is disabled: it has not gone past its loop a
 * while after the cancel; then it is let go on. */
static void enable_after_a_while(void)
{
    slimtest_sleep_ms(100);
    CU_ASSERT_EQUAL(reached_after_point, 0);
    allow_enable();
}

/* ---- pthread_testcancel and the cancel state ---- */

static void spin_on_testcancel(void *unused)
{
    (void)unused;
    started = 1;
    for (;;) {
        pthread_testcancel();
        slimtest_sleep_ms(1);
    }
}

static void test_testcancel_acts(void)
{
    check_cancelled_at_its_point(spin_on_testcancel, NULL);
}

/* Disabled, of the given type, while the request comes: it must not act in the
 * loop, neither at pthread_testcancel (a point) nor, when asynchronous,
 * anywhere in the loop's own code. Enabled again, an asynchronous thread acts
 * at once, a deferred one at its next point. */
static void disabled_then_enabled(void *type)
{
    int deferred = (int)(intptr_t)type == PTHREAD_CANCEL_DEFERRED;

    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    pthread_setcanceltype((int)(intptr_t)type, NULL);
    started = 1;
    while (!may_enable) {
        if (deferred) {
            pthread_testcancel(); /* disabled: must not act */
            slimtest_sleep_ms(1);
        }
        progress++;
    }
    reached_after_point = 1;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL); /* asynchronous: acts here */
    reached_after_point = 2;
    pthread_testcancel();
    reached_after_point = 3;
}

static const struct cancel_steps enabled_after_a_while = {NULL, enable_after_a_while, NULL};

static void check_request_waits_while_disabled(int type, long expected_reached)
{
    may_enable = 0;
    CU_ASSERT_FATAL(cancel_once(disabled_then_enabled, (void *)(intptr_t)type,
                                &enabled_after_a_while, 0, PROMPT_MS));
    CU_ASSERT_EQUAL(reached_after_point, expected_reached);
}

static void test_disabled_request_stays_pending(void)
{
    check_request_waits_while_disabled(PTHREAD_CANCEL_DEFERRED, 2);
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

static void cancel_self(void *unused)
{
    (void)unused;
    CU_ASSERT_EQUAL(pthread_cancel(pthread_self()), 0); /* deferred: returns */
    reached_after_point = 1;
    pthread_testcancel();
    reached_after_point = 2;
}

static void test_cancel_self_deferred(void)
{
    check_cancelled_itself(cancel_self);
    CU_ASSERT_EQUAL(reached_after_point, 1);
}

static void become_asynchronous(void *unused)
{
    (void)unused;
    CU_ASSERT_EQUAL(pthread_cancel(pthread_self()), 0);
    reached_after_point = 1;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL); /* acts at once */
    reached_after_point = 2;
}

static void test_asynchronous_acts_on_pending_request(void)
{
    check_cancelled_itself(become_asynchronous);
    CU_ASSERT_EQUAL(reached_after_point, 1);
}

/* ---- Blocking cancellation points ---- */

static void sleep_long(void *unused)
{
    struct timespec request = {LONG_SLEEP_S, 0};

    (void)unused;
    started = 1;
    nanosleep(&request, NULL);
    reached_after_point = 1;
}

static void test_cancel_in_nanosleep(void)
{
    check_cancelled_at_its_point(sleep_long, NULL);
    CU_ASSERT_EQUAL(reached_after_point, 0);
}

static void sleep_until_absolute(void *unused)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_MONOTONIC, LONG_SLEEP_S * 1000L);

    (void)unused;
    started = 1;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
    reached_after_point = 1;
}

static void test_cancel_in_clock_nanosleep(void)
{
    check_cancelled_at_its_point(sleep_until_absolute, NULL);
    CU_ASSERT_EQUAL(reached_after_point, 0);
}

static pthread_t long_sleeper;

static void join_the_sleeper(void *unused)
{
    (void)unused;
    started = 1;
    pthread_join(long_sleeper, NULL);
    reached_after_point = 1;
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
    void *result = NULL;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&long_sleeper, NULL, sleep_quietly, NULL), 0);
    check_cancelled_at_its_point(join_the_sleeper, NULL);
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

static void wait_on_cond(void *timed)
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
}

static void check_cancel_in_cond_wait(void *timed)
{
    unlock_result_in_cleanup = -1;
    check_cancelled_at_its_point(wait_on_cond, timed);
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

static void wait_on_sem(void *unused)
{
    (void)unused;
    started = 1;
    sem_wait(&sem);
    reached_after_point = 1;
}

static void test_cancel_in_sem_wait(void)
{
    int value = -1;

    CU_ASSERT_EQUAL_FATAL(sem_init(&sem, 0, 0), 0);
    check_cancelled_at_its_point(wait_on_sem, NULL);
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

static void store_then_sleep(void *unused)
{
    (void)unused;
    pthread_setspecific(key, (void *)1);
    sleep_long(NULL);
}

static void test_cancel_runs_key_destructors(void)
{
    CU_ASSERT_EQUAL_FATAL(pthread_key_create(&key, mark_destructor), 0);
    check_cancelled_at_its_point(store_then_sleep, NULL);
    CU_ASSERT_EQUAL(destructor_ran, 1);
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

static void run_once(void *unused)
{
    (void)unused;
    pthread_once(&once, once_routine_sleeps_first_time);
    reached_after_point = 1;
}

/* POSIX: as if pthread_once had never been called; the next caller runs it. */
static void test_cancelled_once_routine_runs_again(void)
{
    once_runs = 0;
    check_cancelled_at_its_point(run_once, NULL);
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

static sem_t trywait_sem;

static void lock_and_wait_with_request_pending(void *unused)
{
    (void)unused;
    pthread_cancel(pthread_self());
    CU_ASSERT_EQUAL(pthread_mutex_lock(&plain_mutex), 0);
    pthread_cleanup_push(unlock_plain_mutex, NULL);
    CU_ASSERT_EQUAL(sem_trywait(&trywait_sem), 0);
    CU_ASSERT_EQUAL(sem_trywait(&trywait_sem), -1); /* EAGAIN: still no point */
    /* The only thread of its barrier: it is the serial one. */
    CU_ASSERT_EQUAL(pthread_barrier_wait(&barrier), PTHREAD_BARRIER_SERIAL_THREAD);
    reached_after_point = 1;
    pthread_testcancel();
    reached_after_point = 2;
    pthread_cleanup_pop(1);
}

static void test_mutex_and_barrier_are_not_points(void)
{
    CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&barrier, NULL, 1), 0);
    CU_ASSERT_EQUAL_FATAL(sem_init(&trywait_sem, 0, 1), 0);
    check_cancelled_itself(lock_and_wait_with_request_pending);
    CU_ASSERT_EQUAL(reached_after_point, 1);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&plain_mutex), 0); /* the cleanup unlocked it */
    pthread_mutex_unlock(&plain_mutex);
    pthread_barrier_destroy(&barrier);
    CU_ASSERT_EQUAL(sem_destroy(&trywait_sem), 0);
}

/* ---- Asynchronous cancellation ---- */

/* A body's thread turns asynchronous, and only then says it has started: a
 * request made from then on may act at any instruction. */
static void start_asynchronous(void)
{
    CU_ASSERT_EQUAL(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL), 0);
    started = 1;
}

/* Rounds of each race: bounded, each cancel is judged by a timed join. */
#define ASYNC_ROUNDS 20

static void compute_forever(void *unused)
{
    (void)unused;
    start_asynchronous();
    for (;;) /* no cancellation point, no call at all */
        progress++;
}

static void wait_for_progress(void)
{
    long seen = progress;

    while (progress == seen)
        slimtest_sleep_ms(1);
}

static void settle_on_progress(int round)
{
    (void)round;
    wait_for_progress();
}

static const struct cancel_steps on_progress = {settle_on_progress, NULL, NULL};

static void test_async_cancel_compute_loop(void)
{
    CU_ASSERT_EQUAL_FATAL(pthread_key_create(&key, mark_destructor), 0);
    CU_ASSERT_EQUAL(cancel_rounds(compute_forever, &on_progress, ASYNC_ROUNDS), ASYNC_ROUNDS);
    pthread_key_delete(key);
}

static void store_then_compute(void *unused)
{
    pthread_setspecific(key, (void *)1);
    compute_forever(unused);
}

static void test_async_cancel_runs_destructors(void)
{
    CU_ASSERT_EQUAL_FATAL(pthread_key_create(&key, mark_destructor), 0);
    CU_ASSERT_FATAL(cancel_once(store_then_compute, NULL, &on_progress, 0, PROMPT_MS));
    CU_ASSERT_EQUAL(destructor_ran, 1);
    pthread_key_delete(key);
}

/* A body in a Win32 call turns asynchronous itself, not through
 * start_asynchronous: on i686 the cases failed with that call there. It leaves,
 * deeper in the stack the Win32 call's frame then takes, words that look like
 * returns into the program, and the canceller, finding such a word below the
 * return it would replace, replaces nothing (cancel_async_frames.c): the
 * thread, hardly ever in the program's own code, stays. */
static void win32_sleep_forever(void *alertable)
{
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    started = 1;
    for (;;) {
        if (alertable != NULL)
            SleepEx(INFINITE, TRUE);
        else
            Sleep(20);
        if (!slimtest_system_returns_replaceable())
            pthread_testcancel(); /* where it acts then, as documented */
        reached_after_point++;
    }
}

static void settle_in_its_call(int round)
{
    (void)round;
    slimtest_sleep_ms(30); /* inside its Win32 call */
}

static const volatile long *calls_returned;
static long calls_at_cancel;

static void count_calls_at_cancel(void)
{
    calls_at_cancel = *calls_returned;
}

/* No later call ended: it left when the one it was in returned. */
static void check_no_later_call_returned(void)
{
    CU_ASSERT(*calls_returned <= calls_at_cancel + 1);
}

/* Five rounds: a thread of body, looping on a timed Win32 call and counting
 * its returns in *counter, is cancelled while asynchronous; it leaves when the
 * call it is in returns (no later call ends). */
static void cancel_in_timed_win32_calls(thread_body *body, const volatile long *counter)
{
    static const struct cancel_steps in_its_call = {settle_in_its_call, count_calls_at_cancel,
                                                    check_no_later_call_returned};

    calls_returned = counter;
    CU_ASSERT_FATAL(cancel_rounds(body, &in_its_call, 5) == 5);
}

/* A thread in Win32 Sleep leaves when the delay ends (no later sleep begins). */
static void test_async_cancel_in_win32_sleep(void)
{
    cancel_in_timed_win32_calls(win32_sleep_forever, &reached_after_point);
}

/* An alertable SleepEx(INFINITE) leaves at once, at the APC. */
static void test_async_cancel_in_alertable_sleep(void)
{
    static const struct cancel_steps in_its_call = {settle_in_its_call, NULL, NULL};

    CU_ASSERT_FATAL(cancel_once(win32_sleep_forever, (void *)1, &in_its_call, 0, PROMPT_MS));
}

/* A timed Win32 wait holds no lock: a thread stopped inside it leaves when the
 * wait returns into the program, through the return the canceller patched.
 * Hardly ever is it stopped in the program's own code, so the patch is the
 * only way out. On i686 GCC calls the import through a register it keeps the
 * address in across the loop, and the wait returns with "ret $8": both failed
 * there, and the request was lost. */
static HANDLE never_signalled;
static volatile long waits_returned; /* its own: a thread left running skews no other case */

static void win32_wait_forever(void *unused)
{
    (void)unused;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL); /* as win32_sleep_forever */
    started = 1;
    for (;;) {
        WaitForSingleObject(never_signalled, 20);
        if (!slimtest_system_returns_replaceable())
            pthread_testcancel(); /* where it acts then, as documented */
        waits_returned++;
    }
}

static void test_async_cancel_in_win32_wait(void)
{
    never_signalled = CreateEventW(NULL, TRUE, FALSE, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(never_signalled);
    cancel_in_timed_win32_calls(win32_wait_forever, &waits_returned);
    CloseHandle(never_signalled);
}

/* Toggling its own type: the request lands either as it is stopped in its own
 * code while asynchronous, or when setcanceltype(ASYNCHRONOUS) finds it. */
static void toggle_type_forever(void *unused)
{
    (void)unused;
    started = 1;
    for (;;) {
        pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
        progress++;
        pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, NULL);
        progress++;
    }
}

static void settle_for_a_while(int round)
{
    slimtest_sleep_ms((unsigned)(round % 3));
}

static void test_async_cancel_racing_setcanceltype(void)
{
    static const struct cancel_steps for_a_while = {settle_for_a_while, NULL, NULL};

    CU_ASSERT_EQUAL(cancel_rounds(toggle_type_forever, &for_a_while, ASYNC_ROUNDS), ASYNC_ROUNDS);
}

/* Stopped anywhere in its lock/unlock loop, the thread never leaves the mutex
 * half taken: the cleanup handler's errorcheck unlock gives 0 when it held the
 * mutex (its own lock stays held otherwise, as POSIX has it) or EPERM when
 * not, and other threads lock and unlock it afterwards. */
static pthread_mutex_t shared_mutex = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static volatile long cleanup_unlock_result;
static int held_at_cancel;

static void unlock_shared_mutex(void *unused)
{
    (void)unused;
    cleanup_unlock_result = pthread_mutex_unlock(&shared_mutex);
}

static void lock_unlock_forever(void *unused)
{
    (void)unused;
    pthread_cleanup_push(unlock_shared_mutex, NULL);
    start_asynchronous();
    for (;;) {
        pthread_mutex_lock(&shared_mutex);
        progress++;
        pthread_mutex_unlock(&shared_mutex);
    }
    pthread_cleanup_pop(0);
}

/* Cleared before the cancel, the result is the one this round's handler gave. */
static void clear_unlock_result_on_progress(int round)
{
    (void)round;
    cleanup_unlock_result = -1;
    wait_for_progress();
}

static void check_mutex_left_whole(void)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, (long)PROMPT_MS);

    CU_ASSERT(cleanup_unlock_result == 0 || cleanup_unlock_result == EPERM);
    held_at_cancel += cleanup_unlock_result == 0;
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&shared_mutex, &until), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
}

static void test_async_cancel_inside_our_mutex(void)
{
    static const struct cancel_steps in_the_mutex = {clear_unlock_result_on_progress, NULL,
                                                     check_mutex_left_whole};
    int landed;

    held_at_cancel = 0;
    landed = cancel_rounds(lock_unlock_forever, &in_the_mutex, ASYNC_ROUNDS);
    printf("\n    (%d cancels, %d while holding the mutex) ", landed, held_at_cancel);
    CU_ASSERT_EQUAL(landed, ASYNC_ROUNDS);
}

/* Stopped inside the C runtime's heap (which holds its lock there), the thread
 * leaves only once malloc or free has returned: the heap stays usable. */
static void allocate_forever(void *unused)
{
    (void)unused;
    start_asynchronous();
    for (;;) {
        free(malloc(64 + (size_t)(progress % 512)));
        progress++;
    }
}

static void check_heap_usable(void)
{
    free(malloc(100)); /* hangs if the heap lock were left held */
}

static void test_async_cancel_inside_the_heap(void)
{
    static const struct cancel_steps in_the_heap = {settle_on_progress, NULL, check_heap_usable};

    CU_ASSERT_EQUAL(cancel_rounds(allocate_forever, &in_the_heap, ASYNC_ROUNDS), ASYNC_ROUNDS);
}

/* Async in a semaphore's post/trywait loop: the semaphore stays consistent. */
static sem_t shared_sem;

static void post_take_forever(void *unused)
{
    (void)unused;
    start_asynchronous();
    for (;;) {
        sem_post(&shared_sem);
        progress++;
        sem_trywait(&shared_sem);
    }
}

/* Its token posted or not, never more; then emptied for the next round. */
static void check_sem_consistent(void)
{
    int value = -1;

    CU_ASSERT_EQUAL(sem_getvalue(&shared_sem, &value), 0);
    CU_ASSERT(value == 0 || value == 1);
    while (sem_trywait(&shared_sem) == 0)
        ;
}

static void test_async_cancel_inside_sem(void)
{
    static const struct cancel_steps in_the_sem = {settle_on_progress, NULL, check_sem_consistent};

    CU_ASSERT_EQUAL_FATAL(sem_init(&shared_sem, 0, 0), 0);
    CU_ASSERT_FATAL(cancel_rounds(post_take_forever, &in_the_sem, ASYNC_ROUNDS) == ASYNC_ROUNDS);
    CU_ASSERT_EQUAL(sem_post(&shared_sem), 0);
    CU_ASSERT_EQUAL(sem_wait(&shared_sem), 0);
    CU_ASSERT_EQUAL(sem_destroy(&shared_sem), 0);
}

/* Asynchronous, asleep at a cancellation point (in ntdll, where it is never
 * stopped): the request acts at the point. */
static void async_sem_wait(void *unused)
{
    (void)unused;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    wait_on_sem(NULL);
}

static void test_async_cancel_at_a_point(void)
{
    CU_ASSERT_EQUAL_FATAL(sem_init(&sem, 0, 0), 0);
    check_cancelled_at_its_point(async_sem_wait, NULL);
    CU_ASSERT_EQUAL(reached_after_point, 0);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void async_cancel_self(void *unused)
{
    (void)unused;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    reached_after_point = 1;
    pthread_cancel(pthread_self()); /* acts at once */
    reached_after_point = 2;
}

static void test_async_cancel_self(void)
{
    check_cancelled_itself(async_cancel_self);
    CU_ASSERT_EQUAL(reached_after_point, 1);
}

/* Disabled while asynchronous: nothing lands until it is enabled again, and
 * then at once. */
static void test_async_disabled_waits(void)
{
    check_request_waits_while_disabled(PTHREAD_CANCEL_ASYNCHRONOUS, 1);
}

/* ---- sleep, usleep, pause ---- */

static void loop_in_sleep(void *which)
{
    started = 1;
    for (;;) {
        switch ((int)(intptr_t)which) {
        case 0:
            sleep(1);
            break;
        case 1:
            usleep(100000);
            break;
        default:
            pause();
            break;
        }
        reached_after_point++;
    }
}

static void check_deferred_cancel_in(int which)
{
    check_cancelled_at_its_point(loop_in_sleep, (void *)(intptr_t)which);
}

static void test_cancel_in_sleep(void)
{
    check_deferred_cancel_in(0);
}

static void test_cancel_in_usleep(void)
{
    check_deferred_cancel_in(1);
}

static void test_cancel_in_pause(void)
{
    check_deferred_cancel_in(2);
}

static void test_sleep_usleep_values(void)
{
    double begin;

    CU_ASSERT_EQUAL(sleep(0), 0U);
    CU_ASSERT_EQUAL(usleep(0), 0);
    begin = slimtest_now_ms();
    CU_ASSERT_EQUAL(usleep(20000), 0);
    CU_ASSERT(slimtest_now_ms() - begin >= 19.5); /* never early */
    begin = slimtest_now_ms();
    CU_ASSERT_EQUAL(usleep(1000000), 0); /* a million is accepted, as glibc does */
    CU_ASSERT(slimtest_now_ms() - begin >= 999.5);
    begin = slimtest_now_ms();
    CU_ASSERT_EQUAL(sleep(1), 0U);
    CU_ASSERT(slimtest_now_ms() - begin >= 999.5);
}

/* ---- A request pending at entry ----
 * POSIX's "shall occur" points act on a request pending when they are called,
 * also where they would not block: a semaphore with a token, a deadline
 * already past, a thread already ended, a sleep of zero. One body calls each
 * point of the table on such a path, in a thread of its own, after the
 * request was made in one of two ways. */

/* What one point needs: prepare runs first and check after the join (in the
 * main thread; either may be NULL), call in the cancelled thread. */
struct point {
    const char *name;
    void (*prepare)(void);
    void (*call)(void);
    void (*check)(void);
};

static sem_t unnamed_point_sem;
static sem_t *point_sem;
static pthread_t point_thread;
static volatile long point_thread_may_end;

static void prepare_token(void)
{
    CU_ASSERT_EQUAL(sem_init(&unnamed_point_sem, 0, 1), 0);
    point_sem = &unnamed_point_sem;
}

static void prepare_no_token(void)
{
    CU_ASSERT_EQUAL(sem_init(&unnamed_point_sem, 0, 0), 0);
    point_sem = &unnamed_point_sem;
}

/* The call acted before it took the token, or found none to take. */
static void check_value_kept(int expected)
{
    int value = -1;

    CU_ASSERT_EQUAL(sem_getvalue(point_sem, &value), 0);
    CU_ASSERT_EQUAL(value, expected);
}

static void check_token_kept(void)
{
    check_value_kept(1);
    CU_ASSERT_EQUAL(sem_destroy(&unnamed_point_sem), 0);
}

static void check_no_token(void)
{
    check_value_kept(0);
    CU_ASSERT_EQUAL(sem_destroy(&unnamed_point_sem), 0);
}

static void prepare_named_token(void)
{
    char name[64];

    snprintf(name, sizeof name, "/slimtest-%lu-point", (unsigned long)GetCurrentProcessId());
    point_sem = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
    CU_ASSERT_FATAL(point_sem != SEM_FAILED);
    CU_ASSERT_EQUAL(sem_unlink(name), 0); /* ours alone from here on */
}

static void check_named_token_kept(void)
{
    check_value_kept(1);
    CU_ASSERT_EQUAL(sem_close(point_sem), 0);
}

static struct timespec in_a_minute(clockid_t clock)
{
    return slimtest_time_after_ms(clock, 60000);
}

static struct timespec a_second_ago(clockid_t clock)
{
    return slimtest_time_after_ms(clock, -1000);
}

static void call_sem_wait(void)
{
    sem_wait(point_sem);
}

static void call_sem_timedwait(void)
{
    struct timespec until = in_a_minute(CLOCK_REALTIME);

    sem_timedwait(point_sem, &until);
}

static void call_sem_timedwait_past(void)
{
    struct timespec until = a_second_ago(CLOCK_REALTIME);

    sem_timedwait(point_sem, &until);
}

static void call_sem_clockwait(void)
{
    struct timespec until = in_a_minute(CLOCK_MONOTONIC);

    sem_clockwait(point_sem, CLOCK_MONOTONIC, &until);
}

/* Each cond wait holds checked_mutex; the cleanup handler's errorcheck unlock
 * says whether it was held when the request acted. */
static void call_cond_wait_kind(int kind)
{
    struct timespec past = a_second_ago(kind == 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME);

    CU_ASSERT_EQUAL(pthread_mutex_lock(&checked_mutex), 0);
    pthread_cleanup_push(unlock_checked_mutex, NULL);
    if (kind == 0)
        pthread_cond_wait(&cond, &checked_mutex);
    else if (kind == 1)
        pthread_cond_timedwait(&cond, &checked_mutex, &past);
    else
        pthread_cond_clockwait(&cond, &checked_mutex, CLOCK_MONOTONIC, &past);
    pthread_cleanup_pop(1);
}

static void call_cond_wait(void)
{
    call_cond_wait_kind(0);
}

static void call_cond_timedwait_past(void)
{
    call_cond_wait_kind(1);
}

static void call_cond_clockwait_past(void)
{
    call_cond_wait_kind(2);
}

static void prepare_cond(void)
{
    unlock_result_in_cleanup = -1;
}

static void check_cond_left(void)
{
    CU_ASSERT_EQUAL(unlock_result_in_cleanup, 0);    /* held in the cleanup handler */
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0); /* no waiter left queued */
}

static void *end_when_allowed(void *unused)
{
    (void)unused;
    while (!point_thread_may_end)
        slimtest_sleep_ms(1);
    return NULL;
}

static void prepare_ended_thread(void)
{
    point_thread_may_end = 1;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&point_thread, NULL, end_when_allowed, NULL), 0);
    CU_ASSERT_EQUAL(WaitForSingleObject(pthread_getw32threadhandle_np(point_thread), 10000),
                    WAIT_OBJECT_0);
}

static void prepare_running_thread(void)
{
    point_thread_may_end = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&point_thread, NULL, end_when_allowed, NULL), 0);
}

/* The cancelled join left the thread joinable. */
static void check_thread_joinable(void)
{
    point_thread_may_end = 1;
    CU_ASSERT_EQUAL(pthread_join(point_thread, NULL), 0);
}

static void call_join(void)
{
    pthread_join(point_thread, NULL);
}

static void call_timedjoin_past(void)
{
    struct timespec until = a_second_ago(CLOCK_REALTIME);

    pthread_timedjoin_np(point_thread, NULL, &until);
}

static void call_timedjoin_ended(void)
{
    struct timespec until = in_a_minute(CLOCK_REALTIME);

    pthread_timedjoin_np(point_thread, NULL, &until);
}

static void call_nanosleep_zero(void)
{
    struct timespec zero = {0, 0};

    nanosleep(&zero, NULL);
}

static void call_clock_nanosleep_past(void)
{
    struct timespec past = a_second_ago(CLOCK_MONOTONIC);

    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL);
}

static void call_sleep_zero(void)
{
    sleep(0);
}

static void call_usleep_zero(void)
{
    usleep(0);
}

static void call_pause(void)
{
    pause();
}

static void call_testcancel(void)
{
    pthread_testcancel();
}

static const struct point points[] = {
    {"sem_wait, a token there", prepare_token, call_sem_wait, check_token_kept},
    {"sem_timedwait, a token there", prepare_token, call_sem_timedwait, check_token_kept},
    {"sem_timedwait, the deadline past", prepare_no_token, call_sem_timedwait_past, check_no_token},
    {"sem_clockwait, a token there", prepare_token, call_sem_clockwait, check_token_kept},
    {"named sem_wait, a token there", prepare_named_token, call_sem_wait, check_named_token_kept},
    {"named sem_timedwait, a token there", prepare_named_token, call_sem_timedwait,
     check_named_token_kept},
    {"pthread_cond_wait", prepare_cond, call_cond_wait, check_cond_left},
    {"pthread_cond_timedwait, the deadline past", prepare_cond, call_cond_timedwait_past,
     check_cond_left},
    {"pthread_cond_clockwait, the deadline past", prepare_cond, call_cond_clockwait_past,
     check_cond_left},
    {"pthread_join, the thread ended", prepare_ended_thread, call_join, check_thread_joinable},
    {"pthread_timedjoin_np, the thread ended", prepare_ended_thread, call_timedjoin_ended,
     check_thread_joinable},
    {"pthread_timedjoin_np, the deadline past", prepare_running_thread, call_timedjoin_past,
     check_thread_joinable},
    {"nanosleep of zero", NULL, call_nanosleep_zero, NULL},
    {"clock_nanosleep, the time past", NULL, call_clock_nanosleep_past, NULL},
    {"sleep(0)", NULL, call_sleep_zero, NULL},
    {"usleep(0)", NULL, call_usleep_zero, NULL},
    {"pause", NULL, call_pause, NULL},
    {"pthread_testcancel", NULL, call_testcancel, NULL},
};
#define POINT_COUNT (sizeof points / sizeof points[0])

/* How the request comes to be pending when the point is called. */
enum request_timing {
    REQUEST_WHILE_ENABLED, /* made by another thread while this one ran elsewhere */
    REQUEST_WHILE_DISABLED /* the same while cancellation was disabled, enabled again since */
};

static const struct point *current_point;

static void call_point_with_request_pending(void *timing)
{
    int disabled = (intptr_t)timing == REQUEST_WHILE_DISABLED;

    if (disabled)
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    started = 1;
    while (!may_enable)
        slimtest_sleep_ms(1); /* Win32 Sleep: no cancellation point */
    if (disabled)
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL); /* deferred: does not act */
    reached_after_point = 1;
    current_point->call();
    reached_after_point = 2;
}

/* A generous bound: a point that does not act but blocks fails, not hangs. */
#define POINT_JOIN_MS 10000.0

/* The request is made while the thread waits for may_enable, which it may
 * then go past: the request is pending when it reaches its point. */
static const struct cancel_steps enabled_at_once = {NULL, allow_enable, NULL};

static void check_point_acts(const struct point *point, enum request_timing timing)
{
    may_enable = 0;
    current_point = point;
    if (point->prepare != NULL)
        point->prepare();
    CU_ASSERT_FATAL(cancel_once(call_point_with_request_pending, (void *)(intptr_t)timing,
                                &enabled_at_once, 0, POINT_JOIN_MS));
    CU_ASSERT_EQUAL(reached_after_point, 1); /* acted in the call, not before or after */
    if (point->check != NULL)
        point->check();
}

/* Every point of the table; names the ones that failed. */
static void check_every_point(enum request_timing timing)
{
    size_t i;

    for (i = 0; i < POINT_COUNT; i++) {
        unsigned failures = CU_get_number_of_failures();

        check_point_acts(&points[i], timing);
        if (CU_get_number_of_failures() != failures)
            printf("\n    failed: %s ", points[i].name);
    }
}

static void test_points_act_on_pending_request(void)
{
    check_every_point(REQUEST_WHILE_ENABLED);
}

static void test_points_act_after_disabled_then_enabled(void)
{
    check_every_point(REQUEST_WHILE_DISABLED);
}

/* Both types, disabled while the request comes: the sem_wait made then takes
 * its token; enabled again, an asynchronous thread acts at once, a deferred
 * one at its next point, the same sem_wait with a token there. */
static void sem_wait_disabled_then_enabled(void *type)
{
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    pthread_setcanceltype((int)(intptr_t)type, NULL);
    started = 1;
    while (!may_enable)
        slimtest_sleep_ms(1);
    CU_ASSERT_EQUAL(sem_wait(point_sem), 0); /* disabled: not acted on */
    reached_after_point = 1;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
    reached_after_point = 2;
    sem_wait(point_sem);
    reached_after_point = 3;
}

static void check_type_at_point(int type, long expected_reached)
{
    may_enable = 0;
    CU_ASSERT_EQUAL_FATAL(sem_init(&unnamed_point_sem, 0, 2), 0);
    point_sem = &unnamed_point_sem;
    CU_ASSERT_FATAL(cancel_once(sem_wait_disabled_then_enabled, (void *)(intptr_t)type,
                                &enabled_at_once, 0, POINT_JOIN_MS));
    CU_ASSERT_EQUAL(reached_after_point, expected_reached);
    check_value_kept(1); /* the disabled call took one token, the acting one none */
    CU_ASSERT_EQUAL(sem_destroy(&unnamed_point_sem), 0);
}

static void test_pending_request_both_types(void)
{
    check_type_at_point(PTHREAD_CANCEL_ASYNCHRONOUS, 1);
    check_type_at_point(PTHREAD_CANCEL_DEFERRED, 2);
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
    {"mutex lock, sem_trywait and barrier wait are not cancellation points",
     test_mutex_and_barrier_are_not_points},
    {"async: a pure compute loop is cancelled", test_async_cancel_compute_loop},
    {"async: cleanup handlers and key destructors run", test_async_cancel_runs_destructors},
    {"async: a thread in Win32 Sleep leaves when the delay ends", test_async_cancel_in_win32_sleep},
    {"async: a thread in alertable SleepEx(INFINITE) leaves", test_async_cancel_in_alertable_sleep},
    {"async: a thread in a timed Win32 wait leaves when it returns", test_async_cancel_in_win32_wait},
    {"async: racing its own setcanceltype", test_async_cancel_racing_setcanceltype},
    {"async: inside our mutex, the mutex stays usable", test_async_cancel_inside_our_mutex},
    {"async: inside sem_post/trywait, the semaphore stays consistent", test_async_cancel_inside_sem},
    {"async: inside malloc/free, the heap stays usable", test_async_cancel_inside_the_heap},
    {"async: asleep at a cancellation point, acts there", test_async_cancel_at_a_point},
    {"async: a thread cancelling itself acts at once", test_async_cancel_self},
    {"async: disabled, the request waits for enable", test_async_disabled_waits},
    {"deferred cancel lands in sleep(1)", test_cancel_in_sleep},
    {"deferred cancel lands in usleep(100000)", test_cancel_in_usleep},
    {"deferred cancel lands in pause()", test_cancel_in_pause},
    {"sleep and usleep return values, never early", test_sleep_usleep_values},
    {"a request pending at entry: every point acts, also where it would not block",
     test_points_act_on_pending_request},
    {"disabled, requested, enabled: every point acts at entry",
     test_points_act_after_disabled_then_enabled},
    {"disabled, requested, enabled: asynchronous acts at enable, deferred at the point",
     test_pending_request_both_types},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("cancel", cases, 300);
}
