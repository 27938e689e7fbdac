/* test_pshared_rwsem.c - process-shared rwlocks and semaphores: objects in
 * memory that this program and copies of it (children) map, each child at
 * another address than the parent, with threads in every process: readers and
 * writers keep their invariant, timed locks and waits end both ways, tokens
 * posted by two processes and drained by a third are counted exactly, wakes
 * cross processes, nothing grows per object, and a destroy while another
 * process waits says EBUSY. Every child ends within CHILD_TIMEOUT_MS or fails
 * its case. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include "testutil.h"

#define CHILD_TIMEOUT_MS 60000
#define HANDSHAKE_TIMEOUT_MS 20000
#define POLL_MS 2
#define SHORT_TIMEOUT_MS 100
#define LONG_TIMEOUT_MS 20000
#define HOLD_MS 300
#define THREADS_PER_PROCESS 2
#define MIX_CHILDREN 2
#define MIX_ROUNDS 3000
#define WRITE_EVERY 8
#define POSTERS THREADS_PER_PROCESS
#define POSTS_EACH 3000
#define POSTS_BETWEEN_PAUSES 250
#define PAUSE_MS 20
#define LEAK_OBJECTS 100000
#define LEAK_WAIT_EVERY 2000
#define LEAK_MAPS 2000
#define LEAK_MAP_WAIT_EVERY 20
/* What a loop of inits and destroys may add before it counts as growth: the
 * warm-up's objects (the id counter's view, a thread's record) are made before
 * the first count. */
#define HANDLE_VALUE_SLACK 64 /* 16 handles of 4 */
#define PROBE_HANDLES 32
#define MEMORY_SLACK_BYTES (1024 * 1024)
#define NAME_CHARS 96

/* The memory the processes share. */
struct region {
    pthread_rwlock_t rwlock;
    sem_t sem;
    volatile uint64_t parent_view;   /* the parent's address of this region */
    volatile long displaced;         /* children that saw it at another address */
    volatile long not_displaced;     /* children that saw it at the parent's */
    volatile long ready, go, step;   /* handshakes */
    volatile long readers_inside, writer_inside, violations;
    volatile long pair_a, pair_b;    /* kept equal under the write lock */
    volatile long writes, drained;
    volatile long child_result;
};

static char region_name[NAME_CHARS];

static struct region *parent_region(const char *tag)
{
    struct region *region;

    slimtest_shared_name(region_name, sizeof region_name, tag);
    region = slimtest_map_shared(region_name, sizeof *region, 0);
    memset((void *)region, 0, sizeof *region);
    region->parent_view = (uint64_t)(uintptr_t)region;
    return region;
}

/* Each child maps the region displaced and says whether it landed elsewhere. */
static struct region *child_region(const char *name)
{
    struct region *region = slimtest_map_shared(name, sizeof *region, 1);

    if ((uint64_t)(uintptr_t)region != region->parent_view)
        InterlockedIncrement(&region->displaced);
    else
        InterlockedIncrement(&region->not_displaced);
    return region;
}

static void assert_children_displaced(struct region *region, long children)
{
    CU_ASSERT_EQUAL(region->displaced, children);
    CU_ASSERT_EQUAL(region->not_displaced, 0);
}

/* Waits (bounded) until *word reaches at least value: nonzero if it did. */
static int await_at_least(volatile long *word, long value)
{
    double until = slimtest_now_ms() + HANDSHAKE_TIMEOUT_MS;

    while (InterlockedCompareExchange(word, 0, 0) < value)
        if (slimtest_now_ms() > until)
            return 0;
        else
            Sleep(POLL_MS);
    return 1;
}

static struct slimtest_child *start_child(const char *mode, const char *extra)
{
    char arguments[2 * NAME_CHARS];

    snprintf(arguments, sizeof arguments, "--child %s %s %s", mode, region_name, extra);
    return slimtest_start_child(arguments);
}

/* THREADS_PER_PROCESS threads of routine, joined: 0, or nonzero when one
 * could not be made. Plain pthreads, no CUnit: children have no case running. */
static int run_threads(void *(*routine)(void *), struct region *region)
{
    pthread_t threads[THREADS_PER_PROCESS];
    int made = 0, error = 0;

    while (made < THREADS_PER_PROCESS && error == 0)
        if ((error = pthread_create(&threads[made], NULL, routine, (void *)region)) == 0)
            made++;
    while (made > 0)
        pthread_join(threads[--made], NULL);
    return error;
}

