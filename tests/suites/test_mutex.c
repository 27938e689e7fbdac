/*
 * test_mutex.c - pthread_mutex_* and pthread_mutexattr_*.
 *
 * Threads come from _beginthreadex so that these tests do not depend on
 * pthread_create. Timings are only bounded generously, never asserted tightly.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <process.h>
#include <errno.h>
#include <string.h>
#include "testutil.h"

#define RACE_THREADS 16
#define KINDS 4

static const int all_kinds[KINDS] = {PTHREAD_MUTEX_DEFAULT, PTHREAD_MUTEX_NORMAL,
                                     PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE};

/* ---- Basics ---- */

static void test_init_lock_unlock_destroy(void)
{
    pthread_mutex_t mutex;

    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, NULL), 0); /* reusable after destroy */
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

static void test_use_after_destroy(void)
{
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 1000);

    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0); /* never used: still fine */
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &later), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), EINVAL);

    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EINVAL);
}

static void test_zero_filled_mutex(void)
{
    pthread_mutex_t mutex;

    memset(&mutex, 0, sizeof mutex);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

static void test_static_initializers_set_kinds(void)
{
    pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    pthread_mutex_t errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    pthread_mutex_t normal = PTHREAD_NORMAL_MUTEX_INITIALIZER_NP;
    pthread_mutex_t adaptive = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

    CU_ASSERT_EQUAL(pthread_mutex_lock(&recursive), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&recursive), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&recursive), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&recursive), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&recursive), EPERM);

    CU_ASSERT_EQUAL(pthread_mutex_lock(&errorcheck), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&errorcheck), EDEADLK);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&errorcheck), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&errorcheck), EPERM);

    CU_ASSERT_EQUAL(pthread_mutex_lock(&normal), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&normal), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&normal), 0);

    CU_ASSERT_EQUAL(pthread_mutex_lock(&adaptive), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&adaptive), 0);

    CU_ASSERT_EQUAL(pthread_mutex_destroy(&recursive), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&errorcheck), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&normal), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&adaptive), 0);
}

/* ---- First-use races and counting under contention ---- */

struct counter {
    pthread_mutex_t mutex;
    long iterations;
    long value;
    volatile long errors;
    volatile long go; /* threads spin on it so that they hit the first lock together */
};

static void count_under_lock(void *raw)
{
    struct counter *counter = raw;
    long i;

    while (!__atomic_load_n(&counter->go, __ATOMIC_ACQUIRE))
        SwitchToThread();
    for (i = 0; i < counter->iterations; i++) {
        if (pthread_mutex_lock(&counter->mutex) != 0) {
            InterlockedIncrement(&counter->errors);
            continue;
        }
        counter->value++;
        if (pthread_mutex_unlock(&counter->mutex) != 0)
            InterlockedIncrement(&counter->errors);
    }
}

static pthread_mutex_t static_initializer_of(int kind)
{
    static const pthread_mutex_t initializers[KINDS] = {
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_NORMAL_MUTEX_INITIALIZER_NP,
        PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};
    int i;

    for (i = 0; i < KINDS; i++)
        if (all_kinds[i] == kind)
            return initializers[i];
    CU_FAIL("unknown kind");
    return initializers[0];
}

/* Counts on 16 threads with a fresh static mutex, released at the same moment. */
static void race_first_lock(int kind, long iterations)
{
    struct slimtest_thread *threads[RACE_THREADS];
    struct counter counter;

    memset(&counter, 0, sizeof counter);
    counter.mutex = static_initializer_of(kind);
    counter.iterations = iterations;
    slimtest_start_threads(threads, RACE_THREADS, count_under_lock, &counter);
    __atomic_store_n(&counter.go, 1, __ATOMIC_RELEASE);
    slimtest_join_threads(threads, RACE_THREADS, SLIMTEST_JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(counter.errors, 0);
    CU_ASSERT_EQUAL(counter.value, RACE_THREADS * iterations);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&counter.mutex), 0);
}

static void test_static_first_lock_race_each_kind(void)
{
    int round, k;

    for (round = 0; round < 20; round++)
        for (k = 0; k < KINDS; k++)
            race_first_lock(all_kinds[k], 50);
}

