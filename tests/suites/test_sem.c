/*
 * test_sem.c - unnamed POSIX semaphores (sem_init .. sem_getvalue).
 *
 * Threads come from _beginthreadex so that these tests do not depend on
 * pthread_create. Helper threads never call CUnit: they record what they saw
 * and the main thread asserts.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "testutil.h"

/* Longest a helper thread may take before the test calls it hung. */
#define JOIN_TIMEOUT_MS 20000

static int value_of(sem_t *sem)
{
    int value = -12345;

    CU_ASSERT_EQUAL(sem_getvalue(sem, &value), 0);
    return value;
}

/* What the unnamed cases pass to sem_init: 0, or 1 when they run again for a
 * process-shared semaphore (the "shared:" cases at the end), which must do
 * in one process all that a private one does. */
static int pshared;

/* ---- Single-threaded: every function's success path and errors ---- */

static void test_init_and_getvalue(void)
{
    sem_t sem;

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 3), 0);
    CU_ASSERT_EQUAL(value_of(&sem), 3);
    CU_ASSERT_EQUAL(sem_wait(&sem), 0);
    CU_ASSERT_EQUAL(sem_trywait(&sem), 0);
    CU_ASSERT_EQUAL(value_of(&sem), 1);
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(value_of(&sem), 2);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, SEM_VALUE_MAX), 0);
    CU_ASSERT_EQUAL(value_of(&sem), SEM_VALUE_MAX);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void test_init_errors(void)
{
    sem_t sem;
    int value;

    SLIMTEST_ASSERT_ERRNO(sem_init(&sem, 0, (unsigned)SEM_VALUE_MAX + 1u), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_init(&sem, 1, (unsigned)SEM_VALUE_MAX + 1u), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_init(NULL, 0, 0), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_init(NULL, 1, 0), EINVAL);

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 0), 0);
    SLIMTEST_ASSERT_ERRNO(sem_getvalue(&sem, NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_getvalue(NULL, &value), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_post(NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_wait(NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_trywait(NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_destroy(NULL), EINVAL);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void test_zero_filled_is_usable(void)
{
    sem_t sem;

    memset(&sem, 0, sizeof sem);
    CU_ASSERT_EQUAL(value_of(&sem), 0);
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(sem_wait(&sem), 0);
    CU_ASSERT_EQUAL(value_of(&sem), 0);
}

static void test_trywait_eagain(void)
{
    sem_t sem;

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 1), 0);
    CU_ASSERT_EQUAL(sem_trywait(&sem), 0);
    SLIMTEST_ASSERT_ERRNO(sem_trywait(&sem), EAGAIN);
    CU_ASSERT_EQUAL(value_of(&sem), 0);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void test_post_eoverflow(void)
{
    sem_t sem;

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, SEM_VALUE_MAX - 1), 0);
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    SLIMTEST_ASSERT_ERRNO(sem_post(&sem), EOVERFLOW);
    CU_ASSERT_EQUAL(value_of(&sem), SEM_VALUE_MAX);
    CU_ASSERT_EQUAL(sem_trywait(&sem), 0);
    CU_ASSERT_EQUAL(value_of(&sem), SEM_VALUE_MAX - 1);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void expect_timeout_on(clockid_t clock, int use_clockwait)
{
    sem_t sem;
    struct timespec deadline = slimtest_time_after_ms(clock, 80);
    double started = slimtest_now_ms();
    int result;

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 0), 0);
    errno = 0;
    result = use_clockwait ? sem_clockwait(&sem, clock, &deadline) : sem_timedwait(&sem, &deadline);
    CU_ASSERT_EQUAL(result, -1);
    CU_ASSERT_EQUAL(errno, ETIMEDOUT);
    CU_ASSERT(slimtest_clock_reached(clock, &deadline)); /* not early, on its own clock */
    CU_ASSERT(slimtest_now_ms() - started < 5000.0);
    CU_ASSERT_EQUAL(value_of(&sem), 0);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void test_timedwait_etimedout(void)
{
    expect_timeout_on(CLOCK_REALTIME, 0);
}

static void test_clockwait_etimedout(void)
{
    expect_timeout_on(CLOCK_REALTIME, 1);
    expect_timeout_on(CLOCK_MONOTONIC, 1);
}

static void test_timedwait_einval(void)
{
    sem_t sem;
    struct timespec bad = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec past = slimtest_time_after_ms(CLOCK_REALTIME, -1000);

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 0), 0);
    bad.tv_nsec = 1000000000L;
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&sem, &bad), EINVAL);
    bad.tv_nsec = -1;
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&sem, &bad), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&sem, NULL), EINVAL);

    /* POSIX: the timespec need not be checked when a token is there. */
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(sem_timedwait(&sem, &bad), 0);
    /* A deadline already past: a token is still taken, else ETIMEDOUT. */
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(sem_timedwait(&sem, &past), 0);
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&sem, &past), ETIMEDOUT);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void test_clockwait_einval(void)
{
    sem_t sem;
    struct timespec at = slimtest_time_after_ms(CLOCK_MONOTONIC, 1000);
    struct timespec bad = at;

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 0), 0);
    SLIMTEST_ASSERT_ERRNO(sem_clockwait(&sem, CLOCK_PROCESS_CPUTIME_ID, &at), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_clockwait(&sem, 12345, &at), EINVAL);
    bad.tv_nsec = 2000000000L;
    SLIMTEST_ASSERT_ERRNO(sem_clockwait(&sem, CLOCK_MONOTONIC, &bad), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_clockwait(NULL, CLOCK_MONOTONIC, &at), EINVAL);
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(sem_clockwait(&sem, CLOCK_MONOTONIC, &at), 0);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