static void init_shared_rwlock(pthread_rwlock_t *rwlock)
{
    pthread_rwlockattr_t attr;
    int pshared = -1;

    CU_ASSERT_EQUAL_FATAL(pthread_rwlockattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_getpshared(&attr, &pshared), 0);
    CU_ASSERT_EQUAL(pshared, PTHREAD_PROCESS_SHARED);
    CU_ASSERT_EQUAL_FATAL(pthread_rwlock_init(rwlock, &attr), 0);
    CU_ASSERT_EQUAL(pthread_rwlockattr_destroy(&attr), 0);
}

/* ---- Readers and writers in three processes ---- */

static void write_round(struct region *region, int timed)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
    int error = timed ? pthread_rwlock_timedwrlock(&region->rwlock, &until)
                      : pthread_rwlock_wrlock(&region->rwlock);

    if (error != 0) {
        InterlockedIncrement(&region->violations);
        return;
    }
    if (InterlockedExchange(&region->writer_inside, 1) != 0 || region->readers_inside != 0)
        InterlockedIncrement(&region->violations);
    region->pair_a++;
    SwitchToThread(); /* a reader that got in now would see the pair apart */
    region->pair_b++;
    region->writes++;
    InterlockedExchange(&region->writer_inside, 0);
    if (pthread_rwlock_unlock(&region->rwlock) != 0)
        InterlockedIncrement(&region->violations);
}

static void read_round(struct region *region, int timed)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_MONOTONIC, LONG_TIMEOUT_MS);
    int error = timed ? pthread_rwlock_clockrdlock(&region->rwlock, CLOCK_MONOTONIC, &until)
                      : pthread_rwlock_rdlock(&region->rwlock);

    if (error != 0) {
        InterlockedIncrement(&region->violations);
        return;
    }
    InterlockedIncrement(&region->readers_inside);
    if (region->writer_inside != 0 || region->pair_a != region->pair_b)
        InterlockedIncrement(&region->violations);
    InterlockedDecrement(&region->readers_inside);
    if (pthread_rwlock_unlock(&region->rwlock) != 0)
        InterlockedIncrement(&region->violations);
}

static void *mix_thread(void *argument)
{
    struct region *region = argument;

    for (unsigned i = 0; i < MIX_ROUNDS; i++)
        if (i % WRITE_EVERY == 0)
            write_round(region, i % (2 * WRITE_EVERY) == 0);
        else
            read_round(region, i % 3 == 0);
    return NULL;
}

/* A process's share of the mix: its threads, once every process is ready. */
static void run_mix(struct region *region)
{
    InterlockedIncrement(&region->ready);
    if (!await_at_least(&region->go, 1)) {
        InterlockedIncrement(&region->violations);
        return;
    }
    if (run_threads(mix_thread, region) != 0)
        InterlockedIncrement(&region->violations);
}

static void test_rwlock_readers_writers_three_processes(void)
{
    struct region *region = parent_region("rwmix");
    struct slimtest_child *children[MIX_CHILDREN];
    long processes = MIX_CHILDREN + 1;

    init_shared_rwlock(&region->rwlock);
    for (int i = 0; i < MIX_CHILDREN; i++)
        children[i] = start_child("rwmix", "");
    CU_ASSERT(await_at_least(&region->ready, MIX_CHILDREN));
    InterlockedExchange(&region->go, 1);
    run_mix(region);
    for (int i = 0; i < MIX_CHILDREN; i++)
        CU_ASSERT_EQUAL(slimtest_finish_child(children[i], CHILD_TIMEOUT_MS), 0);
    assert_children_displaced(region, MIX_CHILDREN);
    CU_ASSERT_EQUAL(region->violations, 0);
    CU_ASSERT_EQUAL(region->pair_a, region->pair_b);
    CU_ASSERT_EQUAL(region->writes,
                    processes * THREADS_PER_PROCESS * ((MIX_ROUNDS + WRITE_EVERY - 1) / WRITE_EVERY));
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), 0);
}

/* ---- Timed locks against a holder in another process ---- */

static double elapsed_ms_since(double start)
{
    return slimtest_now_ms() - start;
}

/* The child holds the write lock, then a read lock, each until the parent has
 * seen its timeouts (step), and HOLD_MS more; the parent's long waits must be
 * woken by its unlocks. */
