/*
 * test_spin_barrier.c - pthread_spin_* and pthread_barrier_* / pthread_barrierattr_*.
 *
 * Threads come from _beginthreadex so that these tests do not depend on
 * pthread_create. This machine may have only two cores: the stress cases run
 * more threads than that on purpose.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <string.h>
#include "testutil.h"

/* ---- Spinlocks ---- */

static void test_spin_init_lock_unlock_destroy(void)
{
    pthread_spinlock_t lock;

    CU_ASSERT_EQUAL(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE), 0);
    CU_ASSERT_EQUAL(pthread_spin_lock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_trylock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_init(&lock, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL(pthread_spin_lock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&lock), 0);
}

/* pthread.h inlines the spinlock's lock, trylock and unlock; calls through a
 * pointer reach the library's own functions. Both give the same results. */
struct spin_calls {
    int (*lock)(pthread_spinlock_t *lock);
    int (*trylock)(pthread_spinlock_t *lock);
    int (*unlock)(pthread_spinlock_t *lock);
};

static int inline_spin_lock(pthread_spinlock_t *lock) { return pthread_spin_lock(lock); }
static int inline_spin_trylock(pthread_spinlock_t *lock) { return pthread_spin_trylock(lock); }
static int inline_spin_unlock(pthread_spinlock_t *lock) { return pthread_spin_unlock(lock); }

static void check_spin_errors(const struct spin_calls *calls)
{
    pthread_spinlock_t lock;

    CU_ASSERT_EQUAL(pthread_spin_init(&lock, 5), EINVAL);
    CU_ASSERT_EQUAL(pthread_spin_init(NULL, PTHREAD_PROCESS_PRIVATE), EINVAL);
    CU_ASSERT_EQUAL(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE), 0);
    CU_ASSERT_EQUAL(calls->unlock(&lock), EPERM); /* not locked */
    CU_ASSERT_EQUAL(calls->lock(&lock), 0);
    CU_ASSERT_EQUAL(calls->trylock(&lock), EBUSY);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&lock), EBUSY);
    CU_ASSERT_EQUAL(calls->unlock(&lock), 0);
    CU_ASSERT_EQUAL(calls->trylock(&lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&lock), 0);
    CU_ASSERT_EQUAL(calls->lock(&lock), EINVAL);
    CU_ASSERT_EQUAL(calls->trylock(&lock), EINVAL);
    CU_ASSERT_EQUAL(calls->unlock(&lock), EINVAL);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&lock), EINVAL);
}

static void test_spin_errors(void)
{
    static const struct spin_calls inlined = {inline_spin_lock, inline_spin_trylock,
                                              inline_spin_unlock};
    /* volatile: the compiler cannot see through it, so these are calls. */
    static int (*volatile library_lock)(pthread_spinlock_t *) = pthread_spin_lock;
    static int (*volatile library_trylock)(pthread_spinlock_t *) = pthread_spin_trylock;
    static int (*volatile library_unlock)(pthread_spinlock_t *) = pthread_spin_unlock;
    struct spin_calls library = {library_lock, library_trylock, library_unlock};

    check_spin_errors(&inlined);
    check_spin_errors(&library);
}

static void test_spin_zero_filled(void)
{
    pthread_spinlock_t lock;

    memset((void *)&lock, 0, sizeof lock);
    CU_ASSERT_EQUAL(pthread_spin_trylock(&lock), 0);
    CU_ASSERT_EQUAL(pthread_spin_trylock(&lock), EBUSY);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&lock), 0);
}

/* The spinlock as testutil's counter takes it: a holder loses its core now
 * and then, so that the others spin on a lock whose holder is not running. */
static int counter_spin_lock(void *lock, long round)
{
    (void)round;
    return pthread_spin_lock(lock);
}

static int counter_spin_unlock(void *lock)
{
    return pthread_spin_unlock(lock);
}

static void yield_now_and_then(long round)
{
    if (round % 1000 == 0)
        Sleep(0);
}

static void test_spin_counter_more_threads_than_cores(void)
{
    pthread_spinlock_t lock;
    struct slimtest_counter counter = {(void *)&lock, counter_spin_lock, counter_spin_unlock,
                                       yield_now_and_then, 20000, 0, 0};
    double start = slimtest_now_ms();

    CU_ASSERT_EQUAL(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE), 0);
    slimtest_run_threads(8, slimtest_count_under_lock, &counter);
    CU_ASSERT_EQUAL(counter.errors, 0);
    CU_ASSERT_EQUAL(counter.value, 8 * 20000);
    CU_ASSERT(slimtest_now_ms() - start < 30000);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&lock), 0);
}

