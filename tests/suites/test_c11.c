/*
 * test_c11.c - the C11 threads library of <threads.h>: every function, its
 * success path and each result code it can give, and the mixing of the C11
 * and pthread APIs on one object. Timings are only bounded from below (a wait
 * never ends early), never from above.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <process.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <threads.h>
#include "testutil.h"

#define RACE_THREADS 8
#define COUNT_ROUNDS 20000

static struct timespec utc_after_ms(long ms)
{
    struct timespec at;

    CU_ASSERT_EQUAL(timespec_get(&at, TIME_UTC), TIME_UTC);
    at.tv_sec += ms / 1000;
    at.tv_nsec += (ms % 1000) * 1000000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    } else if (at.tv_nsec < 0) {
        at.tv_sec--;
        at.tv_nsec += 1000000000L;
    }
    return at;
}

/* ---- Threads ---- */

static int return_argument(void *arg)
{
    return (int)(intptr_t)arg;
}

static int exit_with_argument(void *arg)
{
    thrd_exit((int)(intptr_t)arg);
    return -1000; /* never */
}

static void test_create_join_results(void)
{
    static const int values[] = {0, 1, 42, -1, -123456, INT32_MAX, INT32_MIN};
    size_t i;

    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        thrd_t returner, exiter;
        int result = 7;

        CU_ASSERT_EQUAL_FATAL(thrd_create(&returner, return_argument,
                                          (void *)(intptr_t)values[i]), thrd_success);
        CU_ASSERT_EQUAL_FATAL(thrd_create(&exiter, exit_with_argument,
                                          (void *)(intptr_t)values[i]), thrd_success);
        CU_ASSERT_EQUAL(thrd_join(returner, &result), thrd_success);
        CU_ASSERT_EQUAL(result, values[i]);
        result = 7;
        CU_ASSERT_EQUAL(thrd_join(exiter, &result), thrd_success);
        CU_ASSERT_EQUAL(result, values[i]);
    }
}

static void test_join_without_result_and_errors(void)
{
    thrd_t thread;

    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, return_argument, (void *)5), thrd_success);
    CU_ASSERT_EQUAL(thrd_join(thread, NULL), thrd_success);
    CU_ASSERT_EQUAL(thrd_join(thrd_current(), NULL), thrd_error); /* itself */
    CU_ASSERT_EQUAL(thrd_join((thrd_t)0, NULL), thrd_error);
    CU_ASSERT_EQUAL(thrd_create(NULL, return_argument, NULL), thrd_error);
    CU_ASSERT_EQUAL(thrd_create(&thread, NULL, NULL), thrd_error);
}

static void *pthread_returns_argument(void *arg)
{
    return arg;
}

/* A thrd_t is a pthread_t: each API joins the other's threads. */
static void test_mixed_create_and_join(void)
{
    pthread_t posix_thread;
    thrd_t c11_thread;
    void *pointer_result = NULL;
    int int_result = 0;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&posix_thread, NULL, pthread_returns_argument,
                                         (void *)(intptr_t)-77), 0);
    CU_ASSERT_EQUAL(thrd_join(posix_thread, &int_result), thrd_success);
    CU_ASSERT_EQUAL(int_result, -77);

    CU_ASSERT_EQUAL_FATAL(thrd_create(&c11_thread, return_argument, (void *)(intptr_t)-78),
                          thrd_success);
    CU_ASSERT_EQUAL(pthread_join(c11_thread, &pointer_result), 0);
    CU_ASSERT_EQUAL((int)(intptr_t)pointer_result, -78);
}

struct identity {
    thrd_t seen_current;
    pthread_t seen_self;
};

static int record_identity(void *raw)
{
    struct identity *identity = raw;

    identity->seen_current = thrd_current();
    identity->seen_self = pthread_self();
    return 0;
}

