/* test_clock.c - clocks, resolutions, per-thread CPU clocks, sleeps and their
 * accuracy (printed, bounded only generously: the machine is shared). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <semaphore.h>
#include "testutil.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
#define UNKNOWN_CLOCK 77
#define SLEEP_SAMPLES 15

static long long ns_of(const struct timespec *time)
{
    return (long long)time->tv_sec * NS_PER_S + time->tv_nsec;
}

static long long now_ns(clockid_t clock)
{
    struct timespec now;

    CU_ASSERT_EQUAL(clock_gettime(clock, &now), 0);
    return ns_of(&now);
}

/* Burns CPU on the calling thread for about ms milliseconds of wall time. */
static void spin_ms(double ms)
{
    double started = slimtest_now_ms();
    volatile unsigned long sink = 0;

    while (slimtest_now_ms() - started < ms)
        sink++;
}

/* ---- reading clocks ---- */

/* Every clock the library reads. */
static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                                   CLOCK_THREAD_CPUTIME_ID, CLOCK_REALTIME_COARSE};
#define CLOCK_COUNT (sizeof clocks / sizeof clocks[0])

static void test_gettime_each_clock(void)
{
    struct timespec now;
    size_t i;

    for (i = 0; i < CLOCK_COUNT; i++) {
        now.tv_nsec = -1;
        CU_ASSERT_EQUAL(clock_gettime(clocks[i], &now), 0);
        CU_ASSERT(now.tv_nsec >= 0 && now.tv_nsec < NS_PER_S);
        CU_ASSERT(now.tv_sec >= 0);
    }
    SLIMTEST_ASSERT_ERRNO(clock_gettime(UNKNOWN_CLOCK, &now), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_gettime(CLOCK_REALTIME, NULL), EINVAL);
}

static void test_realtime_matches_time(void)
{
    struct timespec precise, coarse;
    time_t before = time(NULL), after;

    CU_ASSERT_EQUAL(clock_gettime(CLOCK_REALTIME, &precise), 0);
    CU_ASSERT_EQUAL(clock_gettime(CLOCK_REALTIME_COARSE, &coarse), 0);
    after = time(NULL);
    CU_ASSERT(precise.tv_sec >= before - 1 && precise.tv_sec <= after + 1);
    CU_ASSERT(llabs(ns_of(&precise) - ns_of(&coarse)) < 100 * NS_PER_MS);
}

static volatile LONG monotonic_errors;

static void *check_monotonic(void *argument)
{
    long long previous = 0, current;
    int i;

    (void)argument;
    for (i = 0; i < 200000; i++) {
        current = now_ns(CLOCK_MONOTONIC);
        if (current < previous)
            InterlockedIncrement(&monotonic_errors);
        previous = current;
    }
    return NULL;
}

static void test_monotonic_never_goes_back(void)
{
    pthread_t threads[2];
    long long before, after;
    double wall_before, wall_after;
    int i;

    monotonic_errors = 0;
    for (i = 0; i < 2; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, check_monotonic, NULL), 0);
    for (i = 0; i < 2; i++)
        CU_ASSERT_EQUAL(pthread_join(threads[i], NULL), 0);
    CU_ASSERT_EQUAL(monotonic_errors, 0);
    /* It advances at the rate of real time. */
    wall_before = slimtest_now_ms();
    before = now_ns(CLOCK_MONOTONIC);
    slimtest_sleep_ms(100);
    after = now_ns(CLOCK_MONOTONIC);
    wall_after = slimtest_now_ms();
    CU_ASSERT((double)(after - before) / NS_PER_MS >= 95.0);
    CU_ASSERT((double)(after - before) / NS_PER_MS <= wall_after - wall_before + 1.0);
}