/* ---- Across threads ---- */

struct poster {
    sem_t *sem;
    unsigned delay_ms;
    int posts;
};

static void post_after_delay(void *raw)
{
    struct poster *poster = raw;
    int i;

    slimtest_sleep_ms(poster->delay_ms);
    for (i = 0; i < poster->posts; i++)
        sem_post(poster->sem);
}

static void test_timed_waits_are_woken(void)
{
    sem_t sem;
    struct poster poster = {&sem, 30, 2};
    struct timespec realtime = slimtest_time_after_ms(CLOCK_REALTIME, 10000);
    struct timespec monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 10000);
    struct slimtest_thread *thread;

    CU_ASSERT_EQUAL(sem_init(&sem, pshared, 0), 0);
    thread = slimtest_start_thread(post_after_delay, &poster);
    CU_ASSERT_EQUAL(sem_timedwait(&sem, &realtime), 0);
    CU_ASSERT_EQUAL(sem_clockwait(&sem, CLOCK_MONOTONIC, &monotonic), 0);
    CU_ASSERT(!slimtest_clock_reached(CLOCK_MONOTONIC, &monotonic));
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(value_of(&sem), 0);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

/* Two threads bounce a token through two semaphores; a lost wake shows as a
 * timeout instead of a hang. */
#define PING_PONG_ROUNDS 20000

struct ping_pong {
    sem_t ping, pong;
    int failures;
};

static void pong_side(void *raw)
{
    struct ping_pong *game = raw;
    int i;

    for (i = 0; i < PING_PONG_ROUNDS; i++) {
        struct timespec deadline = slimtest_time_after_ms(CLOCK_MONOTONIC, 5000);

        if (sem_clockwait(&game->ping, CLOCK_MONOTONIC, &deadline) != 0) {
            game->failures++;
            return;
        }
        sem_post(&game->pong);
    }
}

static void test_ping_pong(void)
{
    struct ping_pong game;
    struct slimtest_thread *thread;
    int i, failures = 0;

    memset(&game, 0, sizeof game);
    CU_ASSERT_EQUAL(sem_init(&game.ping, pshared, 0), 0);
    CU_ASSERT_EQUAL(sem_init(&game.pong, pshared, 0), 0);
    thread = slimtest_start_thread(pong_side, &game);
    for (i = 0; i < PING_PONG_ROUNDS && failures == 0; i++) {
        struct timespec deadline = slimtest_time_after_ms(CLOCK_REALTIME, 5000);

        sem_post(&game.ping);
        if (sem_timedwait(&game.pong, &deadline) != 0)
            failures++;
    }
    if (failures != 0)
        sem_post(&game.ping); /* let the other side finish */
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_EQUAL(game.failures, 0);
    CU_ASSERT_EQUAL(value_of(&game.ping), 0);
    CU_ASSERT_EQUAL(value_of(&game.pong), 0);
}

/* Many sleepers at once, then as many posts in a burst: every sleeper must
 * wake (the keep-the-flag, wake-one path of sem_post). */
#define SLEEPERS 6

struct sleepers {
    sem_t sem;
    volatile long woken, timed_out;
};

static void sleep_on_sem(void *raw)
{
    struct sleepers *sleepers = raw;
    struct timespec deadline = slimtest_time_after_ms(CLOCK_REALTIME, 10000);

    if (sem_timedwait(&sleepers->sem, &deadline) == 0)
        InterlockedIncrement(&sleepers->woken);
    else
        InterlockedIncrement(&sleepers->timed_out);
}

static void test_burst_wakes_every_sleeper(void)
{
    struct sleepers sleepers;
    struct slimtest_thread *threads[SLEEPERS];
    int i, round;

    for (round = 0; round < 3; round++) {
        memset(&sleepers, 0, sizeof sleepers);
        CU_ASSERT_EQUAL(sem_init(&sleepers.sem, pshared, 0), 0);
        slimtest_start_threads(threads, SLEEPERS, sleep_on_sem, &sleepers);
        slimtest_sleep_ms(50); /* let most of them fall asleep; not required */
        for (i = 0; i < SLEEPERS; i++)
            CU_ASSERT_EQUAL(sem_post(&sleepers.sem), 0);
        slimtest_join_threads(threads, SLEEPERS, JOIN_TIMEOUT_MS);
        CU_ASSERT_EQUAL(sleepers.woken, SLEEPERS);
        CU_ASSERT_EQUAL(sleepers.timed_out, 0);
        CU_ASSERT_EQUAL(value_of(&sleepers.sem), 0);
        CU_ASSERT_EQUAL(sem_destroy(&sleepers.sem), 0);
    }
}