static void test_spin_word_works_through_shared_memory(void)
{
    /* Two views of one section stand in for two processes mapping it. */
    HANDLE section = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 4096, NULL);
    pthread_spinlock_t *first, *second;

    CU_ASSERT_PTR_NOT_NULL_FATAL(section);
    first = MapViewOfFile(section, FILE_MAP_ALL_ACCESS, 0, 0, 4096);
    second = MapViewOfFile(section, FILE_MAP_ALL_ACCESS, 0, 0, 4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_PTR_NOT_NULL_FATAL(second);
    CU_ASSERT(first != second);
    CU_ASSERT_EQUAL(pthread_spin_init(first, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL(pthread_spin_lock(first), 0);
    CU_ASSERT_EQUAL(pthread_spin_trylock(second), EBUSY);
    CU_ASSERT_EQUAL(pthread_spin_unlock(second), 0);
    CU_ASSERT_EQUAL(pthread_spin_trylock(first), 0);
    CU_ASSERT_EQUAL(pthread_spin_unlock(first), 0);
    CU_ASSERT_EQUAL(pthread_spin_destroy(second), 0);
    UnmapViewOfFile((void *)first);
    UnmapViewOfFile((void *)second);
    CloseHandle(section);
}

/* ---- Barriers ---- */

#define ROUNDS 300
#define BARRIER_THREADS 6

struct rounds {
    pthread_barrier_t barrier;
    unsigned threads;
    volatile long arrived[ROUNDS];
    volatile long serial[ROUNDS];
    volatile long errors;
};

static void run_rounds(void *raw)
{
    struct rounds *rounds = raw;
    int round;

    for (round = 0; round < ROUNDS; round++) {
        int result;

        /* Nobody may reach this round's count before everybody left the last one. */
        if (InterlockedIncrement(&rounds->arrived[round]) > (long)rounds->threads)
            InterlockedIncrement(&rounds->errors);
        result = pthread_barrier_wait(&rounds->barrier);
        if (result == PTHREAD_BARRIER_SERIAL_THREAD)
            InterlockedIncrement(&rounds->serial[round]);
        else if (result != 0)
            InterlockedIncrement(&rounds->errors);
        /* Released only once the whole round had arrived. */
        if (rounds->arrived[round] != (long)rounds->threads)
            InterlockedIncrement(&rounds->errors);
        if (round + 1 < ROUNDS && rounds->arrived[round + 1] >= (long)rounds->threads)
            InterlockedIncrement(&rounds->errors); /* the next round ran without us */
    }
}

static void check_rounds(unsigned threads)
{
    static struct rounds rounds;
    int round;

    memset((void *)&rounds, 0, sizeof rounds);
    rounds.threads = threads;
    CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&rounds.barrier, NULL, threads), 0);
    slimtest_run_threads(threads, run_rounds, &rounds);
    CU_ASSERT_EQUAL(rounds.errors, 0);
    for (round = 0; round < ROUNDS; round++) {
        CU_ASSERT_EQUAL(rounds.arrived[round], (long)threads);
        CU_ASSERT_EQUAL(rounds.serial[round], 1);
    }
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&rounds.barrier), 0);
}

static void test_barrier_rounds(void)
{
    check_rounds(BARRIER_THREADS);
    check_rounds(4);
    check_rounds(8);
}

static void test_barrier_count_one(void)
{
    pthread_barrier_t barrier;
    int i;

    CU_ASSERT_EQUAL(pthread_barrier_init(&barrier, NULL, 1), 0);
    for (i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(pthread_barrier_wait(&barrier), PTHREAD_BARRIER_SERIAL_THREAD);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&barrier), 0);
}

static void test_barrier_init_errors(void)
{
    pthread_barrier_t barrier;
    pthread_barrierattr_t attr;

    CU_ASSERT_EQUAL(pthread_barrier_init(&barrier, NULL, 0), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrier_init(NULL, NULL, 2), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrier_init(&barrier, NULL, 0x80000000u), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrierattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_barrier_init(&barrier, &attr, 1), 0);
    CU_ASSERT_EQUAL(pthread_barrier_wait(&barrier), PTHREAD_BARRIER_SERIAL_THREAD);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&barrier), 0);
    CU_ASSERT_EQUAL(pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL(pthread_barrier_init(&barrier, &attr, 1), 0);
    CU_ASSERT_EQUAL(pthread_barrier_wait(&barrier), PTHREAD_BARRIER_SERIAL_THREAD);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&barrier), 0);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&barrier), EINVAL); /* destroyed */
    CU_ASSERT_EQUAL(pthread_barrier_init(&barrier, &attr, 0x80000000u), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrierattr_destroy(&attr), 0);
}

