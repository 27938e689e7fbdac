/*
 * test_pshared_mutex.c - process-shared mutexes across processes: this program
 * starts copies of itself (--child MODE NAME), which map the parent's memory
 * at another address (each child checks that, and counts itself in the shared
 * memory), and lock the mutexes the parent initialized there. Every kind's
 * results across processes, exact counting by 4 processes x 2 threads, robust
 * owners that die by ExitProcess, TerminateProcess and a crash, a locker
 * already asleep when the owner dies, misuse, and loops that must not grow in
 * handles or memory. Children report by their exit status; the parent asserts.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define CHILD_TIMEOUT_MS 30000
#define FLAG_TIMEOUT_MS 20000
#define COUNT_PROCESSES 4
#define COUNT_THREADS 2
#define COUNT_ROUNDS 2000
#define SHORT_WAIT_MS 150
#define RELEASE_AFTER_MS 300
#define DEATH_NOTICED_MS 5000.0 /* a sleeper learns of its owner's death within this */
#define LEAK_ROUNDS 100000
#define LEAK_CONTENDED_EVERY 1000
#define MAP_ROUNDS 10000
#define HANDLE_SLACK 16                 /* handles a loop may leave open, at most */
#define MEMORY_SLACK (1024 * 1024)      /* bytes of private memory a loop may grow by */
#define BAD_RESULT 100                  /* a child's status: 100 + the unexpected result */
#define NOT_DISPLACED 90                /* a child's status: mapped at the parent's address */
#define NAME_SIZE 128
#define RECURSIVE_DEPTH 5                /* a child's holds of the RECURSIVE mutex, by lock */
#define HOLD_MODES "hold-"               /* the child modes that lock and hold */

/* The memory the processes share. */
struct area {
    pthread_mutex_t mutex;
    pthread_mutex_t other; /* 4 mod 8 on i686: the 64-bit owner word unaligned */
    long counter;          /* written under mutex */
    volatile long held;    /* a child holds mutex (or is about to block on it) */
    volatile long blocked; /* a child is about to block */
    volatile long displaced;
    uintptr_t parent_view;
};

/* ---- Helpers ---- */

static void init_shared(pthread_mutex_t *mutex, int kind, int robust)
{
    pthread_mutexattr_t attr;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_settype(&attr, kind), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED), 0);
    if (robust)
        CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(mutex, &attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
}

/* The parent's view of a fresh area named for tag, with mutex of kind. */
static struct area *make_area(char *name, const char *tag, int kind, int robust)
{
    struct area *area;

    slimtest_shared_name(name, NAME_SIZE, tag);
    area = slimtest_map_shared(name, sizeof *area, 0);
    area->parent_view = (uintptr_t)area;
    init_shared(&area->mutex, kind, robust);
    return area;
}

static struct slimtest_child *start_child(const char *mode, const char *name)
{
    char arguments[NAME_SIZE + 64];

    snprintf(arguments, sizeof arguments, "--child %s %s", mode, name);
    return slimtest_start_child(arguments);
}

static unsigned long run_child(const char *mode, const char *name)
{
    return slimtest_finish_child(start_child(mode, name), CHILD_TIMEOUT_MS);
}

/* Waits (bounded) until *flag reads at least value. */
static void wait_for(volatile long *flag, long value)
{
    double until = slimtest_now_ms() + FLAG_TIMEOUT_MS;

    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < value && slimtest_now_ms() < until)
        slimtest_sleep_ms(1);
    CU_ASSERT_FATAL(__atomic_load_n(flag, __ATOMIC_ACQUIRE) >= value);
}

static struct timespec after_ms(long ms)
{
    return slimtest_time_after_ms(CLOCK_REALTIME, ms);
}

/* ---- The children ---- */

static struct area *child_area;
static volatile int *volatile nowhere; /* NULL, read at run time: the crash's address */

static DWORD WINAPI count_routine(LPVOID unused)
{
    int i;

    (void)unused;
    for (i = 0; i < COUNT_ROUNDS; i++) {
        if (pthread_mutex_lock(&child_area->mutex) != 0)
            ExitProcess(BAD_RESULT);
        child_area->counter++;
        if (pthread_mutex_unlock(&child_area->mutex) != 0)
            ExitProcess(BAD_RESULT);
    }
    return 0;
}

