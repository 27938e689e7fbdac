/*
 * test_rwlock.c - pthread_rwlock_* and pthread_rwlockattr_*.
 *
 * Every function's success path and each error it returns; the cases a bare
 * SRWLOCK gets wrong (a recursive read lock with a writer queued, the mode an
 * unlock releases); readers that really share the lock; a writer that is not
 * starved; a stress run whose invariants are checked exactly. Waits are bounded,
 * so a deadlock fails a case instead of hanging the run.
 *
 * Helper threads never call CUnit: they leave results behind for the main
 * thread to assert.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h> /* CreateThread, SwitchToThread: threads and yields without the library */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define BOUND_MS 10000.0 /* how long anything that must happen may take */
#define SETTLE_MS 100    /* time for a thread to block where we expect it */

/* ---- Threads and flags ---- */

typedef void (*routine_fn)(void *argument);

struct start {
    routine_fn routine;
    void *argument;
};

static void *trampoline(void *raw)
{
    struct start start = *(struct start *)raw;

    free(raw);
    start.routine(start.argument);
    return NULL;
}

/* A running thread, or 0 if none could be made. */
static pthread_t spawn(routine_fn routine, void *argument)
{
    struct start *start = malloc(sizeof *start);
    pthread_t thread;

    start->routine = routine;
    start->argument = argument;
    if (pthread_create(&thread, NULL, trampoline, start) != 0) {
        free(start);
        return 0;
    }
    return thread;
}

/* Nonzero when the thread ended within the bound. A thread that did not is left
 * alone (it is stuck in the code under test) and the case fails. */
static int finished(pthread_t thread)
{
    struct timespec limit = slimtest_time_after_ms(CLOCK_REALTIME, (long)BOUND_MS);

    return thread != 0 && pthread_timedjoin_np(thread, NULL, &limit) == 0;
}

/* Each of count threads from spawn finished; the first that did not ends the case. */
static void all_finish(const pthread_t *threads, int count)
{
    int i;

    for (i = 0; i < count; i++)
        CU_ASSERT_FATAL(finished(threads[i]));
}

static long load(volatile long *flag)
{
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static void store(volatile long *flag, long value)
{
    __atomic_store_n(flag, value, __ATOMIC_RELEASE);
}

static void note_failure(volatile long *failures, int failed)
{
    if (failed)
        __atomic_add_fetch(failures, 1, __ATOMIC_SEQ_CST);
}

/* Nonzero once *flag reaches value, zero if it has not within the bound. */
static int await_flag(volatile long *flag, long value)
{
    double end = slimtest_now_ms() + BOUND_MS;

    while (load(flag) < value) {
        if (slimtest_now_ms() > end)
            return 0;
        slimtest_sleep_ms(1);
    }
    return 1;
}

/* ---- One operation run on another thread ---- */

enum operation {
    OP_TRYRDLOCK,
    OP_TRYWRLOCK,
    OP_UNLOCK,
    OP_TRYRDLOCK_UNLOCK,
    OP_TRYWRLOCK_UNLOCK,
    OP_WRLOCK_WITHIN_20MS_UNLOCK
};

struct remote_call {
    pthread_rwlock_t *rwlock;
    enum operation operation;
    int result;
};

static void run_operation(void *raw)
{
    struct remote_call *call = raw;

    switch (call->operation) {
    case OP_TRYRDLOCK:
        call->result = pthread_rwlock_tryrdlock(call->rwlock);
        break;
    case OP_TRYWRLOCK:
        call->result = pthread_rwlock_trywrlock(call->rwlock);
        break;
    case OP_UNLOCK:
        call->result = pthread_rwlock_unlock(call->rwlock);
        break;
    case OP_TRYRDLOCK_UNLOCK:
    case OP_TRYWRLOCK_UNLOCK:
        call->result = call->operation == OP_TRYRDLOCK_UNLOCK ? pthread_rwlock_tryrdlock(call->rwlock)
                                                              : pthread_rwlock_trywrlock(call->rwlock);
        if (call->result == 0 && pthread_rwlock_unlock(call->rwlock) != 0)
            call->result = -1;
        break;
    case OP_WRLOCK_WITHIN_20MS_UNLOCK: {
        struct timespec limit = slimtest_time_after_ms(CLOCK_MONOTONIC, 20);

        call->result = pthread_rwlock_clockwrlock(call->rwlock, CLOCK_MONOTONIC, &limit);
        if (call->result == 0 && pthread_rwlock_unlock(call->rwlock) != 0)
            call->result = -1;
        break;
    }
    }
}

/* The result of operation on rwlock from a fresh thread; -2 if it hung. */
static int from_other_thread(pthread_rwlock_t *rwlock, enum operation operation)
{
    struct remote_call call = {rwlock, operation, -2};

    if (!finished(spawn(run_operation, &call)))
        return -2;
    return call.result;
}

static DWORD WINAPI run_foreign_operation(LPVOID raw)
{
    run_operation(raw);
    return 0;
}

/* The same from a thread the library did not create: it has no record until it
 * needs one. */
static int from_foreign_thread(pthread_rwlock_t *rwlock, enum operation operation)
{
    struct remote_call call = {rwlock, operation, -2};
    HANDLE thread = CreateThread(NULL, 0, run_foreign_operation, &call, 0, NULL);

    if (thread == NULL || WaitForSingleObject(thread, (DWORD)BOUND_MS) != WAIT_OBJECT_0)
        return -2;
    CloseHandle(thread);
    return call.result;
}

/* ---- A thread that holds a lock until told to let go ---- */

struct holder {
    pthread_rwlock_t *rwlock;
    int exclusive;
    volatile long holding; /* 1 while it holds the lock */
    volatile long release; /* set to make it unlock */
    unsigned release_after_ms; /* if nonzero, it lets go by itself after this long */
    int lock_result;
    int unlock_result;
    pthread_t thread;
};

static void hold_lock(void *raw)
{
    struct holder *holder = raw;

    holder->lock_result = holder->exclusive ? pthread_rwlock_wrlock(holder->rwlock)
                                            : pthread_rwlock_rdlock(holder->rwlock);
    store(&holder->holding, 1);
    if (holder->release_after_ms != 0)
        slimtest_sleep_ms(holder->release_after_ms);
    else
        await_flag(&holder->release, 1);
    holder->unlock_result = pthread_rwlock_unlock(holder->rwlock);
}

static void start_holder(struct holder *holder, pthread_rwlock_t *rwlock, int exclusive,
                         unsigned release_after_ms)
{
    memset(holder, 0, sizeof *holder);
    holder->rwlock = rwlock;
    holder->exclusive = exclusive;
    holder->release_after_ms = release_after_ms;
    holder->thread = spawn(hold_lock, holder);
    CU_ASSERT_FATAL(holder->thread != 0);
    CU_ASSERT_FATAL(await_flag(&holder->holding, 1));
}

static void stop_holder(struct holder *holder)
{
    store(&holder->release, 1);
    CU_ASSERT_FATAL(finished(holder->thread));
    CU_ASSERT_EQUAL(holder->lock_result, 0);
    CU_ASSERT_EQUAL(holder->unlock_result, 0);
}

/* ---- Attributes ---- */

static void test_attr(void)
{
    pthread_rwlockattr_t attr;
    int value;

    CU_ASSERT_EQUAL(pthread_rwlockattr_init(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlockattr_init(&attr), 0);

    CU_ASSERT_EQUAL(pthread_rwlockattr_getkind_np(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_RWLOCK_PREFER_READER_NP);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NP), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getkind_np(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_RWLOCK_PREFER_WRITER_NP);
    CU_ASSERT_EQUAL(
        pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getkind_np(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_READER_NP), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setkind_np(&attr, 3), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setkind_np(&attr, -1), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getkind_np(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_RWLOCK_PREFER_READER_NP);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setkind_np(NULL, PTHREAD_RWLOCK_PREFER_READER_NP), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getkind_np(NULL, &value), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getkind_np(&attr, NULL), EINVAL);

    SLIMTEST_CHECK_PSHARED(pthread_rwlockattr_getpshared, pthread_rwlockattr_setpshared, &attr, 7);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setpshared(NULL, PTHREAD_PROCESS_PRIVATE), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getpshared(NULL, &value), EINVAL);

    CU_ASSERT_EQUAL(pthread_rwlockattr_destroy(&attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_destroy(NULL), EINVAL);
}

/* ---- Life cycle ---- */

static void exercise(pthread_rwlock_t *rwlock)
{
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(rwlock, OP_TRYRDLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(from_other_thread(rwlock, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(rwlock, OP_TRYRDLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(rwlock, OP_TRYWRLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(from_foreign_thread(rwlock, OP_TRYRDLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(from_foreign_thread(rwlock, OP_TRYWRLOCK_UNLOCK), 0);
}

/* What the cases below pass to pthread_rwlock_init: NULL, or a process-shared
 * attribute when they run again as the "shared:" cases at the end: a shared
 * lock must do in one process all that a private one does (but bias). */
static pthread_rwlockattr_t *lock_attr;

static void test_init_destroy(void)
{
    pthread_rwlock_t rwlock;
    pthread_rwlockattr_t attr;
    int kind;

    CU_ASSERT_EQUAL(pthread_rwlock_init(NULL, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_init(&rwlock, NULL), 0);
    exercise(&rwlock);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);

    pthread_rwlockattr_init(&attr);
    for (kind = PTHREAD_RWLOCK_PREFER_READER_NP;
         kind <= PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP; kind++) {
        CU_ASSERT_EQUAL(pthread_rwlockattr_setkind_np(&attr, kind), 0);
        CU_ASSERT_EQUAL(pthread_rwlock_init(&rwlock, &attr), 0);
        exercise(&rwlock);
        CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
    }
    attr.__kind = 42; /* what an uninitialized attribute object may hold */
    CU_ASSERT_EQUAL(pthread_rwlock_init(&rwlock, &attr), EINVAL);
    pthread_rwlockattr_destroy(&attr);

    CU_ASSERT_EQUAL(pthread_rwlock_destroy(NULL), EINVAL);
}

static void test_use_after_destroy(void)
{
    pthread_rwlock_t rwlock;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec later_monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 1000);

    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&rwlock, lock_attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &later), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &later_monotonic), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, &later), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &later_monotonic), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYRDLOCK), EINVAL);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_UNLOCK), EINVAL);

    /* A destroyed lock may be initialized again. */
    CU_ASSERT_EQUAL(pthread_rwlock_init(&rwlock, lock_attr), 0);
    exercise(&rwlock);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* Memory that was never an rwlock (every bit set) is refused by every call,
 * never taken, never waited on. */
static void test_garbage_is_einval(void)
{
    pthread_rwlock_t rwlock;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 1000);

    memset(&rwlock, 0xff, sizeof rwlock);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &later), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, &later), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_init(&rwlock, lock_attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

static pthread_rwlock_t static_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t static_nonrecursive_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static pthread_rwlock_t zero_static_lock; /* zero-filled by the loader */

static void test_static_and_zero_filled(void)
{
    pthread_rwlock_t *zeroed = calloc(1, sizeof *zeroed);
    struct timespec past = slimtest_time_after_ms(CLOCK_REALTIME, -1000);

    exercise(&static_lock);
    exercise(&static_nonrecursive_lock);
    exercise(&zero_static_lock);
    CU_ASSERT_PTR_NOT_NULL_FATAL(zeroed);
    exercise(zeroed);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(zeroed, &past), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(zeroed), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(zeroed), 0);
    free(zeroed);

    /* The first use of a zero-filled lock on the stack, by trylock. */
    {
        pthread_rwlock_t on_stack;

        memset(&on_stack, 0, sizeof on_stack);
        CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&on_stack), 0);
        CU_ASSERT_EQUAL(pthread_rwlock_unlock(&on_stack), 0);
        CU_ASSERT_EQUAL(pthread_rwlock_destroy(&on_stack), 0);
    }
}