static void test_current_and_equal(void)
{
    struct identity identity;
    thrd_t thread;

    CU_ASSERT(thrd_equal(thrd_current(), thrd_current()));
    CU_ASSERT(thrd_equal(thrd_current(), pthread_self()));
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, record_identity, &identity), thrd_success);
    CU_ASSERT(!thrd_equal(thread, thrd_current()));
    CU_ASSERT_EQUAL(thrd_join(thread, NULL), thrd_success);
    CU_ASSERT(thrd_equal(identity.seen_current, thread));
    CU_ASSERT(thrd_equal(identity.seen_self, thread));
}

static volatile long detached_ran;

static int mark_and_return(void *arg)
{
    (void)arg;
    InterlockedIncrement(&detached_ran);
    return 0;
}

static void test_detach(void)
{
    thrd_t thread;
    double start = slimtest_now_ms();

    detached_ran = 0;
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, mark_and_return, NULL), thrd_success);
    CU_ASSERT_EQUAL(thrd_detach(thread), thrd_success);
    while (!detached_ran && slimtest_now_ms() - start < SLIMTEST_JOIN_TIMEOUT_MS)
        thrd_yield();
    CU_ASSERT_EQUAL(detached_ran, 1);

    /* Detached: neither detached again nor joined. */
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, return_argument, NULL), thrd_success);
    CU_ASSERT_EQUAL(thrd_join(thread, NULL), thrd_success);
    CU_ASSERT_EQUAL(thrd_detach((thrd_t)0), thrd_error);
    CU_ASSERT_EQUAL(thrd_detach(thread), thrd_error); /* joined: gone */
}

static void test_sleep_and_yield(void)
{
    struct timespec duration = {0, 30 * 1000000L}, remaining = {11, 22};
    double start = slimtest_now_ms();

    CU_ASSERT_EQUAL(thrd_sleep(&duration, &remaining), 0);
    CU_ASSERT(slimtest_now_ms() - start >= 29.0);
    /* Not interrupted: remaining is left alone. */
    CU_ASSERT_EQUAL(remaining.tv_sec, 11);
    CU_ASSERT_EQUAL(remaining.tv_nsec, 22);
    CU_ASSERT_EQUAL(thrd_sleep(&duration, NULL), 0);

    duration.tv_sec = 0;
    duration.tv_nsec = 0;
    CU_ASSERT_EQUAL(thrd_sleep(&duration, NULL), 0);
    duration.tv_nsec = 1000000000L;
    CU_ASSERT(thrd_sleep(&duration, NULL) < -1);
    duration.tv_nsec = -1;
    CU_ASSERT(thrd_sleep(&duration, NULL) < -1);
    duration.tv_sec = -1;
    duration.tv_nsec = 0;
    CU_ASSERT(thrd_sleep(&duration, NULL) < -1);
    CU_ASSERT(thrd_sleep(NULL, NULL) < -1);
    thrd_yield();
}

static _Thread_local int per_thread_counter = 5;
static thread_local int per_thread_other = 9;

static int bump_thread_locals(void *arg)
{
    (void)arg;
    per_thread_counter += 100;
    per_thread_other += 100;
    return per_thread_counter + per_thread_other;
}

static void test_thread_local(void)
{
    thrd_t thread;
    int result = 0;

    per_thread_counter = 1;
    per_thread_other = 2;
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, bump_thread_locals, NULL), thrd_success);
    CU_ASSERT_EQUAL(thrd_join(thread, &result), thrd_success);
    CU_ASSERT_EQUAL(result, 105 + 109); /* the new thread starts from the initializers */
    CU_ASSERT_EQUAL(per_thread_counter, 1);
    CU_ASSERT_EQUAL(per_thread_other, 2);
}

static void test_timespec_get(void)
{
    struct timespec now;
    time_t before = time(NULL);

    CU_ASSERT_EQUAL(timespec_get(&now, TIME_UTC), TIME_UTC);
    CU_ASSERT(now.tv_nsec >= 0 && now.tv_nsec < 1000000000L);
    CU_ASSERT(now.tv_sec >= before && now.tv_sec <= time(NULL) + 1);
}

/* ---- Mutexes ---- */

