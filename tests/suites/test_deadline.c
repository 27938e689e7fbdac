/* test_deadline.c - deadlines never overflow: every timed function, with
 * deadlines from the far past to the largest tv_sec on every clock it accepts,
 * waits "that far, or forever" and returns 0 when another thread releases it
 * after ~100 ms; a past deadline times out without waiting for the release; a
 * cancel ends the huge sleeps and timed waits; what ends a timed wait when
 * several things have happened by the time it runs (the precedence rule). Nothing here bounds a duration
 * from above except the watchdog: the machine is shared. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include "testutil.h"

#define RELEASE_AFTER_MS 100
#define CANCEL_AFTER_MS 100
#define NS_PER_S 1000000000LL
#define LAST_NANOSECOND 999999999L
#define TEN_YEARS_S (10LL * 365 * 24 * 3600)

/* The largest and smallest tv_sec: INT64_MAX on x86_64; i686 MinGW-w64 (with
 * msvcrt) defines _USE_32BIT_TIME_T, so there time_t ends at INT32_MAX (2038). */
#ifdef _USE_32BIT_TIME_T
#define TIME_T_MAX ((time_t)INT32_MAX)
#define TIME_T_MIN ((time_t)INT32_MIN)
/* INT32_MAX / 2 seconds is 2004, in the past: the next-to-last second instead. */
#define TIME_T_HALF_MAX (TIME_T_MAX - 1)
#else
#define TIME_T_MAX ((time_t)INT64_MAX)
#define TIME_T_MIN ((time_t)INT64_MIN)
#define TIME_T_HALF_MAX (TIME_T_MAX / 2)
#endif
typedef char time_t_bounds_fit[sizeof(time_t) == (sizeof(TIME_T_MAX)) ? 1 : -1];

/* ---- Deadlines ---- */

enum far_kind { FAR_TIME_T_MAX, FAR_HALF_TIME_T_MAX, FAR_TEN_YEARS, FAR_KINDS }; /* tv_sec */

static struct timespec far_deadline(clockid_t clock, enum far_kind kind)
{
    struct timespec at;

    clock_gettime(clock, &at);
    switch (kind) {
    case FAR_TIME_T_MAX:
        at.tv_sec = TIME_T_MAX;
        break;
    case FAR_HALF_TIME_T_MAX:
        at.tv_sec = TIME_T_HALF_MAX;
        break;
    default:
        at.tv_sec += (time_t)TEN_YEARS_S;
        break;
    }
    at.tv_nsec = LAST_NANOSECOND;
    return at;
}

static struct timespec far_interval(enum far_kind kind)
{
    struct timespec interval = {0, LAST_NANOSECOND};

    interval.tv_sec = kind == FAR_TIME_T_MAX        ? TIME_T_MAX
                      : kind == FAR_HALF_TIME_T_MAX ? TIME_T_HALF_MAX
                                                   : (time_t)TEN_YEARS_S;
    return interval;
}

enum past_kind { PAST_SECOND_AGO, PAST_EPOCH, PAST_TIME_T_MIN, PAST_KINDS };

static struct timespec past_deadline(clockid_t clock, enum past_kind kind)
{
    struct timespec at;

    clock_gettime(clock, &at);
    at.tv_nsec = LAST_NANOSECOND;
    if (kind == PAST_SECOND_AGO)
        at.tv_sec -= 2;
    else if (kind == PAST_EPOCH)
        at.tv_sec = clock == CLOCK_MONOTONIC ? -1 : 0;
    else
        at.tv_sec = TIME_T_MIN;
    return at;
}

/* ---- The timed functions, each with a way to hold and release it ---- */

struct timed_function {
    const char *name;
    int clock_selectable;                   /* takes a clockid_t (else CLOCK_REALTIME) */
    void (*hold)(void);                     /* on the releaser, before the wait */
    void (*release)(void);                  /* on the releaser, after the wait began */
    int (*wait)(clockid_t clock, const struct timespec *at); /* on the main thread */
    void (*after_success)(void);            /* on the main thread */
    void (*after_timeout)(void);            /* on the main thread, after the release */
};

