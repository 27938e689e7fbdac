/*
 * test_pshared_cond.c - process-shared condition variables and barriers.
 *
 * The objects live in memory that several processes map (slimtest_map_shared):
 * this program started again as children (--child MODE NAME [ARG]), each of
 * which maps the parent's memory at another address (displaced) and says so
 * in the memory (same_view counts a child whose view lies where the parent's
 * does). Children never call CUnit: they count what went wrong in the shared
 * memory and in their exit status, and the parent asserts. Every wait that a
 * lost wake would leave hanging is timed, and every child is finished with a
 * timeout, so a lost wake fails a case instead of hanging the run.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>
#include <process.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* A bound for waits that must be woken: long enough never to pass by itself. */
#define MUST_WAKE_MS 10000
/* How long a child may take, waits included. */
#define CHILD_TIMEOUT_MS 30000
#define PING_PONG_ROUNDS 200
#define BROADCAST_CHILDREN 3
#define SHORT_TIMEOUT_MS 200
/* Windows' timers may end a wait this much before a timestamp taken around it says. */
#define TIMER_SLACK_MS 20
/* 1 + 2 + 2 threads in three children. */
#define BARRIER_CHILDREN 3
#define BARRIER_COUNT 5
#define BARRIER_ROUNDS 100
#define LEAK_OBJECTS 100000
#define LEAK_WAIT_EVERY 1000
#define LEAK_MAPS 1000
/* What the leak loop may grow by at most: a page table's worth, not per object. */
#define LEAK_MEMORY_SLACK (1024 * 1024)
#define LEAK_HANDLE_SLACK 16
#define POLL_MS 1

struct area {
    pthread_mutex_t mutex;
    pthread_cond_t cond;           /* CLOCK_REALTIME */
    pthread_cond_t cond_monotonic; /* CLOCK_MONOTONIC */
    pthread_barrier_t barrier;
    uintptr_t parent_view;
    volatile long same_view;       /* children whose view is at the parent's address */
    volatile long failures;        /* what children saw go wrong */
    long turn;                     /* ping-pong: under the mutex */
    long ready;                    /* waiters registered: under the mutex */
    long go;                       /* under the mutex */
    long woken;                    /* under the mutex */
    volatile long timed_results[4];
    volatile long woken_in_ms;
    volatile long arrived[BARRIER_ROUNDS];
    volatile long serial[BARRIER_ROUNDS];
    volatile long early;           /* a thread that passed a round before all arrived */
};

/* ---- Both sides ---- */

static void init_shared_mutex(pthread_mutex_t *mutex, int kind)
{
    pthread_mutexattr_t attr;

    CU_ASSERT_EQUAL_FATAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutexattr_settype(&attr, kind), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(mutex, &attr), 0);
    pthread_mutexattr_destroy(&attr);
}

static int init_shared_cond(pthread_cond_t *cond, clockid_t clock)
{
    pthread_condattr_t attr;
    int error;

    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, clock);
    pthread_condattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    error = pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
    return error;
}

static int init_shared_barrier(pthread_barrier_t *barrier, unsigned count)
{
    pthread_barrierattr_t attr;
    int error;

    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    error = pthread_barrier_init(barrier, &attr, count);
    pthread_barrierattr_destroy(&attr);
    return error;
}

/* The parent's memory for one case: a mapping of its own, objects initialized. */
static struct area *parent_area(const char *tag, char *name, size_t name_size)
{
    struct area *area;

    slimtest_shared_name(name, name_size, tag);
    area = slimtest_map_shared(name, sizeof *area, 0);
    area->parent_view = (uintptr_t)area;
    init_shared_mutex(&area->mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL_FATAL(init_shared_cond(&area->cond, CLOCK_REALTIME), 0);
    CU_ASSERT_EQUAL_FATAL(init_shared_cond(&area->cond_monotonic, CLOCK_MONOTONIC), 0);
    return area;
}

static struct slimtest_child *start(const char *mode, const char *name, int argument)
{
    char arguments[2 * MAX_PATH];