/* Producers post, consumers wait: every token is taken exactly once. */
#define PRODUCERS 3
#define CONSUMERS 3
#define TOKENS_EACH 20000

struct counting {
    sem_t sem;
    volatile long taken;
    volatile long timeouts;
};

static void produce_tokens(void *raw)
{
    struct counting *counting = raw;
    int i;

    for (i = 0; i < TOKENS_EACH; i++)
        sem_post(&counting->sem);
}

static void consume_tokens(void *raw)
{
    struct counting *counting = raw;
    int i;

    for (i = 0; i < TOKENS_EACH; i++) {
        struct timespec deadline = slimtest_time_after_ms(CLOCK_MONOTONIC, 10000);

        if (i % 2 == 0 ? sem_wait(&counting->sem) != 0
                       : sem_clockwait(&counting->sem, CLOCK_MONOTONIC, &deadline) != 0) {
            InterlockedIncrement(&counting->timeouts);
            return;
        }
        InterlockedIncrement(&counting->taken);
    }
}

static void test_many_posters_many_waiters(void)
{
    struct counting counting;
    struct slimtest_thread *threads[PRODUCERS + CONSUMERS];

    memset(&counting, 0, sizeof counting);
    CU_ASSERT_EQUAL(sem_init(&counting.sem, pshared, 0), 0);
    slimtest_start_threads(threads, CONSUMERS, consume_tokens, &counting);
    slimtest_start_threads(threads + CONSUMERS, PRODUCERS, produce_tokens, &counting);
    slimtest_join_threads(threads, PRODUCERS + CONSUMERS, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(counting.timeouts, 0);
    CU_ASSERT_EQUAL(counting.taken, (long)CONSUMERS * TOKENS_EACH);
    CU_ASSERT_EQUAL(value_of(&counting.sem), 0);
    CU_ASSERT_EQUAL(sem_destroy(&counting.sem), 0);
}

/* Short timed waits racing posts: every post is accounted for, either taken
 * by a wait that returned 0 or still in the semaphore. */
#define RACING_WAITERS 3
#define RACING_POSTS 3000

struct racing {
    sem_t sem;
    volatile long taken, timeouts, posting;
};

static void wait_briefly_until_posting_ends(void *raw)
{
    struct racing *racing = raw;

    for (;;) {
        int posting = InterlockedCompareExchange(&racing->posting, 0, 0) != 0;
        struct timespec deadline = slimtest_time_after_ms(CLOCK_MONOTONIC, 1);

        if (sem_clockwait(&racing->sem, CLOCK_MONOTONIC, &deadline) == 0)
            InterlockedIncrement(&racing->taken);
        else if (errno == ETIMEDOUT)
            InterlockedIncrement(&racing->timeouts);
        if (!posting)
            return;
    }
}

static void test_timeouts_racing_posts(void)
{
    struct racing racing;
    struct slimtest_thread *threads[RACING_WAITERS];
    int i, left;

    memset(&racing, 0, sizeof racing);
    racing.posting = 1;
    CU_ASSERT_EQUAL(sem_init(&racing.sem, pshared, 0), 0);
    slimtest_start_threads(threads, RACING_WAITERS, wait_briefly_until_posting_ends, &racing);
    for (i = 0; i < RACING_POSTS; i++) {
        CU_ASSERT_EQUAL(sem_post(&racing.sem), 0);
        if (i % 64 == 0)
            slimtest_sleep_ms(1);
    }
    InterlockedExchange(&racing.posting, 0);
    slimtest_join_threads(threads, RACING_WAITERS, JOIN_TIMEOUT_MS);
    left = value_of(&racing.sem);
    CU_ASSERT_EQUAL(racing.taken + left, RACING_POSTS);
    CU_ASSERT(racing.timeouts > 0); /* the timeout path really ran */
    CU_ASSERT_EQUAL(sem_destroy(&racing.sem), 0);
}

/* A waiter destroys and unmaps its semaphore the moment it has its token,
 * while the poster may still be inside sem_post: an access sem_post made after
 * its wake faults here (checked by breaking sem_post on purpose). The few
 * instructions between publishing the token and the wake are too short a
 * window to hit; there sem_post's code itself is the guarantee. */
#define DESTROY_ROUNDS 3000

struct handoff {
    sem_t control;       /* the poster hands over a fresh semaphore */
    sem_t done;          /* the waiter has destroyed and unmapped it */
    sem_t *volatile victim;
    volatile long failures;
    int rounds;
};

static void wait_then_unmap(void *raw)
{
    struct handoff *handoff = raw;
    int i;

    for (i = 0; i < handoff->rounds; i++) {
        sem_t *victim;

        sem_wait(&handoff->control);
        victim = handoff->victim;
        if (sem_wait(victim) != 0 || sem_destroy(victim) != 0)
            InterlockedIncrement(&handoff->failures);
        VirtualFree(victim, 0, MEM_RELEASE);
        sem_post(&handoff->done);
    }
}

static void test_waiter_frees_semaphore_during_post(void)
{
    struct handoff handoff;
    struct slimtest_thread *thread;
    int i;

    memset(&handoff, 0, sizeof handoff);
    handoff.rounds = DESTROY_ROUNDS;
    CU_ASSERT_EQUAL(sem_init(&handoff.control, pshared, 0), 0);
    CU_ASSERT_EQUAL(sem_init(&handoff.done, pshared, 0), 0);
    thread = slimtest_start_thread(wait_then_unmap, &handoff);
    for (i = 0; i < DESTROY_ROUNDS; i++) {
        /* A page of its own, so that a late access faults instead of passing. */
        sem_t *victim = VirtualAlloc(NULL, sizeof *victim, MEM_COMMIT | MEM_RESERVE,
                                     PAGE_READWRITE);

        CU_ASSERT_PTR_NOT_NULL_FATAL(victim);
        CU_ASSERT_EQUAL_FATAL(sem_init(victim, pshared, 0), 0);
        handoff.victim = victim;
        sem_post(&handoff.control);
        /* Alternate: post at once (the waiter may not sleep yet) or after the
         * waiter has probably fallen asleep. */
        if (i % 2 != 0)
            SwitchToThread();
        sem_post(victim);
        sem_wait(&handoff.done);
    }
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(handoff.failures, 0);
}

/* sem_destroy reports sleepers with EBUSY. */
struct blocked {
    sem_t sem;
    volatile long result;
};

static void wait_once(void *raw)
{
    struct blocked *blocked = raw;

    blocked->result = sem_wait(&blocked->sem);
}

static void test_destroy_ebusy_with_sleeper(void)
{
    struct blocked blocked;
    struct slimtest_thread *thread;
    double give_up = slimtest_now_ms() + 10000.0;
    int busy = 0;

    blocked.result = -2;
    CU_ASSERT_EQUAL(sem_init(&blocked.sem, pshared, 0), 0);
    thread = slimtest_start_thread(wait_once, &blocked);
    /* Until the thread is asleep, destroy may still succeed (and changes nothing). */
    while (!busy && slimtest_now_ms() < give_up) {
        errno = 0;
        busy = sem_destroy(&blocked.sem) == -1 && errno == EBUSY;
        if (!busy)
            slimtest_sleep_ms(1);
    }
    CU_ASSERT(busy);
    CU_ASSERT_EQUAL(sem_post(&blocked.sem), 0);
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(blocked.result, 0);
    CU_ASSERT_EQUAL(sem_destroy(&blocked.sem), 0);
}

/* ---- Named semaphores ---- */

/* A name no other run uses at the same time. */
static void test_named_between_two_processes(void);

static const char *unique_name(const char *what)
{
    static char name[64];

    snprintf(name, sizeof name, "/slimtest-%lu-%s", (unsigned long)GetCurrentProcessId(), what);
    return name;
}

static void test_named_open_post_wait_close(void)
{
    const char *name = unique_name("basic");
    sem_t *sem, *again;
    struct timespec at = slimtest_time_after_ms(CLOCK_REALTIME, 60);
    struct timespec monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 60);

    sem = sem_open(name, O_CREAT | O_EXCL, 0600, 2);
    CU_ASSERT_FATAL(sem != SEM_FAILED);
    CU_ASSERT_EQUAL(value_of(sem), 2);
    CU_ASSERT_EQUAL(sem_wait(sem), 0);
    CU_ASSERT_EQUAL(sem_trywait(sem), 0);
    SLIMTEST_ASSERT_ERRNO(sem_trywait(sem), EAGAIN);
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(sem, &at), ETIMEDOUT);
    CU_ASSERT(slimtest_clock_reached(CLOCK_REALTIME, &at));
    SLIMTEST_ASSERT_ERRNO(sem_clockwait(sem, CLOCK_MONOTONIC, &monotonic), ETIMEDOUT);
    CU_ASSERT(slimtest_clock_reached(CLOCK_MONOTONIC, &monotonic));
    CU_ASSERT_EQUAL(sem_post(sem), 0);
    CU_ASSERT_EQUAL(value_of(sem), 1);

    /* The same name, opened again in this process: the same address. */
    again = sem_open(name, 0);
    CU_ASSERT_PTR_EQUAL(again, sem);
    again = sem_open(name, O_CREAT, 0600, 5); /* exists: the value is ignored */
    CU_ASSERT_PTR_EQUAL(again, sem);
    CU_ASSERT_EQUAL(value_of(sem), 1);
    CU_ASSERT_EQUAL(sem_close(again), 0);
    CU_ASSERT_EQUAL(sem_close(again), 0);
    CU_ASSERT_EQUAL(sem_trywait(sem), 0); /* still open once */
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);

    /* The last close freed the kernel semaphore and with it the name. */
    SLIMTEST_ASSERT_FAILS(sem_open(name, 0), SEM_FAILED, ENOENT);
}