static pthread_mutex_t the_mutex;
static pthread_cond_t the_cond;
static pthread_rwlock_t the_rwlock;
static sem_t the_sem;
static volatile LONG the_flag;
static pthread_t the_thread;
static int the_join_result; /* its address is what the joined thread returns */
static int use_clock_variant;

static void nothing(void)
{
}

/* cond: the releaser sets the flag and signals under the mutex. */
static void cond_release(void)
{
    pthread_mutex_lock(&the_mutex);
    the_flag = 1;
    pthread_cond_signal(&the_cond);
    pthread_mutex_unlock(&the_mutex);
}

static int cond_wait(clockid_t clock, const struct timespec *at)
{
    int error = 0;

    pthread_mutex_lock(&the_mutex);
    while (!the_flag && error == 0)
        error = use_clock_variant ? pthread_cond_clockwait(&the_cond, &the_mutex, clock, at)
                                  : pthread_cond_timedwait(&the_cond, &the_mutex, at);
    pthread_mutex_unlock(&the_mutex);
    return error;
}

static void mutex_hold(void)
{
    pthread_mutex_lock(&the_mutex);
}

static void mutex_release(void)
{
    pthread_mutex_unlock(&the_mutex);
}

static int mutex_wait(clockid_t clock, const struct timespec *at)
{
    return use_clock_variant ? pthread_mutex_clocklock(&the_mutex, clock, at)
                             : pthread_mutex_timedlock(&the_mutex, at);
}

static void rwlock_hold(void)
{
    pthread_rwlock_wrlock(&the_rwlock);
}

static void rwlock_release(void)
{
    pthread_rwlock_unlock(&the_rwlock);
}

static int rdlock_wait(clockid_t clock, const struct timespec *at)
{
    return use_clock_variant ? pthread_rwlock_clockrdlock(&the_rwlock, clock, at)
                             : pthread_rwlock_timedrdlock(&the_rwlock, at);
}

static int wrlock_wait(clockid_t clock, const struct timespec *at)
{
    return use_clock_variant ? pthread_rwlock_clockwrlock(&the_rwlock, clock, at)
                             : pthread_rwlock_timedwrlock(&the_rwlock, at);
}

static void sem_release(void)
{
    sem_post(&the_sem);
}

static int sem_wait_for(clockid_t clock, const struct timespec *at)
{
    int result = use_clock_variant ? sem_clockwait(&the_sem, clock, at)
                                   : sem_timedwait(&the_sem, at);

    return result == 0 ? 0 : errno;
}

static void sem_take_post(void)
{
    CU_ASSERT_EQUAL(sem_wait(&the_sem), 0);
}

/* join: the thread to join ends once the releaser lets it. */
static void *joinable_thread(void *unused)
{
    (void)unused;
    while (!the_flag)
        Sleep(1);
    return &the_join_result;
}

static void join_hold(void)
{
    the_flag = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&the_thread, NULL, joinable_thread, NULL), 0);
}

static void join_release(void)
{
    the_flag = 1;
}

static int join_wait(clockid_t clock, const struct timespec *at)
{
    void *result = NULL;
    int error;

    (void)clock;
    error = pthread_timedjoin_np(the_thread, &result, at);
    if (error == 0)
        CU_ASSERT_PTR_EQUAL(result, &the_join_result);
    return error;
}

static void join_after_timeout(void)
{
    CU_ASSERT_EQUAL(pthread_join(the_thread, NULL), 0);
}