static int child_count(void)
{
    HANDLE threads[COUNT_THREADS];
    int i;

    for (i = 0; i < COUNT_THREADS; i++)
        threads[i] = CreateThread(NULL, 0, count_routine, NULL, 0, NULL);
    WaitForMultipleObjects(COUNT_THREADS, threads, TRUE, INFINITE);
    return 0;
}

/* 0, or BAD_RESULT + what call returned when it was not expected. */
#define EXPECT(call, expected)                       \
    do {                                             \
        int result_ = (call);                        \
        if (result_ != (expected))                   \
            return BAD_RESULT + result_;             \
    } while (0)

/* The parent holds the ERRORCHECK mutex: what another process gets. */
static int child_codes_busy(void)
{
    struct timespec soon = after_ms(SHORT_WAIT_MS);

    EXPECT(pthread_mutex_trylock(&child_area->mutex), EBUSY);
    EXPECT(pthread_mutex_unlock(&child_area->mutex), EPERM);
    EXPECT(pthread_mutex_timedlock(&child_area->mutex, &soon), ETIMEDOUT);
    EXPECT(pthread_mutex_destroy(&child_area->mutex), EBUSY);
    return 0;
}

/* Its own ERRORCHECK (mutex) and RECURSIVE (other) mutexes. */
static int child_codes_own(void)
{
    int i;

    EXPECT(pthread_mutex_lock(&child_area->mutex), 0);
    EXPECT(pthread_mutex_lock(&child_area->mutex), EDEADLK);
    EXPECT(pthread_mutex_trylock(&child_area->mutex), EBUSY);
    EXPECT(pthread_mutex_unlock(&child_area->mutex), 0);
    EXPECT(pthread_mutex_unlock(&child_area->mutex), EPERM);
    for (i = 0; i < RECURSIVE_DEPTH; i++)
        EXPECT(pthread_mutex_lock(&child_area->other), 0);
    EXPECT(pthread_mutex_trylock(&child_area->other), 0); /* one hold more */
    for (i = 0; i < RECURSIVE_DEPTH + 1; i++)
        EXPECT(pthread_mutex_unlock(&child_area->other), 0);
    EXPECT(pthread_mutex_unlock(&child_area->other), EPERM);
    return 0;
}

static LONG WINAPI die_quietly(EXCEPTION_POINTERS *exception)
{
    (void)exception;
    return EXCEPTION_EXECUTE_HANDLER; /* the process ends with the exception's code */
}

/* Holds mutex and ends in mode's way; "hold-release" unlocks after a while. */
static int child_hold(const char *mode)
{
    EXPECT(pthread_mutex_lock(&child_area->mutex), 0);
    __atomic_store_n(&child_area->held, 1, __ATOMIC_RELEASE);
    if (strcmp(mode, "hold-exit") == 0)
        ExitProcess(0);
    if (strcmp(mode, "hold-crash") == 0) {
        SetErrorMode(SEM_NOGPFAULTERRORBOX);
        SetUnhandledExceptionFilter(die_quietly);
        *nowhere = 1; /* an access violation nobody handles */
    }
    if (strcmp(mode, "hold-release") == 0) {
        Sleep(RELEASE_AFTER_MS);
        EXPECT(pthread_mutex_unlock(&child_area->mutex), 0);
        return 0;
    }
    Sleep(INFINITE); /* hold-wait: until terminated */
    return 0;
}

/* Blocks on a robust mutex another process holds: 0 once it got EOWNERDEAD
 * and made it consistent. */
static int child_lock_robust(void)
{
    __atomic_add_fetch(&child_area->blocked, 1, __ATOMIC_ACQ_REL);
    EXPECT(pthread_mutex_lock(&child_area->mutex), EOWNERDEAD);
    EXPECT(pthread_mutex_consistent(&child_area->mutex), 0);
    EXPECT(pthread_mutex_unlock(&child_area->mutex), 0);
    return 0;
}

static DWORD WINAPI lock_and_end(LPVOID unused)
{
    (void)unused;
    return (DWORD)pthread_mutex_lock(&child_area->mutex);
}

/* A thread of this live process locks the robust mutex and ends: this
 * process's next locker gets EOWNERDEAD, and recovers it. */
static int child_thread_exit(void)
{
    HANDLE thread = CreateThread(NULL, 0, lock_and_end, NULL, 0, NULL);
    DWORD status = BAD_RESULT;

    WaitForSingleObject(thread, INFINITE);
    GetExitCodeThread(thread, &status);
    CloseHandle(thread);
    EXPECT((int)status, 0);
    EXPECT(pthread_mutex_lock(&child_area->mutex), EOWNERDEAD);
    EXPECT(pthread_mutex_consistent(&child_area->mutex), 0);
    EXPECT(pthread_mutex_unlock(&child_area->mutex), 0);
    return 0;
}