static void test_named_open_errors(void)
{
    const char *name = unique_name("errors");
    char long_name[300];
    sem_t *sem;

    SLIMTEST_ASSERT_FAILS(sem_open(unique_name("absent"), 0), SEM_FAILED, ENOENT);
    SLIMTEST_ASSERT_FAILS(sem_open(name, O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1u), SEM_FAILED,
                          EINVAL);
    SLIMTEST_ASSERT_FAILS(sem_open("/", O_CREAT, 0600, 0), SEM_FAILED, EINVAL);
    SLIMTEST_ASSERT_FAILS(sem_open("/a/b", O_CREAT, 0600, 0), SEM_FAILED, EINVAL);
    SLIMTEST_ASSERT_FAILS(sem_open(NULL, O_CREAT, 0600, 0), SEM_FAILED, EINVAL);
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[0] = '/';
    long_name[sizeof long_name - 1] = '\0';
    SLIMTEST_ASSERT_FAILS(sem_open(long_name, O_CREAT, 0600, 0), SEM_FAILED, ENAMETOOLONG);

    sem = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    CU_ASSERT_FATAL(sem != SEM_FAILED);
    SLIMTEST_ASSERT_FAILS(sem_open(name, O_CREAT | O_EXCL, 0600, 0), SEM_FAILED, EEXIST);
    SLIMTEST_ASSERT_ERRNO(sem_destroy(sem), EINVAL); /* named: sem_close, not sem_destroy */
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
    SLIMTEST_ASSERT_ERRNO(sem_close(sem), EINVAL); /* closed already */
    SLIMTEST_ASSERT_ERRNO(sem_unlink(name), ENOENT);
    SLIMTEST_ASSERT_ERRNO(sem_unlink("/"), EINVAL);
}

