/*
 * test_rwlock_inline.c - pthread.h's inline rwlock write lock, write trylock
 * and unlock against the library's functions, compiled once per level
 * (tests/tests.mk builds test_rwlock_inline_O0 and _O2 from this file and
 * names the level in SLIMTEST_OPT_LEVEL).
 *
 * The inline paths (include/slimpthreads_rwlock_inline.h) take a free lock for
 * writing (writers may wait) and release a write hold that wakes nobody with
 * one exchange each, and call the library for the rest. At -O0 nothing is inlined and both
 * columns below are the library; at -O2 the inline column is the inline path:
 * tests/shell/inline_levels.sh checks, in each level's object, which of the
 * two the wrappers below call.
 */
#include <errno.h>
#include <windows.h>
#include "testutil.h"

#ifndef SLIMTEST_OPT_LEVEL
#error "test_rwlock_inline.c: build it through tests/tests.mk, which names the level"
#endif

#define WAITERS 3
#define QUEUE_TIMEOUT_MS 10000
#define RACE_WRITERS 3
#define RACE_READERS 2
#define RACE_ROUNDS 20000
#define RACE_ALONE_WRITERS 4
/* rwlock.c's bits of the word: READER_EPOCH_MASK and READ_BIASED, what a
 * free lock's word may still carry (readers set the bias, a writer clears
 * it); WRITERS_WAITING_MASK; READERS_WAITING, WRITER_HELD, WRITER_WOKEN;
 * one step of the epoch. */
#define EPOCH_BITS ((int64_t)0xFFFF << 16)
#define READ_BIASED_BIT ((int64_t)1 << 60)
#define FREE_BITS (EPOCH_BITS | READ_BIASED_BIT)
#define WRITERS_WAITING_BITS ((int64_t)0xFFFF)
#define READERS_WAITING_BIT ((int64_t)1 << 57)
#define WRITER_HELD_BIT ((int64_t)1 << 56)
#define WRITER_WOKEN_BIT ((int64_t)1 << 59)
#define EPOCH_ONE ((int64_t)1 << 16)
#define TWO_WRITERS_WAITING 2

/* Out of line, each under its own name, so that tests/shell/inline_levels.sh
 * finds its body in this object and sees what it calls. */
static __attribute__((noinline)) int inline_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    return pthread_rwlock_wrlock(rwlock);
}

static __attribute__((noinline)) int inline_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    return pthread_rwlock_trywrlock(rwlock);
}

static __attribute__((noinline)) int inline_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    return pthread_rwlock_unlock(rwlock);
}

struct write_calls {
    int (*wrlock)(pthread_rwlock_t *rwlock);
    int (*trywrlock)(pthread_rwlock_t *rwlock);
    int (*unlock)(pthread_rwlock_t *rwlock);
};

static const struct write_calls *calls_under_test;

/* ---- One thread ---- */

static void check_alone(const struct write_calls *calls, pthread_rwlock_t *lock)
{
    CU_ASSERT_EQUAL(calls->wrlock(lock), 0);
    CU_ASSERT_EQUAL(lock->__writer_thread_id, GetCurrentThreadId());
    CU_ASSERT_EQUAL(calls->wrlock(lock), EDEADLK);
    CU_ASSERT_EQUAL(calls->trywrlock(lock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(lock), EBUSY);
    CU_ASSERT_EQUAL(calls->unlock(lock), 0);
    CU_ASSERT_EQUAL(lock->__writer_thread_id, 0);
    CU_ASSERT_EQUAL(calls->unlock(lock), EPERM);
    CU_ASSERT_EQUAL(calls->trywrlock(lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(lock), 0);
    /* A read hold: the writer's calls refuse it, the unlock releases it. */
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(lock), 0);
    CU_ASSERT_EQUAL(calls->wrlock(lock), EDEADLK);
    CU_ASSERT_EQUAL(calls->trywrlock(lock), EBUSY);
    CU_ASSERT_EQUAL(calls->unlock(lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(lock), EPERM);
    CU_ASSERT_EQUAL(calls->trywrlock(lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(lock), 0);
}

static void test_one_thread(const struct write_calls *calls)
{
    pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
    pthread_rwlockattr_t attr;

    check_alone(calls, &lock);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&lock), 0);
    CU_ASSERT_EQUAL(calls->wrlock(&lock), EINVAL);
    CU_ASSERT_EQUAL(calls->trywrlock(&lock), EINVAL);
    CU_ASSERT_EQUAL(calls->unlock(&lock), EINVAL);
    CU_ASSERT_EQUAL(calls->wrlock(NULL), EINVAL);
    CU_ASSERT_EQUAL(calls->trywrlock(NULL), EINVAL);
    CU_ASSERT_EQUAL(calls->unlock(NULL), EINVAL);

    /* A process-shared lock's word is never free to the inline path. */
    CU_ASSERT_EQUAL(pthread_rwlockattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_init(&lock, &attr), 0);
    check_alone(calls, &lock);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&lock), 0);
    pthread_rwlockattr_destroy(&attr);
}

