/*
 * git-calls.c - the pthread calls git's threaded steps make, timed in the
 * shapes git makes them (try-git.sh, SLIM_GIT_COUNT=1).
 *
 * Built twice from this one file: against git's own compat/win32/pthread.[ch]
 * and against the drop-in, so that both layers run the same code. Each row is
 * one shape: threads created and joined in a batch (preload-index starts 8,
 * grep, index-pack and pack-objects 4), pthread_create alone, an uncontended
 * lock and unlock (attr.c's locks in log, a recursive one as git's
 * init_recursive_mutex makes), pthread_getspecific (index-pack, per object),
 * short sections of several threads on one mutex (index-pack's work and
 * counter locks) and a queue with a condition variable (grep's work list).
 * Prints "ROW VALUE UNIT" lines: the median of the row's rounds, except for
 * the call costs, where it is the fastest of a few batches.
 */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CREATE_ROUNDS 60
#define CALL_BATCH 2000000
#define CALL_BATCHES 5
#define SHAPE_ROUNDS 5
#define THREADS_MAX 8
#define QUEUE_LENGTH 16 /* grep's todo list holds 128; a shorter one makes the producer wait too */

static double now_us(void)
{
    static LARGE_INTEGER frequency;
    LARGE_INTEGER count;

    if (frequency.QuadPart == 0)
        QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&count);
    return (double)count.QuadPart * 1e6 / (double)frequency.QuadPart;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return values[count / 2];
}

static volatile long sink;
static volatile unsigned long long work_sink;