static void test_counter_exact_each_kind(void)
{
    int k;

    for (k = 0; k < KINDS; k++)
        race_first_lock(all_kinds[k], 5000);
}

/* Holds the lock across a sleep now and then, so that others really go to sleep
 * and every wake-up path is taken. */
static void count_with_long_holds(void *raw)
{
    struct counter *counter = raw;
    long i;

    for (i = 0; i < counter->iterations; i++) {
        if (pthread_mutex_lock(&counter->mutex) != 0) {
            InterlockedIncrement(&counter->errors);
            continue;
        }
        counter->value++;
        if (i % 50 == 0)
            Sleep(1);
        pthread_mutex_unlock(&counter->mutex);
    }
}

static void test_sleepers_are_all_woken(void)
{
    struct counter counter;

    memset(&counter, 0, sizeof counter);
    CU_ASSERT_EQUAL(pthread_mutex_init(&counter.mutex, NULL), 0);
    counter.iterations = 500;
    slimtest_run_threads(8, count_with_long_holds, &counter);
    CU_ASSERT_EQUAL(counter.errors, 0);
    CU_ASSERT_EQUAL(counter.value, 8 * 500);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&counter.mutex), 0);
}

/* A mutex a condvar has waited with lets its waiters take over eagerly; any
 * other keeps streaks (mutex.c, "Two ways to spin"). Both must count exactly,
 * with short regions (streaks, spins that find it taken back) and with long
 * holds (sleepers, woken waiters). */
static void mark_as_cond_waited(pthread_mutex_t *mutex)
{
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    struct timespec past = {0, 0};

    CU_ASSERT_EQUAL(pthread_mutex_lock(mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, mutex, &past), ETIMEDOUT);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
}

static void test_streak_and_eager_waiters_count_exact(void)
{
    int eager;

    for (eager = 0; eager <= 1; eager++) {
        struct counter counter;

        memset(&counter, 0, sizeof counter);
        CU_ASSERT_EQUAL(pthread_mutex_init(&counter.mutex, NULL), 0);
        if (eager)
            mark_as_cond_waited(&counter.mutex);
        CU_ASSERT_EQUAL(counter.mutex.__cond_waited != 0, eager);
        counter.go = 1;
        counter.iterations = 20000;
        slimtest_run_threads(4, count_under_lock, &counter);
        counter.iterations = 200;
        slimtest_run_threads(4, count_with_long_holds, &counter);
        CU_ASSERT_EQUAL(counter.errors, 0);
        CU_ASSERT_EQUAL(counter.value, 4 * 20000 + 4 * 200);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&counter.mutex), 0);
    }
}

/* Timed lockers with short deadlines give up often; the wakes they take must be
 * passed on, or the blocking lockers would sleep forever (the watchdog tells). */
static void count_with_timedlock(void *raw)
{
    struct counter *counter = raw;
    long i;

    for (i = 0; i < counter->iterations; i++) {
        struct timespec deadline = slimtest_time_after_ms(CLOCK_MONOTONIC, i % 3);
        int error = pthread_mutex_clocklock(&counter->mutex, CLOCK_MONOTONIC, &deadline);

        if (error == ETIMEDOUT)
            continue;
        if (error != 0) {
            InterlockedIncrement(&counter->errors);
            continue;
        }
        counter->value++;
        InterlockedIncrement(&counter->go); /* successes of the timed lockers */
        if (i % 64 == 0)
            Sleep(1);
        pthread_mutex_unlock(&counter->mutex);
    }
}

struct mixed {
    struct counter counter;
    volatile long next;
};

static void mixed_worker(void *raw)
{
    struct mixed *mixed = raw;

    if (InterlockedIncrement(&mixed->next) % 2)
        count_with_timedlock(&mixed->counter);
    else
        count_with_long_holds(&mixed->counter);
}