static void test_getres(void)
{
    struct timespec resolution;
    size_t i;

    for (i = 0; i < CLOCK_COUNT; i++) {
        memset(&resolution, 0xff, sizeof resolution);
        CU_ASSERT_EQUAL(clock_getres(clocks[i], &resolution), 0);
        CU_ASSERT_EQUAL(resolution.tv_sec, 0);
        CU_ASSERT(resolution.tv_nsec > 0 && resolution.tv_nsec <= 100 * NS_PER_MS);
        CU_ASSERT_EQUAL(clock_getres(clocks[i], NULL), 0);
    }
    /* The precise clocks are precise. */
    CU_ASSERT_EQUAL(clock_getres(CLOCK_REALTIME, &resolution), 0);
    CU_ASSERT(resolution.tv_nsec <= 1000);
    CU_ASSERT_EQUAL(clock_getres(CLOCK_MONOTONIC, &resolution), 0);
    CU_ASSERT(resolution.tv_nsec <= 1000);
    SLIMTEST_ASSERT_ERRNO(clock_getres(UNKNOWN_CLOCK, &resolution), EINVAL);
}

/* ---- CPU-time clocks ---- */

/* Waits until clock has advanced by ns from start, at most 10 s of wall time
 * (the machine is shared: a spinning thread may get little of a core). */
static long long wait_for_advance(clockid_t clock, long long start, long long ns,
                                  void (*meanwhile)(double))
{
    double started = slimtest_now_ms();
    long long now;

    while ((now = now_ns(clock)) - start < ns && slimtest_now_ms() - started < 10000.0)
        meanwhile(10);
    return now - start;
}

static void sleep_for(double ms)
{
    slimtest_sleep_ms((unsigned)ms);
}

static void test_cpu_clocks_advance(void)
{
    long long thread_before, process_before, thread_after, process_after, tick;
    struct timespec resolution;

    /* Windows (and Wine, from /proc) charges process and thread CPU time per tick,
     * sampled separately: the two readings may disagree by up to one tick each. */
    CU_ASSERT_EQUAL_FATAL(clock_getres(CLOCK_PROCESS_CPUTIME_ID, &resolution), 0);
    tick = resolution.tv_sec * 1000 * NS_PER_MS + resolution.tv_nsec;
    thread_before = now_ns(CLOCK_THREAD_CPUTIME_ID);
    process_before = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    CU_ASSERT(wait_for_advance(CLOCK_THREAD_CPUTIME_ID, thread_before, 50 * NS_PER_MS, spin_ms) >=
              50 * NS_PER_MS);
    thread_after = now_ns(CLOCK_THREAD_CPUTIME_ID);
    process_after = now_ns(CLOCK_PROCESS_CPUTIME_ID);
    CU_ASSERT(process_after - process_before >= thread_after - thread_before - 2 * tick);
    CU_ASSERT(process_after >= thread_after - 2 * tick);
    /* Sleeping costs no CPU time. */
    thread_before = now_ns(CLOCK_THREAD_CPUTIME_ID);
    slimtest_sleep_ms(200);
    thread_after = now_ns(CLOCK_THREAD_CPUTIME_ID);
    CU_ASSERT(thread_after - thread_before < 20 * NS_PER_MS);
}

struct spinner {
    HANDLE started, stop, leave;
};

static void *spin_until_stopped(void *argument)
{
    struct spinner *spinner = argument;

    SetEvent(spinner->started);
    while (WaitForSingleObject(spinner->stop, 0) == WAIT_TIMEOUT)
        spin_ms(1);
    WaitForSingleObject(spinner->leave, INFINITE);
    return NULL;
}

static void test_getcpuclockid(void)
{
    struct spinner spinner;
    pthread_t thread;
    clockid_t own, other;
    struct timespec time;
    long long before;

    CU_ASSERT_EQUAL(pthread_getcpuclockid(pthread_self(), &own), 0);
    CU_ASSERT_EQUAL(clock_gettime(own, &time), 0);
    CU_ASSERT_EQUAL(clock_getres(own, &time), 0);
    CU_ASSERT(llabs(now_ns(own) - now_ns(CLOCK_THREAD_CPUTIME_ID)) < 50 * NS_PER_MS);
    CU_ASSERT_EQUAL(pthread_getcpuclockid(0, &own), ESRCH);
    CU_ASSERT_EQUAL(pthread_getcpuclockid(pthread_self(), NULL), EINVAL);

    /* Another thread's clock runs while that thread spins, not while it waits. */
    spinner.started = CreateEventW(NULL, TRUE, FALSE, NULL);
    spinner.stop = CreateEventW(NULL, TRUE, FALSE, NULL);
    spinner.leave = CreateEventW(NULL, TRUE, FALSE, NULL);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, spin_until_stopped, &spinner), 0);
    WaitForSingleObject(spinner.started, INFINITE);
    CU_ASSERT_EQUAL(pthread_getcpuclockid(thread, &other), 0);
    CU_ASSERT_NOT_EQUAL(other, own);
    CU_ASSERT(wait_for_advance(other, now_ns(other), 50 * NS_PER_MS, sleep_for) >=
              50 * NS_PER_MS);
    SetEvent(spinner.stop);
    slimtest_sleep_ms(50);
    before = now_ns(other);
    slimtest_sleep_ms(200);
    CU_ASSERT(now_ns(other) - before < 20 * NS_PER_MS);
    CU_ASSERT_EQUAL(clock_nanosleep(other, 0, &time, NULL), ENOTSUP);
    SetEvent(spinner.leave);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CloseHandle(spinner.started);
    CloseHandle(spinner.stop);
    CloseHandle(spinner.leave);
}