/* ---- Another thread holds it ---- */

struct held_elsewhere {
    pthread_rwlock_t lock;
    int writer_result, try_result, unlock_result;
};

static void try_and_unlock_there(void *argument)
{
    struct held_elsewhere *held = argument;

    held->try_result = calls_under_test->trywrlock(&held->lock);
    held->unlock_result = calls_under_test->unlock(&held->lock);
}

static void test_held_by_another(const struct write_calls *calls)
{
    struct held_elsewhere held = {PTHREAD_RWLOCK_INITIALIZER, 0, 0, 0};

    calls_under_test = calls;
    CU_ASSERT_EQUAL(calls->wrlock(&held.lock), 0);
    slimtest_on_other_thread(try_and_unlock_there, &held);
    CU_ASSERT_EQUAL(held.try_result, EBUSY);
    CU_ASSERT_EQUAL(held.unlock_result, EPERM);
    CU_ASSERT_EQUAL(calls->unlock(&held.lock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&held.lock), 0);
    slimtest_on_other_thread(try_and_unlock_there, &held);
    CU_ASSERT_EQUAL(held.try_result, EBUSY);
    CU_ASSERT_EQUAL(held.unlock_result, EPERM);
    CU_ASSERT_EQUAL(calls->unlock(&held.lock), 0);
}

/* ---- Waiters: the unlock must wake them ---- */

struct waited_lock {
    pthread_rwlock_t lock;
    volatile long entered;
    int write; /* the waiters' mode */
};

static void wait_for_the_lock(void *argument)
{
    struct waited_lock *waited = argument;
    int error = waited->write ? calls_under_test->wrlock(&waited->lock)
                              : pthread_rwlock_rdlock(&waited->lock);

    CU_ASSERT_EQUAL(error, 0);
    __atomic_add_fetch(&waited->entered, 1, __ATOMIC_SEQ_CST);
    CU_ASSERT_EQUAL(calls_under_test->unlock(&waited->lock), 0);
}

/* Until the word shows every waiting writer counted, or a reader asleep. */
static int waiters_queued(struct waited_lock *waited)
{
    double give_up = slimtest_now_ms() + QUEUE_TIMEOUT_MS;

    for (;;) {
        int64_t word = waited->lock.__state;

        if (waited->write ? (word & WRITERS_WAITING_BITS) == WAITERS
                          : (word & READERS_WAITING_BIT) != 0)
            return 1;
        if (slimtest_now_ms() > give_up)
            return 0;
        slimtest_sleep_ms(1);
    }
}

/* The writer holds while the waiters queue; its unlock lets them all through.
 * The word's epoch moves when readers slept (and the lock stays free). */