/* Blocks on mutex until terminated. */
static int child_block(void)
{
    __atomic_add_fetch(&child_area->blocked, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_lock(&child_area->mutex);
    return BAD_RESULT;
}

static int child_main(const char *mode, const char *name)
{
    child_area = slimtest_map_shared(name, sizeof *child_area, 1);
    if ((uintptr_t)child_area == child_area->parent_view)
        return NOT_DISPLACED;
    __atomic_add_fetch(&child_area->displaced, 1, __ATOMIC_ACQ_REL);
    if (strcmp(mode, "count") == 0)
        return child_count();
    if (strcmp(mode, "codes-busy") == 0)
        return child_codes_busy();
    if (strcmp(mode, "codes-own") == 0)
        return child_codes_own();
    if (strncmp(mode, HOLD_MODES, sizeof HOLD_MODES - 1) == 0)
        return child_hold(mode);
    if (strcmp(mode, "lock-robust") == 0)
        return child_lock_robust();
    if (strcmp(mode, "block") == 0)
        return child_block();
    if (strcmp(mode, "thread-exit") == 0)
        return child_thread_exit();
    return 1;
}

/* ---- Cases ---- */

/* 4 processes x 2 threads count under one mutex of kind: not one count lost. */
static void count_across_processes(int kind, int robust)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, robust ? "count-robust" : "count", kind, robust);
    struct slimtest_child *children[COUNT_PROCESSES];
    int i;

    for (i = 0; i < COUNT_PROCESSES; i++)
        children[i] = start_child("count", name);
    for (i = 0; i < COUNT_PROCESSES; i++)
        CU_ASSERT_EQUAL(slimtest_finish_child(children[i], CHILD_TIMEOUT_MS), 0);
    CU_ASSERT_EQUAL(area->displaced, COUNT_PROCESSES);
    CU_ASSERT_EQUAL(area->counter, (long)COUNT_PROCESSES * COUNT_THREADS * COUNT_ROUNDS);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

static void test_count_across_processes(void)
{
    count_across_processes(PTHREAD_MUTEX_DEFAULT, 0);
}

/* The same under a robust one: its sleepers watch the owner's thread. */
static void test_count_robust_across_processes(void)
{
    count_across_processes(PTHREAD_MUTEX_ERRORCHECK, 1);
}

/* ERRORCHECK held here: another process gets EBUSY, EPERM, ETIMEDOUT, and
 * EBUSY from destroy; its own mutexes give EDEADLK and count RECURSIVE holds. */
static void test_kinds_codes(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "codes", PTHREAD_MUTEX_ERRORCHECK, 0);

    init_shared(&area->other, PTHREAD_MUTEX_RECURSIVE, 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    CU_ASSERT_EQUAL(run_child("codes-busy", name), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(run_child("codes-own", name), 0);
    CU_ASSERT_EQUAL(area->displaced, 2);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->other), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), EINVAL);
    slimtest_unmap_shared(area);
}

/* The owner's relocks of DEFAULT (counted, as a private one's section does),
 * NORMAL (a deadlock: a timed one times out) and robust DEFAULT (likewise). */
static void test_owner_relocks(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "relock", PTHREAD_MUTEX_DEFAULT, 0);
    struct timespec soon;

    init_shared(&area->other, PTHREAD_MUTEX_NORMAL, 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&area->mutex), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), EPERM);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->other), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&area->other), EBUSY);
    soon = after_ms(SHORT_WAIT_MS);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&area->other, &soon), ETIMEDOUT);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->other), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    init_shared(&area->mutex, PTHREAD_MUTEX_DEFAULT, 1);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    soon = after_ms(SHORT_WAIT_MS);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&area->mutex, &soon), ETIMEDOUT);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), EPERM);
    slimtest_unmap_shared(area);
}

/* A timed lock succeeds when the other process releases in time, and
 * ETIMEDOUT comes no earlier than the deadline. */
static void test_timedlock_across_processes(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "timed", PTHREAD_MUTEX_NORMAL, 0);
    struct slimtest_child *child = start_child("hold-release", name);
    struct timespec later = after_ms(FLAG_TIMEOUT_MS);

    wait_for(&area->held, 1);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&area->mutex, &later), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), 0);
    slimtest_unmap_shared(area);
}