/* ---- setting ---- */

static void test_settime(void)
{
    struct timespec now;
    int result;

    CU_ASSERT_EQUAL(clock_gettime(CLOCK_MONOTONIC, &now), 0);
    SLIMTEST_ASSERT_ERRNO(clock_settime(CLOCK_MONOTONIC, &now), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_settime(CLOCK_THREAD_CPUTIME_ID, &now), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_settime(UNKNOWN_CLOCK, &now), EINVAL);
    CU_ASSERT_EQUAL(clock_gettime(CLOCK_REALTIME, &now), 0);
    now.tv_nsec = NS_PER_S;
    SLIMTEST_ASSERT_ERRNO(clock_settime(CLOCK_REALTIME, &now), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_settime(CLOCK_REALTIME, NULL), EINVAL);
#ifndef _USE_32BIT_TIME_T
    /* Past what a FILETIME holds: refused before any arithmetic can overflow. */
    now.tv_sec = INT64_MAX;
    now.tv_nsec = 0;
    SLIMTEST_ASSERT_ERRNO(clock_settime(CLOCK_REALTIME, &now), EINVAL);
#endif
    /* Setting the clock to what it reads changes nothing, allowed or not. Moving
     * it is not tried: a test run with the privilege would move the system clock. */
    CU_ASSERT_EQUAL(clock_gettime(CLOCK_REALTIME, &now), 0);
    errno = 0;
    result = clock_settime(CLOCK_REALTIME, &now);
    CU_ASSERT(result == 0 || (result == -1 && errno == EPERM));
    printf("\n    clock_settime(CLOCK_REALTIME, now): %s ", result == 0 ? "allowed" : "EPERM");
}

/* ---- sleeping ---- */

#define TICK_MS 15.625 /* Windows' default timer tick */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Sleeps SLEEP_SAMPLES times for ns; asserts none ends early; prints the median
 * and worst oversleep. */
static void measure_sleep(long long ns)
{
    double oversleep[SLEEP_SAMPLES];
    struct timespec request = {(time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S)};
    double started, elapsed;
    int i, early = 0;

    for (i = 0; i < SLEEP_SAMPLES; i++) {
        started = slimtest_now_ms();
        CU_ASSERT_EQUAL(nanosleep(&request, NULL), 0);
        elapsed = slimtest_now_ms() - started;
        if (elapsed * NS_PER_MS < (double)ns - 1000.0) /* 1 us for the two readings */
            early++;
        oversleep[i] = elapsed - (double)ns / NS_PER_MS;
    }
    qsort(oversleep, SLEEP_SAMPLES, sizeof oversleep[0], compare_doubles);
    printf("\n    nanosleep %7.3f ms: oversleep median %.3f ms, worst %.3f ms", (double)ns / NS_PER_MS,
           oversleep[SLEEP_SAMPLES / 2], oversleep[SLEEP_SAMPLES - 1]);
    CU_ASSERT_EQUAL(early, 0);
    /* Sleeps rounded to the 15.6 ms tick (winpthreads' complaint) oversleep a short
     * request by about a tick: its median must stay well below half of one. A
     * longer request gets only a sanity bound, as the machine may be loaded. */
    if (ns <= 5 * NS_PER_MS)
        CU_ASSERT(oversleep[SLEEP_SAMPLES / 2] < TICK_MS / 2);
    CU_ASSERT(oversleep[SLEEP_SAMPLES / 2] < 100.0);
}