/* ---- Holding and releasing ---- */

static void test_recursive_read_same_thread(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec later_monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 1000);
    int i;

    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &later), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &later_monotonic), 0);
    for (i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY);
        CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    }
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* unlock must release the mode actually held, on each of several locks. */
static void test_unlock_releases_mode_held(void)
{
    pthread_rwlock_t read_held = PTHREAD_RWLOCK_INITIALIZER;
    pthread_rwlock_t write_held = PTHREAD_RWLOCK_INITIALIZER;

    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&read_held), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&write_held), 0);
    CU_ASSERT_EQUAL(from_other_thread(&read_held, OP_TRYRDLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(from_other_thread(&write_held, OP_TRYRDLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&write_held), 0);
    CU_ASSERT_EQUAL(from_other_thread(&write_held, OP_TRYWRLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(from_other_thread(&read_held, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&read_held), 0);
    CU_ASSERT_EQUAL(from_other_thread(&read_held, OP_TRYWRLOCK_UNLOCK), 0);

    /* The same lock, first written then read by the same thread. */
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&read_held), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&read_held), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&read_held), 0);
    CU_ASSERT_EQUAL(from_other_thread(&read_held, OP_TRYRDLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&read_held), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&read_held), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&read_held, OP_TRYWRLOCK_UNLOCK), 0);
}

static void test_edeadlk(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec later_monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 1000);

    /* The writer asks again, in either mode. */
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &later), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, &later), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &later_monotonic), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &later_monotonic), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);

    /* A reader asks for the write lock: it would wait for itself. */
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, &later), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &later_monotonic), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK_UNLOCK), 0);
}

/* A lock only read so far is biased: its second first-time read hold goes
 * through the reader's bias slot, outside the word. Such a hold must give the
 * same answers as one in the word, and a writer that fails to revoke it must
 * leave the bias for the next writer, which must wait for it too. */
static void test_biased_read_hold(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0); /* in the word: biases the lock */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0); /* through the bias */
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_WRLOCK_WITHIN_20MS_UNLOCK), ETIMEDOUT);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYRDLOCK_UNLOCK), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_WRLOCK_WITHIN_20MS_UNLOCK), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* A writer waits for biased readers however many there are, and each one's
 * release wakes it; readers that come meanwhile wait for it. */
#define BIASED_READERS 6

struct biased_readers {
    pthread_rwlock_t rwlock;
    volatile long holding;
    volatile long release;
    volatile long writer_done;
    volatile long read_while_writing;
};

static void biased_reader(void *raw)
{
    struct biased_readers *b = raw;

    /* The lock was biased before the readers came: these holds are biased. */
    if (pthread_rwlock_rdlock(&b->rwlock) != 0)
        return;
    __atomic_add_fetch(&b->holding, 1, __ATOMIC_SEQ_CST);
    await_flag(&b->release, 1);
    note_failure(&b->read_while_writing, load(&b->writer_done) != 0);
    pthread_rwlock_unlock(&b->rwlock);
}

static void biased_writer(void *raw)
{
    struct biased_readers *b = raw;

    if (pthread_rwlock_wrlock(&b->rwlock) != 0)
        return;
    note_failure(&b->read_while_writing, load(&b->holding) != BIASED_READERS);
    store(&b->writer_done, 1);
    pthread_rwlock_unlock(&b->rwlock);
}

static void test_writer_waits_for_biased_readers(void)
{
    static struct biased_readers b;
    pthread_t readers[BIASED_READERS], writer;
    int i;

    memset(&b, 0, sizeof b);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&b.rwlock, NULL), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&b.rwlock), 0); /* biases the lock */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&b.rwlock), 0);
    for (i = 0; i < BIASED_READERS; i++)
        readers[i] = spawn(biased_reader, &b);
    CU_ASSERT_FATAL(await_flag(&b.holding, BIASED_READERS));
    writer = spawn(biased_writer, &b);
    slimtest_sleep_ms(SETTLE_MS); /* the writer waits for the readers */
    CU_ASSERT_EQUAL(load(&b.writer_done), 0);
    CU_ASSERT_EQUAL(from_other_thread(&b.rwlock, OP_TRYRDLOCK_UNLOCK), EBUSY);
    store(&b.release, 1);
    all_finish(readers, BIASED_READERS);
    CU_ASSERT_FATAL(finished(writer));
    CU_ASSERT_EQUAL(b.writer_done, 1);
    CU_ASSERT_EQUAL(b.read_while_writing, 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&b.rwlock), 0);
}