static pthread_barrier_t two_barrier;
static volatile long waiter_result = -2;

static void wait_on_two_barrier(void *unused)
{
    (void)unused;
    waiter_result = pthread_barrier_wait(&two_barrier);
}

static void test_barrier_destroy_while_waiting(void)
{
    struct slimtest_thread *waiter;
    int mine;

    CU_ASSERT_EQUAL(pthread_barrier_init(&two_barrier, NULL, 2), 0);
    waiter = slimtest_start_thread(wait_on_two_barrier, NULL);
    while (__atomic_load_n(&two_barrier.__arrived, __ATOMIC_ACQUIRE) == 0)
        Sleep(1); /* peeks at the layout only to know the waiter is blocked */
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&two_barrier), EBUSY);
    CU_ASSERT(!slimtest_thread_ended(waiter, 100)); /* still blocked */
    mine = pthread_barrier_wait(&two_barrier); /* still usable after the refusal */
    slimtest_join_thread(waiter, SLIMTEST_JOIN_TIMEOUT_MS);
    CU_ASSERT(mine == PTHREAD_BARRIER_SERIAL_THREAD || waiter_result == PTHREAD_BARRIER_SERIAL_THREAD);
    CU_ASSERT(mine == 0 || waiter_result == 0);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&two_barrier), 0);
    CU_ASSERT_EQUAL(pthread_barrier_wait(&two_barrier), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&two_barrier), EINVAL);
}

/* More threads than the count: each round releases exactly count threads and
 * later callers wait for the next round (the old barrier released a caller
 * that arrived while the serial thread reset the round with that round and
 * erased its arrival: count + 1 passed, and the last round never filled). */
#define OVERSUBSCRIBED_COUNT 10
#define OVERSUBSCRIBED_ROUNDS 3000

/* Passes come from a shared budget of rounds * count, not a fixed number per
 * thread: a round needs count distinct threads, and fixed shares would leave
 * fewer than count threads with passes to make. */
struct oversubscribed {
    pthread_barrier_t barrier;
    volatile long budget;     /* passes not yet taken */
    volatile long arrivals;   /* calls to pthread_barrier_wait begun */
    volatile long departures; /* calls returned */
    volatile long serial;
    volatile long errors;
};

static void pass_oversubscribed(void *raw)
{
    struct oversubscribed *test = raw;
    long pass;

    while ((pass = InterlockedDecrement(&test->budget)) >= 0) {
        long departed, arrived;
        int result;

        InterlockedIncrement(&test->arrivals);
        if ((pass & 3) == 1)
            SwitchToThread(); /* vary who arrives late */
        result = pthread_barrier_wait(&test->barrier);
        if (result == PTHREAD_BARRIER_SERIAL_THREAD)
            InterlockedIncrement(&test->serial);
        else if (result != 0)
            InterlockedIncrement(&test->errors);
        /* Every departure belongs to a completed round of count arrivals. */
        departed = InterlockedIncrement(&test->departures);
        arrived = InterlockedCompareExchange(&test->arrivals, 0, 0);
        if (departed > arrived / OVERSUBSCRIBED_COUNT * OVERSUBSCRIBED_COUNT)
            InterlockedIncrement(&test->errors);
    }
}

/* A barrier attribute of the given pshared value, for the cases that run both. */
static pthread_barrierattr_t *barrier_attr(int pshared)
{
    static pthread_barrierattr_t attr;

    CU_ASSERT_EQUAL(pthread_barrierattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_barrierattr_setpshared(&attr, pshared), 0);
    return &attr;
}

static void check_oversubscribed(unsigned threads, int pshared)
{
    static struct oversubscribed test;
    struct slimtest_thread *workers[2 * OVERSUBSCRIBED_COUNT];
    unsigned i, hung = 0;

    memset((void *)&test, 0, sizeof test);
    test.budget = OVERSUBSCRIBED_ROUNDS * OVERSUBSCRIBED_COUNT;
    CU_ASSERT_EQUAL_FATAL(
        pthread_barrier_init(&test.barrier, barrier_attr(pshared), OVERSUBSCRIBED_COUNT), 0);
    slimtest_start_threads(workers, threads, pass_oversubscribed, &test);
    for (i = 0; i < threads; i++) {
        if (slimtest_thread_ended(workers[i], hung ? 0 : SLIMTEST_JOIN_TIMEOUT_MS))
            slimtest_join_thread(workers[i], 0);
        else
            hung++; /* the last round never filled: left alone, the case fails */
    }
    CU_ASSERT_EQUAL(hung, 0);
    CU_ASSERT_EQUAL(test.errors, 0);
    CU_ASSERT_EQUAL(test.serial, OVERSUBSCRIBED_ROUNDS);
    if (hung == 0)
        CU_ASSERT_EQUAL(pthread_barrier_destroy(&test.barrier), 0);
}