static void test_timed_and_blocking_lockers_mixed(void)
{
    struct mixed mixed;

    memset(&mixed, 0, sizeof mixed);
    mixed.counter.mutex = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    mixed.counter.iterations = 400;
    slimtest_run_threads(8, mixed_worker, &mixed);
    CU_ASSERT_EQUAL(mixed.counter.errors, 0);
    /* 4 blocking lockers always succeed; the timed ones succeed go times. */
    CU_ASSERT_EQUAL(mixed.counter.value, 4 * 400 + mixed.counter.go);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mixed.counter.mutex), 0);
}

/* ---- Kinds ---- */

static pthread_mutex_t shared_mutex;
static volatile long other_result;

static void other_unlocks(void *unused)
{
    (void)unused;
    other_result = pthread_mutex_unlock(&shared_mutex);
}

static void other_trylocks(void *unused)
{
    (void)unused;
    other_result = pthread_mutex_trylock(&shared_mutex);
    if (other_result == 0)
        pthread_mutex_unlock(&shared_mutex);
}

static void other_destroys(void *unused)
{
    (void)unused;
    other_result = pthread_mutex_destroy(&shared_mutex);
}

/* Runs what (other_unlocks, other_trylocks, other_destroys) on another thread
 * and returns what its call on shared_mutex returned. */
static long other_thread_gets(slimtest_routine *what)
{
    other_result = -1;
    slimtest_on_other_thread(what, NULL);
    return other_result;
}

static void init_kind(pthread_mutex_t *mutex, int kind)
{
    pthread_mutexattr_t attr;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_settype(&attr, kind), 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(mutex, &attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
}

static void test_errorcheck_errors(void)
{
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 5000);

    init_kind(&shared_mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), EPERM); /* not locked */
    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), EDEADLK);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&shared_mutex, &later), EDEADLK);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&shared_mutex), EBUSY);
    CU_ASSERT_EQUAL(other_thread_gets(other_unlocks), EPERM);
    CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0); /* still ours after all that */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), EPERM);
    CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
}

static void test_recursive_counts(void)
{
    int i;

    init_kind(&shared_mutex, PTHREAD_MUTEX_RECURSIVE);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), EPERM); /* not locked */
    for (i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(other_thread_gets(other_unlocks), EPERM);
    for (i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
        /* still held: 4 locks, i + 1 unlocks */
        CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), EBUSY);
    }
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), EPERM);
    CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
}

static void test_trylock_by_owner_busy_each_kind(void)
{
    int k;

    for (k = 0; k < KINDS; k++) {
        pthread_mutex_t mutex = static_initializer_of(all_kinds[k]);
        int expected = all_kinds[k] == PTHREAD_MUTEX_RECURSIVE ? 0 : EBUSY;

        CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), expected);
        if (expected == 0)
            CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), EBUSY); /* locked by the caller */
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    }
}

static void test_destroy_locked_by_other_thread_busy(void)
{
    int k;

    for (k = 0; k < KINDS; k++) {
        init_kind(&shared_mutex, all_kinds[k]);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
        CU_ASSERT_EQUAL(other_thread_gets(other_destroys), EBUSY);
        CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), EBUSY);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
        CU_ASSERT_EQUAL(other_thread_gets(other_destroys), 0);
    }
}

static void test_default_unlock_unlocked_and_cross_thread(void)
{
    CU_ASSERT_EQUAL(pthread_mutex_init(&shared_mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), EPERM); /* nobody holds it */
    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), EPERM); /* not twice */
    /* Unchecked owner, as with glibc: another thread may release it. */
    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(other_thread_gets(other_unlocks), 0);
    CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
}

static void test_unlock_by_non_owner_each_checked_kind(void)
{
    /* DEFAULT leaves this undefined (and unchecked, for speed). */
    static const int checked[] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK,
                                  PTHREAD_MUTEX_RECURSIVE};
    unsigned k;

    for (k = 0; k < sizeof checked / sizeof checked[0]; k++) {
        init_kind(&shared_mutex, checked[k]);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
        CU_ASSERT_EQUAL(other_thread_gets(other_unlocks), EPERM);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
    }
}