/* A child holds a robust mutex and ends in mode's way: the next locker here
 * gets EOWNERDEAD; consistent, then it is an ordinary mutex again. */
static void robust_owner_dies(const char *mode, int terminate)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, mode, PTHREAD_MUTEX_ERRORCHECK, 1);
    struct slimtest_child *child = start_child(mode, name);

    wait_for(&area->held, 1);
    if (terminate)
        slimtest_finish_child(child, 0); /* TerminateProcess */
    else
        CU_ASSERT_NOT_EQUAL(slimtest_finish_child(child, CHILD_TIMEOUT_MS), SLIMTEST_CHILD_HUNG);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

static void test_robust_owner_exit_process(void)
{
    robust_owner_dies("hold-exit", 0);
}

static void test_robust_owner_terminated(void)
{
    robust_owner_dies("hold-wait", 1);
}

static void test_robust_owner_crashes(void)
{
    robust_owner_dies("hold-crash", 0);
}

/* An owner thread that ends in a live process releases it through its exit
 * hook, marked: that process's next locker gets EOWNERDEAD; here it is fine. */
static void test_robust_owner_thread_ends(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "thread", PTHREAD_MUTEX_RECURSIVE, 1);

    CU_ASSERT_EQUAL(run_child("thread-exit", name), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

static DWORD WINAPI lock_and_stay(LPVOID raw)
{
    struct area *area = raw;

    pthread_mutex_lock(&area->mutex);
    __atomic_store_n(&area->held, 1, __ATOMIC_RELEASE);
    Sleep(INFINITE);
    return 0;
}

/* An owner thread killed by TerminateThread (no exit hook runs) is found dead
 * all the same: EOWNERDEAD. */
static void test_robust_owner_thread_terminated(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "killed", PTHREAD_MUTEX_ERRORCHECK, 1);
    HANDLE thread = CreateThread(NULL, 0, lock_and_stay, area, 0, NULL);

    CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
    wait_for(&area->held, 1);
    CU_ASSERT(TerminateThread(thread, 0));
    CU_ASSERT_EQUAL(WaitForSingleObject(thread, FLAG_TIMEOUT_MS), WAIT_OBJECT_0);
    CloseHandle(thread);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

/* A locker in another process, already asleep when the owner is terminated,
 * wakes with EOWNERDEAD within DEATH_NOTICED_MS. */
static void test_robust_blocked_locker_wakes(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "blocked", PTHREAD_MUTEX_NORMAL, 1);
    struct slimtest_child *owner = start_child("hold-wait", name), *locker;
    double killed;

    wait_for(&area->held, 1);
    locker = start_child("lock-robust", name);
    wait_for(&area->blocked, 1);
    slimtest_sleep_ms(SHORT_WAIT_MS); /* let it fall asleep */
    killed = slimtest_now_ms();
    slimtest_finish_child(owner, 0);
    CU_ASSERT_EQUAL(slimtest_finish_child(locker, CHILD_TIMEOUT_MS), 0);
    killed = slimtest_now_ms() - killed;
    printf(" [woken and ended %.0f ms after the owner's end] ", killed);
    CU_ASSERT(killed < DEATH_NOTICED_MS);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

/* Unlocked without consistent: ENOTRECOVERABLE for every later locker, in
 * any process. */
static void test_robust_not_recoverable(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "notrec", PTHREAD_MUTEX_RECURSIVE, 1);

    CU_ASSERT_NOT_EQUAL(run_child("hold-exit", name), SLIMTEST_CHILD_HUNG);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), ENOTRECOVERABLE);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&area->mutex), ENOTRECOVERABLE);
    CU_ASSERT_EQUAL(run_child("hold-exit", name), BAD_RESULT + ENOTRECOVERABLE);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

/* A non-robust mutex whose owner process died stays locked: trylock EBUSY,
 * a timed lock times out, destroy EBUSY. */
static void test_stalled_stays_locked(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "stalled", PTHREAD_MUTEX_DEFAULT, 0);
    struct timespec soon;

    CU_ASSERT_NOT_EQUAL(run_child("hold-exit", name), SLIMTEST_CHILD_HUNG);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&area->mutex), EBUSY);
    soon = after_ms(SHORT_WAIT_MS);
    CU_ASSERT_EQUAL(pthread_mutex_timedlock(&area->mutex, &soon), ETIMEDOUT);
    CU_ASSERT(slimtest_clock_reached(CLOCK_REALTIME, &soon));
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), EBUSY);
    slimtest_unmap_shared(area);
}