static void test_mtx_init_types(void)
{
    static const int valid[] = {mtx_plain, mtx_timed, mtx_plain | mtx_recursive,
                                mtx_timed | mtx_recursive};
    static const int invalid[] = {4, 8, -1, mtx_timed | 4};
    mtx_t mutex;
    size_t i;

    for (i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        CU_ASSERT_EQUAL(mtx_init(&mutex, valid[i]), thrd_success);
        CU_ASSERT_EQUAL(mtx_lock(&mutex), thrd_success);
        CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);
        mtx_destroy(&mutex);
    }
    for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        CU_ASSERT_EQUAL(mtx_init(&mutex, invalid[i]), thrd_error);
    CU_ASSERT_EQUAL(mtx_init(NULL, mtx_plain), thrd_error);
}

static void test_mtx_recursive(void)
{
    struct timespec later = utc_after_ms(1000);
    mtx_t mutex;

    CU_ASSERT_EQUAL_FATAL(mtx_init(&mutex, mtx_timed | mtx_recursive), thrd_success);
    CU_ASSERT_EQUAL(mtx_lock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_lock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_trylock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &later), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_error); /* not held any more */
    mtx_destroy(&mutex);
}

struct held_mutex {
    mtx_t *mutex;
    volatile long locked;
    volatile long release;
    int result;
};

/* Locks the mutex, says so, and holds it until told to let go. */
static int hold_until_released(void *raw)
{
    struct held_mutex *held = raw;

    held->result = mtx_lock(held->mutex);
    InterlockedExchange(&held->locked, 1);
    while (!InterlockedCompareExchange(&held->release, 0, 0))
        slimtest_sleep_ms(1);
    return mtx_unlock(held->mutex);
}

static thrd_t start_holder(struct held_mutex *held, mtx_t *mutex)
{
    thrd_t thread;
    double start = slimtest_now_ms();

    memset(held, 0, sizeof *held);
    held->mutex = mutex;
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, hold_until_released, held), thrd_success);
    while (!InterlockedCompareExchange(&held->locked, 0, 0) &&
           slimtest_now_ms() - start < SLIMTEST_JOIN_TIMEOUT_MS)
        slimtest_sleep_ms(1);
    CU_ASSERT_FATAL(held->locked);
    return thread;
}

static void stop_holder(struct held_mutex *held, thrd_t thread)
{
    int result = -1;

    InterlockedExchange(&held->release, 1);
    CU_ASSERT_EQUAL(thrd_join(thread, &result), thrd_success);
    CU_ASSERT_EQUAL(held->result, thrd_success);
    CU_ASSERT_EQUAL(result, thrd_success);
}

static void test_mtx_trylock_busy(void)
{
    struct held_mutex held;
    mtx_t plain, recursive;
    thrd_t thread;

    CU_ASSERT_EQUAL_FATAL(mtx_init(&plain, mtx_plain), thrd_success);
    CU_ASSERT_EQUAL_FATAL(mtx_init(&recursive, mtx_plain | mtx_recursive), thrd_success);

    /* Held by the caller: busy for a plain mutex (C11 allows no relock). */
    CU_ASSERT_EQUAL(mtx_trylock(&plain), thrd_success);
    CU_ASSERT_EQUAL(mtx_trylock(&plain), thrd_busy);
    CU_ASSERT_EQUAL(mtx_unlock(&plain), thrd_success);

    thread = start_holder(&held, &plain);
    CU_ASSERT_EQUAL(mtx_trylock(&plain), thrd_busy);
    stop_holder(&held, thread);
    CU_ASSERT_EQUAL(mtx_trylock(&plain), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&plain), thrd_success);

    thread = start_holder(&held, &recursive);
    CU_ASSERT_EQUAL(mtx_trylock(&recursive), thrd_busy);
    CU_ASSERT_EQUAL(mtx_unlock(&recursive), thrd_error); /* another thread's */
    stop_holder(&held, thread);

    mtx_destroy(&recursive);
    mtx_destroy(&plain);
}