    snprintf(arguments, sizeof arguments, "--child %s %s %d", mode, name, argument);
    return slimtest_start_child(arguments);
}

/* Waits, polling under the mutex, until area->ready reaches target: a waiter
 * counts itself under the mutex before its wait registers and unlocks it. */
static int wait_ready(struct area *area, long target)
{
    double until = slimtest_now_ms() + CHILD_TIMEOUT_MS;
    long ready;

    do {
        pthread_mutex_lock(&area->mutex);
        ready = area->ready;
        pthread_mutex_unlock(&area->mutex);
        if (ready >= target)
            return 1;
        slimtest_sleep_ms(POLL_MS);
    } while (slimtest_now_ms() < until);
    return 0;
}

/* Ends the case's checks common to all: children at other addresses, and
 * nothing that went wrong in them. */
static void check_children(struct area *area)
{
    CU_ASSERT_EQUAL(area->same_view, 0);
    CU_ASSERT_EQUAL(area->failures, 0);
}

/* ---- Ping-pong: exact alternation between two processes ---- */

/* side 0 or 1 takes turns 2i + side; returns what went wrong. */
static long ping_pong(struct area *area, long side)
{
    long round, failures = 0;
    struct timespec deadline;

    if (pthread_mutex_lock(&area->mutex) != 0)
        return 1;
    for (round = 0; round < PING_PONG_ROUNDS && failures == 0; round++) {
        while (area->turn % 2 != side && failures == 0) {
            deadline = slimtest_time_after_ms(CLOCK_REALTIME, MUST_WAKE_MS);
            /* A wait that ends at its deadline lost its wake, even when it
             * returns 0 (a wake that came as it timed out is taken). */
            if (pthread_cond_timedwait(&area->cond, &area->mutex, &deadline) != 0 ||
                slimtest_clock_reached(CLOCK_REALTIME, &deadline))
                failures++;
        }
        if (area->turn != 2 * round + side)
            failures++;
        area->turn++;
        if (pthread_cond_signal(&area->cond) != 0)
            failures++;
    }
    pthread_mutex_unlock(&area->mutex);
    return failures;
}

static void test_ping_pong(void)
{
    char name[MAX_PATH];
    struct area *area = parent_area("pingpong", name, sizeof name);
    struct slimtest_child *child = start("pingpong", name, 0);

    CU_ASSERT_EQUAL(ping_pong(area, 0), 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(area->turn, 2 * PING_PONG_ROUNDS);
    check_children(area);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), 0);
}

/* ---- Broadcast to waiters in three processes ---- */

static int broadcast_child(struct area *area)
{
    struct timespec deadline = slimtest_time_after_ms(CLOCK_REALTIME, MUST_WAKE_MS);
    int error = 0;

    pthread_mutex_lock(&area->mutex);
    area->ready++;
    while (!area->go && error == 0)
        error = pthread_cond_timedwait(&area->cond, &area->mutex, &deadline);
    if (error == 0 && slimtest_clock_reached(CLOCK_REALTIME, &deadline))
        error = ETIMEDOUT; /* its wake was lost (see ping_pong) */
    area->woken += error == 0;
    pthread_mutex_unlock(&area->mutex);
    return error;
}

static void test_broadcast_three_processes(void)
{
    char name[MAX_PATH];
    struct area *area = parent_area("broadcast", name, sizeof name);
    struct slimtest_child *children[BROADCAST_CHILDREN];
    int i;

    for (i = 0; i < BROADCAST_CHILDREN; i++)
        children[i] = start("broadcast", name, 0);
    CU_ASSERT(wait_ready(area, BROADCAST_CHILDREN));
    pthread_mutex_lock(&area->mutex);
    area->go = 1;
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&area->cond), 0);
    pthread_mutex_unlock(&area->mutex);
    for (i = 0; i < BROADCAST_CHILDREN; i++)
        CU_ASSERT_EQUAL(slimtest_finish_child(children[i], CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(area->woken, BROADCAST_CHILDREN);
    check_children(area);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), 0);
}

/* ---- Timed waits across processes ---- */

/* One wait nobody signals: its result, and a failure if it ended early. */
static long timed_out(struct area *area, int which)
{
    pthread_cond_t *cond = which == 1 ? &area->cond_monotonic : &area->cond;
    clockid_t clock = which == 1 || which == 3 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    struct timespec deadline = slimtest_time_after_ms(clock, SHORT_TIMEOUT_MS);
    double began = slimtest_now_ms();
    int error;

    pthread_mutex_lock(&area->mutex);
    if (which < 2)
        error = pthread_cond_timedwait(cond, &area->mutex, &deadline);
    else
        error = pthread_cond_clockwait(cond, &area->mutex, clock, &deadline);
    pthread_mutex_unlock(&area->mutex);
    if (slimtest_now_ms() - began < SHORT_TIMEOUT_MS - TIMER_SLACK_MS)
        InterlockedIncrement(&area->failures);
    return error;
}