static int child_hold(struct region *region)
{
    if (pthread_rwlock_wrlock(&region->rwlock) != 0)
        return 1;
    InterlockedExchange(&region->step, 1);
    if (!await_at_least(&region->step, 2))
        return 2;
    Sleep(HOLD_MS);
    if (pthread_rwlock_unlock(&region->rwlock) != 0 || !await_at_least(&region->step, 3))
        return 3;
    if (pthread_rwlock_rdlock(&region->rwlock) != 0)
        return 4;
    InterlockedExchange(&region->step, 4);
    if (!await_at_least(&region->step, 5))
        return 5;
    Sleep(HOLD_MS);
    return pthread_rwlock_unlock(&region->rwlock) == 0 ? 0 : 6;
}

static void assert_times_out(int error, double start)
{
    CU_ASSERT_EQUAL(error, ETIMEDOUT);
    CU_ASSERT(elapsed_ms_since(start) >= SHORT_TIMEOUT_MS - 20);
}

static void test_rwlock_timed_against_other_process(void)
{
    struct region *region = parent_region("rwtimed");
    struct slimtest_child *child;
    struct timespec until;
    double start;

    init_shared_rwlock(&region->rwlock);
    child = start_child("rwhold", "");
    CU_ASSERT_FATAL(await_at_least(&region->step, 1));
    /* Write-held in the other process. */
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&region->rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&region->rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&region->rwlock), EPERM);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), EBUSY);
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_REALTIME, SHORT_TIMEOUT_MS);
    assert_times_out(pthread_rwlock_timedrdlock(&region->rwlock, &until), start);
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_MONOTONIC, SHORT_TIMEOUT_MS);
    assert_times_out(pthread_rwlock_clockwrlock(&region->rwlock, CLOCK_MONOTONIC, &until), start);
    /* A reader asleep here is woken by the write unlock there. */
    InterlockedExchange(&region->step, 2);
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&region->rwlock, &until), 0);
    CU_ASSERT(elapsed_ms_since(start) < LONG_TIMEOUT_MS / 2);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&region->rwlock), 0);
    /* Read-held there: readers come in, a writer times out, then is woken. */
    InterlockedExchange(&region->step, 3);
    CU_ASSERT_FATAL(await_at_least(&region->step, 4));
    CU_ASSERT_EQUAL(pthread_rwlock_trywrlock(&region->rwlock), EBUSY);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&region->rwlock), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&region->rwlock), 0);
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_REALTIME, SHORT_TIMEOUT_MS);
    assert_times_out(pthread_rwlock_timedwrlock(&region->rwlock, &until), start);
    InterlockedExchange(&region->step, 5);
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&region->rwlock, &until), 0);
    CU_ASSERT(elapsed_ms_since(start) < LONG_TIMEOUT_MS / 2);
    CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&region->rwlock), EDEADLK);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&region->rwlock), 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    assert_children_displaced(region, 1);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), 0);
}

/* ---- A semaphore fed by two processes and drained by a third ---- */

/* Posts once the drainers are asleep on the empty semaphore, and pauses now
 * and then, so that they fall asleep again and must be woken from here. */
static int child_post(struct region *region)
{
    if (!await_at_least(&region->ready, 1))
        return 2;
    Sleep(HOLD_MS);
    for (int i = 0; i < POSTS_EACH; i++) {
        if (sem_post(&region->sem) != 0)
            return 1;
        if (i % POSTS_BETWEEN_PAUSES == 0)
            Sleep(PAUSE_MS);
    }
    return 0;
}

static void *drain_thread(void *argument)
{
    struct region *region = argument;
    struct timespec until;

    for (int i = 0; i < POSTS_EACH; i++) {
        int error;

        if (i % 3 == 0) {
            until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
            error = sem_timedwait(&region->sem, &until);
        } else if (i % 3 == 1) {
            until = slimtest_time_after_ms(CLOCK_MONOTONIC, LONG_TIMEOUT_MS);
            error = sem_clockwait(&region->sem, CLOCK_MONOTONIC, &until);
        } else {
            error = sem_wait(&region->sem);
        }
        if (error != 0)
            return NULL;
        InterlockedIncrement(&region->drained);
    }
    return NULL;
}

/* Its threads (as many as the posters) share the POSTERS * POSTS_EACH tokens. */
static int child_drain(struct region *region)
{
    InterlockedIncrement(&region->ready);
    if (run_threads(drain_thread, region) != 0)
        return 3;
    if (region->drained != POSTERS * POSTS_EACH)
        return 1;
    return sem_trywait(&region->sem) == -1 && errno == EAGAIN ? 0 : 2;
}