static void test_mtx_timedlock(void)
{
    struct held_mutex held;
    struct timespec deadline, bad;
    mtx_t mutex;
    thrd_t thread;
    double start;

    CU_ASSERT_EQUAL_FATAL(mtx_init(&mutex, mtx_timed), thrd_success);
    deadline = utc_after_ms(1000);
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &deadline), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);

    thread = start_holder(&held, &mutex);
    deadline = utc_after_ms(-1000);
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &deadline), thrd_timedout);
    start = slimtest_now_ms();
    deadline = utc_after_ms(50);
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &deadline), thrd_timedout);
    CU_ASSERT(slimtest_now_ms() - start >= 45.0);
    bad = deadline;
    bad.tv_nsec = 1000000000L;
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &bad), thrd_error);
    bad.tv_nsec = -1;
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &bad), thrd_error);
    stop_holder(&held, thread);

    /* Succeeds once the holder lets go before the deadline. */
    thread = start_holder(&held, &mutex);
    InterlockedExchange(&held.release, 1);
    deadline = utc_after_ms(SLIMTEST_JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &deadline), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_success);
    stop_holder(&held, thread);
    mtx_destroy(&mutex);
}

static void test_mtx_errors(void)
{
    struct timespec later = utc_after_ms(1000);
    mtx_t mutex;

    CU_ASSERT_EQUAL_FATAL(mtx_init(&mutex, mtx_plain), thrd_success);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_error); /* nobody holds it */
    mtx_destroy(&mutex);
    CU_ASSERT_EQUAL(mtx_lock(&mutex), thrd_error);
    CU_ASSERT_EQUAL(mtx_trylock(&mutex), thrd_error);
    CU_ASSERT_EQUAL(mtx_timedlock(&mutex, &later), thrd_error);
    CU_ASSERT_EQUAL(mtx_unlock(&mutex), thrd_error);
}

/* mtx_lock and mtx_unlock as testutil's counter calls them. */
static int counter_mtx_lock(void *mutex, long round)
{
    (void)round;
    return mtx_lock(mutex) == thrd_success ? 0 : -1;
}

static int counter_mtx_unlock(void *mutex)
{
    return mtx_unlock(mutex) == thrd_success ? 0 : -1;
}

/* A counting thread started by thrd_create. */
static int count_with_mtx(void *counter)
{
    slimtest_count_under_lock(counter);
    return 0;
}

/* Zero-filled memory is a plain mutex; pthread and C11 calls lock the same one. */
static void test_mtx_zero_filled_and_mixed(void)
{
    mtx_t mutex;
    struct slimtest_counter counted = {&mutex, counter_mtx_lock, counter_mtx_unlock, NULL,
                                       COUNT_ROUNDS, 0, 0};
    pthread_mutex_t posix_initialized = PTHREAD_MUTEX_INITIALIZER;
    thrd_t threads[RACE_THREADS];
    int i;

    memset(&mutex, 0, sizeof mutex);
    CU_ASSERT_EQUAL(mtx_trylock(&mutex), thrd_success);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    for (i = 0; i < RACE_THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(thrd_create(&threads[i], count_with_mtx, &counted), thrd_success);
    for (i = 0; i < RACE_THREADS; i++)
        CU_ASSERT_EQUAL(thrd_join(threads[i], NULL), thrd_success);
    CU_ASSERT_EQUAL(counted.value, (long)RACE_THREADS * COUNT_ROUNDS);
    CU_ASSERT_EQUAL(counted.errors, 0);
    mtx_destroy(&mutex);

    CU_ASSERT_EQUAL(mtx_lock(&posix_initialized), thrd_success);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&posix_initialized), 0);
}

/* ---- Condition variables ---- */

struct mailbox {
    mtx_t mutex;
    cnd_t cond;
    int posted;   /* guarded by mutex */
    int waiting;  /* guarded by mutex: waiters inside cnd_wait */
    int taken;    /* guarded by mutex */
    int errors;   /* guarded by mutex */
};