static void test_named_close_unnamed_einval(void)
{
    sem_t sem;

    CU_ASSERT_EQUAL(sem_init(&sem, 0, 0), 0);
    SLIMTEST_ASSERT_ERRNO(sem_close(&sem), EINVAL);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static void test_named_eoverflow(void)
{
    const char *name = unique_name("overflow");
    sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, SEM_VALUE_MAX);

    CU_ASSERT_FATAL(sem != SEM_FAILED);
    SLIMTEST_ASSERT_ERRNO(sem_post(sem), EOVERFLOW);
    CU_ASSERT_EQUAL(value_of(sem), SEM_VALUE_MAX);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
}

/* The semaphore is a kernel object other processes can open by its name; a
 * post through such a handle wakes a sem_wait here. */
static void test_named_is_kernel_object(void)
{
    const char *name = unique_name("kernel");
    sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    struct poster poster;
    WCHAR kernel_name[128];
    HANDLE handle;
    struct slimtest_thread *thread;

    CU_ASSERT_FATAL(sem != SEM_FAILED);
    swprintf(kernel_name, 128, L"Local\\slimpthreads-sem-%hs", name + 1);
    handle = OpenSemaphoreW(SEMAPHORE_ALL_ACCESS, FALSE, kernel_name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(handle);
    CU_ASSERT(ReleaseSemaphore(handle, 1, NULL));
    CU_ASSERT_EQUAL(sem_wait(sem), 0);

    poster.sem = sem;
    poster.delay_ms = 30;
    poster.posts = 1;
    thread = slimtest_start_thread(post_after_delay, &poster);
    CU_ASSERT_EQUAL(sem_wait(sem), 0);
    slimtest_join_thread(thread, JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(WaitForSingleObject(handle, 0), WAIT_TIMEOUT);
    CloseHandle(handle);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
}

/* After sem_unlink the name leads nowhere while the old semaphore is still
 * open; O_CREAT then makes a new, distinct one; the old keeps working. */
static void test_named_unlink_really_unlinks(void)
{
    const char *name = unique_name("unlink");
    sem_t *old, *fresh, *again;

    old = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
    CU_ASSERT_FATAL(old != SEM_FAILED);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    SLIMTEST_ASSERT_FAILS(sem_open(name, 0), SEM_FAILED, ENOENT);
    SLIMTEST_ASSERT_ERRNO(sem_unlink(name), ENOENT);

    fresh = sem_open(name, O_CREAT | O_EXCL, 0600, 5);
    CU_ASSERT_FATAL(fresh != SEM_FAILED);
    CU_ASSERT_PTR_NOT_EQUAL(fresh, old);
    CU_ASSERT_EQUAL(value_of(fresh), 5);
    CU_ASSERT_EQUAL(value_of(old), 1);
    again = sem_open(name, 0);
    CU_ASSERT_PTR_EQUAL(again, fresh);
    CU_ASSERT_EQUAL(sem_close(again), 0);

    /* The old one keeps its own count, apart from the new one. */
    CU_ASSERT_EQUAL(sem_post(old), 0);
    CU_ASSERT_EQUAL(sem_wait(old), 0);
    CU_ASSERT_EQUAL(sem_wait(old), 0);
    SLIMTEST_ASSERT_ERRNO(sem_trywait(old), EAGAIN);
    CU_ASSERT_EQUAL(value_of(fresh), 5);

    /* Unlinked again, and created a third time: three generations at once. */
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    again = sem_open(name, O_CREAT, 0600, 0);
    CU_ASSERT_FATAL(again != SEM_FAILED);
    CU_ASSERT_PTR_NOT_EQUAL(again, fresh);
    CU_ASSERT_PTR_NOT_EQUAL(again, old);
    CU_ASSERT_EQUAL(value_of(again), 0);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(again), 0);
    CU_ASSERT_EQUAL(sem_close(fresh), 0);
    CU_ASSERT_EQUAL(sem_close(old), 0);
    SLIMTEST_ASSERT_FAILS(sem_open(name, 0), SEM_FAILED, ENOENT);
}

static DWORD run_child(const char *mode, const char *name, int value);

/* The same seen from another process: an unlinked name leads nowhere there
 * either, and after a new O_CREAT it leads to the new semaphore. */
static void test_named_unlink_across_processes(void)
{
    const char *name = unique_name("unlink-processes");
    sem_t *old, *fresh;

    old = sem_open(name, O_CREAT | O_EXCL, 0600, 2);
    CU_ASSERT_FATAL(old != SEM_FAILED);
    CU_ASSERT_EQUAL(run_child("--child-value", name, 2), 0); /* finds it, posts */
    CU_ASSERT_EQUAL(value_of(old), 3);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(run_child("--child-value", name, -1), 0); /* ENOENT there */
    fresh = sem_open(name, O_CREAT | O_EXCL, 0600, 7);
    CU_ASSERT_FATAL(fresh != SEM_FAILED);
    CU_ASSERT_EQUAL(run_child("--child-value", name, 7), 0); /* the new one */
    CU_ASSERT_EQUAL(value_of(fresh), 8);
    CU_ASSERT_EQUAL(value_of(old), 3);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(fresh), 0);
    CU_ASSERT_EQUAL(sem_close(old), 0);
}