static void read_and_end(void *raw)
{
    pthread_rwlock_t *rwlock = raw;

    /* Both first-time holds of a fresh lock: the first in the word biases it,
     * the second goes through the bias; the thread ends holding it. */
    if (pthread_rwlock_rdlock(rwlock) == 0 && pthread_rwlock_unlock(rwlock) == 0)
        pthread_rwlock_rdlock(rwlock);
}

/* A thread that ends with a read hold taken through the bias drops it (it would
 * name the lock's address for good otherwise); README: deviations. */
static void test_biased_hold_ends_with_its_thread(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

    CU_ASSERT_FATAL(finished(spawn(read_and_end, &rwlock)));
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

static void test_eperm(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(NULL), EINVAL);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_UNLOCK), EPERM);
    CU_ASSERT_EQUAL(from_foreign_thread(&rwlock, OP_UNLOCK), EPERM);

    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_UNLOCK), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYRDLOCK), EBUSY); /* still held */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);

    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_UNLOCK), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY); /* still held */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
}

static void test_ebusy(void)
{
    pthread_rwlock_t rwlock;
    struct holder holder;

    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&rwlock, lock_attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);

    start_holder(&holder, &rwlock, 0, 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    stop_holder(&holder);

    start_holder(&holder, &rwlock, 1, 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), EBUSY);
    stop_holder(&holder);

    /* The failed attempts left nothing behind. */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* A thread read-holds any number of distinct rwlocks, each recursively, while
 * another thread's trywrlock sees each one held; unlocks in a scrambled order
 * keep every other hold intact. */
#define MANY_LOCKS 1200

struct many_locks {
    pthread_rwlock_t *locks;
    int busy;        /* trywrlock calls that said EBUSY */
    int free_ok;     /* trywrlock + unlock calls that succeeded */
};

static void try_write_each_busy(void *raw)
{
    struct many_locks *m = raw;
    int i;

    for (i = 0; i < MANY_LOCKS; i++)
        m->busy += pthread_rwlock_trywrlock(&m->locks[i]) == EBUSY;
}

static void try_write_each_free(void *raw)
{
    struct many_locks *m = raw;
    int i;

    for (i = 0; i < MANY_LOCKS; i++)
        m->free_ok += pthread_rwlock_trywrlock(&m->locks[i]) == 0 &&
                      pthread_rwlock_unlock(&m->locks[i]) == 0;
}

static void test_many_read_locks(void)
{
    struct many_locks m = {calloc(MANY_LOCKS, sizeof(pthread_rwlock_t)), 0, 0};
    int i, failures = 0;

    CU_ASSERT_FATAL(m.locks != NULL);
    for (i = 0; i < MANY_LOCKS; i++) {
        failures += pthread_rwlock_rdlock(&m.locks[i]) != 0;
        failures += (i % 2 ? pthread_rwlock_tryrdlock(&m.locks[i])
                           : pthread_rwlock_rdlock(&m.locks[i])) != 0;
    }
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_FATAL(finished(spawn(try_write_each_busy, &m)));
    CU_ASSERT_EQUAL(m.busy, MANY_LOCKS);
    /* The caller's own mode is known for each: upgrading is EDEADLK. */
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&m.locks[MANY_LOCKS - 1]), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&m.locks[3]), EDEADLK);

    /* One hold off each, in a scrambled order (stride 7 is coprime to 1200). */
    for (i = 0; i < MANY_LOCKS; i++)
        failures += pthread_rwlock_unlock(&m.locks[(i * 7) % MANY_LOCKS]) != 0;
    CU_ASSERT_EQUAL(failures, 0);
    m.busy = 0;
    CU_ASSERT_FATAL(finished(spawn(try_write_each_busy, &m)));
    CU_ASSERT_EQUAL(m.busy, MANY_LOCKS);
    /* The last hold off each, in yet another order. */
    for (i = MANY_LOCKS - 1; i >= 0; i--)
        failures += pthread_rwlock_unlock(&m.locks[(i * 11) % MANY_LOCKS]) != 0;
    CU_ASSERT_EQUAL(failures, 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&m.locks[5]), EPERM);
    CU_ASSERT_FATAL(finished(spawn(try_write_each_free, &m)));
    CU_ASSERT_EQUAL(m.free_ok, MANY_LOCKS);
    for (i = 0; i < MANY_LOCKS; i++)
        failures += pthread_rwlock_destroy(&m.locks[i]) != 0;
    CU_ASSERT_EQUAL(failures, 0);
    free(m.locks);
}

/* ---- Nothing touched after release (test_release.c: every primitive) ----
 * Each round puts a fresh rwlock alone in its own page. A releaser takes it,
 * waiters line up behind it, the releaser lets go after spinning, yielding or
 * giving up its time slice, and whichever waiter is done last destroys the
 * lock and frees the page at once. An unlock that touched the lock after its
 * release faults (an access violation ends the program). The threads live
 * across rounds and meet through flags, so a round costs no thread creation. */
#define FREED_ROUNDS 1500
#define FREED_MAX_WAITERS 2

enum freed_scenario {
    READ_UNLOCK_VS_WRITER,  /* a reader lets go; a writer waits */
    WRITE_UNLOCK_VS_READERS,/* a writer lets go; two readers wait */
    WRITE_UNLOCK_VS_WRITER  /* a writer lets go; a writer waits */
};

struct freed_case {
    enum freed_scenario scenario;
    int timed;                          /* waiters use the timed variants */
    int waiters;
    volatile long round;                /* published by the releaser */
    pthread_rwlock_t *volatile lock;    /* this round's lock */
    volatile long waiting[FREED_MAX_WAITERS]; /* round each waiter is about to wait in */
    volatile long left;                 /* waiters not yet done this round */
    volatile long done_round;           /* the last waiter freed this round's page */
    volatile long failures;
};

/* Spins, yields or sleeps 0, so that the release lands at varied moments of
 * the waiters' way to sleep. */
static void vary_timing(long round)
{
    volatile int spin;

    switch (round % 4) {
    case 0:
        for (spin = 0; spin < (int)(round % 64) * 16; spin++)
            continue;
        break;
    case 1:
        Sleep(0);
        break;
    case 2:
        SwitchToThread();
        break;
    default:
        break;
    }
}

static void wait_round_flag(volatile long *flag, long round, volatile long *failures)
{
    double end = slimtest_now_ms() + BOUND_MS;

    while (load(flag) < round) {
        if (slimtest_now_ms() > end) {
            __atomic_add_fetch(failures, 1000000, __ATOMIC_SEQ_CST);
            return;
        }
        SwitchToThread();
    }
}