static const struct timed_function functions[] = {
    {"cond_timedwait", 0, nothing, cond_release, cond_wait, nothing, nothing},
    {"cond_clockwait", 1, nothing, cond_release, cond_wait, nothing, nothing},
    {"mutex_timedlock", 0, mutex_hold, mutex_release, mutex_wait, mutex_release, nothing},
    {"mutex_clocklock", 1, mutex_hold, mutex_release, mutex_wait, mutex_release, nothing},
    {"rwlock_timedrdlock", 0, rwlock_hold, rwlock_release, rdlock_wait, rwlock_release, nothing},
    {"rwlock_clockrdlock", 1, rwlock_hold, rwlock_release, rdlock_wait, rwlock_release, nothing},
    {"rwlock_timedwrlock", 0, rwlock_hold, rwlock_release, wrlock_wait, rwlock_release, nothing},
    {"rwlock_clockwrlock", 1, rwlock_hold, rwlock_release, wrlock_wait, rwlock_release, nothing},
    {"sem_timedwait", 0, nothing, sem_release, sem_wait_for, nothing, sem_take_post},
    {"sem_clockwait", 1, nothing, sem_release, sem_wait_for, nothing, sem_take_post},
    {"pthread_timedjoin_np", 0, join_hold, join_release, join_wait, nothing, join_after_timeout},
};
#define FUNCTION_COUNT (sizeof functions / sizeof functions[0])

static void fresh_objects(void)
{
    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(&the_mutex, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&the_cond, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&the_rwlock, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(sem_init(&the_sem, 0, 0), 0);
    the_flag = 0;
}

static void destroy_objects(void)
{
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&the_mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&the_cond), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&the_rwlock), 0);
    CU_ASSERT_EQUAL(sem_destroy(&the_sem), 0);
}

/* The releaser: holds, says so, then releases after RELEASE_AFTER_MS or, for
 * a past deadline, once the main thread's wait has already timed out. */
struct releaser {
    const struct timed_function *function;
    volatile LONG held;
    volatile LONG may_release; /* -1: after RELEASE_AFTER_MS; else wait for 1 */
};

static void releaser_thread(void *argument)
{
    struct releaser *releaser = argument;

    releaser->function->hold();
    InterlockedExchange(&releaser->held, 1);
    if (releaser->may_release < 0)
        slimtest_sleep_ms(RELEASE_AFTER_MS);
    else
        while (!InterlockedCompareExchange(&releaser->may_release, 1, 1))
            Sleep(1);
    releaser->function->release();
}

/* One wait: expected is 0 (released) or ETIMEDOUT (a past deadline). */
static void run_one(const struct timed_function *function, clockid_t clock,
                    const struct timespec *at, int expected)
{
    struct releaser releaser = {function, 0, expected == 0 ? -1 : 0};
    struct slimtest_thread *thread;
    int error;

    fresh_objects();
    use_clock_variant = function->clock_selectable;
    thread = slimtest_start_thread(releaser_thread, &releaser);
    while (!InterlockedCompareExchange(&releaser.held, 1, 1))
        Sleep(1);
    error = function->wait(clock, at);
    if (error != expected)
        printf("\n  %s on clock %d, tv_sec %lld tv_nsec %ld: %d, expected %d", function->name,
               (int)clock, (long long)at->tv_sec, at->tv_nsec, error, expected);
    CU_ASSERT_EQUAL(error, expected);
    InterlockedExchange(&releaser.may_release, 1);
    slimtest_join_thread(thread, SLIMTEST_JOIN_TIMEOUT_MS);
    if (error == 0)
        function->after_success();
    else if (error == ETIMEDOUT)
        function->after_timeout();
    destroy_objects();
}

static void for_each_clock(const struct timed_function *function,
                           void (*run)(const struct timed_function *, clockid_t))
{
    run(function, CLOCK_REALTIME);
    if (function->clock_selectable)
        run(function, CLOCK_MONOTONIC);
}

static void run_far(const struct timed_function *function, clockid_t clock)
{
    for (int kind = 0; kind < FAR_KINDS; kind++) {
        struct timespec at = far_deadline(clock, (enum far_kind)kind);

        run_one(function, clock, &at, 0);
    }
}

static void run_past(const struct timed_function *function, clockid_t clock)
{
    for (int kind = 0; kind < PAST_KINDS; kind++) {
        struct timespec at = past_deadline(clock, (enum past_kind)kind);

        run_one(function, clock, &at, ETIMEDOUT);
    }
}

static void test_far_deadlines_wait_for_the_release(void)
{
    for (size_t i = 0; i < FUNCTION_COUNT; i++)
        for_each_clock(&functions[i], run_far);
}

