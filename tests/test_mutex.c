/*
 * test_mutex.c - pthread_mutex_* and pthread_mutexattr_*.
 *
 * Threads come from _beginthreadex so that the mutex tests do not depend on
 * pthread_create.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <process.h>
#include <errno.h>
#include <string.h>
#include "testutil.h"

#define MAX_THREADS 32

typedef void (*worker_fn)(void *argument);

struct worker {
    worker_fn routine;
    void *argument;
};

static unsigned __stdcall worker_trampoline(void *raw)
{
    struct worker *worker = raw;

    worker->routine(worker->argument);
    return 0;
}

/* Runs routine(argument) on count threads and waits for all of them. */
static void run_threads(unsigned count, worker_fn routine, void *argument)
{
    HANDLE handles[MAX_THREADS];
    struct worker worker = {routine, argument};
    unsigned i;

    for (i = 0; i < count; i++) {
        handles[i] = (HANDLE)_beginthreadex(NULL, 0, worker_trampoline, &worker, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(handles[i]);
    }
    for (i = 0; i < count; i++) {
        CU_ASSERT_EQUAL(WaitForSingleObject(handles[i], INFINITE), WAIT_OBJECT_0);
        CloseHandle(handles[i]);
    }
}

static void test_init_lock_unlock_destroy(void)
{
    pthread_mutex_t mutex;

    CU_ASSERT_EQUAL(pthread_mutex_init(&mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EINVAL);
}

struct counter {
    pthread_mutex_t mutex;
    long value;
    long iterations;
};

static void count_under_lock(void *raw)
{
    struct counter *counter = raw;
    long i;

    for (i = 0; i < counter->iterations; i++) {
        pthread_mutex_lock(&counter->mutex);
        counter->value++;
        pthread_mutex_unlock(&counter->mutex);
    }
}

static void test_static_first_lock_race(void)
{
    int round;

    for (round = 0; round < 50; round++) {
        struct counter counter = {PTHREAD_MUTEX_INITIALIZER, 0, 200};

        run_threads(16, count_under_lock, &counter);
        CU_ASSERT_EQUAL(counter.value, 16 * 200);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&counter.mutex), 0);
    }
}

static CU_TestInfo cases[] = {
    {"init, lock, unlock, trylock, destroy", test_init_lock_unlock_destroy},
    {"16 threads race the first lock of a static mutex", test_static_first_lock_race},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("mutex", cases, 60);
}