static void freed_releaser(void *raw)
{
    struct freed_case *c = raw;
    long round;
    int i, exclusive = c->scenario != READ_UNLOCK_VS_WRITER;

    for (round = 1; round <= FREED_ROUNDS; round++) {
        void *page = VirtualAlloc(NULL, 4096, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
        pthread_rwlock_t *lock = page;

        if (page == NULL || pthread_rwlock_init(lock, NULL) != 0 ||
            (exclusive ? pthread_rwlock_wrlock(lock) : pthread_rwlock_rdlock(lock)) != 0) {
            __atomic_add_fetch(&c->failures, 1000000, __ATOMIC_SEQ_CST);
            return;
        }
        c->lock = lock;
        store(&c->left, c->waiters);
        store(&c->round, round);
        for (i = 0; i < c->waiters; i++)
            wait_round_flag(&c->waiting[i], round, &c->failures);
        vary_timing(round);
        note_failure(&c->failures, pthread_rwlock_unlock(lock) != 0);
        wait_round_flag(&c->done_round, round, &c->failures);
    }
}

struct freed_waiter {
    struct freed_case *c;
    int index;
};

static int freed_acquire(struct freed_case *c, pthread_rwlock_t *lock)
{
    struct timespec later = slimtest_time_after_ms(CLOCK_MONOTONIC, (long)BOUND_MS);
    int exclusive = c->scenario != WRITE_UNLOCK_VS_READERS;

    if (c->timed)
        return exclusive ? pthread_rwlock_clockwrlock(lock, CLOCK_MONOTONIC, &later)
                         : pthread_rwlock_clockrdlock(lock, CLOCK_MONOTONIC, &later);
    return exclusive ? pthread_rwlock_wrlock(lock) : pthread_rwlock_rdlock(lock);
}

static void freed_waiter(void *raw)
{
    struct freed_waiter *me = raw;
    struct freed_case *c = me->c;
    long round;

    for (round = 1; round <= FREED_ROUNDS; round++) {
        pthread_rwlock_t *lock;

        wait_round_flag(&c->round, round, &c->failures);
        if (load(&c->failures) >= 1000000)
            return;
        lock = c->lock;
        store(&c->waiting[me->index], round);
        note_failure(&c->failures, freed_acquire(c, lock) != 0);
        vary_timing(round + (long)me->index);
        note_failure(&c->failures, pthread_rwlock_unlock(lock) != 0);
        if (__atomic_sub_fetch(&c->left, 1, __ATOMIC_SEQ_CST) == 0) {
            note_failure(&c->failures, pthread_rwlock_destroy(lock) != 0);
            note_failure(&c->failures, !VirtualFree(lock, 0, MEM_RELEASE));
            store(&c->done_round, round);
        }
    }
}

static void run_freed_case(enum freed_scenario scenario, int timed)
{
    static struct freed_case c; /* helper threads may outlive a failed case */
    static struct freed_waiter waiters[FREED_MAX_WAITERS];
    pthread_t releaser, waiter_threads[FREED_MAX_WAITERS];
    int i;

    memset(&c, 0, sizeof c);
    c.scenario = scenario;
    c.timed = timed;
    c.waiters = scenario == WRITE_UNLOCK_VS_READERS ? 2 : 1;
    for (i = 0; i < c.waiters; i++) {
        waiters[i].c = &c;
        waiters[i].index = i;
        waiter_threads[i] = spawn(freed_waiter, &waiters[i]);
    }
    releaser = spawn(freed_releaser, &c);
    CU_ASSERT_FATAL(finished(releaser));
    all_finish(waiter_threads, c.waiters);
    CU_ASSERT_EQUAL(c.failures, 0);
    CU_ASSERT_EQUAL(c.done_round, FREED_ROUNDS);
}

static void test_freed_after_read_unlock(void)
{
    run_freed_case(READ_UNLOCK_VS_WRITER, 0);
    run_freed_case(READ_UNLOCK_VS_WRITER, 1);
}

static void test_freed_after_write_unlock(void)
{
    run_freed_case(WRITE_UNLOCK_VS_READERS, 0);
    run_freed_case(WRITE_UNLOCK_VS_READERS, 1);
    run_freed_case(WRITE_UNLOCK_VS_WRITER, 0);
    run_freed_case(WRITE_UNLOCK_VS_WRITER, 1);
}

/* ---- Timed acquires ---- */

static int timespec_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

typedef int (*timed_fn)(pthread_rwlock_t *rwlock, clockid_t clock, const struct timespec *at);

static int timedrdlock(pthread_rwlock_t *rwlock, clockid_t clock, const struct timespec *at)
{
    return clock == CLOCK_REALTIME ? pthread_rwlock_timedrdlock(rwlock, at)
                                   : pthread_rwlock_clockrdlock(rwlock, clock, at);
}

static int timedwrlock(pthread_rwlock_t *rwlock, clockid_t clock, const struct timespec *at)
{
    return clock == CLOCK_REALTIME ? pthread_rwlock_timedwrlock(rwlock, at)
                                   : pthread_rwlock_clockwrlock(rwlock, clock, at);
}

/* fn must time out, not before its deadline and not unreasonably late. */
static void expect_timeout(timed_fn fn, pthread_rwlock_t *rwlock, clockid_t clock)
{
    struct timespec deadline = slimtest_time_after_ms(clock, 200), now;
    double started = slimtest_now_ms();

    CU_ASSERT_EQUAL(fn(rwlock, clock, &deadline), ETIMEDOUT);
    clock_gettime(clock, &now);
    CU_ASSERT(!timespec_before(&now, &deadline));
    CU_ASSERT(slimtest_now_ms() - started < BOUND_MS);
}

static void test_timed_timeout(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
    struct timespec past = slimtest_time_after_ms(CLOCK_REALTIME, -1000);
    struct holder holder;

    start_holder(&holder, &rwlock, 1, 0);
    expect_timeout(timedrdlock, &rwlock, CLOCK_REALTIME);
    expect_timeout(timedwrlock, &rwlock, CLOCK_REALTIME);
    expect_timeout(timedrdlock, &rwlock, CLOCK_MONOTONIC);
    expect_timeout(timedwrlock, &rwlock, CLOCK_MONOTONIC);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &past), ETIMEDOUT);
    stop_holder(&holder);

    start_holder(&holder, &rwlock, 0, 0);
    expect_timeout(timedwrlock, &rwlock, CLOCK_REALTIME);
    expect_timeout(timedwrlock, &rwlock, CLOCK_MONOTONIC);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, &past), ETIMEDOUT);
    /* Readers share: no wait at all. */
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &past), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    stop_holder(&holder);

    /* Nothing is left held or registered by the timeouts. */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* The holder lets go after a while: the timed acquire must get the lock then. */
static void expect_acquired_in_time(timed_fn fn, int holder_exclusive, clockid_t clock)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
    struct timespec deadline = slimtest_time_after_ms(clock, (long)BOUND_MS);
    struct holder holder;
    double started;

    start_holder(&holder, &rwlock, holder_exclusive, SETTLE_MS);
    started = slimtest_now_ms();
    /* Fatal: a lost wake-up would cost a whole BOUND_MS on each call. */
    CU_ASSERT_EQUAL_FATAL(fn(&rwlock, clock, &deadline), 0);
    CU_ASSERT(slimtest_now_ms() - started < BOUND_MS / 2);
    CU_ASSERT_EQUAL(load(&holder.holding), 1);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    stop_holder(&holder);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

static void test_timed_success(void)
{
    struct timespec past = slimtest_time_after_ms(CLOCK_MONOTONIC, -1000);
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

    expect_acquired_in_time(timedrdlock, 1, CLOCK_REALTIME);
    expect_acquired_in_time(timedwrlock, 1, CLOCK_REALTIME);
    expect_acquired_in_time(timedwrlock, 0, CLOCK_REALTIME);
    expect_acquired_in_time(timedrdlock, 1, CLOCK_MONOTONIC);
    expect_acquired_in_time(timedwrlock, 0, CLOCK_MONOTONIC);

    /* A free lock is taken even when the deadline has passed. */
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &past), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &past), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
}

static void test_timed_einval(void)
{
    pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
    struct timespec good = slimtest_time_after_ms(CLOCK_REALTIME, 1000);
    struct timespec bad_nsec[2];
    static const clockid_t bad_clocks[] = {CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, 99, -1};
    unsigned i;

    bad_nsec[0] = good;
    bad_nsec[0].tv_nsec = -1;
    bad_nsec[1] = good;
    bad_nsec[1].tv_nsec = 1000000000L;
    /* Checked up front, as glibc does, even though the lock is free. */
    for (i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, &bad_nsec[i]), EINVAL);
        CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, &bad_nsec[i]), EINVAL);
        CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &bad_nsec[i]), EINVAL);
        CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, CLOCK_REALTIME, &bad_nsec[i]), EINVAL);
    }
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&rwlock, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&rwlock, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, NULL), EINVAL);
    for (i = 0; i < sizeof bad_clocks / sizeof bad_clocks[0]; i++) {
        CU_ASSERT_EQUAL(pthread_rwlock_clockrdlock(&rwlock, bad_clocks[i], &good), EINVAL);
        CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(&rwlock, bad_clocks[i], &good), EINVAL);
    }
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(NULL, &good), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_clockwrlock(NULL, CLOCK_REALTIME, &good), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(NULL), EINVAL);
    /* None of the refusals took the lock. */
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), EPERM);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK_UNLOCK), 0);
}