static void test_barrier_more_threads_than_count(void)
{
    check_oversubscribed(OVERSUBSCRIBED_COUNT * 3 / 2, PTHREAD_PROCESS_PRIVATE);
    check_oversubscribed(OVERSUBSCRIBED_COUNT * 2, PTHREAD_PROCESS_PRIVATE);
    /* A shared barrier's sleepers wait on its doorbells, in one process too. */
    check_oversubscribed(OVERSUBSCRIBED_COUNT * 3 / 2, PTHREAD_PROCESS_SHARED);
    check_oversubscribed(OVERSUBSCRIBED_COUNT * 2, PTHREAD_PROCESS_SHARED);
}

/* The serial thread destroys the barrier at once, while the others may still be
 * on their way out: destroy waits for them and succeeds. */
struct destroy_race {
    pthread_barrier_t barrier;
    volatile long destroy_errors;
    volatile long wait_errors;
};

static void wait_and_destroy_if_serial(void *raw)
{
    struct destroy_race *race = raw;
    int result = pthread_barrier_wait(&race->barrier);

    if (result == PTHREAD_BARRIER_SERIAL_THREAD) {
        if (pthread_barrier_destroy(&race->barrier) != 0)
            InterlockedIncrement(&race->destroy_errors);
    } else if (result != 0) {
        InterlockedIncrement(&race->wait_errors);
    }
}

static void test_barrier_serial_thread_destroys(void)
{
    struct destroy_race race;
    int i;

    memset((void *)&race, 0, sizeof race);
    for (i = 0; i < 100; i++) { /* odd rounds: a shared barrier */
        CU_ASSERT_EQUAL_FATAL(
            pthread_barrier_init(&race.barrier,
                                 barrier_attr(i % 2 ? PTHREAD_PROCESS_SHARED
                                                    : PTHREAD_PROCESS_PRIVATE),
                                 4),
            0);
        slimtest_run_threads(4, wait_and_destroy_if_serial, &race);
    }
    CU_ASSERT_EQUAL(race.destroy_errors, 0);
    CU_ASSERT_EQUAL(race.wait_errors, 0);
}

static void test_barrierattr(void)
{
    pthread_barrierattr_t attr;

    CU_ASSERT_EQUAL(pthread_barrierattr_init(&attr), 0);
    SLIMTEST_CHECK_PSHARED(pthread_barrierattr_getpshared, pthread_barrierattr_setpshared, &attr,
                           5);
    CU_ASSERT_EQUAL(pthread_barrierattr_setpshared(NULL, PTHREAD_PROCESS_PRIVATE), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrierattr_destroy(&attr), 0);
    CU_ASSERT_EQUAL(pthread_barrierattr_init(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrierattr_destroy(NULL), EINVAL);
}

static CU_TestInfo cases[] = {
    {"spin: init, lock, unlock, trylock, destroy", test_spin_init_lock_unlock_destroy},
    {"spin: EINVAL, EBUSY, EPERM (inline and library paths)", test_spin_errors},
    {"spin: zero-filled lock is unlocked", test_spin_zero_filled},
    {"spin: counter exact with 8 threads on fewer cores", test_spin_counter_more_threads_than_cores},
    {"spin: process-shared word through two mappings", test_spin_word_works_through_shared_memory},
    {"barrier: many rounds, one serial thread each, no leaks", test_barrier_rounds},
    {"barrier: 1.5x and 2x more threads than the count: exact rounds (private, shared)",
     test_barrier_more_threads_than_count},
    {"barrier: count 1", test_barrier_count_one},
    {"barrier: init errors; a shared one of count 1", test_barrier_init_errors},
    {"barrier: destroy while a thread waits gives EBUSY", test_barrier_destroy_while_waiting},
    {"barrier: the serial thread destroys it at once (private, shared)",
     test_barrier_serial_thread_destroys},
    {"barrierattr: pshared", test_barrierattr},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("spin_barrier", cases, 60);
}