static int wait_for_post(void *raw)
{
    struct mailbox *box = raw;

    if (mtx_lock(&box->mutex) != thrd_success)
        return -1;
    box->waiting++;
    while (box->posted == 0)
        if (cnd_wait(&box->cond, &box->mutex) != thrd_success)
            box->errors++;
    box->posted--;
    box->taken++;
    box->waiting--;
    return mtx_unlock(&box->mutex);
}

static void wait_until_waiting(struct mailbox *box, int count)
{
    double start = slimtest_now_ms();

    for (;;) {
        int waiting;

        CU_ASSERT_EQUAL_FATAL(mtx_lock(&box->mutex), thrd_success);
        waiting = box->waiting;
        CU_ASSERT_EQUAL_FATAL(mtx_unlock(&box->mutex), thrd_success);
        if (waiting >= count)
            return;
        CU_ASSERT_FATAL(slimtest_now_ms() - start < SLIMTEST_JOIN_TIMEOUT_MS);
        slimtest_sleep_ms(1);
    }
}

static void test_cnd_signal_and_broadcast(void)
{
    struct mailbox box;
    thrd_t threads[RACE_THREADS];
    int i, result;

    memset(&box, 0, sizeof box);
    CU_ASSERT_EQUAL_FATAL(mtx_init(&box.mutex, mtx_plain), thrd_success);
    CU_ASSERT_EQUAL_FATAL(cnd_init(&box.cond), thrd_success);
    CU_ASSERT_EQUAL(cnd_signal(&box.cond), thrd_success);    /* nobody waits */
    CU_ASSERT_EQUAL(cnd_broadcast(&box.cond), thrd_success);

    CU_ASSERT_EQUAL_FATAL(thrd_create(&threads[0], wait_for_post, &box), thrd_success);
    wait_until_waiting(&box, 1);
    mtx_lock(&box.mutex);
    box.posted = 1;
    CU_ASSERT_EQUAL(cnd_signal(&box.cond), thrd_success);
    mtx_unlock(&box.mutex);
    CU_ASSERT_EQUAL(thrd_join(threads[0], &result), thrd_success);
    CU_ASSERT_EQUAL(result, thrd_success);

    for (i = 0; i < RACE_THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(thrd_create(&threads[i], wait_for_post, &box), thrd_success);
    wait_until_waiting(&box, RACE_THREADS);
    mtx_lock(&box.mutex);
    box.posted = RACE_THREADS;
    CU_ASSERT_EQUAL(cnd_broadcast(&box.cond), thrd_success);
    mtx_unlock(&box.mutex);
    for (i = 0; i < RACE_THREADS; i++)
        CU_ASSERT_EQUAL(thrd_join(threads[i], NULL), thrd_success);
    CU_ASSERT_EQUAL(box.taken, RACE_THREADS + 1);
    CU_ASSERT_EQUAL(box.errors, 0);
    cnd_destroy(&box.cond);
    mtx_destroy(&box.mutex);
}

static void test_cnd_timedwait(void)
{
    struct mailbox box;
    struct timespec deadline, bad;
    thrd_t thread;
    double start;

    memset(&box, 0, sizeof box); /* zero-filled: a usable mutex and condvar */
    CU_ASSERT_EQUAL_FATAL(mtx_lock(&box.mutex), thrd_success);
    deadline = utc_after_ms(-1000);
    CU_ASSERT_EQUAL(cnd_timedwait(&box.cond, &box.mutex, &deadline), thrd_timedout);
    start = slimtest_now_ms();
    deadline = utc_after_ms(50);
    CU_ASSERT_EQUAL(cnd_timedwait(&box.cond, &box.mutex, &deadline), thrd_timedout);
    CU_ASSERT(slimtest_now_ms() - start >= 45.0);
    bad = deadline;
    bad.tv_nsec = 1000000000L;
    CU_ASSERT_EQUAL(cnd_timedwait(&box.cond, &box.mutex, &bad), thrd_error);
    /* Still held after each of them. */
    CU_ASSERT_EQUAL(mtx_trylock(&box.mutex), thrd_busy);
    CU_ASSERT_EQUAL(mtx_unlock(&box.mutex), thrd_success);

    /* Woken before its deadline: thrd_success. */
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, wait_for_post, &box), thrd_success);
    wait_until_waiting(&box, 1);
    mtx_lock(&box.mutex);
    deadline = utc_after_ms(SLIMTEST_JOIN_TIMEOUT_MS);
    box.posted = 1;
    cnd_signal(&box.cond);
    while (box.taken == 0)
        CU_ASSERT_EQUAL_FATAL(cnd_timedwait(&box.cond, &box.mutex, &deadline) != thrd_error, 1);
    mtx_unlock(&box.mutex);
    CU_ASSERT_EQUAL(thrd_join(thread, NULL), thrd_success);
}