/* ---- What a bare SRWLOCK gets wrong ---- */

struct recursion_case {
    pthread_rwlock_t rwlock;
    volatile long reader_holds;   /* the reader holds its first read lock */
    volatile long reader_again;   /* the reader may ask again */
    volatile long reader_done;    /* it asked again (results below) */
    volatile long reader_release; /* it may let go */
    volatile long writer_started;
    volatile long writer_holds;
    int results[3];
    int unlock_results[4];
    int writer_result;
};

static void recursive_reader(void *raw)
{
    struct recursion_case *c = raw;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, (long)BOUND_MS);
    int i;

    pthread_rwlock_rdlock(&c->rwlock);
    store(&c->reader_holds, 1);
    await_flag(&c->reader_again, 1);
    c->results[0] = pthread_rwlock_rdlock(&c->rwlock);
    c->results[1] = pthread_rwlock_tryrdlock(&c->rwlock);
    c->results[2] = pthread_rwlock_timedrdlock(&c->rwlock, &later);
    store(&c->reader_done, 1);
    await_flag(&c->reader_release, 1);
    for (i = 0; i < 4; i++)
        c->unlock_results[i] = pthread_rwlock_unlock(&c->rwlock);
}

static void queued_writer(void *raw)
{
    struct recursion_case *c = raw;

    store(&c->writer_started, 1);
    c->writer_result = pthread_rwlock_wrlock(&c->rwlock);
    store(&c->writer_holds, 1);
    pthread_rwlock_unlock(&c->rwlock);
}

/* Nonzero once a fresh reader is refused: only a queued writer does that to a
 * read-held lock, and it is exactly then that a bare SRWLOCK deadlocks a
 * recursive read lock. */
static int writer_is_queued(pthread_rwlock_t *rwlock)
{
    double end = slimtest_now_ms() + BOUND_MS;

    while (slimtest_now_ms() < end) {
        int result = pthread_rwlock_tryrdlock(rwlock);

        if (result == EBUSY)
            return 1;
        if (result == 0)
            pthread_rwlock_unlock(rwlock);
        slimtest_sleep_ms(1);
    }
    return 0;
}

static void test_recursive_read_with_queued_writer(void)
{
    static struct recursion_case c; /* helper threads may outlive a failed case */
    pthread_t reader, writer;
    int i;

    memset(&c, 0, sizeof c);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&c.rwlock, lock_attr), 0);
    reader = spawn(recursive_reader, &c);
    CU_ASSERT_FATAL(await_flag(&c.reader_holds, 1));
    writer = spawn(queued_writer, &c);
    CU_ASSERT_FATAL(await_flag(&c.writer_started, 1));
    CU_ASSERT_FATAL(writer_is_queued(&c.rwlock));
    CU_ASSERT_EQUAL(load(&c.writer_holds), 0);

    store(&c.reader_again, 1);
    CU_ASSERT_FATAL(await_flag(&c.reader_done, 1));
    for (i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(c.results[i], 0);
    CU_ASSERT_EQUAL(load(&c.writer_holds), 0);

    store(&c.reader_release, 1);
    CU_ASSERT_FATAL(finished(reader));
    for (i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(c.unlock_results[i], 0);
    CU_ASSERT_FATAL(finished(writer));
    CU_ASSERT_EQUAL(c.writer_result, 0);
    CU_ASSERT_EQUAL(load(&c.writer_holds), 1);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&c.rwlock), 0);
}

struct rendezvous {
    pthread_rwlock_t rwlock;
    volatile long inside; /* readers inside the read lock */
    volatile long met[2]; /* each reader saw both inside */
    int lock_results[2];
};

struct rendezvous_reader {
    struct rendezvous *r;
    int index;
};

static void meet_inside(void *raw)
{
    struct rendezvous_reader *me = raw;
    struct rendezvous *r = me->r;

    r->lock_results[me->index] = pthread_rwlock_rdlock(&r->rwlock);
    __atomic_add_fetch(&r->inside, 1, __ATOMIC_SEQ_CST);
    store(&r->met[me->index], await_flag(&r->inside, 2));
    pthread_rwlock_unlock(&r->rwlock);
}

static void test_two_readers_hold_at_once(void)
{
    static struct rendezvous r;
    struct rendezvous_reader readers[2] = {{&r, 0}, {&r, 1}};
    pthread_t threads[2];
    int i;

    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&r.rwlock, lock_attr), 0);
    for (i = 0; i < 2; i++)
        threads[i] = spawn(meet_inside, &readers[i]);
    for (i = 0; i < 2; i++) {
        CU_ASSERT_FATAL(finished(threads[i]));
        CU_ASSERT_EQUAL(r.lock_results[i], 0);
        CU_ASSERT_EQUAL(r.met[i], 1);
    }
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&r.rwlock), 0);
}

/* Readers queued behind a writer all get in together when it unlocks, even
 * with a second writer waiting behind them (it waits for that batch, and new
 * readers wait for it). Each queued reader stays inside until it has seen all
 * of them inside at once. */
#define QUEUED_READERS 4

struct queued_batch {
    pthread_rwlock_t rwlock;
    volatile long started;     /* readers about to rdlock */
    volatile long inside;      /* readers inside at once */
    volatile long met;         /* readers that saw all of them inside */
    volatile long second_writer_started;
    volatile long second_writer_holds;
    int results[QUEUED_READERS + 1];
};

struct queued_reader {
    struct queued_batch *b;
    int index;
};

static void batch_reader(void *raw)
{
    struct queued_reader *me = raw;
    struct queued_batch *b = me->b;

    __atomic_add_fetch(&b->started, 1, __ATOMIC_SEQ_CST);
    b->results[me->index] = pthread_rwlock_rdlock(&b->rwlock);
    __atomic_add_fetch(&b->inside, 1, __ATOMIC_SEQ_CST);
    if (await_flag(&b->inside, QUEUED_READERS))
        __atomic_add_fetch(&b->met, 1, __ATOMIC_SEQ_CST);
    pthread_rwlock_unlock(&b->rwlock);
}

static void batch_second_writer(void *raw)
{
    struct queued_batch *b = raw;

    store(&b->second_writer_started, 1);
    b->results[QUEUED_READERS] = pthread_rwlock_wrlock(&b->rwlock);
    store(&b->second_writer_holds, 1);
    pthread_rwlock_unlock(&b->rwlock);
}

static void test_queued_readers_enter_together(void)
{
    static struct queued_batch b;
    static struct queued_reader readers[QUEUED_READERS];
    pthread_t threads[QUEUED_READERS], second;
    int i;

    memset(&b, 0, sizeof b);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&b.rwlock, lock_attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_wrlock(&b.rwlock), 0);
    for (i = 0; i < QUEUED_READERS; i++) {
        readers[i].b = &b;
        readers[i].index = i;
        threads[i] = spawn(batch_reader, &readers[i]);
    }
    CU_ASSERT_FATAL(await_flag(&b.started, QUEUED_READERS));
    slimtest_sleep_ms(SETTLE_MS); /* the readers go to sleep behind us */
    second = spawn(batch_second_writer, &b);
    CU_ASSERT_FATAL(await_flag(&b.second_writer_started, 1));
    slimtest_sleep_ms(SETTLE_MS);
    /* A newcomer waits for the second writer; we still hold the lock. */
    CU_ASSERT_EQUAL(from_other_thread(&b.rwlock, OP_TRYRDLOCK_UNLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&b.rwlock), 0);
    all_finish(threads, QUEUED_READERS);
    CU_ASSERT_FATAL(finished(second));
    for (i = 0; i <= QUEUED_READERS; i++)
        CU_ASSERT_EQUAL(b.results[i], 0);
    CU_ASSERT_EQUAL(b.met, QUEUED_READERS);
    CU_ASSERT_EQUAL(b.second_writer_holds, 1);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&b.rwlock), 0);
}