static int timed_child(struct area *area)
{
    struct timespec deadline;
    double began;
    int which, error = 0;

    for (which = 0; which < 4; which++)
        area->timed_results[which] = timed_out(area, which);
    pthread_mutex_lock(&area->mutex);
    area->ready++;
    deadline = slimtest_time_after_ms(CLOCK_MONOTONIC, MUST_WAKE_MS);
    began = slimtest_now_ms();
    while (!area->go && error == 0)
        error = pthread_cond_timedwait(&area->cond_monotonic, &area->mutex, &deadline);
    area->woken_in_ms = (long)(slimtest_now_ms() - began);
    pthread_mutex_unlock(&area->mutex);
    return error;
}

static void test_timed_waits(void)
{
    char name[MAX_PATH];
    struct area *area = parent_area("timed", name, sizeof name);
    struct slimtest_child *child = start("timed", name, 0);
    int which;

    CU_ASSERT(wait_ready(area, 1));
    pthread_mutex_lock(&area->mutex);
    area->go = 1;
    CU_ASSERT_EQUAL(pthread_cond_signal(&area->cond_monotonic), 0);
    pthread_mutex_unlock(&area->mutex);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    for (which = 0; which < 4; which++)
        CU_ASSERT_EQUAL(area->timed_results[which], ETIMEDOUT);
    CU_ASSERT(area->woken_in_ms < MUST_WAKE_MS / 2);
    check_children(area);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond_monotonic), 0);
}

/* ---- Barrier rounds across three processes ---- */

static unsigned __stdcall barrier_thread(void *argument)
{
    struct area *area = argument;
    long round;
    int result;

    for (round = 0; round < BARRIER_ROUNDS; round++) {
        InterlockedIncrement(&area->arrived[round]);
        result = pthread_barrier_wait(&area->barrier);
        if (InterlockedCompareExchange(&area->arrived[round], 0, 0) != BARRIER_COUNT)
            InterlockedIncrement(&area->early);
        if (result == PTHREAD_BARRIER_SERIAL_THREAD)
            InterlockedIncrement(&area->serial[round]);
        else if (result != 0)
            InterlockedIncrement(&area->failures);
    }
    return 0;
}

/* Runs threads threads through every round; nonzero if one hangs. */
static int barrier_child(struct area *area, int threads)
{
    HANDLE handles[2];
    int i, hung = 0;

    for (i = 0; i < threads; i++)
        handles[i] = (HANDLE)_beginthreadex(NULL, 0, barrier_thread, area, 0, NULL);
    for (i = 0; i < threads; i++) {
        if (handles[i] == NULL || WaitForSingleObject(handles[i], CHILD_TIMEOUT_MS) != 0)
            hung = 1;
    }
    return hung;
}

static void test_barrier_rounds(void)
{
    static const int threads[BARRIER_CHILDREN] = {1, 2, 2};
    char name[MAX_PATH];
    struct area *area = parent_area("barrier", name, sizeof name);
    struct slimtest_child *children[BARRIER_CHILDREN];
    long round, wrong_serials = 0;
    int i;

    CU_ASSERT_EQUAL_FATAL(init_shared_barrier(&area->barrier, BARRIER_COUNT), 0);
    for (i = 0; i < BARRIER_CHILDREN; i++)
        children[i] = start("barrier", name, threads[i]);
    for (i = 0; i < BARRIER_CHILDREN; i++)
        CU_ASSERT_EQUAL(slimtest_finish_child(children[i], CHILD_TIMEOUT_MS), 0);
    for (round = 0; round < BARRIER_ROUNDS; round++)
        wrong_serials += area->serial[round] != 1;
    CU_ASSERT_EQUAL(wrong_serials, 0);
    CU_ASSERT_EQUAL(area->early, 0);
    check_children(area);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&area->barrier), 0);
}

/* ---- Destroy while another process waits ---- */

static int wait_child(struct area *area)
{
    return broadcast_child(area);
}

static int barrier_wait_child(struct area *area)
{
    return pthread_barrier_wait(&area->barrier) == 0 ? 0 : 1;
}

static void test_destroy_busy(void)
{
    char name[MAX_PATH];
    struct area *area = parent_area("busy", name, sizeof name);
    struct slimtest_child *child = start("wait", name, 0);
    double until = slimtest_now_ms() + CHILD_TIMEOUT_MS;
    int result;

    CU_ASSERT_FATAL(wait_ready(area, 1));
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), EBUSY);
    pthread_mutex_lock(&area->mutex);
    area->go = 1;
    CU_ASSERT_EQUAL(pthread_cond_signal(&area->cond), 0);
    pthread_mutex_unlock(&area->mutex);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), 0);

    CU_ASSERT_EQUAL_FATAL(init_shared_barrier(&area->barrier, 2), 0);
    child = start("barrierwait", name, 0);
    while (InterlockedCompareExchange(&area->barrier.__arrived, 0, 0) == 0 &&
           slimtest_now_ms() < until)
        slimtest_sleep_ms(POLL_MS);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&area->barrier), EBUSY);
    result = pthread_barrier_wait(&area->barrier);
    CU_ASSERT(result == PTHREAD_BARRIER_SERIAL_THREAD);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&area->barrier), 0);
    check_children(area);
}