/* TIME_UTC deadlines even on a condvar made by pthreads for another clock. */
static void test_cnd_timedwait_is_utc_on_monotonic_cond(void)
{
    pthread_condattr_t attr;
    pthread_cond_t cond;
    mtx_t mutex;
    struct timespec deadline;
    double start;

    CU_ASSERT_EQUAL_FATAL(pthread_condattr_init(&attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&cond, &attr), 0);
    CU_ASSERT_EQUAL_FATAL(mtx_init(&mutex, mtx_timed), thrd_success);
    mtx_lock(&mutex);
    start = slimtest_now_ms();
    deadline = utc_after_ms(50); /* read as a monotonic time, it would be long past */
    CU_ASSERT_EQUAL(cnd_timedwait(&cond, &mutex, &deadline), thrd_timedout);
    CU_ASSERT(slimtest_now_ms() - start >= 45.0);
    mtx_unlock(&mutex);
    mtx_destroy(&mutex);
    pthread_cond_destroy(&cond);
    pthread_condattr_destroy(&attr);
}

static void test_cnd_errors(void)
{
    struct timespec later = utc_after_ms(1000);
    mtx_t mutex;
    cnd_t cond;

    CU_ASSERT_EQUAL(cnd_init(NULL), thrd_error);
    CU_ASSERT_EQUAL_FATAL(mtx_init(&mutex, mtx_plain), thrd_success);
    CU_ASSERT_EQUAL_FATAL(cnd_init(&cond), thrd_success);
    /* The mutex is not held: refused, no wait. */
    CU_ASSERT_EQUAL(cnd_wait(&cond, &mutex), thrd_error);
    CU_ASSERT_EQUAL(cnd_timedwait(&cond, &mutex, &later), thrd_error);
    CU_ASSERT_EQUAL(cnd_signal(NULL), thrd_error);
    CU_ASSERT_EQUAL(cnd_broadcast(NULL), thrd_error);
    cnd_destroy(&cond);
    mtx_destroy(&mutex);
}

/* ---- Thread-specific storage ---- */

static tss_t destructed_key;
static volatile long destructor_calls;
static volatile long destructor_bad_value;
static volatile long destructor_saw_null_get;

static void count_destructor(void *value)
{
    if (value != &destructor_calls)
        InterlockedIncrement(&destructor_bad_value);
    if (tss_get(destructed_key) == NULL)
        InterlockedIncrement(&destructor_saw_null_get);
    InterlockedIncrement(&destructor_calls);
}

static int set_and_check(void *arg)
{
    (void)arg;
    if (tss_get(destructed_key) != NULL)
        return 1;
    if (tss_set(destructed_key, (void *)&destructor_calls) != thrd_success)
        return 2;
    return tss_get(destructed_key) == &destructor_calls ? 0 : 3;
}

static void *pthread_set_and_check(void *arg)
{
    return (void *)(intptr_t)set_and_check(arg);
}

static unsigned __stdcall foreign_set_and_check(void *arg)
{
    return (unsigned)set_and_check(arg);
}