static void test_past_deadlines_time_out_at_once(void)
{
    for (size_t i = 0; i < FUNCTION_COUNT; i++)
        for_each_clock(&functions[i], run_past);
}

/* The cond's own clock set to MONOTONIC by its attribute, for timedwait. */
static void test_far_deadline_on_a_monotonic_cond(void)
{
    pthread_condattr_t attr;
    struct timespec at;
    const struct timed_function *timedwait = &functions[0];

    for (int kind = 0; kind < FAR_KINDS; kind++) {
        struct releaser releaser = {timedwait, 0, -1};
        struct slimtest_thread *thread;

        CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(&the_mutex, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_condattr_init(&attr), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&the_cond, &attr), 0);
        the_flag = 0;
        use_clock_variant = 0;
        at = far_deadline(CLOCK_MONOTONIC, (enum far_kind)kind);
        thread = slimtest_start_thread(releaser_thread, &releaser);
        CU_ASSERT_EQUAL(cond_wait(CLOCK_MONOTONIC, &at), 0);
        slimtest_join_thread(thread, SLIMTEST_JOIN_TIMEOUT_MS);
        CU_ASSERT_EQUAL(pthread_cond_destroy(&the_cond), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&the_mutex), 0);
        pthread_condattr_destroy(&attr);
    }
}

/* ---- Sleeps ---- */

enum sleep_call { ABSOLUTE_SLEEP, RELATIVE_SLEEP, NANOSLEEP };

struct sleeper {
    enum sleep_call call;
    clockid_t clock;
    struct timespec request;
    volatile LONG returned;
};

static void *sleeper_thread(void *argument)
{
    struct sleeper *sleeper = argument;

    if (sleeper->call == ABSOLUTE_SLEEP)
        clock_nanosleep(sleeper->clock, TIMER_ABSTIME, &sleeper->request, NULL);
    else if (sleeper->call == RELATIVE_SLEEP)
        clock_nanosleep(sleeper->clock, 0, &sleeper->request, NULL);
    else
        nanosleep(&sleeper->request, NULL);
    InterlockedExchange(&sleeper->returned, 1);
    return NULL;
}

/* A sleep that must last "forever" is still asleep after CANCEL_AFTER_MS and
 * ends with the cancel. */
static void cancel_a_sleep(enum sleep_call call, clockid_t clock, struct timespec request)
{
    struct sleeper sleeper = {call, clock, request, 0};
    pthread_t thread;
    void *result = NULL;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, sleeper_thread, &sleeper), 0);
    slimtest_sleep_ms(CANCEL_AFTER_MS);
    CU_ASSERT_EQUAL(sleeper.returned, 0);
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    if (sleeper.returned)
        printf("\n  sleep %d on clock %d, %lld s: returned", (int)call, (int)clock,
               (long long)request.tv_sec);
    CU_ASSERT_EQUAL(sleeper.returned, 0);
}

static void test_far_sleeps_until_cancelled(void)
{
    static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};

    for (int kind = 0; kind < FAR_KINDS; kind++) {
        for (int c = 0; c < 2; c++) {
            cancel_a_sleep(ABSOLUTE_SLEEP, clocks[c], far_deadline(clocks[c], (enum far_kind)kind));
            cancel_a_sleep(RELATIVE_SLEEP, clocks[c], far_interval((enum far_kind)kind));
        }
        cancel_a_sleep(NANOSLEEP, CLOCK_REALTIME, far_interval((enum far_kind)kind));
    }
}

static void test_past_absolute_sleeps_return_at_once(void)
{
    static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};

    for (int kind = 0; kind < PAST_KINDS; kind++) {
        for (int c = 0; c < 2; c++) {
            struct timespec at = past_deadline(clocks[c], (enum past_kind)kind);

            CU_ASSERT_EQUAL(clock_nanosleep(clocks[c], TIMER_ABSTIME, &at, NULL), 0);
        }
    }
}