/* ---- The wake chain: queued readers are woken one after another ---- */

#define CHAIN_ROUNDS 120
#define CHAIN_READERS 6 /* even ones wait as long as it takes, odd ones are timed */
#define CHAIN_HOLD_STEPS 4

struct chain_reader {
    pthread_rwlock_t *rwlock;
    int timed;
    struct timespec limit;
    int result;
};

static void chain_read(void *raw)
{
    struct chain_reader *r = raw;

    if (r->timed) {
        r->result = pthread_rwlock_clockrdlock(r->rwlock, CLOCK_MONOTONIC, &r->limit);
    } else {
        r->result = pthread_rwlock_rdlock(r->rwlock);
    }
    if (r->result == 0)
        pthread_rwlock_unlock(r->rwlock);
}

/* Readers queue behind a writer that unlocks about when the timed ones give
 * up: a link of the chain that times out as its wake comes must hand the wake
 * on, or every reader asleep behind it waits for a writer that never comes. */
static void test_chain_survives_timeouts(void)
{
    static pthread_rwlock_t rwlock;
    static struct chain_reader readers[CHAIN_READERS];
    pthread_t threads[CHAIN_READERS];
    long round, untimed_failed = 0, timed_bad = 0, stuck = 0, timed_out = 0;
    int i;

    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&rwlock, lock_attr), 0);
    for (round = 0; round < CHAIN_ROUNDS && stuck == 0; round++) {
        long hold_ms = 1 + round % CHAIN_HOLD_STEPS;

        CU_ASSERT_EQUAL_FATAL(pthread_rwlock_wrlock(&rwlock), 0);
        for (i = 0; i < CHAIN_READERS; i++) {
            readers[i].rwlock = &rwlock;
            readers[i].timed = i % 2;
            /* Around the unlock, which comes hold_ms after the spawns. */
            readers[i].limit = slimtest_time_after_ms(CLOCK_MONOTONIC, hold_ms + i / 2);
            readers[i].result = -1;
            threads[i] = spawn(chain_read, &readers[i]);
        }
        slimtest_sleep_ms((unsigned)hold_ms);
        CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
        for (i = 0; i < CHAIN_READERS; i++) {
            if (!finished(threads[i])) {
                stuck++;
                continue;
            }
            if (!readers[i].timed)
                untimed_failed += readers[i].result != 0;
            else if (readers[i].result == ETIMEDOUT)
                timed_out++;
            else
                timed_bad += readers[i].result != 0;
        }
    }
    CU_ASSERT_EQUAL(stuck, 0);
    CU_ASSERT_EQUAL(untimed_failed, 0);
    CU_ASSERT_EQUAL(timed_bad, 0);
    printf("\n    (%ld of %d timed readers timed out) ", timed_out, CHAIN_ROUNDS * (CHAIN_READERS / 2));
    if (stuck == 0)
        CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* Readers queued behind a writer all get in once it unlocks, although each
 * one is woken by the reader before it, and more writers queue meanwhile. */
#define CHAIN_MIXED_READERS 12

enum chain_mode { CHAIN_READER, CHAIN_WRITER };

struct chain_mixed {
    pthread_rwlock_t rwlock;
    volatile long holds[2]; /* taken and released, by chain_mode */
};

/* Takes the lock once in mode, counts the hold and leaves. */
static void chain_mixed_hold(struct chain_mixed *m, enum chain_mode mode)
{
    int result = mode == CHAIN_WRITER ? pthread_rwlock_wrlock(&m->rwlock)
                                      : pthread_rwlock_rdlock(&m->rwlock);

    if (result == 0) {
        __atomic_add_fetch(&m->holds[mode], 1, __ATOMIC_SEQ_CST);
        pthread_rwlock_unlock(&m->rwlock);
    }
}

static void chain_mixed_reader(void *raw)
{
    chain_mixed_hold(raw, CHAIN_READER);
}

static void chain_mixed_writer(void *raw)
{
    chain_mixed_hold(raw, CHAIN_WRITER);
}

static void test_chain_with_writers_between(void)
{
    static struct chain_mixed m;
    pthread_t threads[CHAIN_MIXED_READERS + 2];
    int i, count = 0;

    memset(&m, 0, sizeof m);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&m.rwlock, lock_attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_wrlock(&m.rwlock), 0);
    for (i = 0; i < CHAIN_MIXED_READERS; i++) {
        threads[count++] = spawn(chain_mixed_reader, &m);
        if (i == CHAIN_MIXED_READERS / 3 || i == 2 * CHAIN_MIXED_READERS / 3)
            threads[count++] = spawn(chain_mixed_writer, &m); /* queued among the readers */
    }
    slimtest_sleep_ms(SETTLE_MS);
    CU_ASSERT_EQUAL(load(&m.holds[CHAIN_READER]), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&m.rwlock), 0);
    all_finish(threads, count);
    CU_ASSERT_EQUAL(m.holds[CHAIN_READER], CHAIN_MIXED_READERS);
    CU_ASSERT_EQUAL(m.holds[CHAIN_WRITER], 2);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&m.rwlock), 0);
}

/* Timed writers with deadlines of 0-2 ms give up often, some of them just as
 * a wake comes for them; blocking writers and readers must still all get the
 * lock (a wake, or the mark of a woken writer, left with a writer that gave
 * up would put them to sleep for good: the bound tells). */
#define MIXED_THREADS 8
#define MIXED_ROUNDS 400

struct mixed_writers {
    pthread_rwlock_t rwlock;
    volatile long next;
    volatile long errors;
    long value;             /* written under the write lock only */
    volatile long timed_successes;
    volatile long reads;
};

static void mixed_writer_thread(void *raw)
{
    struct mixed_writers *m = raw;
    long role = __atomic_fetch_add(&m->next, 1, __ATOMIC_SEQ_CST) % 4, i;

    for (i = 0; i < MIXED_ROUNDS; i++) {
        struct timespec limit = slimtest_time_after_ms(CLOCK_MONOTONIC, i % 3);
        int error;

        if (role == 3) { /* a reader now and then */
            error = pthread_rwlock_rdlock(&m->rwlock);
            note_failure(&m->errors, error != 0);
            if (error == 0) {
                __atomic_add_fetch(&m->reads, 1, __ATOMIC_SEQ_CST);
                pthread_rwlock_unlock(&m->rwlock);
            }
            continue;
        }
        error = role % 2 ? pthread_rwlock_clockwrlock(&m->rwlock, CLOCK_MONOTONIC, &limit)
                         : pthread_rwlock_wrlock(&m->rwlock);
        if (error == ETIMEDOUT && role % 2)
            continue;
        note_failure(&m->errors, error != 0);
        if (error != 0)
            continue;
        m->value++;
        if (role % 2)
            __atomic_add_fetch(&m->timed_successes, 1, __ATOMIC_SEQ_CST);
        if (i % 64 == 0)
            slimtest_sleep_ms(1); /* long holds: the others go to sleep */
        note_failure(&m->errors, pthread_rwlock_unlock(&m->rwlock) != 0);
    }
}

static void test_timed_and_blocking_writers_mixed(void)
{
    static struct mixed_writers m;
    pthread_t threads[MIXED_THREADS];
    int i;

    memset(&m, 0, sizeof m);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&m.rwlock, lock_attr), 0);
    for (i = 0; i < MIXED_THREADS; i++)
        threads[i] = spawn(mixed_writer_thread, &m);
    all_finish(threads, MIXED_THREADS);
    CU_ASSERT_EQUAL(m.errors, 0);
    /* Roles 0 and 2 block (2 threads each of MIXED_THREADS / 4), 1 is timed, 3 reads. */
    CU_ASSERT_EQUAL(m.value, 2 * (MIXED_THREADS / 4) * MIXED_ROUNDS + m.timed_successes);
    CU_ASSERT_EQUAL(m.reads, (MIXED_THREADS / 4) * MIXED_ROUNDS);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&m.rwlock), 0);
}