/* Closed as often as it was opened but not unlinked: the name and the value
 * stay, in this process and for others, until sem_unlink (POSIX), which then
 * succeeds. */
static void test_named_closed_stays_until_unlink(void)
{
    const char *name = unique_name("closed");
    sem_t *sem, *again;

    sem = sem_open(name, O_CREAT | O_EXCL, 0600, 3);
    CU_ASSERT_FATAL(sem != SEM_FAILED);
    again = sem_open(name, 0);
    CU_ASSERT_PTR_EQUAL(again, sem);
    CU_ASSERT_EQUAL(sem_wait(sem), 0);
    CU_ASSERT_EQUAL(sem_close(again), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
    SLIMTEST_ASSERT_ERRNO(sem_close(sem), EINVAL); /* a third close: closed already */

    /* The name is still there. */
    SLIMTEST_ASSERT_FAILS(sem_open(name, O_CREAT | O_EXCL, 0600, 0), SEM_FAILED, EEXIST);
    again = sem_open(name, 0);
    CU_ASSERT_FATAL(again != SEM_FAILED);
    CU_ASSERT_EQUAL(value_of(again), 2); /* and so is the value */
    CU_ASSERT_EQUAL(sem_close(again), 0);
    CU_ASSERT_EQUAL(run_child("--child-value", name, 2), 0); /* another process too; posts */

    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    SLIMTEST_ASSERT_FAILS(sem_open(name, 0), SEM_FAILED, ENOENT);
    SLIMTEST_ASSERT_ERRNO(sem_unlink(name), ENOENT);
    again = sem_open(name, O_CREAT | O_EXCL, 0600, 0); /* a new one, not the old value */
    CU_ASSERT_FATAL(again != SEM_FAILED);
    CU_ASSERT_EQUAL(value_of(again), 0);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(again), 0);
}

/* Closed here and unlinked by another process: the name leads nowhere here
 * either, and O_CREAT makes a new semaphore. */
static void test_named_closed_unlinked_elsewhere(void)
{
    const char *name = unique_name("closed-elsewhere");
    sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, 5);

    CU_ASSERT_FATAL(sem != SEM_FAILED);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
    CU_ASSERT_EQUAL(run_child("--child-unlink", name, 0), 0);
    SLIMTEST_ASSERT_FAILS(sem_open(name, 0), SEM_FAILED, ENOENT);
    sem = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
    CU_ASSERT_FATAL(sem != SEM_FAILED);
    CU_ASSERT_EQUAL(value_of(sem), 1);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
}

/* Whether the kernel semaphore of a name's first generation exists. */
static int kernel_semaphore_exists(const char *name)
{
    WCHAR kernel_name[128];
    HANDLE handle;

    swprintf(kernel_name, 128, L"Local\\slimpthreads-sem-%hs", name + 1);
    handle = OpenSemaphoreW(SYNCHRONIZE, FALSE, kernel_name);
    if (handle == NULL)
        return 0;
    CloseHandle(handle);
    return 1;
}