static void test_normal_relock_times_out(void)
{
    pthread_mutex_t mutex = PTHREAD_NORMAL_MUTEX_INITIALIZER_NP;
    struct timespec deadline;
    struct timespec after;
    double start, elapsed;

    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    deadline = slimtest_time_after_ms(CLOCK_REALTIME, 200);
    start = slimtest_now_ms();
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &deadline), ETIMEDOUT);
    elapsed = slimtest_now_ms() - start;
    clock_gettime(CLOCK_REALTIME, &after);
    CU_ASSERT(after.tv_sec > deadline.tv_sec ||
              (after.tv_sec == deadline.tv_sec && after.tv_nsec >= deadline.tv_nsec));
    CU_ASSERT(elapsed < 5000);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0); /* still held once, not twice */
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

/* The thread locks a NORMAL mutex twice and must never come back. It stays
 * blocked until the process ends; its mutex is static so it stays valid. */
static pthread_mutex_t deadlocked_mutex = PTHREAD_NORMAL_MUTEX_INITIALIZER_NP;
static volatile long deadlock_stage;

static unsigned __stdcall relock_normal(void *unused)
{
    (void)unused;
    if (pthread_mutex_lock(&deadlocked_mutex) == 0)
        InterlockedExchange(&deadlock_stage, 1);
    pthread_mutex_lock(&deadlocked_mutex);
    InterlockedExchange(&deadlock_stage, 2); /* must never happen */
    return 0;
}

static void test_normal_relock_deadlocks(void)
{
    HANDLE thread = (HANDLE)_beginthreadex(NULL, 0, relock_normal, NULL, 0, NULL);
    FILETIME created, exited, kernel_time, user_time;
    ULONGLONG cpu_100ns;

    CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
    CU_ASSERT_EQUAL(WaitForSingleObject(thread, 300), WAIT_TIMEOUT);
    CU_ASSERT_EQUAL(deadlock_stage, 1);
    /* Blocked, not spinning: it used next to no processor time while we waited. */
    CU_ASSERT(GetThreadTimes(thread, &created, &exited, &kernel_time, &user_time));
    cpu_100ns = ((ULONGLONG)user_time.dwHighDateTime << 32 | user_time.dwLowDateTime) +
                ((ULONGLONG)kernel_time.dwHighDateTime << 32 | kernel_time.dwLowDateTime);
    CU_ASSERT(cpu_100ns < 1000000); /* under 100 ms of the 300 */
    CloseHandle(thread);
}

/* ---- Timed locks ---- */

static double ms_since(double start)
{
    return slimtest_now_ms() - start;
}

static int timespec_reached(clockid_t clock, const struct timespec *deadline)
{
    struct timespec now;

    clock_gettime(clock, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

struct timed_attempt {
    clockid_t clock;
    long timeout_ms;
    int result;
    int deadline_reached;
    double elapsed_ms;
};

static void attempt_timed(void *raw)
{
    struct timed_attempt *attempt = raw;
    struct timespec deadline = slimtest_time_after_ms(attempt->clock, attempt->timeout_ms);
    double start = slimtest_now_ms();

    if (attempt->clock == CLOCK_REALTIME)
        attempt->result = pthread_mutex_timedlock(&shared_mutex, &deadline);
    else
        attempt->result = pthread_mutex_clocklock(&shared_mutex, attempt->clock, &deadline);
    attempt->elapsed_ms = ms_since(start);
    attempt->deadline_reached = timespec_reached(attempt->clock, &deadline);
    if (attempt->result == 0)
        pthread_mutex_unlock(&shared_mutex);
}

static void test_timed_lock_times_out(void)
{
    static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};
    unsigned c;

    for (c = 0; c < 2; c++) {
        struct timed_attempt attempt = {clocks[c], 150, -1, 0, 0};

        CU_ASSERT_EQUAL(pthread_mutex_init(&shared_mutex, NULL), 0);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
        slimtest_on_other_thread(attempt_timed, &attempt);
        CU_ASSERT_EQUAL(attempt.result, ETIMEDOUT);
        CU_ASSERT(attempt.deadline_reached); /* not early */
        CU_ASSERT(attempt.elapsed_ms >= 140);
        CU_ASSERT(attempt.elapsed_ms < 5000);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
    }
}

static void test_timed_lock_past_deadline_on_busy_mutex(void)
{
    struct timed_attempt attempt = {CLOCK_MONOTONIC, -1000, -1, 0, 0};

    CU_ASSERT_EQUAL(pthread_mutex_init(&shared_mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&shared_mutex), 0);
    slimtest_on_other_thread(attempt_timed, &attempt);
    CU_ASSERT_EQUAL(attempt.result, ETIMEDOUT);
    CU_ASSERT(attempt.elapsed_ms < 2000);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&shared_mutex), 0);
    /* A free mutex is taken even with a deadline in the past. */
    slimtest_on_other_thread(attempt_timed, &attempt);
    CU_ASSERT_EQUAL(attempt.result, 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
}