static void test_nanosleep_at_least_requested(void)
{
    struct timespec zero = {0, 0};

    CU_ASSERT_EQUAL(nanosleep(&zero, NULL), 0);
    measure_sleep(1);
    measure_sleep(50000);       /* 50 us: under Wine, NtDelayExecution serves it */
    measure_sleep(100000);      /* 100 us */
    measure_sleep(200000);      /* 200 us */
    measure_sleep(1000000);     /* 1 ms */
    measure_sleep(1999999);     /* the longest sleep served that way under Wine */
    measure_sleep(2000000);     /* the shortest served by the timer */
    measure_sleep(5000000);     /* 5 ms */
    measure_sleep(20000000);    /* 20 ms */
    printf("\n   ");
}

/* A thread that sleeps only short sleeps (served without an alertable wait
 * under Wine) is still cancelled: at a check before or after one of them. */
static volatile LONG short_sleeps;

static void *sleep_short_forever(void *unused)
{
    struct timespec request = {0, 200000};

    (void)unused;
    for (;;) {
        nanosleep(&request, NULL);
        InterlockedIncrement(&short_sleeps);
    }
    return NULL;
}

static void test_short_sleeps_cancellable(void)
{
    pthread_t thread;
    void *result = NULL;

    short_sleeps = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, sleep_short_forever, NULL), 0);
    while (short_sleeps < 10)
        slimtest_sleep_ms(1);
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
}

static void test_nanosleep_errors(void)
{
    struct timespec bad = {0, NS_PER_S}, remain = {123, 456};

    SLIMTEST_ASSERT_ERRNO(nanosleep(&bad, &remain), EINVAL);
    bad.tv_nsec = -1;
    SLIMTEST_ASSERT_ERRNO(nanosleep(&bad, NULL), EINVAL);
    bad.tv_sec = -1;
    bad.tv_nsec = 0;
    SLIMTEST_ASSERT_ERRNO(nanosleep(&bad, NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(nanosleep(NULL, NULL), EINVAL);
}

static void test_clock_nanosleep_relative(void)
{
    struct timespec request = {0, 20 * NS_PER_MS};
    double started;

    started = slimtest_now_ms();
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_MONOTONIC, 0, &request, NULL), 0);
    CU_ASSERT(slimtest_now_ms() - started >= 19.999);
    started = slimtest_now_ms();
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_REALTIME, 0, &request, NULL), 0);
    CU_ASSERT(slimtest_now_ms() - started >= 19.999);
}

static void sleep_until_and_check(clockid_t clock, long ms_from_now)
{
    struct timespec target = slimtest_time_after_ms(clock, ms_from_now);
    long long late;

    CU_ASSERT_EQUAL(clock_nanosleep(clock, TIMER_ABSTIME, &target, NULL), 0);
    late = now_ns(clock) - ns_of(&target);
    CU_ASSERT(late >= 0);
    if (ms_from_now > 0)
        CU_ASSERT(late < 1000 * NS_PER_MS);
}

static void test_clock_nanosleep_absolute(void)
{
    double started;

    sleep_until_and_check(CLOCK_MONOTONIC, 30);
    sleep_until_and_check(CLOCK_REALTIME, 30);
    sleep_until_and_check(CLOCK_MONOTONIC, 1);
    /* A time already passed returns at once. */
    started = slimtest_now_ms();
    sleep_until_and_check(CLOCK_MONOTONIC, -1000);
    sleep_until_and_check(CLOCK_REALTIME, -1000);
    CU_ASSERT(slimtest_now_ms() - started < 500.0);
}

static void test_clock_nanosleep_errors(void)
{
    struct timespec request = {0, 1000}, bad = {0, NS_PER_S};

    errno = 0;
    CU_ASSERT_EQUAL(clock_nanosleep(UNKNOWN_CLOCK, 0, &request, NULL), EINVAL);
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &request, NULL), EINVAL);
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &request, NULL), ENOTSUP);
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_MONOTONIC, 0x10, &request, NULL), EINVAL);
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL), EINVAL);
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &bad, NULL), EINVAL);
    bad.tv_nsec = -5;
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_REALTIME, 0, &bad, NULL), EINVAL);
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_REALTIME, 0, NULL, NULL), EINVAL);
    /* clock_nanosleep returns its error and leaves errno alone. */
    CU_ASSERT_EQUAL(errno, 0);
}