/* The last sem_close keeps the kernel semaphore; sem_unlink lets it go (the
 * process holds no handle of it any more). */
static void test_named_unlink_frees_closed(void)
{
    const char *name = unique_name("close-unlink");
    sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, 0);

    CU_ASSERT_FATAL(sem != SEM_FAILED);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
    CU_ASSERT(kernel_semaphore_exists(name));
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT(!kernel_semaphore_exists(name));
}

/* What Windows does not allow (README.md): a semaphore every opener of which
 * has exited is gone, name and value, although never unlinked. */
static void test_named_gone_with_its_openers(void)
{
    const char *name = unique_name("orphan");

    CU_ASSERT_EQUAL(run_child("--child-create", name, 4), 0);
    SLIMTEST_ASSERT_FAILS(sem_open(name, 0), SEM_FAILED, ENOENT);
    SLIMTEST_ASSERT_ERRNO(sem_unlink(name), ENOENT);
}


/* ---- The unnamed cases again, process-shared (pshared 1) ---- */

static void run_shared(void (*test)(void))
{
    pshared = 1;
    test();
    pshared = 0;
}

static void shared_init_and_getvalue(void)
{
    run_shared(test_init_and_getvalue);
}

static void shared_trywait_eagain(void)
{
    run_shared(test_trywait_eagain);
}

static void shared_post_eoverflow(void)
{
    run_shared(test_post_eoverflow);
}

static void shared_timedwait_etimedout(void)
{
    run_shared(test_timedwait_etimedout);
}

static void shared_clockwait_etimedout(void)
{
    run_shared(test_clockwait_etimedout);
}

static void shared_timed_waits_are_woken(void)
{
    run_shared(test_timed_waits_are_woken);
}

static void shared_ping_pong(void)
{
    run_shared(test_ping_pong);
}

static void shared_burst_wakes_every_sleeper(void)
{
    run_shared(test_burst_wakes_every_sleeper);
}

static void shared_many_posters_many_waiters(void)
{
    run_shared(test_many_posters_many_waiters);
}

static void shared_timeouts_racing_posts(void)
{
    run_shared(test_timeouts_racing_posts);
}

static void shared_waiter_frees_semaphore_during_post(void)
{
    run_shared(test_waiter_frees_semaphore_during_post);
}

static void shared_destroy_ebusy_with_sleeper(void)
{
    run_shared(test_destroy_ebusy_with_sleeper);
}

