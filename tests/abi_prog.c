/*
 * abi_prog.c - slimpthreads next to the winpthreads that the compiler's own
 * libraries use (tests/abi.sh builds it with the win32- and the posix-model gcc,
 * static and dynamic, with and without -fopenmp and abi_winpthreads.c).
 *
 * Compiled against our headers, its own pthread_* calls bind to slimpthreads'
 * link names. Meanwhile the compiler's runtime calls winpthreads on winpthreads'
 * objects: libgcc's emutls (the posix model's _Thread_local) and libgomp (every
 * -fopenmp build). Each side must only ever touch its own objects, so the
 * program checks exact results of all of them at once: per-thread TLS values
 * in our threads, an OpenMP reduction whose body locks our mutex, and (with
 * -DWITH_WINPTHREADS) a translation unit compiled against winpthreads' own
 * <pthread.h> with its own threads and mutex. Prints "abi_prog: N checks
 * passed" and exits 0, or names the failed check and exits 1.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 4
#define ROUNDS_PER_WORKER 10000
#define OMP_ITERATIONS 1000

static int checks_passed;

static void check(int condition, const char *what)
{
    if (!condition) {
        printf("abi_prog: FAILED: %s\n", what);
        exit(1);
    }
    checks_passed++;
}

/* ---- _Thread_local in our threads (emutls on winpthreads in the posix model) ---- */

static _Thread_local long thread_counter;
static pthread_mutex_t total_mutex = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void *count_in_tls(void *argument)
{
    long rounds = (long)(size_t)argument;
    for (long round = 0; round < rounds; round++)
        thread_counter++;
    pthread_mutex_lock(&total_mutex);
    total += thread_counter;
    pthread_mutex_unlock(&total_mutex);
    return (void *)(size_t)thread_counter;
}

static void check_thread_local(void)
{
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        check(pthread_create(&threads[i], NULL, count_in_tls,
                             (void *)(size_t)(ROUNDS_PER_WORKER + i)) == 0, "pthread_create");
    for (int i = 0; i < WORKERS; i++) {
        void *result;
        check(pthread_join(threads[i], &result) == 0, "pthread_join");
        check((long)(size_t)result == ROUNDS_PER_WORKER + i, "each thread's own _Thread_local");
    }
    check(total == WORKERS * ROUNDS_PER_WORKER + WORKERS * (WORKERS - 1) / 2, "TLS total");
    check(thread_counter == 0, "main's _Thread_local untouched");
}

/* ---- OpenMP (libgomp on winpthreads) whose body uses our mutex and semaphore ---- */

static void check_openmp(void)
{
#ifdef _OPENMP
    pthread_mutex_t mutex;
    sem_t tokens;
    long sum = 0, locked_sum = 0;
    check(pthread_mutex_init(&mutex, NULL) == 0, "pthread_mutex_init");
    check(sem_init(&tokens, 0, 0) == 0, "sem_init");
#pragma omp parallel for reduction(+ : sum) num_threads(WORKERS)
    for (int i = 0; i < OMP_ITERATIONS; i++) {
        sum += i;
        pthread_mutex_lock(&mutex);
        locked_sum += i;
        pthread_mutex_unlock(&mutex);
        sem_post(&tokens);
    }
    check(sum == OMP_ITERATIONS * (OMP_ITERATIONS - 1) / 2, "OpenMP reduction");
    check(locked_sum == sum, "our mutex inside an OpenMP loop");
    int value = -1;
    check(sem_getvalue(&tokens, &value) == 0 && value == OMP_ITERATIONS, "our sem_t inside OpenMP");
    check(sem_destroy(&tokens) == 0 && pthread_mutex_destroy(&mutex) == 0, "destroy after OpenMP");
#endif
}

#ifdef WITH_WINPTHREADS
int abi_winpthreads_run(int threads, int rounds); /* abi_winpthreads.c */
#endif

int main(void)
{
    check_thread_local();
    check_openmp();
#ifdef WITH_WINPTHREADS
    check(abi_winpthreads_run(WORKERS, ROUNDS_PER_WORKER) == WORKERS * ROUNDS_PER_WORKER,
          "winpthreads' own threads and mutex in the same program");
#endif
    printf("abi_prog: %d checks passed\n", checks_passed);
    return 0;
}