#define STREAM_READERS 3
#define STREAM_HOLD_MS 3

struct reader_stream {
    pthread_rwlock_t rwlock;
    volatile long stop;
    volatile long reads;          /* read holds taken so far */
    volatile long writer_waiting; /* the writer is about to ask */
    volatile long writer_holds;
    long reads_while_writer_waited;
    double writer_waited_ms;
    int writer_result;
};

static void keep_reading(void *raw)
{
    struct reader_stream *s = raw;

    while (!load(&s->stop)) {
        pthread_rwlock_rdlock(&s->rwlock);
        __atomic_add_fetch(&s->reads, 1, __ATOMIC_SEQ_CST);
        slimtest_sleep_ms(STREAM_HOLD_MS);
        pthread_rwlock_unlock(&s->rwlock);
    }
}

static void write_once(void *raw)
{
    struct reader_stream *s = raw;
    long reads_before = load(&s->reads);
    double started = slimtest_now_ms();

    store(&s->writer_waiting, 1);
    s->writer_result = pthread_rwlock_wrlock(&s->rwlock);
    s->writer_waited_ms = slimtest_now_ms() - started;
    s->reads_while_writer_waited = load(&s->reads) - reads_before;
    store(&s->writer_holds, 1);
    pthread_rwlock_unlock(&s->rwlock);
}

/* Readers overlap all the time, so a lock that let new readers pass a waiting
 * writer would keep it out until the readers stop. */
static void test_writer_not_starved(void)
{
    static struct reader_stream s;
    pthread_t readers[STREAM_READERS], writer;
    int i;

    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&s.rwlock, lock_attr), 0);
    for (i = 0; i < STREAM_READERS; i++) {
        readers[i] = spawn(keep_reading, &s);
        slimtest_sleep_ms(1);
    }
    CU_ASSERT_FATAL(await_flag(&s.reads, 10 * STREAM_READERS));
    writer = spawn(write_once, &s);
    CU_ASSERT(await_flag(&s.writer_holds, 1));
    store(&s.stop, 1);
    all_finish(readers, STREAM_READERS);
    CU_ASSERT_FATAL(finished(writer));
    CU_ASSERT_EQUAL(s.writer_result, 0);
    CU_ASSERT(s.writer_waited_ms < BOUND_MS);
    /* Once it waits, new readers wait: only the holds under way, and those
     * begun while it spun or was not yet running, come before it. */
    CU_ASSERT(s.reads_while_writer_waited <= 20 * STREAM_READERS);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&s.rwlock), 0);
}

/* A writer that waits but is not running (here: suspended after it went to
 * sleep) leaves a free lock to newcomers, one reader inside at a time, and
 * only while no reader sleeps behind it. */
struct blocking_locker {
    pthread_rwlock_t *rwlock;
    int exclusive;
    volatile long started;
    volatile long holds;
    int result;
};

/* Locks in its mode, as long as it takes, and unlocks at once. */
static void lock_and_leave(void *raw)
{
    struct blocking_locker *locker = raw;

    store(&locker->started, 1);
    locker->result = locker->exclusive ? pthread_rwlock_wrlock(locker->rwlock)
                                       : pthread_rwlock_rdlock(locker->rwlock);
    store(&locker->holds, 1);
    pthread_rwlock_unlock(locker->rwlock);
}

static void test_free_lock_open_to_readers_while_writer_waits(void)
{
    static pthread_rwlock_t rwlock; /* helper threads may outlive a failed case */
    static struct blocking_locker w, r;
    pthread_t writer, reader;
    HANDLE writer_handle;

    memset(&w, 0, sizeof w);
    memset(&r, 0, sizeof r);
    w.rwlock = r.rwlock = &rwlock;
    w.exclusive = 1;
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&rwlock, lock_attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_rdlock(&rwlock), 0);
    writer = spawn(lock_and_leave, &w);
    CU_ASSERT_FATAL(await_flag(&w.started, 1));
    slimtest_sleep_ms(SETTLE_MS); /* it counts itself waiting and sleeps */
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYRDLOCK_UNLOCK), EBUSY);
    writer_handle = pthread_gethandle(writer);
    CU_ASSERT_FATAL(writer_handle != NULL && SuspendThread(writer_handle) != (DWORD)-1);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0); /* wakes it: it cannot run */
    /* Free, the writer away: a newcomer enters, and keeps the next one out. */
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), 0);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYRDLOCK_UNLOCK), EBUSY);
    CU_ASSERT_EQUAL(from_other_thread(&rwlock, OP_TRYWRLOCK_UNLOCK), EBUSY);
    /* A reader that sleeps behind the writer closes the free lock too. */
    reader = spawn(lock_and_leave, &r);
    CU_ASSERT_FATAL(await_flag(&r.started, 1));
    slimtest_sleep_ms(SETTLE_MS);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&rwlock), EBUSY);
    CU_ASSERT_EQUAL(load(&r.holds), 0);
    CU_ASSERT_EQUAL(load(&w.holds), 0);
    ResumeThread(writer_handle);
    CU_ASSERT_FATAL(finished(writer));
    CU_ASSERT_FATAL(finished(reader));
    CU_ASSERT_EQUAL(w.result, 0);
    CU_ASSERT_EQUAL(r.result, 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
}

/* ---- Stress ---- */

#define RECORD_FIELDS 8
#define STRESS_WRITERS 2
#define STRESS_READERS 3
#define STRESS_WRITES 25000
#define STRESS_READS 50000

struct stress {
    pthread_rwlock_t rwlock;
    volatile long fields[RECORD_FIELDS]; /* all equal whenever no writer holds the lock */
    long writes;                         /* plain counter, safe only under the write lock */
    volatile long writers_inside;
    volatile long readers_inside;
    volatile long violations;
    volatile long failed_calls;
    volatile long reads;
};

static void note(volatile long *counter, int condition)
{
    if (condition)
        __atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
}

/* Takes the write lock one of three ways. */
static int stress_write_lock(struct stress *s, long i)
{
    struct timespec later;
    int error;

    switch (i % 3) {
    case 0:
        return pthread_rwlock_wrlock(&s->rwlock);
    case 1:
        while ((error = pthread_rwlock_trywrlock(&s->rwlock)) == EBUSY)
            SwitchToThread();
        return error;
    default:
        later = slimtest_time_after_ms(CLOCK_MONOTONIC, (long)BOUND_MS);
        return pthread_rwlock_clockwrlock(&s->rwlock, CLOCK_MONOTONIC, &later);
    }
}

static void stress_writer(void *raw)
{
    struct stress *s = raw;
    long i;
    int f;

    for (i = 0; i < STRESS_WRITES; i++) {
        note(&s->failed_calls, stress_write_lock(s, i) != 0);
        note(&s->violations, __atomic_add_fetch(&s->writers_inside, 1, __ATOMIC_SEQ_CST) != 1);
        note(&s->violations, load(&s->readers_inside) != 0);
        s->writes++;
        for (f = 0; f < RECORD_FIELDS; f++) {
            s->fields[f] = s->writes;
            if (f == RECORD_FIELDS / 2)
                SwitchToThread(); /* invite a reader into the half-written record */
        }
        __atomic_sub_fetch(&s->writers_inside, 1, __ATOMIC_SEQ_CST);
        note(&s->failed_calls, pthread_rwlock_unlock(&s->rwlock) != 0);
    }
}

/* Takes the read lock one of four ways, the last one recursively. Returns the
 * number of holds taken (0 after a failure). */