/* A process that ends while it waits leaves its registration: destroy says
 * EBUSY until a wake clears it, and nobody else is held up. */
static void test_waiter_process_ends(void)
{
    char name[MAX_PATH];
    struct area *area = parent_area("ended", name, sizeof name);
    struct slimtest_child *child = start("wait", name, 0);

    CU_ASSERT_FATAL(wait_ready(area, 1));
    CU_ASSERT_EQUAL(slimtest_finish_child(child, 0), SLIMTEST_CHILD_HUNG); /* terminated */
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), EBUSY);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&area->cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&area->cond), 0);
    CU_ASSERT_EQUAL(area->same_view, 0);
}

/* ---- In one process ---- */

static void test_attributes_and_mixed_mutex(void)
{
    pthread_condattr_t attr;
    pthread_mutex_t private_mutex = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond;
    struct timespec deadline = slimtest_time_after_ms(CLOCK_REALTIME, MUST_WAKE_MS);
    int pshared = -1;

    CU_ASSERT_EQUAL(pthread_condattr_init(&attr), 0);
    SLIMTEST_CHECK_PSHARED(pthread_condattr_getpshared, pthread_condattr_setpshared, &attr, 7);
    CU_ASSERT_EQUAL(pthread_condattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&cond, &attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_getpshared(&attr, &pshared), 0);
    CU_ASSERT_EQUAL(pshared, PTHREAD_PROCESS_SHARED);
    /* A shared cond with a private mutex: no other process could share it. */
    pthread_mutex_lock(&private_mutex);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &private_mutex, &deadline), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&private_mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_signal(&cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
    pthread_condattr_destroy(&attr);
}

/* The reverse is accepted: a private cond's waiters are all of one process,
 * where a shared mutex works as well as a private one. */
static void test_private_cond_shared_mutex(void)
{
    pthread_mutex_t mutex;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    struct timespec past = slimtest_time_after_ms(CLOCK_REALTIME, -1);

    init_shared_mutex(&mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &mutex, &past), ETIMEDOUT);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0); /* held again after the wait */
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

struct cancel_case {
    struct area *area;
    volatile long cleanup_unlock; /* what the cleanup handler's unlock returned */
};

static void unlock_in_cleanup(void *argument)
{
    struct cancel_case *c = argument;

    c->cleanup_unlock = pthread_mutex_unlock(&c->area->mutex);
}

static void *cancelled_waiter(void *argument)
{
    struct cancel_case *c = argument;

    pthread_mutex_lock(&c->area->mutex);
    pthread_cleanup_push(unlock_in_cleanup, c);
    c->area->ready++;
    for (;;)
        pthread_cond_wait(&c->area->cond, &c->area->mutex);
    pthread_cleanup_pop(0);
    return NULL;
}

/* Cancellation acts in a shared cond wait (an alertable doorbell wait) and the
 * cleanup handler runs with the (errorcheck) mutex held again. */
static void test_cancel_in_shared_wait(void)
{
    char name[MAX_PATH];
    struct cancel_case c = {NULL, -1};
    pthread_t thread;
    void *result = NULL;

    c.area = parent_area("cancel", name, sizeof name);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, cancelled_waiter, &c), 0);
    CU_ASSERT_FATAL(wait_ready(c.area, 1));
    slimtest_sleep_ms(SHORT_TIMEOUT_MS); /* asleep on the doorbell by now, most likely */
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(c.cleanup_unlock, 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&c.area->cond), 0);
}

static size_t private_usage(void)
{
    PROCESS_MEMORY_COUNTERS_EX counters;

    memset(&counters, 0, sizeof counters);
    K32GetProcessMemoryInfo(GetCurrentProcess(), (PROCESS_MEMORY_COUNTERS *)&counters,
                            sizeof counters);
    return counters.PrivateUsage;
}

/* The value of a fresh handle: Wine's GetProcessHandleCount says 0, but a
 * handle table that grows hands out ever higher values. */
static uintptr_t probe_handle(void)
{
    HANDLE event = CreateEventW(NULL, FALSE, FALSE, NULL);

    CloseHandle(event);
    return (uintptr_t)event;
}

