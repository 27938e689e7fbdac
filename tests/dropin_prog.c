/*
 * dropin_prog.c - an ordinary POSIX threads program, built the ways a user
 * brings slimpthreads in: against the installed library with -pthread or
 * -lpthread (tests/install.sh), and from the two amalgamated files alone
 * (tests/amalgamation.sh). No CUnit, no test helpers: only what a real program
 * includes. It touches every family a typical worker pool uses (threads,
 * static initializers, condvars on CLOCK_MONOTONIC with a timed wait, once,
 * keys with destructors, rwlocks, semaphores, barriers, signal masks, clocks)
 * and checks exact results. Prints "dropin_prog: N checks passed" and exits 0,
 * or names the first failed check and exits 1.
 *
 * INCLUDE_ORDER picks the order of the system headers against <pthread.h>, as
 * projects differ in it: 0 pthread.h first, 1 time.h/signal.h/unistd.h first.
 */
#if defined(INCLUDE_ORDER) && INCLUDE_ORDER == 1
#include <time.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <semaphore.h>
#else
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 4
#define ROUNDS_PER_WORKER 20000
#define TIMED_WAIT_MS 50

static int checks_passed;

static void check(int condition, const char *what)
{
    if (!condition) {
        printf("dropin_prog: FAILED: %s\n", what);
        exit(1);
    }
    checks_passed++;
}

/* ---- A worker pool on static initializers ---- */

static pthread_mutex_t counter_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t worker_key;
static pthread_barrier_t start_line;
static sem_t tokens;
static long counter;
static int finished_workers;
static int once_runs;
static int destructor_runs; /* guarded by counter_mutex */
static int table[WORKERS];

static void count_once(void)
{
    once_runs++;
}

static void worker_key_destructor(void *value)
{
    pthread_mutex_lock(&counter_mutex);
    destructor_runs++;
    pthread_mutex_unlock(&counter_mutex);
    free(value);
}

static void *worker(void *argument)
{
    int index = (int)(intptr_t)argument;
    int *mine = malloc(sizeof *mine);
    int round;

    pthread_once(&once, count_once);
    *mine = index;
    pthread_setspecific(worker_key, mine);
    pthread_barrier_wait(&start_line);
    for (round = 0; round < ROUNDS_PER_WORKER; round++) {
        pthread_mutex_lock(&counter_mutex);
        counter++;
        pthread_mutex_unlock(&counter_mutex);
    }
    pthread_rwlock_wrlock(&table_lock);
    table[index] = *(int *)pthread_getspecific(worker_key) + 1;
    pthread_rwlock_unlock(&table_lock);
    sem_post(&tokens);

    pthread_mutex_lock(&counter_mutex);
    finished_workers++;
    pthread_cond_broadcast(&all_done);
    pthread_mutex_unlock(&counter_mutex);
    return (void *)(intptr_t)(index + 100);
}

static void run_worker_pool(void)
{
    pthread_t threads[WORKERS];
    sigset_t all_signals, old_mask;
    int i, total = 0;

    check(pthread_key_create(&worker_key, worker_key_destructor) == 0, "pthread_key_create");
    check(pthread_barrier_init(&start_line, NULL, WORKERS) == 0, "pthread_barrier_init");
    check(sem_init(&tokens, 0, 0) == 0, "sem_init");

    /* As xz does: block every signal while creating threads, then restore. */
    check(sigfillset(&all_signals) == 0, "sigfillset");
    check(pthread_sigmask(SIG_SETMASK, &all_signals, &old_mask) == 0, "pthread_sigmask block");
    for (i = 0; i < WORKERS; i++)
        check(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i) == 0,
              "pthread_create");
    check(pthread_sigmask(SIG_SETMASK, &old_mask, NULL) == 0, "pthread_sigmask restore");

    pthread_mutex_lock(&counter_mutex);
    while (finished_workers < WORKERS)
        pthread_cond_wait(&all_done, &counter_mutex);
    pthread_mutex_unlock(&counter_mutex);

    for (i = 0; i < WORKERS; i++) {
        void *result;
        check(sem_wait(&tokens) == 0, "sem_wait");
        check(pthread_join(threads[i], &result) == 0, "pthread_join");
        check(result == (void *)(intptr_t)(i + 100), "thread result");
    }
    check(counter == (long)WORKERS * ROUNDS_PER_WORKER, "mutex-protected counter is exact");
    check(once_runs == 1, "pthread_once ran its routine once");
    pthread_mutex_lock(&counter_mutex);
    check(destructor_runs == WORKERS, "one key destructor per worker");
    pthread_mutex_unlock(&counter_mutex);
    pthread_rwlock_rdlock(&table_lock);
    for (i = 0; i < WORKERS; i++)
        total += table[i];
    pthread_rwlock_unlock(&table_lock);
    check(total == WORKERS * (WORKERS + 1) / 2, "rwlock-protected table");
    check(pthread_barrier_destroy(&start_line) == 0, "pthread_barrier_destroy");
    check(sem_destroy(&tokens) == 0, "sem_destroy");
    check(pthread_key_delete(worker_key) == 0, "pthread_key_delete");
}

/* ---- A timed wait on CLOCK_MONOTONIC, as liblzma sets it up ---- */

static void run_timed_wait(void)
{
    pthread_condattr_t attr;
    pthread_cond_t cond;
    pthread_mutex_t mutex;
    struct timespec before, deadline, after;
    long waited_ms;

    check(pthread_condattr_init(&attr) == 0, "pthread_condattr_init");
    check(pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0, "setclock MONOTONIC");
    check(pthread_cond_init(&cond, &attr) == 0, "pthread_cond_init");
    check(pthread_condattr_destroy(&attr) == 0, "pthread_condattr_destroy");
    check(pthread_mutex_init(&mutex, NULL) == 0, "pthread_mutex_init");

    check(clock_gettime(CLOCK_MONOTONIC, &before) == 0, "clock_gettime");
    deadline = before;
    deadline.tv_nsec += TIMED_WAIT_MS * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&mutex);
    check(pthread_cond_timedwait(&cond, &mutex, &deadline) == ETIMEDOUT,
          "timed wait with nobody signalling returns ETIMEDOUT");
    pthread_mutex_unlock(&mutex);
    check(clock_gettime(CLOCK_MONOTONIC, &after) == 0, "clock_gettime");
    waited_ms = (long)(after.tv_sec - before.tv_sec) * 1000 +
                (after.tv_nsec - before.tv_nsec) / 1000000;
    check(waited_ms >= TIMED_WAIT_MS - 1, "the timed wait did not return early");

    check(pthread_cond_destroy(&cond) == 0, "pthread_cond_destroy");
    check(pthread_mutex_destroy(&mutex) == 0, "pthread_mutex_destroy");
}

int main(void)
{
    pthread_mutex_t errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

    run_worker_pool();
    run_timed_wait();
    check(pthread_mutex_lock(&errorcheck) == 0, "errorcheck lock");
    check(pthread_mutex_lock(&errorcheck) == EDEADLK, "errorcheck relock is EDEADLK");
    check(pthread_mutex_unlock(&errorcheck) == 0, "errorcheck unlock");
    check(pthread_equal(pthread_self(), pthread_self()), "pthread_self");
    printf("dropin_prog: %d checks passed\n", checks_passed);
    return 0;
}