/* A shared semaphore's __named is a tagged id, not a semaphore of sem_open's. */
static void test_shared_is_not_named(void)
{
    sem_t sem;

    CU_ASSERT_EQUAL(sem_init(&sem, 1, 2), 0);
    SLIMTEST_ASSERT_ERRNO(sem_close(&sem), EINVAL);
    CU_ASSERT_EQUAL(value_of(&sem), 2);
    CU_ASSERT_EQUAL(sem_post_multiple(&sem, 3), 0);
    CU_ASSERT_EQUAL(value_of(&sem), 5);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static CU_TestInfo cases[] = {
    {"init, wait, trywait, post, getvalue", test_init_and_getvalue},
    {"init: EINVAL past SEM_VALUE_MAX and for NULL, private or shared", test_init_errors},
    {"a zero-filled semaphore is usable", test_zero_filled_is_usable},
    {"trywait: EAGAIN without a token", test_trywait_eagain},
    {"post: EOVERFLOW at SEM_VALUE_MAX", test_post_eoverflow},
    {"timedwait: ETIMEDOUT, not early", test_timedwait_etimedout},
    {"clockwait: ETIMEDOUT on REALTIME and MONOTONIC, not early", test_clockwait_etimedout},
    {"timedwait: EINVAL for a bad timespec only when it would block", test_timedwait_einval},
    {"clockwait: EINVAL for a bad clock or timespec", test_clockwait_einval},
    {"timedwait and clockwait are woken by a post", test_timed_waits_are_woken},
    {"ping-pong between two threads, no lost wake", test_ping_pong},
    {"a burst of posts wakes every sleeper", test_burst_wakes_every_sleeper},
    {"many posters and waiters: every token taken once", test_many_posters_many_waiters},
    {"short timeouts racing posts: every post accounted for", test_timeouts_racing_posts},
    {"a waiter frees the semaphore while sem_post returns", test_waiter_frees_semaphore_during_post},
    {"destroy: EBUSY while a thread sleeps on it", test_destroy_ebusy_with_sleeper},
    {"named: open, post, waits, same address, close, unlink", test_named_open_post_wait_close},
    {"named: ENOENT, EINVAL, ENAMETOOLONG, EEXIST; close twice, unlink", test_named_open_errors},
    {"named: sem_close of an unnamed semaphore is EINVAL", test_named_close_unnamed_einval},
    {"named: EOVERFLOW at SEM_VALUE_MAX", test_named_eoverflow},
    {"named: a kernel semaphore other processes can open", test_named_is_kernel_object},
    {"named: shared between two processes", test_named_between_two_processes},
    {"named: sem_unlink really unlinks", test_named_unlink_really_unlinks},
    {"named: sem_unlink really unlinks, across processes", test_named_unlink_across_processes},
    {"named: closed, not unlinked: name and value stay until sem_unlink",
     test_named_closed_stays_until_unlink},
    {"named: closed here, unlinked by another process", test_named_closed_unlinked_elsewhere},
    {"named: the last close keeps the kernel object, sem_unlink frees it",
     test_named_unlink_frees_closed},
    {"named: gone once every process that opened it has exited", test_named_gone_with_its_openers},
    {"shared: init, wait, trywait, post, getvalue", shared_init_and_getvalue},
    {"shared: trywait: EAGAIN without a token", shared_trywait_eagain},
    {"shared: post: EOVERFLOW at SEM_VALUE_MAX", shared_post_eoverflow},
    {"shared: timedwait: ETIMEDOUT, not early", shared_timedwait_etimedout},
    {"shared: clockwait: ETIMEDOUT on REALTIME and MONOTONIC, not early", shared_clockwait_etimedout},
    {"shared: timedwait and clockwait are woken by a post", shared_timed_waits_are_woken},
    {"shared: ping-pong between two threads, no lost wake", shared_ping_pong},
    {"shared: a burst of posts wakes every sleeper", shared_burst_wakes_every_sleeper},
    {"shared: many posters and waiters: every token taken once", shared_many_posters_many_waiters},
    {"shared: short timeouts racing posts: every post accounted for", shared_timeouts_racing_posts},
    {"shared: a waiter frees the semaphore while sem_post returns", shared_waiter_frees_semaphore_during_post},
    {"shared: destroy: EBUSY while a thread sleeps on it", shared_destroy_ebusy_with_sleeper},
    {"shared: not a named semaphore: sem_close EINVAL; sem_post_multiple", test_shared_is_not_named},
    CU_TEST_INFO_NULL,
};

/* The child half of the two-process test: opens the parent's semaphore by name,
 * posts twice and closes. Exit status 0 on success. */
static int child_main(const char *name)
{
    sem_t *sem = sem_open(name, 0);

    if (sem == SEM_FAILED || sem_post(sem) != 0 || sem_post(sem) != 0 || sem_close(sem) != 0)
        return 1;
    return 0;
}

/* A named semaphore really crosses processes: a second process (this program
 * again) opens it by name and posts the two tokens the parent waits for. */
static void test_named_between_two_processes(void)
{
    const char *name = unique_name("processes");
    char arguments[2 * MAX_PATH];
    struct slimtest_child *child;
    struct timespec until;
    sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    int value = -1;

    CU_ASSERT_PTR_NOT_EQUAL_FATAL(sem, SEM_FAILED);
    snprintf(arguments, sizeof arguments, "--child %s", name);
    child = slimtest_start_child(arguments);
    until = slimtest_time_after_ms(CLOCK_REALTIME, 20000);
    CU_ASSERT_EQUAL(sem_timedwait(sem, &until), 0);
    CU_ASSERT_EQUAL(sem_timedwait(sem, &until), 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, 20000), 0);
    CU_ASSERT_EQUAL(sem_getvalue(sem, &value), 0);
    CU_ASSERT_EQUAL(value, 0);
    CU_ASSERT_EQUAL(sem_unlink(name), 0);
    CU_ASSERT_EQUAL(sem_close(sem), 0);
}

/* The child of the unlink test: opens name without O_CREAT; expects ENOENT
 * for expected -1, else the value expected, which it then posts once. */
static int child_value_main(const char *name, int expected)
{
    sem_t *sem = sem_open(name, 0);
    int value = -1;

    if (expected < 0)
        return sem == SEM_FAILED && errno == ENOENT ? 0 : 1;
    if (sem == SEM_FAILED || sem_getvalue(sem, &value) != 0 || value != expected)
        return 2;
    return sem_post(sem) == 0 && sem_close(sem) == 0 ? 0 : 3;
}

/* The child of the orphan test: creates name with value, closes it, exits. */
static int child_create_main(const char *name, int value)
{
    sem_t *sem = sem_open(name, O_CREAT | O_EXCL, 0600, (unsigned)value);

    return sem != SEM_FAILED && sem_close(sem) == 0 ? 0 : 1;
}

/* The child of the test of a name unlinked elsewhere. */
static int child_unlink_main(const char *name)
{
    return sem_unlink(name) == 0 ? 0 : 1;
}

/* Runs this program again as a child in mode: its exit status. */
static DWORD run_child(const char *mode, const char *name, int value)
{
    char arguments[2 * MAX_PATH];

    snprintf(arguments, sizeof arguments, "%s %s %d", mode, name, value);
    return (DWORD)slimtest_run_child(arguments, 20000);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--child-value") == 0)
        return child_value_main(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "--child-create") == 0)
        return child_create_main(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "--child-unlink") == 0)
        return child_unlink_main(argv[2]);
    return slimtest_run("sem", cases, 60);
}