static volatile long holder_locked;

static void hold_for_100_ms(void *unused)
{
    (void)unused;
    other_result = pthread_mutex_lock(&shared_mutex);
    InterlockedExchange(&holder_locked, 1);
    Sleep(100);
    if (other_result == 0)
        other_result = pthread_mutex_unlock(&shared_mutex);
}

static void test_timed_lock_succeeds_when_released(void)
{
    static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};
    unsigned c;

    for (c = 0; c < 2; c++) {
        struct timed_attempt attempt = {clocks[c], 10000, -1, 0, 0};
        struct slimtest_thread *holder, *waiter;

        CU_ASSERT_EQUAL(pthread_mutex_init(&shared_mutex, NULL), 0);
        holder_locked = 0;
        holder = slimtest_start_thread(hold_for_100_ms, NULL);
        while (!InterlockedCompareExchange(&holder_locked, 0, 0))
            Sleep(1);
        waiter = slimtest_start_thread(attempt_timed, &attempt);
        slimtest_join_thread(holder, SLIMTEST_JOIN_TIMEOUT_MS);
        slimtest_join_thread(waiter, SLIMTEST_JOIN_TIMEOUT_MS);
        CU_ASSERT_EQUAL(other_result, 0);
        CU_ASSERT_EQUAL(attempt.result, 0);
        CU_ASSERT(attempt.elapsed_ms < 8000); /* woken by the unlock, not by the deadline */
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
    }
}

static void test_timed_lock_invalid_arguments(void)
{
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    struct timespec bad = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec good = slimtest_time_after_ms(CLOCK_MONOTONIC, 1000);

    bad.tv_nsec = -1;
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &bad), EINVAL);
    bad.tv_nsec = 1000000000L;
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &bad), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &bad), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_clocklock(&mutex, CLOCK_PROCESS_CPUTIME_ID, &good), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_clocklock(&mutex, (clockid_t)12345, &good), EINVAL);
    /* None of the refusals took the mutex. */
    CU_ASSERT_EQUAL(pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &good), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

/* ---- Attributes ---- */

static void test_mutexattr_type(void)
{
    pthread_mutexattr_t attr;
    int kind = -1, k;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_gettype(&attr, &kind), 0);
    CU_ASSERT_EQUAL(kind, PTHREAD_MUTEX_DEFAULT);
    for (k = 0; k < KINDS; k++) {
        CU_ASSERT_EQUAL(pthread_mutexattr_settype(&attr, all_kinds[k]), 0);
        CU_ASSERT_EQUAL(pthread_mutexattr_gettype(&attr, &kind), 0);
        CU_ASSERT_EQUAL(kind, all_kinds[k]);
    }
    CU_ASSERT_EQUAL(pthread_mutexattr_settype(&attr, 4), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_settype(&attr, -1), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_gettype(&attr, &kind), 0);
    CU_ASSERT_EQUAL(kind, all_kinds[KINDS - 1]); /* unchanged by the refusals */
    CU_ASSERT_EQUAL(pthread_mutexattr_gettype(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_settype(NULL, PTHREAD_MUTEX_NORMAL), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_init(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(NULL), EINVAL);
}

static void test_mutexattr_destroyed_is_refused(void)
{
    pthread_mutexattr_t attr;
    pthread_mutex_t mutex;
    int kind;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_gettype(&attr, &kind), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, &attr), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_init(NULL, NULL), EINVAL);
}

static void test_mutexattr_pshared(void)
{
    pthread_mutexattr_t attr;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    SLIMTEST_CHECK_PSHARED(pthread_mutexattr_getpshared, pthread_mutexattr_setpshared, &attr, 7);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
}