static int stress_read_lock(struct stress *s, long i)
{
    struct timespec later;
    int error;

    switch (i % 4) {
    case 0:
        error = pthread_rwlock_rdlock(&s->rwlock);
        break;
    case 1:
        while ((error = pthread_rwlock_tryrdlock(&s->rwlock)) == EBUSY)
            SwitchToThread();
        break;
    case 2:
        later = slimtest_time_after_ms(CLOCK_REALTIME, (long)BOUND_MS);
        error = pthread_rwlock_timedrdlock(&s->rwlock, &later);
        break;
    default:
        error = pthread_rwlock_rdlock(&s->rwlock);
        if (error == 0) {
            SwitchToThread(); /* let a writer queue up behind this hold */
            if (pthread_rwlock_rdlock(&s->rwlock) == 0)
                return 2;
            pthread_rwlock_unlock(&s->rwlock);
            return 0;
        }
    }
    return error == 0 ? 1 : 0;
}

static void stress_reader(void *raw)
{
    struct stress *s = raw;
    long i, first;
    int f, holds;

    for (i = 0; i < STRESS_READS; i++) {
        holds = stress_read_lock(s, i);
        note(&s->failed_calls, holds == 0);
        if (holds == 0)
            continue;
        __atomic_add_fetch(&s->readers_inside, 1, __ATOMIC_SEQ_CST);
        note(&s->violations, load(&s->writers_inside) != 0);
        first = s->fields[0];
        for (f = 1; f < RECORD_FIELDS; f++)
            note(&s->violations, s->fields[f] != first);
        __atomic_sub_fetch(&s->readers_inside, 1, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&s->reads, 1, __ATOMIC_SEQ_CST);
        while (holds-- > 0)
            note(&s->failed_calls, pthread_rwlock_unlock(&s->rwlock) != 0);
    }
}

static void test_stress_invariants(void)
{
    static struct stress s;
    pthread_t threads[STRESS_WRITERS + STRESS_READERS];
    int i, f;

    memset(&s, 0, sizeof s);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&s.rwlock, lock_attr), 0);
    for (i = 0; i < STRESS_WRITERS + STRESS_READERS; i++)
        threads[i] = spawn(i < STRESS_WRITERS ? stress_writer : stress_reader, &s);
    all_finish(threads, STRESS_WRITERS + STRESS_READERS);
    CU_ASSERT_EQUAL(s.violations, 0);
    CU_ASSERT_EQUAL(s.failed_calls, 0);
    CU_ASSERT_EQUAL(s.writes, STRESS_WRITERS * STRESS_WRITES);
    for (f = 0; f < RECORD_FIELDS; f++)
        CU_ASSERT_EQUAL(s.fields[f], STRESS_WRITERS * STRESS_WRITES);
    CU_ASSERT_EQUAL(s.reads, STRESS_READERS * STRESS_READS);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&s.rwlock), 0);
}


/* ---- The cases again with a process-shared lock ---- */

static void run_shared(void (*test)(void))
{
    pthread_rwlockattr_t attr;

    CU_ASSERT_EQUAL_FATAL(pthread_rwlockattr_init(&attr), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    lock_attr = &attr;
    test();
    lock_attr = NULL;
}

/* A shared lock: every call and its codes, and never a biased read. */
static void test_shared_exercise(void)
{
    pthread_rwlock_t rwlock;
    pthread_rwlockattr_t attr;

    CU_ASSERT_EQUAL_FATAL(pthread_rwlockattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(&rwlock, &attr), 0);
    exercise(&rwlock);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rwlock), EINVAL);
    pthread_rwlockattr_destroy(&attr);
}

static void shared_use_after_destroy(void)
{
    run_shared(test_use_after_destroy);
}

static void shared_garbage_is_einval(void)
{
    run_shared(test_garbage_is_einval);
}

static void shared_ebusy(void)
{
    run_shared(test_ebusy);
}

static void shared_recursive_read_with_queued_writer(void)
{
    run_shared(test_recursive_read_with_queued_writer);
}

static void shared_two_readers_hold_at_once(void)
{
    run_shared(test_two_readers_hold_at_once);
}

static void shared_queued_readers_enter_together(void)
{
    run_shared(test_queued_readers_enter_together);
}

static void shared_chain_survives_timeouts(void)
{
    run_shared(test_chain_survives_timeouts);
}

static void shared_chain_with_writers_between(void)
{
    run_shared(test_chain_with_writers_between);
}

static void shared_timed_and_blocking_writers_mixed(void)
{
    run_shared(test_timed_and_blocking_writers_mixed);
}

static void shared_writer_not_starved(void)
{
    run_shared(test_writer_not_starved);
}

static void shared_free_lock_open_to_readers_while_writer_waits(void)
{
    run_shared(test_free_lock_open_to_readers_while_writer_waits);
}

static void shared_stress_invariants(void)
{
    run_shared(test_stress_invariants);
}

static CU_TestInfo cases[] = {
    {"attributes", test_attr},
    {"init and destroy, every kind", test_init_destroy},
    {"EINVAL after destroy, init again", test_use_after_destroy},
    {"static initializers and zero-filled locks", test_static_and_zero_filled},
    {"memory that is no rwlock: EINVAL", test_garbage_is_einval},
    {"recursive read locks by one thread", test_recursive_read_same_thread},
    {"unlock releases the mode held", test_unlock_releases_mode_held},
    {"EDEADLK", test_edeadlk},
    {"a read hold through the bias: EDEADLK, EBUSY, ETIMEDOUT, as in the word", test_biased_read_hold},
    {"a writer waits for every biased reader", test_writer_waits_for_biased_readers},
    {"a thread that ends holding a read through the bias drops it", test_biased_hold_ends_with_its_thread},
    {"EPERM", test_eperm},
    {"EBUSY", test_ebusy},
    {"1200 distinct locks read-held twice by one thread", test_many_read_locks},
    {"freed at once after a read unlock (writer waiting)", test_freed_after_read_unlock},
    {"freed at once after a write unlock (readers, writer waiting)", test_freed_after_write_unlock},
    {"timed acquires time out, not early", test_timed_timeout},
    {"timed acquires succeed when released in time", test_timed_success},
    {"timed acquires: EINVAL", test_timed_einval},
    {"recursive read lock with a writer queued", test_recursive_read_with_queued_writer},
    {"two readers hold the lock at once", test_two_readers_hold_at_once},
    {"a writer is not starved by readers", test_writer_not_starved},
    {"a free lock admits a newcomer while a writer waits, unless a reader sleeps", test_free_lock_open_to_readers_while_writer_waits},
    {"readers queued behind a writer enter together", test_queued_readers_enter_together},
    {"wake chain: a link that times out hands its wake on", test_chain_survives_timeouts},
    {"wake chain: every queued reader gets in, writers queued among them", test_chain_with_writers_between},
    {"timed and blocking writers mixed: no lost wake", test_timed_and_blocking_writers_mixed},
    {"stress: invariants and exact counts", test_stress_invariants},
    {"shared: every call, in one process", test_shared_exercise},
    {"shared: EINVAL after destroy, init again", shared_use_after_destroy},
    {"shared: memory that is no rwlock: EINVAL", shared_garbage_is_einval},
    {"shared: EBUSY", shared_ebusy},
    {"shared: recursive read lock with a writer queued", shared_recursive_read_with_queued_writer},
    {"shared: two readers hold the lock at once", shared_two_readers_hold_at_once},
    {"shared: readers queued behind a writer enter together", shared_queued_readers_enter_together},
    {"shared: wake chain: a link that times out hands its wake on", shared_chain_survives_timeouts},
    {"shared: wake chain: every queued reader gets in, writers queued among them", shared_chain_with_writers_between},
    {"shared: timed and blocking writers mixed: no lost wake", shared_timed_and_blocking_writers_mixed},
    {"shared: a writer is not starved by readers", shared_writer_not_starved},
    {"shared: a free lock admits a newcomer while a writer waits, unless a reader sleeps", shared_free_lock_open_to_readers_while_writer_waits},
    {"shared: stress: invariants and exact counts", shared_stress_invariants},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("rwlock", cases, 60);
}