/* Destructors run at the exit of threads of either API and of foreign ones. */
static void test_tss_values_and_destructors(void)
{
    pthread_t posix_thread;
    thrd_t c11_thread;
    HANDLE foreign;
    DWORD foreign_result = 99;
    void *posix_result = NULL;
    int result = -1;

    destructor_calls = destructor_bad_value = destructor_saw_null_get = 0;
    CU_ASSERT_EQUAL_FATAL(tss_create(&destructed_key, count_destructor), thrd_success);
    CU_ASSERT_PTR_NULL(tss_get(destructed_key));
    CU_ASSERT_EQUAL(tss_set(destructed_key, &result), thrd_success);
    CU_ASSERT_PTR_EQUAL(tss_get(destructed_key), &result);

    CU_ASSERT_EQUAL_FATAL(thrd_create(&c11_thread, set_and_check, NULL), thrd_success);
    CU_ASSERT_EQUAL(thrd_join(c11_thread, &result), thrd_success);
    CU_ASSERT_EQUAL(result, 0);
    CU_ASSERT_EQUAL(destructor_calls, 1);

    CU_ASSERT_EQUAL_FATAL(pthread_create(&posix_thread, NULL, pthread_set_and_check, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(posix_thread, &posix_result), 0);
    CU_ASSERT_PTR_NULL(posix_result);
    CU_ASSERT_EQUAL(destructor_calls, 2);

    foreign = (HANDLE)_beginthreadex(NULL, 0, foreign_set_and_check, NULL, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(foreign);
    CU_ASSERT_EQUAL(WaitForSingleObject(foreign, SLIMTEST_JOIN_TIMEOUT_MS), WAIT_OBJECT_0);
    GetExitCodeThread(foreign, &foreign_result);
    CloseHandle(foreign);
    CU_ASSERT_EQUAL(foreign_result, 0);
    CU_ASSERT_EQUAL(destructor_calls, 3);
    CU_ASSERT_EQUAL(destructor_bad_value, 0);
    CU_ASSERT_EQUAL(destructor_saw_null_get, 3); /* the value is cleared before the call */

    CU_ASSERT_EQUAL(tss_set(destructed_key, NULL), thrd_success);
    tss_delete(destructed_key);
}

static tss_t resetting_key;
static volatile long resetting_calls;

/* Stores a value again each time: called TSS_DTOR_ITERATIONS times, no more. */
static void resetting_destructor(void *value)
{
    InterlockedIncrement(&resetting_calls);
    tss_set(resetting_key, value);
}

static int set_resetting(void *arg)
{
    return tss_set(resetting_key, arg);
}

static void test_tss_destructor_iterations(void)
{
    thrd_t thread;
    int result = -1;

    resetting_calls = 0;
    CU_ASSERT_EQUAL_FATAL(tss_create(&resetting_key, resetting_destructor), thrd_success);
    CU_ASSERT_EQUAL_FATAL(thrd_create(&thread, set_resetting, (void *)&resetting_calls), thrd_success);
    CU_ASSERT_EQUAL(thrd_join(thread, &result), thrd_success);
    CU_ASSERT_EQUAL(result, thrd_success);
    CU_ASSERT_EQUAL(resetting_calls, TSS_DTOR_ITERATIONS);
    tss_delete(resetting_key);
}

static void test_tss_errors(void)
{
    static tss_t keys[PTHREAD_KEYS_MAX + 1];
    tss_t key;
    int created = 0, result;

    CU_ASSERT_EQUAL_FATAL(tss_create(&key, NULL), thrd_success);
    tss_delete(key);
    CU_ASSERT_EQUAL(tss_set(key, &key), thrd_error); /* deleted */
    CU_ASSERT_PTR_NULL(tss_get(key));
    CU_ASSERT_EQUAL(tss_set((tss_t)PTHREAD_KEYS_MAX, &key), thrd_error);
    CU_ASSERT_EQUAL(tss_create(NULL, NULL), thrd_error);

    /* Every key taken: thrd_error. */
    while (created <= PTHREAD_KEYS_MAX &&
           (result = tss_create(&keys[created], NULL)) == thrd_success)
        created++;
    CU_ASSERT(created < PTHREAD_KEYS_MAX + 1);
    CU_ASSERT_EQUAL(result, thrd_error);
    while (created > 0)
        tss_delete(keys[--created]);
}

/* ---- Once ---- */

static volatile long once_runs;
static once_flag shared_once = ONCE_FLAG_INIT;

static void run_once_routine(void)
{
    slimtest_sleep_ms(10); /* the others arrive while it runs */
    InterlockedIncrement(&once_runs);
}

static int call_shared_once(void *arg)
{
    (void)arg;
    call_once(&shared_once, run_once_routine);
    return (int)once_runs; /* 1: nobody returns before the routine is done */
}

static void test_call_once(void)
{
    thrd_t threads[RACE_THREADS];
    once_flag zero_filled;
    int i, result;

    for (i = 0; i < RACE_THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(thrd_create(&threads[i], call_shared_once, NULL), thrd_success);
    for (i = 0; i < RACE_THREADS; i++) {
        result = 0;
        CU_ASSERT_EQUAL(thrd_join(threads[i], &result), thrd_success);
        CU_ASSERT_EQUAL(result, 1);
    }
    CU_ASSERT_EQUAL(once_runs, 1);
    call_once(&shared_once, run_once_routine);
    CU_ASSERT_EQUAL(once_runs, 1);

    memset((void *)&zero_filled, 0, sizeof zero_filled);
    call_once(&zero_filled, run_once_routine);
    call_once(&zero_filled, run_once_routine);
    CU_ASSERT_EQUAL(once_runs, 2);
    /* A once_flag is a pthread_once_t. */
    CU_ASSERT_EQUAL(pthread_once(&zero_filled, run_once_routine), 0);
    CU_ASSERT_EQUAL(once_runs, 2);
}

static CU_TestInfo cases[] = {
    {"thrd_create/thrd_join: the int of return and thrd_exit", test_create_join_results},
    {"thrd_join: NULL result; thrd_error for self, 0, bad create", test_join_without_result_and_errors},
    {"pthread_create + thrd_join, thrd_create + pthread_join", test_mixed_create_and_join},
    {"thrd_current, thrd_equal", test_current_and_equal},
    {"thrd_detach: success, thrd_error", test_detach},
    {"thrd_sleep: 0, not early, remaining untouched, < -1 on bad input; thrd_yield",
     test_sleep_and_yield},
    {"thread_local", test_thread_local},
    {"timespec_get(TIME_UTC)", test_timespec_get},
    {"mtx_init: every valid type, thrd_error for the others", test_mtx_init_types},
    {"mtx_recursive: nested lock, trylock, timedlock", test_mtx_recursive},
    {"mtx_trylock: thrd_busy", test_mtx_trylock_busy},
    {"mtx_timedlock: success, thrd_timedout, thrd_error", test_mtx_timedlock},
    {"mtx_*: thrd_error on an unlocked or destroyed mutex", test_mtx_errors},
    {"mtx_t zero-filled, counted under contention, mixed with pthread calls",
     test_mtx_zero_filled_and_mixed},
    {"cnd_signal, cnd_broadcast, cnd_wait", test_cnd_signal_and_broadcast},
    {"cnd_timedwait: thrd_timedout, thrd_error, success", test_cnd_timedwait},
    {"cnd_timedwait is TIME_UTC on a CLOCK_MONOTONIC pthread cond",
     test_cnd_timedwait_is_utc_on_monotonic_cond},
    {"cnd_*: thrd_error", test_cnd_errors},
    {"tss: values, destructors in C11, pthread and foreign threads",
     test_tss_values_and_destructors},
    {"tss: destructors run TSS_DTOR_ITERATIONS rounds", test_tss_destructor_iterations},
    {"tss: thrd_error for deleted keys, exhaustion", test_tss_errors},
    {"call_once: once across threads, zero-filled flag", test_call_once},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("c11", cases, 120);
}