/* Each sleeping thread keeps a timer in its record; it must close at exit.
 * The sleep must make that timer: under Wine a sleep (or its last part)
 * shorter than 2 ms (wait.c: SHORT_SLEEP_NS) is an NtDelayExecution, no timer. */
#define TIMER_SLEEP_NS 5000000L

static void *sleep_a_little(void *argument)
{
    struct timespec request = {0, TIMER_SLEEP_NS};

    (void)argument;
    nanosleep(&request, NULL);
    return NULL;
}

static DWORD WINAPI foreign_sleep(LPVOID argument)
{
    sleep_a_little(argument);
    return 0;
}

#define PROBE_HANDLES 50

/* Handle values are handed out lowest-free first (Windows and Wine alike): the
 * highest of a batch of fresh handles shows how many slots are taken below it. */
static uintptr_t probe_handle_value(void)
{
    HANDLE events[PROBE_HANDLES];
    uintptr_t highest = 0;
    int i;

    for (i = 0; i < PROBE_HANDLES; i++) {
        events[i] = CreateEventW(NULL, TRUE, FALSE, NULL);
        CU_ASSERT_PTR_NOT_NULL(events[i]);
        if ((uintptr_t)events[i] > highest)
            highest = (uintptr_t)events[i];
    }
    for (i = 0; i < PROBE_HANDLES; i++)
        CloseHandle(events[i]);
    return highest;
}

/* ---- every clockid_t is checked ---- */

/* Ids that name no clock: below zero they would be thread CPU clocks, but no
 * thread of this process has the id they encode (-2 - id). */
static const clockid_t no_clocks[] = {INT_MIN, INT_MIN + 1, -2, -3, -1, 5, UNKNOWN_CLOCK, INT_MAX};
#define NO_CLOCK_COUNT (sizeof no_clocks / sizeof no_clocks[0])

/* Every function taking a clockid_t refuses id with EINVAL. */
static void check_refused_everywhere(clockid_t id)
{
    struct timespec time = {0, 1000}, soon = slimtest_time_after_ms(CLOCK_REALTIME, 10);
    pthread_condattr_t attr;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
    sem_t sem;

    SLIMTEST_ASSERT_ERRNO(clock_getres(id, &time), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_getres(id, NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_gettime(id, &time), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_settime(id, &soon), EINVAL);
    time.tv_sec = 0;
    time.tv_nsec = 1000;
    CU_ASSERT_EQUAL(clock_nanosleep(id, 0, &time, NULL), EINVAL);
    CU_ASSERT_EQUAL(clock_nanosleep(id, TIMER_ABSTIME, &soon, NULL), EINVAL);
    CU_ASSERT_EQUAL_FATAL(pthread_condattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_setclock(&attr, id), EINVAL);
    pthread_condattr_destroy(&attr);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_clockwait(&cond, &mutex, id, &soon), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_clocklock(&mutex, id, &soon), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, id, &soon), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, id, &soon), EINVAL);
    CU_ASSERT_EQUAL_FATAL(sem_init(&sem, 0, 0), 0);
    SLIMTEST_ASSERT_ERRNO(sem_clockwait(&sem, id, &soon), EINVAL);
    sem_destroy(&sem);
    pthread_cond_destroy(&cond);
    pthread_mutex_destroy(&mutex);
    pthread_rwlock_destroy(&rwlock);
}

static void *return_at_once(void *unused)
{
    return unused;
}