/* A process that ends while asleep on the mutex leaves the others unharmed. */
static void test_sleeper_process_ends(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "sleeper", PTHREAD_MUTEX_ERRORCHECK, 0);
    struct slimtest_child *child;

    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    child = start_child("block", name);
    wait_for(&area->blocked, 1);
    slimtest_sleep_ms(SHORT_WAIT_MS);
    CU_ASSERT_EQUAL(pthread_mutex_init(&area->mutex, NULL), EBUSY); /* it sleeps on it */
    slimtest_finish_child(child, 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    CU_ASSERT_EQUAL(run_child("hold-release", name), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
    /* The count the dead sleeper left is no sleeper: init takes the mutex. */
    CU_ASSERT_EQUAL(pthread_mutex_init(&area->mutex, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

/* Memory that reads as a held shared mutex, as a copy of one or stack garbage
 * of small numbers can, is memory init must take (POSIX: any memory). */
static void test_init_takes_memory_like_a_held_mutex(void)
{
    pthread_mutex_t held, copy;

    init_shared(&held, PTHREAD_MUTEX_DEFAULT, 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&held), 0);
    memcpy(&copy, &held, sizeof copy);
    CU_ASSERT_EQUAL(pthread_mutex_init(&copy, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&copy), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&copy), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&copy), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&held), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&held), 0);
}

/* ---- Nothing kept per object ---- */

/* The next handle value this process would get: handles are taken lowest
 * first, so leaked ones push it up (GetProcessHandleCount reads 0 under Wine). */
static uintptr_t next_handle(void)
{
    HANDLE probe = CreateEventW(NULL, FALSE, FALSE, NULL);

    CloseHandle(probe);
    return (uintptr_t)probe;
}

static size_t private_bytes(void)
{
    PROCESS_MEMORY_COUNTERS_EX counters;

    memset(&counters, 0, sizeof counters);
    counters.cb = sizeof counters;
    if (!K32GetProcessMemoryInfo(GetCurrentProcess(), (PROCESS_MEMORY_COUNTERS *)&counters,
                                 sizeof counters))
        return 0;
    return counters.PagefileUsage;
}

/* One thread that sleeps on the mutex whenever it is told to, for a whole
 * loop: a thread made per round would measure thread creation (Debian's
 * arm64 Wine keeps memory per ended thread), not the mutex. */
struct contender {
    pthread_mutex_t *mutex;
    HANDLE go, done;
    volatile long stop;
    volatile long errors;
};

static void contender_routine(void *raw)
{
    struct contender *contender = raw;

    for (;;) {
        WaitForSingleObject(contender->go, INFINITE);
        if (__atomic_load_n(&contender->stop, __ATOMIC_ACQUIRE))
            return;
        if (pthread_mutex_lock(contender->mutex) != 0 ||
            pthread_mutex_unlock(contender->mutex) != 0)
            __atomic_add_fetch(&contender->errors, 1, __ATOMIC_RELAXED);
        SetEvent(contender->done);
    }
}

/* Makes the contender sleep on the held mutex (a doorbell made and gone). */
static void contend(struct contender *contender)
{
    CU_ASSERT_EQUAL(pthread_mutex_lock(contender->mutex), 0);
    SetEvent(contender->go);
    slimtest_sleep_ms(2);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(contender->mutex), 0);
    CU_ASSERT_EQUAL(WaitForSingleObject(contender->done, FLAG_TIMEOUT_MS), WAIT_OBJECT_0);
}

/* What a loop left behind: handles (in handle values) and bytes. */
struct growth {
    uintptr_t handles;
    size_t bytes;
};

struct footprint {
    uintptr_t next_handle;
    size_t bytes;
};

static struct footprint footprint_now(void)
{
    struct footprint now = {next_handle(), private_bytes()};

    return now;
}

static struct growth growth_since(struct footprint before)
{
    struct footprint after = footprint_now();
    struct growth grown = {after.next_handle - before.next_handle, after.bytes - before.bytes};

    printf(" [next handle %#lx -> %#lx, pagefile bytes %lu -> %lu] ",
           (unsigned long)before.next_handle, (unsigned long)after.next_handle,
           (unsigned long)before.bytes, (unsigned long)after.bytes);
    return grown;
}