static void test_mutexattr_protocol_and_ceiling(void)
{
    pthread_mutexattr_t attr;
    int protocol = -1, ceiling = -1;
    int low = sched_get_priority_min(SCHED_FIFO), high = sched_get_priority_max(SCHED_FIFO);

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getprotocol(&attr, &protocol), 0);
    CU_ASSERT_EQUAL(protocol, PTHREAD_PRIO_NONE);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_NONE), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT), ENOTSUP);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_PROTECT), ENOTSUP);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprotocol(&attr, 9), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getprotocol(&attr, NULL), EINVAL);

    CU_ASSERT(low <= high);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprioceiling(&attr, high), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getprioceiling(&attr, &ceiling), 0);
    CU_ASSERT_EQUAL(ceiling, high);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprioceiling(&attr, low), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getprioceiling(&attr, &ceiling), 0);
    CU_ASSERT_EQUAL(ceiling, low);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprioceiling(&attr, high + 1), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_setprioceiling(&attr, low - 1), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getprioceiling(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
}

static void test_mutexattr_robust(void)
{
    pthread_mutexattr_t attr;
    int robustness = -1;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), 0);
    CU_ASSERT_EQUAL(robustness, PTHREAD_MUTEX_STALLED);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_STALLED), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), 0);
    CU_ASSERT_EQUAL(robustness, PTHREAD_MUTEX_ROBUST);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, 5), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, NULL), EINVAL);
    /* Owner death and consistency are tested in test_robust.c. */
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
}

static void test_mutex_init_with_attr_of_each_kind(void)
{
    int k;

    for (k = 0; k < KINDS; k++) {
        pthread_mutex_t mutex;
        int second;

        init_kind(&mutex, all_kinds[k]);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
        second = pthread_mutex_trylock(&mutex);
        CU_ASSERT_EQUAL(second, all_kinds[k] == PTHREAD_MUTEX_RECURSIVE ? 0 : EBUSY);
        if (second == 0)
            CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    }
}

static void test_consistent_and_prioceiling(void)
{
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    int ceiling = -1, old = -1;

    CU_ASSERT_EQUAL(pthread_mutex_consistent(&mutex), EINVAL); /* not robust */
    CU_ASSERT_EQUAL(pthread_mutex_getprioceiling(&mutex, &ceiling), EINVAL); /* not PROTECT */
    CU_ASSERT_EQUAL(pthread_mutex_setprioceiling(&mutex, 1, &old), EINVAL);
    CU_ASSERT_EQUAL(ceiling, -1);
    CU_ASSERT_EQUAL(old, -1);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0); /* untouched by the refusals */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

/* More mutexes than the park table has buckets, so that sleepers of different
 * mutexes share buckets: each thread walks them, holding one at a time for a
 * moment (so that others sleep), some with short timed locks that may give up.
 * Every mutex's counter must be exact and nobody may hang. */
#define SHARED_BUCKET_MUTEXES 600
#define SHARED_BUCKET_THREADS 6
#define SHARED_BUCKET_STEPS 3000

struct shared_buckets {
    pthread_mutex_t mutexes[SHARED_BUCKET_MUTEXES];
    long counters[SHARED_BUCKET_MUTEXES];
    volatile long taken[SHARED_BUCKET_MUTEXES];
    volatile long next_seed;
    volatile long errors;
};

static void walk_shared_buckets(void *raw)
{
    struct shared_buckets *test = raw;
    unsigned seed = (unsigned)InterlockedIncrement(&test->next_seed) * 2654435761u;
    int step;

    for (step = 0; step < SHARED_BUCKET_STEPS; step++) {
        unsigned index;
        int error;

        seed = seed * 1103515245u + 12345u;
        index = (seed >> 8) % 8; /* few hot mutexes, spread over the table */
        index = index * (SHARED_BUCKET_MUTEXES / 8) + (seed >> 20) % 3;
        if (step % 5 == 0) {
            struct timespec soon = slimtest_time_after_ms(CLOCK_REALTIME, 1);

            error = pthread_mutex_timedlock(&test->mutexes[index], &soon);
            if (error == ETIMEDOUT)
                continue;
        } else {
            error = pthread_mutex_lock(&test->mutexes[index]);
        }
        if (error != 0) {
            InterlockedIncrement(&test->errors);
            continue;
        }
        test->counters[index]++;
        InterlockedIncrement(&test->taken[index]);
        if (step % 16 == 0)
            Sleep(0);
        if (pthread_mutex_unlock(&test->mutexes[index]) != 0)
            InterlockedIncrement(&test->errors);
    }
}