static void test_sem_two_feed_one_drains(void)
{
    struct region *region = parent_region("semfeed");
    struct slimtest_child *drainer, *posters[POSTERS];
    int value = -1;

    CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 0), 0);
    drainer = start_child("semdrain", "");
    for (int i = 0; i < POSTERS; i++)
        posters[i] = start_child("sempost", "");
    for (int i = 0; i < POSTERS; i++)
        CU_ASSERT_EQUAL(slimtest_finish_child(posters[i], CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(drainer, CHILD_TIMEOUT_MS), 0);
    assert_children_displaced(region, POSTERS + 1);
    CU_ASSERT_EQUAL(region->drained, POSTERS * POSTS_EACH);
    CU_ASSERT_EQUAL(sem_getvalue(&region->sem, &value), 0);
    CU_ASSERT_EQUAL(value, 0);
    CU_ASSERT_EQUAL(sem_destroy(&region->sem), 0);
}

/* ---- sem_timedwait across processes, both outcomes ---- */

/* Posts after HOLD_MS, once the parent's short wait has timed out (step). */
static int child_late_post(struct region *region)
{
    if (!await_at_least(&region->step, 1))
        return 1;
    Sleep(HOLD_MS);
    return sem_post(&region->sem) == 0 ? 0 : 2;
}

static void test_sem_timedwait_across_processes(void)
{
    struct region *region = parent_region("semtimed");
    struct slimtest_child *child;
    struct timespec until;
    double start;
    int value = -1;

    CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 0), 0);
    child = start_child("semlate", "");
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_REALTIME, SHORT_TIMEOUT_MS);
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&region->sem, &until), ETIMEDOUT);
    CU_ASSERT(elapsed_ms_since(start) >= SHORT_TIMEOUT_MS - 20);
    SLIMTEST_ASSERT_ERRNO(sem_trywait(&region->sem), EAGAIN);
    InterlockedExchange(&region->step, 1);
    start = slimtest_now_ms();
    until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
    CU_ASSERT_EQUAL(sem_timedwait(&region->sem, &until), 0);
    CU_ASSERT(elapsed_ms_since(start) >= HOLD_MS / 2);
    CU_ASSERT(elapsed_ms_since(start) < LONG_TIMEOUT_MS / 2);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    assert_children_displaced(region, 1);
    CU_ASSERT_EQUAL(sem_getvalue(&region->sem, &value), 0);
    CU_ASSERT_EQUAL(value, 0);
    CU_ASSERT_EQUAL(sem_destroy(&region->sem), 0);
}

/* ---- Bad use: destroy while another process waits ---- */

/* Sleeps in sem_wait (step 1 says it is about to); child_result gets its
 * result. */
static int child_sem_wait(struct region *region)
{
    InterlockedExchange(&region->step, 1);
    InterlockedExchange(&region->child_result, sem_wait(&region->sem) == 0 ? 1 : -errno);
    return 0;
}

/* Waits (bounded) until a waiter is counted in sem, as sem_destroy's EBUSY
 * says (a destroy that succeeds before changes nothing but the checked
 * build's mark): nonzero if one is. */
static int await_sleeper(sem_t *sem)
{
    double until = slimtest_now_ms() + HANDSHAKE_TIMEOUT_MS;

    for (;;) {
        errno = 0;
        if (sem_destroy(sem) == -1 && errno == EBUSY)
            return 1;
        if (slimtest_now_ms() > until)
            return 0;
        Sleep(POLL_MS);
    }
}

/* The waiter is counted in the semaphore, which every process reads: destroy
 * says EBUSY, and the semaphore keeps working; the waiter gets the next post. */
static void test_sem_destroy_while_other_process_waits(void)
{
    struct region *region = parent_region("semdestroy");
    struct slimtest_child *child;

    CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 0), 0);
    child = start_child("semwait", "");
    CU_ASSERT_FATAL(await_sleeper(&region->sem));
    SLIMTEST_ASSERT_ERRNO(sem_destroy(&region->sem), EBUSY);
    CU_ASSERT_EQUAL(sem_post(&region->sem), 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(region->child_result, 1);
    CU_ASSERT_EQUAL(sem_destroy(&region->sem), 0);
}