/* The last nanosecond of a second, relative: never early, never an error. */
static void test_last_nanosecond_intervals(void)
{
    struct timespec interval = {0, LAST_NANOSECOND};
    double started = slimtest_now_ms();

    CU_ASSERT_EQUAL(nanosleep(&interval, NULL), 0);
    CU_ASSERT(slimtest_now_ms() - started >= 999.0);
    started = slimtest_now_ms();
    CU_ASSERT_EQUAL(clock_nanosleep(CLOCK_MONOTONIC, 0, &interval, NULL), 0);
    CU_ASSERT(slimtest_now_ms() - started >= 999.0);
}

/* ---- Cancelling huge timed waits ---- */

static void unlock_the_mutex(void *unused)
{
    (void)unused;
    pthread_mutex_unlock(&the_mutex);
}

static void *cond_waiter(void *unused)
{
    struct timespec at = far_deadline(CLOCK_REALTIME, FAR_TIME_T_MAX);

    (void)unused;
    pthread_cleanup_push(unlock_the_mutex, NULL);
    pthread_mutex_lock(&the_mutex);
    while (!the_flag)
        pthread_cond_timedwait(&the_cond, &the_mutex, &at);
    pthread_cleanup_pop(1);
    return NULL;
}

static void *sem_waiter(void *unused)
{
    struct timespec at = far_deadline(CLOCK_MONOTONIC, FAR_TIME_T_MAX);

    (void)unused;
    while (sem_clockwait(&the_sem, CLOCK_MONOTONIC, &at) != 0)
        continue;
    return NULL;
}

static void cancel_a_waiter(void *(*waiter)(void *))
{
    pthread_t thread;
    void *result = NULL;

    fresh_objects();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, waiter, NULL), 0);
    slimtest_sleep_ms(CANCEL_AFTER_MS);
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    destroy_objects();
}

static void test_cancel_ends_huge_timed_waits(void)
{
    cancel_a_waiter(cond_waiter);
    cancel_a_waiter(sem_waiter);
}

/* ---- The road's precedence: what was waited for, then a request, then the
 * timeout ----
 * The waiter is stopped (SuspendThread) while it sleeps in its timed wait;
 * meanwhile the main thread may release what it waits for and cancel it, and
 * lets the deadline pass; then it resumes the waiter. The rule (wait.h): what
 * the wait waited for has happened -> 0 (a token, a signal, a lock taken is
 * never lost), else a pending request acts (also past the deadline), else
 * ETIMEDOUT. A request the wait returned 0 before is acted on at the
 * waiter's next cancellation point, pthread_testcancel here. */

/* The waiter is stopped PRECEDENCE_ASLEEP_MS (times the host's slowness) after
 * it said it is about to wait: by then it sleeps in its wait. Its deadline,
 * made as it said so, is PRECEDENCE_DEADLINE_AFTER_MS later, and has passed
 * PRECEDENCE_PAST_MS before it runs again. */
#define PRECEDENCE_ASLEEP_MS 60
#define PRECEDENCE_DEADLINE_AFTER_MS 90
#define PRECEDENCE_PAST_MS 100
#define PRECEDENCE_JOIN_MS 10000
#define NOT_RETURNED (-1) /* the wait acted on the request: it never returned */

struct precedence_case {
    const char *name;
    void (*prepare)(void);       /* before the waiter starts; NULL: nothing */
    int (*wait)(void);           /* the waiter's timed wait: 0 or an errno value */
    void (*while_stopped)(void); /* what the main thread releases meanwhile; NULL: nothing */
    int cancel;                  /* cancelled while stopped */
    int expected;                /* what the wait returns, or NOT_RETURNED */
    void (*finish)(void);        /* after the join; NULL: nothing */
};

static struct timespec precedence_at; /* set by the waiter, deadline_ms from then */
static double precedence_deadline_ms;
static volatile HANDLE waiter_handle;
static volatile long wait_result;
static sem_t *precedence_named;
static pthread_t joinee;