/* One object's life; every LEAK_WAIT_EVERY-th waits (past deadline), so that
 * its doorbell is made. */
static int one_life(struct area *area, long i)
{
    struct timespec past = slimtest_time_after_ms(CLOCK_REALTIME, -1);
    int errors = 0;

    errors += init_shared_cond(&area->cond, CLOCK_REALTIME) != 0;
    if (i % LEAK_WAIT_EVERY == 0) {
        pthread_mutex_lock(&area->mutex);
        errors += pthread_cond_timedwait(&area->cond, &area->mutex, &past) != ETIMEDOUT;
        pthread_mutex_unlock(&area->mutex);
    }
    errors += pthread_cond_signal(&area->cond) != 0;
    errors += pthread_cond_destroy(&area->cond) != 0;
    errors += init_shared_barrier(&area->barrier, 1) != 0;
    errors += pthread_barrier_wait(&area->barrier) != PTHREAD_BARRIER_SERIAL_THREAD;
    errors += pthread_barrier_destroy(&area->barrier) != 0;
    return errors;
}

/* A view of the case's mapping whose handle is closed at once (the view keeps
 * the mapping), unlike slimtest_map_shared's, so that a loop of them keeps
 * no handle. */
static struct area *map_and_close(const char *name)
{
    HANDLE mapping = OpenFileMappingA(FILE_MAP_READ | FILE_MAP_WRITE, FALSE, name);
    void *view;

    if (mapping == NULL)
        return NULL;
    view = MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, sizeof(struct area));
    CloseHandle(mapping);
    return view;
}

static void test_no_leak(void)
{
    char name[MAX_PATH];
    struct area *area = parent_area("leak", name, sizeof name);
    struct area *view;
    size_t memory_before, memory_after;
    uintptr_t handle_before, handle_after;
    long i, errors = 0;

    one_life(area, 0); /* the id counter's mapping, made once */
    memory_before = private_usage();
    handle_before = probe_handle();
    for (i = 0; i < LEAK_OBJECTS; i++)
        errors += one_life(area, i);
    for (i = 0; i < LEAK_MAPS; i++) {
        view = map_and_close(name);
        errors += view == NULL || one_life(view, 0) != 0;
        UnmapViewOfFile(view);
    }
    memory_after = private_usage();
    handle_after = probe_handle();
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT(memory_after < memory_before + LEAK_MEMORY_SLACK);
    CU_ASSERT(handle_after < handle_before + LEAK_HANDLE_SLACK * sizeof(HANDLE));
}

static CU_TestInfo cases[] = {
    {"attributes; a shared cond with a private mutex is EINVAL", test_attributes_and_mixed_mutex},
    {"a private cond with a shared mutex works", test_private_cond_shared_mutex},
    {"cond ping-pong between two processes, exact alternation", test_ping_pong},
    {"broadcast wakes waiters in three processes", test_broadcast_three_processes},
    {"timed waits across processes: both clocks time out, one is woken in time",
     test_timed_waits},
    {"barrier rounds across three processes: one serial each, none early", test_barrier_rounds},
    {"destroy while another process waits: EBUSY (cond, barrier)", test_destroy_busy},
    {"a waiter's process ends: destroy is EBUSY until a wake, then 0", test_waiter_process_ends},
    {"cancellation acts in a shared cond wait, the cleanup holds the mutex",
     test_cancel_in_shared_wait},
    {"100,000 shared conds and barriers, 1,000 maps: no handle or memory growth", test_no_leak},
    CU_TEST_INFO_NULL,
};

/* ---- The children ---- */

static int child_main(const char *mode, const char *name, int argument)
{
    struct area *area = slimtest_map_shared(name, sizeof *area, 1);
    int status;

    if ((uintptr_t)area == area->parent_view)
        InterlockedIncrement(&area->same_view);
    if (strcmp(mode, "pingpong") == 0)
        status = ping_pong(area, 1) != 0;
    else if (strcmp(mode, "broadcast") == 0)
        status = broadcast_child(area);
    else if (strcmp(mode, "timed") == 0)
        status = timed_child(area);
    else if (strcmp(mode, "barrier") == 0)
        status = barrier_child(area, argument);
    else if (strcmp(mode, "wait") == 0)
        status = wait_child(area);
    else if (strcmp(mode, "barrierwait") == 0)
        status = barrier_wait_child(area);
    else
        status = 2;
    if (status != 0)
        InterlockedIncrement(&area->failures);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], argv[3], atoi(argv[4]));
    return slimtest_run("pshared_cond", cases, 120);
}