/* A writer of another process waits (counted in the word): destroy says
 * EBUSY; the waiter gets the lock when it is released. */
static int child_rw_wait(struct region *region)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);

    InterlockedExchange(&region->step, 1);
    InterlockedExchange(&region->child_result,
                        pthread_rwlock_timedwrlock(&region->rwlock, &until) == 0 ? 1 : -1);
    return pthread_rwlock_unlock(&region->rwlock) == 0 ? 0 : 1;
}

static void hold_read_lock(void *argument)
{
    struct region *region = argument;

    if (pthread_rwlock_rdlock(&region->rwlock) != 0)
        return;
    InterlockedIncrement(&region->ready);
    await_at_least(&region->go, 1);
    pthread_rwlock_unlock(&region->rwlock);
}

static void test_rwlock_destroy_while_other_process_waits(void)
{
    struct region *region = parent_region("rwdestroy");
    struct slimtest_thread *holder;
    struct slimtest_child *child;

    init_shared_rwlock(&region->rwlock);
    holder = slimtest_start_thread(hold_read_lock, (void *)region);
    CU_ASSERT_FATAL(await_at_least(&region->ready, 1));
    child = start_child("rwwait", "");
    CU_ASSERT_FATAL(await_at_least(&region->step, 1));
    Sleep(HOLD_MS);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), EBUSY);
    InterlockedExchange(&region->go, 1);
    slimtest_join_thread(holder, CHILD_TIMEOUT_MS);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(region->child_result, 1);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), 0);
}

/* ---- Bad use: a process ends while it waits or holds ---- */

/* Takes the write lock and never lets go: its process is ended meanwhile. */
static int child_hold_forever(struct region *region)
{
    if (pthread_rwlock_wrlock(&region->rwlock) != 0)
        return 1;
    InterlockedExchange(&region->step, 1);
    Sleep(CHILD_TIMEOUT_MS);
    return 2;
}

/* POSIX's rwlocks are not robust: a lock held by a process that ended stays
 * held. The others are not hung for good: timed and try calls still end. */
static void test_rwlock_holder_process_ends(void)
{
    struct region *region = parent_region("rwdead");
    struct slimtest_child *child;
    struct timespec until;

    init_shared_rwlock(&region->rwlock);
    child = start_child("rwforever", "");
    CU_ASSERT_FATAL(await_at_least(&region->step, 1));
    CU_ASSERT_EQUAL(slimtest_finish_child(child, SHORT_TIMEOUT_MS), SLIMTEST_CHILD_HUNG);
    CU_ASSERT_EQUAL(pthread_rwlock_tryrdlock(&region->rwlock), EBUSY);
    until = slimtest_time_after_ms(CLOCK_REALTIME, SHORT_TIMEOUT_MS);
    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&region->rwlock, &until), ETIMEDOUT);
    until = slimtest_time_after_ms(CLOCK_REALTIME, SHORT_TIMEOUT_MS);
    CU_ASSERT_EQUAL(pthread_rwlock_timedrdlock(&region->rwlock, &until), ETIMEDOUT);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), EBUSY);
}

/* A waiter whose process ends stays counted: sem_destroy says EBUSY for good
 * (README.md), but the semaphore keeps working for everyone else. */
static void test_sem_waiter_process_ends(void)
{
    struct region *region = parent_region("semdead");
    struct slimtest_child *child;
    struct timespec until;
    int value = -1;

    CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 0), 0);
    child = start_child("semwait", "");
    CU_ASSERT_FATAL(await_sleeper(&region->sem));
    CU_ASSERT_EQUAL(slimtest_finish_child(child, SHORT_TIMEOUT_MS), SLIMTEST_CHILD_HUNG);
    CU_ASSERT_EQUAL(sem_post(&region->sem), 0);
    CU_ASSERT_EQUAL(sem_getvalue(&region->sem, &value), 0);
    CU_ASSERT_EQUAL(value, 1);
    until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
    CU_ASSERT_EQUAL(sem_timedwait(&region->sem, &until), 0);
    until = slimtest_time_after_ms(CLOCK_REALTIME, SHORT_TIMEOUT_MS);
    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&region->sem, &until), ETIMEDOUT);
    SLIMTEST_ASSERT_ERRNO(sem_destroy(&region->sem), EBUSY);
}

/* ---- Cancellation acts in a shared sem_wait ---- */