static void *precedence_waiter(void *argument)
{
    const struct precedence_case *c = argument;
    HANDLE self = NULL;

    DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &self, 0,
                    FALSE, DUPLICATE_SAME_ACCESS);
    precedence_at = slimtest_time_after_ms(CLOCK_REALTIME, (long)precedence_deadline_ms);
    __atomic_store_n(&waiter_handle, self, __ATOMIC_RELEASE); /* about to wait */
    wait_result = c->wait();
    pthread_testcancel();
    return NULL;
}

static int errno_of(int returned)
{
    return returned == 0 ? 0 : errno;
}

static int wait_sem(void)
{
    return errno_of(sem_timedwait(&the_sem, &precedence_at));
}

static void open_named(void)
{
    char name[64];

    snprintf(name, sizeof name, "/slim-precedence-%lu", (unsigned long)GetCurrentProcessId());
    precedence_named = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    CU_ASSERT_PTR_NOT_EQUAL_FATAL(precedence_named, SEM_FAILED);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
}

static int wait_named(void)
{
    return errno_of(sem_timedwait(precedence_named, &precedence_at));
}

static void close_named(void)
{
    CU_ASSERT_EQUAL(sem_close(precedence_named), 0);
}

static int wait_cond(void)
{
    int error;

    pthread_cleanup_push(unlock_the_mutex, NULL);
    pthread_mutex_lock(&the_mutex);
    error = pthread_cond_timedwait(&the_cond, &the_mutex, &precedence_at);
    pthread_cleanup_pop(1);
    return error;
}

static void *joinee_thread(void *unused)
{
    (void)unused;
    while (sem_wait(&the_sem) != 0)
        continue;
    return NULL;
}

static void start_joinee(void)
{
    CU_ASSERT_EQUAL_FATAL(pthread_create(&joinee, NULL, joinee_thread, NULL), 0);
}

static int wait_join(void)
{
    return pthread_timedjoin_np(joinee, NULL, &precedence_at);
}

/* The joinee stays joinable after a join that was cancelled or timed out. */
static void end_joinee(void)
{
    CU_ASSERT_EQUAL(sem_post(&the_sem), 0);
    CU_ASSERT_EQUAL(pthread_join(joinee, NULL), 0);
}

static int wait_sleep(void)
{
    return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &precedence_at, NULL);
}

static void hold_rwlock(void)
{
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&the_rwlock), 0);
}

static int wait_rwlock(void)
{
    int error = pthread_rwlock_timedwrlock(&the_rwlock, &precedence_at);

    if (error == 0)
        pthread_rwlock_unlock(&the_rwlock);
    return error;
}

static void release_rwlock(void)
{
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&the_rwlock), 0);
}

static void hold_mutex(void)
{
    CU_ASSERT_EQUAL(pthread_mutex_lock(&the_mutex), 0);
}

static int wait_mutex(void)
{
    int error = pthread_mutex_timedlock(&the_mutex, &precedence_at);

    if (error == 0)
        pthread_mutex_unlock(&the_mutex);
    return error;
}

static void release_mutex(void)
{
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&the_mutex), 0);
}

static void post_sem(void)
{
    CU_ASSERT_EQUAL(sem_post(&the_sem), 0);
}

static void signal_cond(void)
{
    CU_ASSERT_EQUAL(pthread_cond_signal(&the_cond), 0);
}

/* Starts the waiter, stops it asleep, plays the case, resumes it past the
 * deadline and checks how it left. */