static void check_waiters(const struct write_calls *calls, int write)
{
    struct waited_lock waited = {PTHREAD_RWLOCK_INITIALIZER, 0, write};
    struct slimtest_thread *threads[WAITERS];
    int64_t word;

    calls_under_test = calls;
    CU_ASSERT_EQUAL(calls->wrlock(&waited.lock), 0);
    slimtest_start_threads(threads, WAITERS, wait_for_the_lock, &waited);
    CU_ASSERT_EQUAL(waiters_queued(&waited), 1);
    CU_ASSERT_EQUAL(waited.entered, 0);
    CU_ASSERT_EQUAL(calls->unlock(&waited.lock), 0);
    slimtest_join_threads(threads, WAITERS, SLIMTEST_JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(waited.entered, WAITERS);
    word = waited.lock.__state;
    CU_ASSERT_EQUAL(word & ~FREE_BITS, 0);
    if (!write)
        CU_ASSERT_NOT_EQUAL(word & EPOCH_BITS, 0);
    /* A free lock keeps its epoch through a write hold: the first one clears
     * the bias the readers may have set, the second finds the word with only
     * the epoch (the inline path, at -O2). */
    CU_ASSERT_EQUAL(calls->wrlock(&waited.lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(&waited.lock), 0);
    CU_ASSERT_EQUAL(waited.lock.__state, word & ~READ_BIASED_BIT);
    CU_ASSERT_EQUAL(calls->wrlock(&waited.lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(&waited.lock), 0);
    CU_ASSERT_EQUAL(waited.lock.__state, word & ~READ_BIASED_BIT);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&waited.lock), 0);
}

static void test_waiters_are_woken(const struct write_calls *calls)
{
    check_waiters(calls, 1);
    check_waiters(calls, 0);
}

/* ---- Writers counted as waiting, on words set by hand ----
 * No thread sleeps here: the words are what the library leaves while writers
 * wait, so that each path's choice is seen alone. */

/* The word of a lock with two writers waiting, one of them woken. */
static const int64_t woken_on_its_way = EPOCH_ONE | TWO_WRITERS_WAITING | WRITER_WOKEN_BIT;

/* A newcomer takes the free word ahead of the waiting writers, and its unlock
 * wakes nobody while a woken one is on its way: the count and the mark stay. */
static void check_woken_writer_on_its_way(const struct write_calls *calls)
{
    pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

    lock.__state = woken_on_its_way;
    CU_ASSERT_EQUAL(calls->wrlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, woken_on_its_way | WRITER_HELD_BIT);
    CU_ASSERT_EQUAL(lock.__writer_thread_id, GetCurrentThreadId());
    CU_ASSERT_EQUAL(calls->trywrlock(&lock), EBUSY);
    CU_ASSERT_EQUAL(calls->unlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, woken_on_its_way);
    CU_ASSERT_EQUAL(lock.__writer_thread_id, 0);
    CU_ASSERT_EQUAL(calls->unlock(&lock), EPERM);
    CU_ASSERT_EQUAL(calls->trywrlock(&lock), 0);
    CU_ASSERT_EQUAL(calls->unlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, woken_on_its_way);
}

/* Nobody woken yet: the unlock wakes one and marks it (the library's); a
 * reader asleep: the lock lets it in and moves the epoch (the library's). */
static void check_somebody_to_wake(const struct write_calls *calls)
{
    pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
    const int64_t writers_asleep = EPOCH_ONE | TWO_WRITERS_WAITING;

    lock.__state = writers_asleep;
    CU_ASSERT_EQUAL(calls->wrlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, writers_asleep | WRITER_HELD_BIT);
    CU_ASSERT_EQUAL(calls->unlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, writers_asleep | WRITER_WOKEN_BIT);
    CU_ASSERT_EQUAL(lock.__writer_thread_id, 0);

    lock.__state = EPOCH_ONE | READERS_WAITING_BIT;
    CU_ASSERT_EQUAL(calls->wrlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, EPOCH_ONE | READERS_WAITING_BIT | WRITER_HELD_BIT);
    CU_ASSERT_EQUAL(calls->unlock(&lock), 0);
    CU_ASSERT_EQUAL(lock.__state, 2 * EPOCH_ONE);
}

static void test_waiting_writers(const struct write_calls *calls)
{
    check_woken_writer_on_its_way(calls);
    check_somebody_to_wake(calls);
}

/* Which of those words the inline helpers finish by themselves, at every
 * level: the words above with a woken writer on its way, not the ones with
 * somebody to wake or a reader asleep; an unlock they leave keeps the id. */
static void test_inline_reach(void)
{
    pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

    lock.__state = woken_on_its_way;
    CU_ASSERT_EQUAL(__slim_rwlock_wrlock_fast(&lock), 1);
    CU_ASSERT_EQUAL(__slim_rwlock_unlock_fast(&lock), 1);
    CU_ASSERT_EQUAL(lock.__state, woken_on_its_way);

    lock.__state = EPOCH_ONE | TWO_WRITERS_WAITING;
    CU_ASSERT_EQUAL(__slim_rwlock_wrlock_fast(&lock), 1);
    CU_ASSERT_EQUAL(__slim_rwlock_unlock_fast(&lock), 0);
    CU_ASSERT_EQUAL(lock.__writer_thread_id, GetCurrentThreadId());
    CU_ASSERT_EQUAL(__slim_rwlock_unlock_slow(&lock), 0);

    lock.__state = EPOCH_ONE | READERS_WAITING_BIT;
    CU_ASSERT_EQUAL(__slim_rwlock_wrlock_fast(&lock), 0);
    lock.__state = EPOCH_ONE | READERS_WAITING_BIT | WRITER_HELD_BIT;
    lock.__writer_thread_id = GetCurrentThreadId();
    CU_ASSERT_EQUAL(__slim_rwlock_unlock_fast(&lock), 0);
    CU_ASSERT_EQUAL(__slim_rwlock_unlock_slow(&lock), 0);
}

/* ---- A race: writers and readers on one lock, many rounds ---- */

struct raced_lock {
    pthread_rwlock_t lock;
    volatile long writers_inside, readers_inside;
    long count; /* written under the write lock only */
    volatile long errors;
};

static void note_error(struct raced_lock *raced, int failed)
{
    if (failed)
        __atomic_add_fetch(&raced->errors, 1, __ATOMIC_SEQ_CST);
}

static void write_rounds(void *argument)
{
    struct raced_lock *raced = argument;
    unsigned round, rounds = slimtest_rounds(RACE_ROUNDS);

    for (round = 0; round < rounds; round++) {
        note_error(raced, calls_under_test->wrlock(&raced->lock) != 0);
        note_error(raced, __atomic_add_fetch(&raced->writers_inside, 1, __ATOMIC_SEQ_CST) != 1 ||
                              raced->readers_inside != 0);
        raced->count++;
        __atomic_sub_fetch(&raced->writers_inside, 1, __ATOMIC_SEQ_CST);
        note_error(raced, calls_under_test->unlock(&raced->lock) != 0);
    }
}

static void read_rounds(void *argument)
{
    struct raced_lock *raced = argument;
    unsigned round, rounds = slimtest_rounds(RACE_ROUNDS);

    for (round = 0; round < rounds; round++) {
        note_error(raced, pthread_rwlock_rdlock(&raced->lock) != 0);
        __atomic_add_fetch(&raced->readers_inside, 1, __ATOMIC_SEQ_CST);
        note_error(raced, raced->writers_inside != 0);
        __atomic_sub_fetch(&raced->readers_inside, 1, __ATOMIC_SEQ_CST);
        note_error(raced, calls_under_test->unlock(&raced->lock) != 0);
    }
}

/* Every failed exchange of an inline unlock (a waiter came after its look)
 * must leave the unlock to the library with the writer's id given back. */
static void race(const struct write_calls *calls, unsigned writer_count, unsigned reader_count)
{
    struct raced_lock raced = {PTHREAD_RWLOCK_INITIALIZER, 0, 0, 0, 0};
    /* Room for the larger counts of each (test_race). */
    struct slimtest_thread *writers[RACE_ALONE_WRITERS], *readers[RACE_READERS];

    calls_under_test = calls;
    slimtest_start_threads(writers, writer_count, write_rounds, &raced);
    slimtest_start_threads(readers, reader_count, read_rounds, &raced);
    slimtest_join_threads(writers, writer_count, SLIMTEST_JOIN_TIMEOUT_MS);
    slimtest_join_threads(readers, reader_count, SLIMTEST_JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(raced.errors, 0);
    CU_ASSERT_EQUAL(raced.count, (long)(writer_count * slimtest_rounds(RACE_ROUNDS)));
    CU_ASSERT_EQUAL(raced.lock.__state & ~FREE_BITS, 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&raced.lock), 0);
}

/* Writers alone: more of them than cores, so that some sleep and the holder
 * keeps its streak past them, inline. */
static void test_race(const struct write_calls *calls)
{
    race(calls, RACE_WRITERS, RACE_READERS);
    race(calls, RACE_ALONE_WRITERS, 0);
}

/* ---- Both columns ---- */

static const struct write_calls inlined = {inline_rwlock_wrlock, inline_rwlock_trywrlock,
                                           inline_rwlock_unlock};

/* volatile: the compiler cannot see through it, so these are calls. */
static int (*volatile library_wrlock)(pthread_rwlock_t *) = pthread_rwlock_wrlock;
static int (*volatile library_trywrlock)(pthread_rwlock_t *) = pthread_rwlock_trywrlock;
static int (*volatile library_unlock)(pthread_rwlock_t *) = pthread_rwlock_unlock;

static void each_column(void (*check)(const struct write_calls *calls))
{
    struct write_calls library = {library_wrlock, library_trywrlock, library_unlock};

    check(&inlined);
    check(&library);
}

static void test_one_thread_both(void)
{
    each_column(test_one_thread);
}

static void test_held_by_another_both(void)
{
    each_column(test_held_by_another);
}

static void test_waiters_are_woken_both(void)
{
    each_column(test_waiters_are_woken);
}

static void test_waiting_writers_both(void)
{
    each_column(test_waiting_writers);
}

static void test_race_both(void)
{
    each_column(test_race);
}

static CU_TestInfo cases[] = {
    {"one thread: results, the writer's id, read holds, destroyed, NULL, shared",
     test_one_thread_both},
    {"held by another thread: EBUSY and EPERM", test_held_by_another_both},
    {"the unlock wakes waiting writers and readers; the epoch stays", test_waiters_are_woken_both},
    {"writers counted as waiting: taken ahead of them, woken once", test_waiting_writers_both},
    {"the inline helpers finish a release only when it wakes nobody", test_inline_reach},
    {"writers and readers racing, then writers alone: never together, no count lost",
     test_race_both},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("rwlock-inline-" SLIMTEST_OPT_LEVEL, cases, 120);
}