static void *wait_forever(void *argument)
{
    struct region *region = argument;

    InterlockedExchange(&region->step, 1);
    sem_wait(&region->sem);
    InterlockedExchange(&region->child_result, 1); /* not reached: cancelled */
    return NULL;
}

/* The sleeper on the doorbell is cancelled (its wait is alertable), takes no
 * token and leaves no count behind: destroy then succeeds. */
static void test_sem_wait_cancelled(void)
{
    struct region *region = parent_region("semcancel");
    pthread_t thread;
    struct timespec until;
    void *result = NULL;
    int value = -1;

    CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 0), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_forever, (void *)region), 0);
    CU_ASSERT_FATAL(await_sleeper(&region->sem));
    CU_ASSERT_EQUAL(pthread_cancel(thread), 0);
    until = slimtest_time_after_ms(CLOCK_REALTIME, LONG_TIMEOUT_MS);
    if (pthread_timedjoin_np(thread, &result, &until) != 0) {
        CU_FAIL("the cancelled sem_wait goes on");
        sem_post(&region->sem); /* let it end, then it cannot be joined twice */
        CU_ASSERT_EQUAL_FATAL(pthread_join(thread, &result), 0);
        return;
    }
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(region->child_result, 0);
    CU_ASSERT_EQUAL(sem_post(&region->sem), 0);
    CU_ASSERT_EQUAL(sem_getvalue(&region->sem, &value), 0);
    CU_ASSERT_EQUAL(value, 1);
    CU_ASSERT_EQUAL(sem_destroy(&region->sem), 0);
}

/* ---- Nothing kept per shared object ---- */

struct usage {
    uintptr_t handle_value;
    SIZE_T private_bytes;
};

/* Wine counts no handles (GetProcessHandleCount), but it hands out the lowest
 * free handle values first, as Windows does: the highest of PROBE_HANDLES new
 * handles grows with every handle left open (a loop that closes a handle of
 * its own leaves a hole, which one probe fills). */
static uintptr_t next_handle_value(void)
{
    HANDLE probes[PROBE_HANDLES];
    uintptr_t highest = 0;

    for (int i = 0; i < PROBE_HANDLES; i++) {
        probes[i] = CreateEventW(NULL, TRUE, FALSE, NULL);
        if ((uintptr_t)probes[i] > highest)
            highest = (uintptr_t)probes[i];
    }
    for (int i = 0; i < PROBE_HANDLES; i++)
        CloseHandle(probes[i]);
    return highest;
}

static struct usage usage_now(void)
{
    struct usage usage = {next_handle_value(), 0};
    MEMORY_BASIC_INFORMATION info;
    char *at = NULL;

    /* Committed private memory, region by region (no psapi needed). */
    while (VirtualQuery(at, &info, sizeof info) == sizeof info) {
        if (info.State == MEM_COMMIT && info.Type == MEM_PRIVATE)
            usage.private_bytes += info.RegionSize;
        at = (char *)info.BaseAddress + info.RegionSize;
    }
    return usage;
}

static void assert_no_growth(struct usage before)
{
    struct usage after = usage_now();

    CU_ASSERT(after.handle_value <= before.handle_value + HANDLE_VALUE_SLACK);
    CU_ASSERT(after.private_bytes <= before.private_bytes + MEMORY_SLACK_BYTES);
    if (after.handle_value > before.handle_value + HANDLE_VALUE_SLACK ||
        after.private_bytes > before.private_bytes + MEMORY_SLACK_BYTES)
        fprintf(stderr, "grew: handle values %#lx -> %#lx, private bytes %lu -> %lu\n",
                (unsigned long)before.handle_value, (unsigned long)after.handle_value,
                (unsigned long)before.private_bytes, (unsigned long)after.private_bytes);
}

/* Another thread's write lock times out behind the caller's read hold. */
static void timed_write_fails(void *argument)
{
    struct region *region = argument;
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, 1);

    CU_ASSERT_EQUAL(pthread_rwlock_timedwrlock(&region->rwlock, &until), ETIMEDOUT);
}

/* One timed wait on each object, so that their doorbells are made. */
static void wait_once_on_each(struct region *region)
{
    struct timespec until = slimtest_time_after_ms(CLOCK_REALTIME, 1);

    SLIMTEST_ASSERT_ERRNO(sem_timedwait(&region->sem, &until), ETIMEDOUT);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&region->rwlock), 0);
    slimtest_on_other_thread(timed_write_fails, (void *)region);
    CU_ASSERT_EQUAL(pthread_rwlock_unlock(&region->rwlock), 0);
}