static void run_precedence_case(const struct precedence_case *c)
{
    double started, asleep_ms = PRECEDENCE_ASLEEP_MS * slimtest_host_slowness();
    struct timespec join_by;
    HANDLE handle;
    pthread_t waiter;
    void *result = (void *)1;

    fresh_objects();
    if (c->prepare != NULL)
        c->prepare();
    waiter_handle = NULL;
    wait_result = NOT_RETURNED;
    precedence_deadline_ms = asleep_ms + PRECEDENCE_DEADLINE_AFTER_MS;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&waiter, NULL, precedence_waiter, (void *)c), 0);
    while ((handle = __atomic_load_n(&waiter_handle, __ATOMIC_ACQUIRE)) == NULL)
        slimtest_sleep_ms(1);
    started = slimtest_now_ms(); /* after the waiter made its deadline */
    while (slimtest_now_ms() - started < asleep_ms)
        slimtest_sleep_ms(1);
    CU_ASSERT_NOT_EQUAL(SuspendThread(handle), (DWORD)-1);
    if (c->while_stopped != NULL)
        c->while_stopped();
    while (slimtest_now_ms() - started < precedence_deadline_ms + PRECEDENCE_PAST_MS)
        slimtest_sleep_ms(1);
    if (c->cancel)
        CU_ASSERT_EQUAL(pthread_cancel(waiter), 0);
    CU_ASSERT_NOT_EQUAL(ResumeThread(handle), (DWORD)-1);
    join_by = slimtest_time_after_ms(CLOCK_REALTIME, PRECEDENCE_JOIN_MS);
    CU_ASSERT_EQUAL_FATAL(pthread_timedjoin_np(waiter, &result, &join_by), 0);
    CloseHandle(handle);
    if (wait_result != c->expected || result != (c->cancel ? PTHREAD_CANCELED : NULL))
        printf("\n  %s: the wait returned %ld, the thread %s", c->name, wait_result,
               result == PTHREAD_CANCELED ? "was cancelled" : "returned");
    CU_ASSERT_EQUAL(wait_result, c->expected);
    CU_ASSERT_PTR_EQUAL(result, c->cancel ? PTHREAD_CANCELED : NULL);
    if (c->finish != NULL)
        c->finish();
    destroy_objects();
}

/* A request that came while the wait slept acts, also once the deadline has
 * passed: at every cancellable timed wait alike. */
static void test_cancel_outranks_the_timeout(void)
{
    static const struct precedence_case cases[] = {
        {"sem_timedwait", NULL, wait_sem, NULL, 1, NOT_RETURNED, NULL},
        {"named sem_timedwait", open_named, wait_named, NULL, 1, NOT_RETURNED, close_named},
        {"pthread_cond_timedwait", NULL, wait_cond, NULL, 1, NOT_RETURNED, NULL},
        {"pthread_timedjoin_np", start_joinee, wait_join, NULL, 1, NOT_RETURNED, end_joinee},
        {"clock_nanosleep", NULL, wait_sleep, NULL, 1, NOT_RETURNED, NULL},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_precedence_case(&cases[i]);
}

/* What the wait waited for came while it slept: it returns 0, with the
 * deadline passed and (for a cancellation point) a request pending as well;
 * the token or signal it took is not lost, and the request acts next. */
static void test_what_happened_outranks_all(void)
{
    static const struct precedence_case cases[] = {
        {"sem_timedwait, posted", NULL, wait_sem, post_sem, 1, 0, NULL},
        {"pthread_cond_timedwait, signalled", NULL, wait_cond, signal_cond, 1, 0, NULL},
        {"pthread_rwlock_timedwrlock, released", hold_rwlock, wait_rwlock, release_rwlock, 0, 0, NULL},
        {"pthread_mutex_timedlock, released", hold_mutex, wait_mutex, release_mutex, 0, 0, NULL},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_precedence_case(&cases[i]);
}

int main(void)
{
    CU_TestInfo cases[] = {
        {"far deadlines wait for the release", test_far_deadlines_wait_for_the_release},
        {"past deadlines time out at once", test_past_deadlines_time_out_at_once},
        {"far deadline on a monotonic cond", test_far_deadline_on_a_monotonic_cond},
        {"far sleeps last until cancelled", test_far_sleeps_until_cancelled},
        {"past absolute sleeps return at once", test_past_absolute_sleeps_return_at_once},
        {"last nanosecond intervals", test_last_nanosecond_intervals},
        {"cancel ends huge timed waits", test_cancel_ends_huge_timed_waits},
        {"a request outranks the timeout", test_cancel_outranks_the_timeout},
        {"what was waited for outranks a request and the timeout", test_what_happened_outranks_all},
        CU_TEST_INFO_NULL,
    };

    return slimtest_run("deadline", cases, 240);
}