static void test_clock_ids_checked(void)
{
    struct timespec time;
    clockid_t gone;
    pthread_t thread;
    size_t i;

    for (i = 0; i < NO_CLOCK_COUNT; i++)
        check_refused_everywhere(no_clocks[i]);
    /* A joined thread's CPU clock no longer exists. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, return_at_once, NULL), 0);
    CU_ASSERT_EQUAL(pthread_getcpuclockid(thread, &gone), 0);
    CU_ASSERT_EQUAL(clock_getres(gone, &time), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    SLIMTEST_ASSERT_ERRNO(clock_getres(gone, &time), EINVAL);
    SLIMTEST_ASSERT_ERRNO(clock_gettime(gone, &time), EINVAL);
    time.tv_sec = 0;
    time.tv_nsec = 1000;
    CU_ASSERT_EQUAL(clock_nanosleep(gone, 0, &time, NULL), EINVAL);
}

/* Closed as the thread exits, not only at its join: threads that have ended
 * but are not joined yet still hold their own handle (closed at the join),
 * each one slot, and no timer, which would be one more. */
#define UNJOINED_THREADS 100

static void check_timers_closed_before_join(void)
{
    pthread_t threads[UNJOINED_THREADS];
    uintptr_t probe_before, probe_after;
    int i;

    probe_before = probe_handle_value();
    for (i = 0; i < UNJOINED_THREADS; i++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, sleep_a_little, NULL), 0);
    for (i = 0; i < UNJOINED_THREADS; i++)
        CU_ASSERT_EQUAL(WaitForSingleObject(pthread_getw32threadhandle_np(threads[i]), 30000),
                        WAIT_OBJECT_0);
    probe_after = probe_handle_value();
    for (i = 0; i < UNJOINED_THREADS; i++)
        CU_ASSERT_EQUAL(pthread_join(threads[i], NULL), 0);
    printf("\n    %d ended threads not joined: probe %#lx then %#lx ", UNJOINED_THREADS,
           (unsigned long)probe_before, (unsigned long)probe_after);
    CU_ASSERT(probe_after < probe_before + 4 * (UNJOINED_THREADS + 20));
}

static void test_sleep_timers_closed_at_exit(void)
{
    DWORD before = 0, after = 0;
    uintptr_t probe_before, probe_after;
    pthread_t thread;
    HANDLE foreign;
    int i;

    sleep_a_little(NULL); /* the main thread's own timer exists from here on */
    probe_before = probe_handle_value();
    CU_ASSERT_FATAL(GetProcessHandleCount(GetCurrentProcess(), &before));
    for (i = 0; i < 100; i++) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, sleep_a_little, NULL), 0);
        CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
        foreign = CreateThread(NULL, 0, foreign_sleep, NULL, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(foreign);
        WaitForSingleObject(foreign, INFINITE);
        CloseHandle(foreign);
    }
    CU_ASSERT_FATAL(GetProcessHandleCount(GetCurrentProcess(), &after));
    probe_after = probe_handle_value();
    printf("\n    handles before %lu, after 200 sleeping threads %lu; probe %#lx then %#lx ",
           (unsigned long)before, (unsigned long)after, (unsigned long)probe_before,
           (unsigned long)probe_after);
    CU_ASSERT(after < before + 20); /* Windows; Wine's GetProcessHandleCount counts 0 */
    /* 200 leaked timers would push a new handle 200 slots (of 4) higher. */
    CU_ASSERT(probe_after < probe_before + 4 * 20);
    check_timers_closed_before_join();
}

static CU_TestInfo cases[] = {
    {"clock_gettime: every clock, errors", test_gettime_each_clock},
    {"CLOCK_REALTIME agrees with time()", test_realtime_matches_time},
    {"CLOCK_MONOTONIC never goes back", test_monotonic_never_goes_back},
    {"clock_getres", test_getres},
    {"CPU-time clocks advance with work only", test_cpu_clocks_advance},
    {"pthread_getcpuclockid", test_getcpuclockid},
    {"clock_settime", test_settime},
    {"nanosleep sleeps at least the time asked", test_nanosleep_at_least_requested},
    {"nanosleep errors", test_nanosleep_errors},
    {"short sleeps are cancellation points", test_short_sleeps_cancellable},
    {"clock_nanosleep relative", test_clock_nanosleep_relative},
    {"clock_nanosleep TIMER_ABSTIME", test_clock_nanosleep_absolute},
    {"clock_nanosleep errors", test_clock_nanosleep_errors},
    {"sleep timers are closed at thread exit", test_sleep_timers_closed_at_exit},
    {"every clock id is checked", test_clock_ids_checked},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("clock", cases, 60);
}