static void test_init_destroy_loop_keeps_nothing(void)
{
    struct region *region = parent_region("leak");
    struct usage before;

    for (int i = 0; i <= LEAK_OBJECTS; i++) {
        init_shared_rwlock(&region->rwlock);
        CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 0), 0);
        if (i % LEAK_WAIT_EVERY == 0)
            wait_once_on_each(region);
        CU_ASSERT_EQUAL_FATAL(sem_destroy(&region->sem), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_rwlock_destroy(&region->rwlock), 0);
        if (i == 0)
            before = usage_now(); /* after a round of warm-up, where the loop ends */
    }
    assert_no_growth(before);
}

/* Mapped, used and unmapped again and again: nothing stays behind either. */
static void test_map_unmap_loop_keeps_nothing(void)
{
    struct usage before;

    for (int i = 0; i <= LEAK_MAPS; i++) {
        HANDLE mapping = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
                                            sizeof(struct region), NULL);
        struct region *region;

        CU_ASSERT_PTR_NOT_NULL_FATAL(mapping);
        region = MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, sizeof *region);
        CU_ASSERT_PTR_NOT_NULL_FATAL(region);
        init_shared_rwlock(&region->rwlock);
        CU_ASSERT_EQUAL_FATAL(sem_init(&region->sem, 1, 1), 0);
        CU_ASSERT_EQUAL(sem_wait(&region->sem), 0);
        CU_ASSERT_EQUAL(pthread_rwlock_wrlock(&region->rwlock), 0);
        CU_ASSERT_EQUAL(pthread_rwlock_unlock(&region->rwlock), 0);
        if (i % LEAK_MAP_WAIT_EVERY == 0)
            wait_once_on_each(region);
        CU_ASSERT_EQUAL(sem_destroy(&region->sem), 0);
        CU_ASSERT_EQUAL(pthread_rwlock_destroy(&region->rwlock), 0);
        UnmapViewOfFile(region);
        CloseHandle(mapping);
        if (i == 0)
            before = usage_now(); /* after a round of warm-up, where the loop ends */
    }
    assert_no_growth(before);
}

static CU_TestInfo cases[] = {
    {"rwlock: readers and writers in three processes keep the invariant",
     test_rwlock_readers_writers_three_processes},
    {"rwlock: timed locks time out, then are woken, by another process",
     test_rwlock_timed_against_other_process},
    {"rwlock: destroy while another process waits is EBUSY",
     test_rwlock_destroy_while_other_process_waits},
    {"sem: two processes feed, a third drains, exact counts", test_sem_two_feed_one_drains},
    {"sem: timedwait across processes, timeout and post", test_sem_timedwait_across_processes},
    {"sem: destroy while another process waits is EBUSY",
     test_sem_destroy_while_other_process_waits},
    {"rwlock: a process that ends holding it leaves it held; timed calls end",
     test_rwlock_holder_process_ends},
    {"sem: a waiter's process ends: the others go on, destroy says EBUSY",
     test_sem_waiter_process_ends},
    {"sem: a shared sem_wait is cancelled, takes no token", test_sem_wait_cancelled},
    {"100000 shared inits and destroys keep no handle or memory",
     test_init_destroy_loop_keeps_nothing},
    {"mapped, used and unmapped again: no handle or memory kept",
     test_map_unmap_loop_keeps_nothing},
    CU_TEST_INFO_NULL,
};

/* A child: maps the region named on its command line and plays its part. */
static int child_main(const char *mode, const char *name)
{
    struct region *region = child_region(name);

    if (strcmp(mode, "rwmix") == 0) {
        run_mix(region);
        return region->violations == 0 ? 0 : 1;
    }
    if (strcmp(mode, "rwhold") == 0)
        return child_hold(region);
    if (strcmp(mode, "rwforever") == 0)
        return child_hold_forever(region);
    if (strcmp(mode, "rwwait") == 0)
        return child_rw_wait(region);
    if (strcmp(mode, "sempost") == 0)
        return child_post(region);
    if (strcmp(mode, "semdrain") == 0)
        return child_drain(region);
    if (strcmp(mode, "semlate") == 0)
        return child_late_post(region);
    if (strcmp(mode, "semwait") == 0)
        return child_sem_wait(region);
    return 3;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], argv[3]);
    return slimtest_run("pshared_rwsem", cases, 600);
}