/* About n multiply-adds of work that the compiler cannot drop. */
static void work(int n)
{
    unsigned long long x = 1;
    int i;

    for (i = 0; i < n; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    work_sink += x;
}

static void *do_nothing(void *argument)
{
    sink += (long)(intptr_t)argument;
    return NULL;
}

/* n threads created one after another, then joined: the time of both
 * ("create-join"), or the creator's own time in the creates alone ("create-only"). */
static void row_create(int n, int joins_timed)
{
    double rounds[CREATE_ROUNDS], begin;
    pthread_t threads[THREADS_MAX];
    int round, i;

    for (round = 0; round < CREATE_ROUNDS; round++) {
        begin = now_us();
        for (i = 0; i < n; i++)
            if (pthread_create(&threads[i], NULL, do_nothing, NULL) != 0)
                abort();
        if (!joins_timed)
            rounds[round] = now_us() - begin;
        for (i = 0; i < n; i++)
            pthread_join(threads[i], NULL);
        if (joins_timed)
            rounds[round] = now_us() - begin;
    }
    printf("%s-%d %.0f us\n", joins_timed ? "create-join" : "create-only", n,
           median(rounds, CREATE_ROUNDS));
}

static void row_lock(const char *row, pthread_mutex_t *mutex)
{
    double best = 1e30, begin, elapsed;
    int batch;
    long i;

    for (batch = 0; batch < CALL_BATCHES; batch++) {
        begin = now_us();
        for (i = 0; i < CALL_BATCH; i++) {
            pthread_mutex_lock(mutex);
            sink++;
            pthread_mutex_unlock(mutex);
        }
        elapsed = now_us() - begin;
        best = elapsed < best ? elapsed : best;
    }
    printf("%s %.2f ns\n", row, best * 1000.0 / CALL_BATCH);
}

static void row_getspecific(void)
{
    pthread_key_t key;
    double best = 1e30, begin, elapsed;
    int batch, value = 0;
    long i;

    if (pthread_key_create(&key, NULL) != 0 || pthread_setspecific(key, &value) != 0)
        abort();
    for (batch = 0; batch < CALL_BATCHES; batch++) {
        begin = now_us();
        for (i = 0; i < CALL_BATCH; i++)
            sink += pthread_getspecific(key) != NULL;
        elapsed = now_us() - begin;
        best = elapsed < best ? elapsed : best;
    }
    printf("getspecific %.2f ns\n", best * 1000.0 / CALL_BATCH);
}

/* index-pack's shape: each thread takes an item under a shared mutex, works a
 * little inside, more outside. */
static pthread_mutex_t shared;
static long items_left;
static int work_inside, work_outside;

static void *take_items(void *argument)
{
    (void)argument;
    for (;;) {
        pthread_mutex_lock(&shared);
        if (items_left <= 0) {
            pthread_mutex_unlock(&shared);
            return NULL;
        }
        items_left--;
        work(work_inside);
        pthread_mutex_unlock(&shared);
        work(work_outside);
    }
}

static void row_sections(int threads, long items, int inside, int outside)
{
    double rounds[SHAPE_ROUNDS], begin;
    pthread_t thread[THREADS_MAX];
    int round, i;

    work_inside = inside;
    work_outside = outside;
    for (round = 0; round < SHAPE_ROUNDS; round++) {
        begin = now_us();
        items_left = items;
        for (i = 0; i < threads; i++)
            pthread_create(&thread[i], NULL, take_items, NULL);
        for (i = 0; i < threads; i++)
            pthread_join(thread[i], NULL);
        rounds[round] = now_us() - begin;
    }
    printf("sections-%dt-%d-in-%d-out %.0f us\n", threads, inside, outside,
           median(rounds, SHAPE_ROUNDS));
}

/* grep's shape: the main thread queues work and signals, workers wait for it. */
static pthread_mutex_t queue_mutex;
static pthread_cond_t queue_added, queue_taken;
static int queued, queue_closed;

static void *consume(void *argument)
{
    (void)argument;
    for (;;) {
        pthread_mutex_lock(&queue_mutex);
        while (queued == 0 && !queue_closed)
            pthread_cond_wait(&queue_added, &queue_mutex);
        if (queued == 0) {
            pthread_mutex_unlock(&queue_mutex);
            return NULL;
        }
        queued--;
        pthread_cond_signal(&queue_taken);
        pthread_mutex_unlock(&queue_mutex);
        work(work_outside);
    }
}

static void produce(long items)
{
    long item;

    for (item = 0; item < items; item++) {
        pthread_mutex_lock(&queue_mutex);
        while (queued == QUEUE_LENGTH)
            pthread_cond_wait(&queue_taken, &queue_mutex);
        queued++;
        pthread_cond_signal(&queue_added);
        pthread_mutex_unlock(&queue_mutex);
    }
    pthread_mutex_lock(&queue_mutex);
    queue_closed = 1;
    pthread_cond_broadcast(&queue_added);
    pthread_mutex_unlock(&queue_mutex);
}

static void row_queue(int threads, long items, int per_item)
{
    double rounds[SHAPE_ROUNDS], begin;
    pthread_t thread[THREADS_MAX];
    int round, i;

    work_outside = per_item;
    for (round = 0; round < SHAPE_ROUNDS; round++) {
        begin = now_us();
        queued = 0;
        queue_closed = 0;
        for (i = 0; i < threads; i++)
            pthread_create(&thread[i], NULL, consume, NULL);
        produce(items);
        for (i = 0; i < threads; i++)
            pthread_join(thread[i], NULL);
        rounds[round] = now_us() - begin;
    }
    printf("queue-%dt-%d-per-item %.0f us\n", threads, per_item, median(rounds, SHAPE_ROUNDS));
}

int main(void)
{
    pthread_mutex_t plain, recursive;
    pthread_mutexattr_t attr;

    pthread_mutex_init(&plain, NULL);
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&recursive, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_mutex_init(&shared, NULL);
    pthread_mutex_init(&queue_mutex, NULL);
    pthread_cond_init(&queue_added, NULL);
    pthread_cond_init(&queue_taken, NULL);

    row_create(1, 1);
    row_create(4, 1);
    row_create(8, 1);
    row_create(8, 0);
    row_lock("lock-unlock", &plain);
    row_lock("lock-unlock-recursive", &recursive);
    row_getspecific();
    row_sections(4, 100000, 50, 500);
    row_sections(5, 50000, 200, 2000);
    row_queue(4, 20000, 2000);
    return 0;
}