static void test_sleepers_of_mutexes_sharing_buckets(void)
{
    static struct shared_buckets test;
    int i;

    memset(&test, 0, sizeof test);
    for (i = 0; i < SHARED_BUCKET_MUTEXES; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(&test.mutexes[i], NULL), 0);
    slimtest_run_threads(SHARED_BUCKET_THREADS, walk_shared_buckets, &test);
    CU_ASSERT_EQUAL(test.errors, 0);
    for (i = 0; i < SHARED_BUCKET_MUTEXES; i++) {
        CU_ASSERT_EQUAL(test.counters[i], test.taken[i]);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&test.mutexes[i]), 0);
    }
}

static CU_TestInfo cases[] = {
    {"init, lock, unlock, trylock, destroy, reinit", test_init_lock_unlock_destroy},
    {"use after destroy gives EINVAL", test_use_after_destroy},
    {"zero-filled mutex works", test_zero_filled_mutex},
    {"static initializers set the kinds", test_static_initializers_set_kinds},
    {"16 threads race the first lock of fresh static mutexes, each kind",
     test_static_first_lock_race_each_kind},
    {"counter exact under contention, each kind", test_counter_exact_each_kind},
    {"sleepers are all woken (long holds, 8 threads)", test_sleepers_are_all_woken},
    {"streak-keeping and eager waiters count exactly", test_streak_and_eager_waiters_count_exact},
    {"timed and blocking lockers mixed: no lost wake", test_timed_and_blocking_lockers_mixed},
    {"sleepers of 600 mutexes sharing park buckets: exact, no hang",
     test_sleepers_of_mutexes_sharing_buckets},
    {"ERRORCHECK: EDEADLK, EPERM, EBUSY", test_errorcheck_errors},
    {"RECURSIVE: counts, EPERM for non-owner", test_recursive_counts},
    {"trylock by the owner: EBUSY unless recursive; destroy locked: EBUSY",
     test_trylock_by_owner_busy_each_kind},
    {"destroy of a mutex another thread holds: EBUSY", test_destroy_locked_by_other_thread_busy},
    {"DEFAULT unlock: EPERM when unlocked, releases across threads",
     test_default_unlock_unlocked_and_cross_thread},
    {"unlock by a non-owner: EPERM (NORMAL, ERRORCHECK, RECURSIVE)",
     test_unlock_by_non_owner_each_checked_kind},
    {"NORMAL relock by the owner: timedlock ETIMEDOUT", test_normal_relock_times_out},
    {"NORMAL relock by the owner: blocks, without spinning", test_normal_relock_deadlocks},
    {"timedlock/clocklock: ETIMEDOUT, not early", test_timed_lock_times_out},
    {"timedlock with a past deadline", test_timed_lock_past_deadline_on_busy_mutex},
    {"timedlock/clocklock succeed when the holder unlocks", test_timed_lock_succeeds_when_released},
    {"timedlock/clocklock: EINVAL for bad timespec or clock", test_timed_lock_invalid_arguments},
    {"mutexattr type", test_mutexattr_type},
    {"mutexattr destroyed is refused", test_mutexattr_destroyed_is_refused},
    {"mutexattr pshared", test_mutexattr_pshared},
    {"mutexattr protocol and prioceiling", test_mutexattr_protocol_and_ceiling},
    {"mutexattr robust", test_mutexattr_robust},
    {"mutex init with an attr of each kind", test_mutex_init_with_attr_of_each_kind},
    {"consistent, get/setprioceiling: EINVAL", test_consistent_and_prioceiling},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("mutex", cases, 60);
}