/* No more growth than baseline, and the slack. */
static void check_no_growth(struct growth grown, struct growth baseline)
{
    CU_ASSERT(grown.handles <= baseline.handles + HANDLE_SLACK * sizeof(HANDLE));
    CU_ASSERT(grown.bytes <= baseline.bytes + MEMORY_SLACK);
}

static void test_init_destroy_loop_keeps_nothing(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "loop", PTHREAD_MUTEX_DEFAULT, 0);
    long round;
    struct growth nothing = {0, 0};
    struct footprint before;
    struct contender contender = {&area->mutex, CreateEventW(NULL, FALSE, FALSE, NULL),
                                  CreateEventW(NULL, FALSE, FALSE, NULL), 0, 0};
    struct slimtest_thread *thread = slimtest_start_thread(contender_routine, &contender);

    contend(&contender); /* the first doorbell: whatever stays for good */
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    before = footprint_now();
    for (round = 0; round < LEAK_ROUNDS; round++) {
        init_shared(&area->mutex, PTHREAD_MUTEX_DEFAULT, round & 1);
        if (round % LEAK_CONTENDED_EVERY == 0)
            contend(&contender);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&area->mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&area->mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    }
    check_no_growth(growth_since(before), nothing);
    __atomic_store_n(&contender.stop, 1, __ATOMIC_RELEASE);
    SetEvent(contender.go);
    slimtest_join_thread(thread, SLIMTEST_JOIN_TIMEOUT_MS);
    CU_ASSERT_EQUAL(contender.errors, 0);
    CloseHandle(contender.go);
    CloseHandle(contender.done);
    slimtest_unmap_shared(area);
}

/* MAP_ROUNDS times: a view of the mapping (at a new address, often), a lock
 * and an unlock in it, the view unmapped. One handle to the mapping for all
 * (slimtest_map_shared keeps one per call, for good). */
static void test_map_unmap_loop_keeps_nothing(void)
{
    char name[NAME_SIZE];
    struct area *area = make_area(name, "maps", PTHREAD_MUTEX_RECURSIVE, 1);
    HANDLE mapping = OpenFileMappingA(FILE_MAP_READ | FILE_MAP_WRITE, FALSE, name);
    struct growth nothing = {0, 0};
    struct footprint before = footprint_now();
    long round;

    CU_ASSERT_PTR_NOT_NULL_FATAL(mapping);
    for (round = 0; round < MAP_ROUNDS; round++) {
        struct area *view = MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, sizeof *view);

        CU_ASSERT_PTR_NOT_NULL_FATAL(view);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&view->mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&view->mutex), 0);
        UnmapViewOfFile(view);
    }
    check_no_growth(growth_since(before), nothing);
    CloseHandle(mapping);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&area->mutex), 0);
    slimtest_unmap_shared(area);
}

static CU_TestInfo cases[] = {
    {"4 processes x 2 threads count exactly", test_count_across_processes},
    {"4 processes x 2 threads count exactly, robust", test_count_robust_across_processes},
    {"kinds' codes across processes", test_kinds_codes},
    {"the owner's relocks: DEFAULT counts, NORMAL and robust DEFAULT deadlock",
     test_owner_relocks},
    {"timedlock succeeds when released in time", test_timedlock_across_processes},
    {"robust: owner process calls ExitProcess", test_robust_owner_exit_process},
    {"robust: owner process terminated", test_robust_owner_terminated},
    {"robust: owner process crashes", test_robust_owner_crashes},
    {"robust: owner thread ends, its process lives", test_robust_owner_thread_ends},
    {"robust: owner thread killed by TerminateThread", test_robust_owner_thread_terminated},
    {"robust: a locker asleep when the owner dies wakes with EOWNERDEAD",
     test_robust_blocked_locker_wakes},
    {"robust: ENOTRECOVERABLE after unlock without consistent", test_robust_not_recoverable},
    {"not robust: a dead owner's mutex stays locked", test_stalled_stays_locked},
    {"a process that ends asleep on it harms nobody", test_sleeper_process_ends},
    {"init takes memory that reads as a held shared mutex",
     test_init_takes_memory_like_a_held_mutex},
    {"100000 init/lock/unlock/destroy keep nothing", test_init_destroy_loop_keeps_nothing},
    {"map/lock/unlock/unmap loop keeps nothing", test_map_unmap_loop_keeps_nothing},
    CU_TEST_INFO_NULL,
};

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], argv[3]);
    return slimtest_run("pshared_mutex", cases, 240);
}
