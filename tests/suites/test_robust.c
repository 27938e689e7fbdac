/*
 * test_robust.c - robust mutexes (process-private): EOWNERDEAD to the next locker
 * when the owner exits holding one, pthread_mutex_consistent, ENOTRECOVERABLE.
 *
 * Owners end every way a thread can: returning from a pthread_create routine,
 * pthread_exit, and plain Win32 threads (CreateThread) returning or calling
 * ExitThread. Threads only record what they saw; the main thread asserts.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <string.h>
#include "testutil.h"

#define KINDS 4
#define WAITERS 3
#define COUNT_THREADS 4
#define COUNT_ITERATIONS 2000
#define SETTLE_LIMIT_MS 10000.0

static const int all_kinds[KINDS] = {PTHREAD_MUTEX_DEFAULT, PTHREAD_MUTEX_NORMAL,
                                     PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE};

static void init_robust(pthread_mutex_t *mutex, int kind)
{
    pthread_mutexattr_t attr;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_settype(&attr, kind), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(mutex, &attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
}

/* ---- Owners that end while holding ---- */

/* What an owner thread does: lock `times` times, then end without unlocking. */
struct owner {
    pthread_mutex_t *mutex;
    int times;
    volatile long locked;   /* set once it holds the mutex */
    HANDLE release;         /* if not NULL: waits for it before ending */
    int errors;             /* lock results other than 0 */
};

static void owner_locks(struct owner *owner)
{
    int i;

    for (i = 0; i < owner->times; i++)
        if (pthread_mutex_lock(owner->mutex) != 0)
            owner->errors++;
    __atomic_store_n(&owner->locked, 1, __ATOMIC_RELEASE);
    if (owner->release != NULL)
        WaitForSingleObject(owner->release, INFINITE);
}

static void *owner_returns(void *raw)
{
    owner_locks(raw);
    return NULL;
}

static void *owner_calls_pthread_exit(void *raw)
{
    owner_locks(raw);
    pthread_exit(NULL);
    return raw; /* never reached */
}

static DWORD WINAPI win32_owner_returns(void *raw)
{
    owner_locks(raw);
    return 0;
}

static DWORD WINAPI win32_owner_calls_exit_thread(void *raw)
{
    owner_locks(raw);
    ExitThread(0);
}

/* Runs an owner that locks mutex `times` times on a pthread and ends holding it. */
static void pthread_owner_dies(pthread_mutex_t *mutex, int times, void *(*routine)(void *))
{
    struct owner owner = {mutex, times, 0, NULL, 0};
    pthread_t thread;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, routine, &owner), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(owner.errors, 0);
}

/* A robust mutex of kind whose owner, a pthread, locked it `times` times and
 * returned holding it. */
static void init_owner_dead(pthread_mutex_t *mutex, int kind, int times)
{
    init_robust(mutex, kind);
    pthread_owner_dies(mutex, times, owner_returns);
}

static void win32_owner_dies(pthread_mutex_t *mutex, LPTHREAD_START_ROUTINE routine)
{
    struct owner owner = {mutex, 1, 0, NULL, 0};
    HANDLE thread = CreateThread(NULL, 0, routine, &owner, 0, NULL);

    CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
    CU_ASSERT_EQUAL(WaitForSingleObject(thread, 30000), WAIT_OBJECT_0);
    CloseHandle(thread);
    CU_ASSERT_EQUAL(owner.errors, 0);
}

/* ---- What another thread sees ---- */

enum other_action { OTHER_TRYLOCK, OTHER_LOCK, OTHER_UNLOCK, OTHER_CONSISTENT };

struct other {
    pthread_mutex_t *mutex;
    enum other_action action;
    int result;
};

static void *other_acts(void *raw)
{
    struct other *other = raw;

    switch (other->action) {
    case OTHER_TRYLOCK:
        other->result = pthread_mutex_trylock(other->mutex);
        break;
    case OTHER_LOCK:
        other->result = pthread_mutex_lock(other->mutex);
        break;
    case OTHER_UNLOCK:
        other->result = pthread_mutex_unlock(other->mutex);
        return NULL;
    case OTHER_CONSISTENT:
        other->result = pthread_mutex_consistent(other->mutex);
        return NULL;
    }
    /* Leaves the mutex as it found it, so that this thread never dies holding it. */
    if (other->result == EOWNERDEAD)
        pthread_mutex_consistent(other->mutex);
    if (other->result == 0 || other->result == EOWNERDEAD)
        pthread_mutex_unlock(other->mutex);
    return NULL;
}

/* What action on mutex returns on another (pthread) thread. */
static int on_other_thread(pthread_mutex_t *mutex, enum other_action action)
{
    struct other other = {mutex, action, -1};
    pthread_t thread;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, other_acts, &other), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    return other.result;
}

/* ---- Attributes ---- */

static void test_setrobust_getrobust(void)
{
    pthread_mutexattr_t attr;
    int robustness = -1;

    CU_ASSERT_EQUAL(pthread_mutexattr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), 0);
    CU_ASSERT_EQUAL(robustness, PTHREAD_MUTEX_STALLED);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), 0);
    CU_ASSERT_EQUAL(robustness, PTHREAD_MUTEX_ROBUST);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, 2), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, -1), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), 0);
    CU_ASSERT_EQUAL(robustness, PTHREAD_MUTEX_ROBUST); /* unchanged by the refusals */
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_STALLED), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), 0);
    CU_ASSERT_EQUAL(robustness, PTHREAD_MUTEX_STALLED);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST_NP), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(NULL, PTHREAD_MUTEX_ROBUST), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(NULL, &robustness), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_destroy(&attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getrobust(&attr, &robustness), EINVAL);
}

/* ---- A robust mutex nobody abandons behaves like its kind ---- */

static void test_robust_kinds_in_normal_use(void)
{
    struct timespec soon;
    int k;

    for (k = 0; k < KINDS; k++) {
        pthread_mutex_t mutex;
        int kind = all_kinds[k];

        init_robust(&mutex, kind);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EPERM); /* not locked */
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_consistent(&mutex), EINVAL); /* nothing to recover */
        CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_TRYLOCK), EBUSY);
        /* Even DEFAULT checks the owner: the owner's list must stay right. */
        CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_UNLOCK), EPERM);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), EBUSY);
        soon = slimtest_time_after_ms(CLOCK_REALTIME, 50);
        if (kind == PTHREAD_MUTEX_RECURSIVE) {
            CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
            CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &soon), 0);
            CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
            CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        } else {
            CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EBUSY);
            CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &soon),
                            kind == PTHREAD_MUTEX_ERRORCHECK ? EDEADLK : ETIMEDOUT);
        }
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EPERM);
        CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_LOCK), 0); /* that thread unlocked it */
        CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0); /* and did not die holding it */
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    }
}

/* The robust mutex as testutil's counter takes it: every fourth round tries
 * first, and a holder sleeps now and then so that the others go to sleep. */
static int lock_or_try_first(void *mutex, long round)
{
    int error = round % 4 == 0 ? pthread_mutex_trylock(mutex) : pthread_mutex_lock(mutex);

    if (error == EBUSY && round % 4 == 0)
        error = pthread_mutex_lock(mutex);
    return error;
}

static int counter_unlock(void *mutex)
{
    return pthread_mutex_unlock(mutex);
}

static void sleep_now_and_then(long round)
{
    if (round % 200 == 0)
        Sleep(1);
}

/* A counting thread started by pthread_create. */
static void *count_under_robust_lock(void *counter)
{
    slimtest_count_under_lock(counter);
    return NULL;
}

/* Every thread unlocks before it ends: nobody may be told EOWNERDEAD. */
static void test_robust_counter_exact_each_kind(void)
{
    int k, i;

    for (k = 0; k < KINDS; k++) {
        pthread_t threads[COUNT_THREADS];
        pthread_mutex_t mutex;
        struct slimtest_counter counter = {&mutex, lock_or_try_first, counter_unlock,
                                           sleep_now_and_then, COUNT_ITERATIONS, 0, 0};

        init_robust(&mutex, all_kinds[k]);
        for (i = 0; i < COUNT_THREADS; i++)
            CU_ASSERT_EQUAL_FATAL(
                pthread_create(&threads[i], NULL, count_under_robust_lock, &counter), 0);
        for (i = 0; i < COUNT_THREADS; i++)
            CU_ASSERT_EQUAL(pthread_join(threads[i], NULL), 0);
        CU_ASSERT_EQUAL(counter.errors, 0);
        CU_ASSERT_EQUAL(counter.value, COUNT_THREADS * COUNT_ITERATIONS);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    }
}

/* ---- Owner death ---- */

/* The mutex's owner died: the caller recovers it and checks it works again. */
static void recover_and_use(pthread_mutex_t *mutex, int first_lock_result)
{
    CU_ASSERT_EQUAL(first_lock_result, EOWNERDEAD);
    CU_ASSERT_EQUAL(on_other_thread(mutex, OTHER_TRYLOCK), EBUSY); /* the caller owns it */
    CU_ASSERT_EQUAL(on_other_thread(mutex, OTHER_CONSISTENT), EINVAL); /* not the owner */
    CU_ASSERT_EQUAL(pthread_mutex_consistent(mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(mutex), EINVAL); /* consistent already */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(mutex), 0);
    CU_ASSERT_EQUAL(on_other_thread(mutex, OTHER_LOCK), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(mutex), 0);
}

static void test_owner_returns_each_kind(void)
{
    int k;

    for (k = 0; k < KINDS; k++) {
        pthread_mutex_t mutex;

        init_owner_dead(&mutex, all_kinds[k], 1);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EPERM); /* nobody holds it */
        recover_and_use(&mutex, pthread_mutex_lock(&mutex));
    }
}

static void test_owner_pthread_exits_each_kind(void)
{
    int k;

    for (k = 0; k < KINDS; k++) {
        pthread_mutex_t mutex;

        init_robust(&mutex, all_kinds[k]);
        pthread_owner_dies(&mutex, 1, owner_calls_pthread_exit);
        recover_and_use(&mutex, pthread_mutex_trylock(&mutex));
    }
}

static void test_win32_thread_owner_ends(void)
{
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 10000);
    struct timespec later_monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 10000);
    pthread_mutex_t mutex;

    init_robust(&mutex, PTHREAD_MUTEX_DEFAULT);
    win32_owner_dies(&mutex, win32_owner_returns);
    recover_and_use(&mutex, pthread_mutex_timedlock(&mutex, &later));

    init_robust(&mutex, PTHREAD_MUTEX_ERRORCHECK);
    win32_owner_dies(&mutex, win32_owner_calls_exit_thread);
    recover_and_use(&mutex, pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &later_monotonic));
}

/* POSIX: unlocked without pthread_mutex_consistent, the mutex is lost for good. */
static void test_unlock_without_consistent_not_recoverable(void)
{
    int k;

    for (k = 0; k < KINDS; k++) {
        struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 10000);
        struct timespec later_monotonic = slimtest_time_after_ms(CLOCK_MONOTONIC, 10000);
        pthread_mutex_t mutex;

        init_owner_dead(&mutex, all_kinds[k], 1);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EOWNERDEAD);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), ENOTRECOVERABLE);
        CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), ENOTRECOVERABLE);
        CU_ASSERT_EQUAL(pthread_mutex_timedlock(&mutex, &later), ENOTRECOVERABLE);
        CU_ASSERT_EQUAL(pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &later_monotonic),
                        ENOTRECOVERABLE);
        CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_LOCK), ENOTRECOVERABLE);
        CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_TRYLOCK), ENOTRECOVERABLE);
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EPERM); /* ENOTRECOVERABLE: not owned */
        CU_ASSERT_EQUAL(pthread_mutex_consistent(&mutex), EINVAL);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0); /* all it is good for now */
        CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EINVAL);
    }
}

static void test_consistent_errors(void)
{
    pthread_mutex_t plain, robust;
    pthread_mutex_t static_mutex = PTHREAD_MUTEX_INITIALIZER;
    struct owner owner = {&robust, 1, 0, NULL, 0};
    pthread_t thread;

    /* Not robust: EINVAL, locked or not, whatever its kind. */
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&static_mutex), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_init(&plain, NULL), 0);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&plain), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&plain), 0);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&plain), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&plain), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&plain), 0);

    /* Robust but not owner-dead: free, or held consistent. */
    init_robust(&robust, PTHREAD_MUTEX_RECURSIVE);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&robust), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&robust), 0);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&robust), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&robust), 0);

    /* Owner dead but nobody has taken it yet: nothing the caller could have repaired. */
    pthread_owner_dies(&robust, 1, owner_returns);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&robust), EINVAL);
    /* Inconsistent, held by another thread: only its owner may declare it repaired. */
    owner.release = CreateEventW(NULL, TRUE, FALSE, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(owner.release);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, owner_returns, &owner), 0);
    while (!__atomic_load_n(&owner.locked, __ATOMIC_ACQUIRE))
        Sleep(1);
    CU_ASSERT_EQUAL(owner.errors, 1); /* its lock gave EOWNERDEAD */
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&robust), EINVAL);
    SetEvent(owner.release); /* it dies holding the still inconsistent mutex */
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CloseHandle(owner.release);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&robust), EOWNERDEAD); /* dead again: EOWNERDEAD again */
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&robust), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&robust), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&robust), 0);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&robust), EINVAL); /* destroyed */
}

static void test_destroy_owner_dead(void)
{
    pthread_mutex_t mutex;

    init_owner_dead(&mutex, PTHREAD_MUTEX_NORMAL, 1);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0); /* nobody holds it */

    init_owner_dead(&mutex, PTHREAD_MUTEX_NORMAL, 1);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), EBUSY); /* the caller holds it */
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

static void test_recursive_held_three_times(void)
{
    pthread_mutex_t mutex;

    init_owner_dead(&mutex, PTHREAD_MUTEX_RECURSIVE, 3);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&mutex), 0);
    CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_TRYLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0); /* the new owner's own count: 2 */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_TRYLOCK), EBUSY);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0); /* nothing left of the dead owner's 3 */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), EPERM);
    CU_ASSERT_EQUAL(on_other_thread(&mutex, OTHER_TRYLOCK), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

/* An owner that relocks a recursive mutex after EOWNERDEAD and unlocks once is
 * still inconsistent: only its last unlock makes the mutex unrecoverable. */
static void test_recursive_inconsistent_until_last_unlock(void)
{
    pthread_mutex_t mutex;

    init_owner_dead(&mutex, PTHREAD_MUTEX_RECURSIVE, 2);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&mutex), 0); /* still held, still inconsistent */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

/* ---- Sleepers when the owner dies ---- */

struct waiter {
    pthread_mutex_t *mutex;
    int make_consistent; /* on EOWNERDEAD: repair, or unlock as it is */
    int timed;
    int result;
};

static void *waiter_locks(void *raw)
{
    struct waiter *waiter = raw;
    struct timespec later = slimtest_time_after_ms(CLOCK_MONOTONIC, 30000);

    waiter->result = waiter->timed
                         ? pthread_mutex_clocklock(waiter->mutex, CLOCK_MONOTONIC, &later)
                         : pthread_mutex_lock(waiter->mutex);
    if (waiter->result == EOWNERDEAD && waiter->make_consistent)
        pthread_mutex_consistent(waiter->mutex);
    if (waiter->result == 0 || waiter->result == EOWNERDEAD)
        pthread_mutex_unlock(waiter->mutex);
    return NULL;
}

/* WAITERS threads sleep in lock (one in clocklock) on a mutex whose owner then
 * dies; returns how many got each result. */
static void owner_dies_under_sleepers(int kind, int make_consistent, int *owner_dead,
                                      int *succeeded, int *not_recoverable)
{
    pthread_mutex_t mutex;
    struct owner owner = {&mutex, kind == PTHREAD_MUTEX_RECURSIVE ? 2 : 1, 0, NULL, 0};
    struct waiter waiters[WAITERS];
    pthread_t owner_thread, threads[WAITERS];
    double start;
    int i;

    init_robust(&mutex, kind);
    owner.release = CreateEventW(NULL, TRUE, FALSE, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(owner.release);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&owner_thread, NULL, owner_returns, &owner), 0);
    while (!__atomic_load_n(&owner.locked, __ATOMIC_ACQUIRE))
        Sleep(1);
    for (i = 0; i < WAITERS; i++) {
        waiters[i].mutex = &mutex;
        waiters[i].make_consistent = make_consistent;
        waiters[i].timed = i == 0;
        waiters[i].result = -1;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, waiter_locks, &waiters[i]), 0);
    }
    /* Every waiter is in the contended path (counted in __waiters): asleep or about to be. */
    start = slimtest_now_ms();
    while (__atomic_load_n(&mutex.__waiters, __ATOMIC_ACQUIRE) != WAITERS &&
           slimtest_now_ms() - start < SETTLE_LIMIT_MS)
        Sleep(1);
    CU_ASSERT_EQUAL(mutex.__waiters, WAITERS);
    Sleep(50);
    for (i = 0; i < WAITERS; i++)
        CU_ASSERT_EQUAL(waiters[i].result, -1); /* nobody got it from a living owner */
    SetEvent(owner.release);
    CU_ASSERT_EQUAL(pthread_join(owner_thread, NULL), 0);
    CU_ASSERT_EQUAL(owner.errors, 0);
    for (i = 0; i < WAITERS; i++)
        CU_ASSERT_EQUAL(pthread_join(threads[i], NULL), 0);
    CloseHandle(owner.release);
    *owner_dead = *succeeded = *not_recoverable = 0;
    for (i = 0; i < WAITERS; i++) {
        *owner_dead += waiters[i].result == EOWNERDEAD;
        *succeeded += waiters[i].result == 0;
        *not_recoverable += waiters[i].result == ENOTRECOVERABLE;
    }
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
}

static void test_sleepers_woken_when_owner_dies(void)
{
    int k, owner_dead, succeeded, not_recoverable;

    for (k = 0; k < KINDS; k++) {
        owner_dies_under_sleepers(all_kinds[k], 1, &owner_dead, &succeeded, &not_recoverable);
        CU_ASSERT_EQUAL(owner_dead, 1);
        CU_ASSERT_EQUAL(succeeded, WAITERS - 1);
        CU_ASSERT_EQUAL(not_recoverable, 0);
    }
}

static void test_sleepers_told_not_recoverable(void)
{
    int owner_dead, succeeded, not_recoverable;

    owner_dies_under_sleepers(PTHREAD_MUTEX_DEFAULT, 0, &owner_dead, &succeeded,
                              &not_recoverable);
    CU_ASSERT_EQUAL(owner_dead, 1);
    CU_ASSERT_EQUAL(succeeded, 0);
    CU_ASSERT_EQUAL(not_recoverable, WAITERS - 1);
}

/* ---- The owner's list ---- */

#define HELD 4

struct several {
    pthread_mutex_t mutexes[HELD];
    int errors;
};

/* Locks all, unlocks the first locked (the list's tail) and a middle one, and
 * ends holding the others, the last locked (the list's head) among them. */
static void *hold_several_then_return(void *raw)
{
    struct several *several = raw;
    int i;

    for (i = 0; i < HELD; i++)
        several->errors += pthread_mutex_lock(&several->mutexes[i]) != 0;
    several->errors += pthread_mutex_unlock(&several->mutexes[0]) != 0;
    several->errors += pthread_mutex_unlock(&several->mutexes[2]) != 0;
    return NULL;
}

static void test_several_held_unlocked_out_of_order(void)
{
    struct several several;
    pthread_t thread;
    int i;

    memset(&several, 0, sizeof several);
    for (i = 0; i < HELD; i++)
        init_robust(&several.mutexes[i], all_kinds[i % KINDS]);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, hold_several_then_return, &several), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(several.errors, 0);
    for (i = 0; i < HELD; i++) {
        int expected = i == 0 || i == 2 ? 0 : EOWNERDEAD;

        CU_ASSERT_EQUAL(pthread_mutex_trylock(&several.mutexes[i]), expected);
        if (expected == EOWNERDEAD)
            CU_ASSERT_EQUAL(pthread_mutex_consistent(&several.mutexes[i]), 0);
    }
    /* Unlocked by the main thread in yet another order, then all free and consistent. */
    for (i = HELD - 1; i >= 0; i -= 2)
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&several.mutexes[i]), 0);
    for (i = 0; i < HELD; i += 2)
        CU_ASSERT_EQUAL(pthread_mutex_unlock(&several.mutexes[i]), 0);
    for (i = 0; i < HELD; i++) {
        CU_ASSERT_EQUAL(on_other_thread(&several.mutexes[i], OTHER_TRYLOCK), 0);
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&several.mutexes[i]), 0);
    }
}

/* ---- Where else owner death shows ---- */

/* Released only after the key destructors, which run on the exiting thread and
 * may still lock. */
static pthread_mutex_t destructor_mutex;
static volatile long destructor_lock_result = -1;

static void destructor_locks(void *value)
{
    (void)value;
    destructor_lock_result = pthread_mutex_lock(&destructor_mutex);
}

static void *set_key_and_return(void *raw)
{
    static int any_value;

    pthread_setspecific(*(pthread_key_t *)raw, &any_value);
    return NULL;
}

static void test_key_destructor_dies_holding(void)
{
    pthread_key_t key;
    pthread_t thread;

    init_robust(&destructor_mutex, PTHREAD_MUTEX_ERRORCHECK);
    CU_ASSERT_EQUAL_FATAL(pthread_key_create(&key, destructor_locks), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, set_key_and_return, &key), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(destructor_lock_result, 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&destructor_mutex), EOWNERDEAD);
    CU_ASSERT_EQUAL(pthread_mutex_consistent(&destructor_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&destructor_mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&destructor_mutex), 0);
    CU_ASSERT_EQUAL(pthread_key_delete(key), 0);
}

struct cond_case {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    volatile long waiting; /* set under the mutex just before cond_wait */
    int wait_result;
    int consistent_result;
};

static void *cond_waiter(void *raw)
{
    struct cond_case *c = raw;

    if (pthread_mutex_lock(&c->mutex) != 0)
        return NULL;
    c->waiting = 1;
    while (c->waiting == 1)
        if ((c->wait_result = pthread_cond_wait(&c->cond, &c->mutex)) != 0)
            break;
    if (c->wait_result == EOWNERDEAD)
        c->consistent_result = pthread_mutex_consistent(&c->mutex);
    pthread_mutex_unlock(&c->mutex);
    return NULL;
}

/* Takes the mutex (so the waiter is inside cond_wait), signals, dies holding it. */
static void *cond_signaller_dies(void *raw)
{
    struct cond_case *c = raw;

    if (pthread_mutex_lock(&c->mutex) == 0) {
        c->waiting = 2;
        pthread_cond_signal(&c->cond);
    }
    return NULL;
}

static void test_cond_wait_relock_owner_dead(void)
{
    struct cond_case c;
    pthread_t waiter, signaller;

    memset(&c, 0, sizeof c);
    c.wait_result = c.consistent_result = -1;
    init_robust(&c.mutex, PTHREAD_MUTEX_DEFAULT);
    CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&c.cond, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&waiter, NULL, cond_waiter, &c), 0);
    while (!__atomic_load_n(&c.waiting, __ATOMIC_ACQUIRE))
        Sleep(1);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&signaller, NULL, cond_signaller_dies, &c), 0);
    CU_ASSERT_EQUAL(pthread_join(signaller, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(waiter, NULL), 0);
    CU_ASSERT_EQUAL(c.wait_result, EOWNERDEAD);
    CU_ASSERT_EQUAL(c.consistent_result, 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&c.mutex), 0); /* the waiter repaired and released it */
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&c.mutex), 0);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&c.cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&c.mutex), 0);
}

static CU_TestInfo cases[] = {
    {"setrobust/getrobust: STALLED, ROBUST, EINVAL", test_setrobust_getrobust},
    {"robust mutexes in normal use behave like their kind", test_robust_kinds_in_normal_use},
    {"robust counter exact under contention, nobody told EOWNERDEAD",
     test_robust_counter_exact_each_kind},
    {"owner returns holding it: EOWNERDEAD, consistent, normal use (each kind)",
     test_owner_returns_each_kind},
    {"owner calls pthread_exit holding it: EOWNERDEAD to trylock (each kind)",
     test_owner_pthread_exits_each_kind},
    {"CreateThread owner returns or calls ExitThread holding it: EOWNERDEAD to timed/clocklock",
     test_win32_thread_owner_ends},
    {"unlock without consistent: ENOTRECOVERABLE for every lock (each kind)",
     test_unlock_without_consistent_not_recoverable},
    {"consistent: EINVAL unless robust, owner-dead and held by the caller",
     test_consistent_errors},
    {"destroy of an owner-dead mutex: 0, or EBUSY while held", test_destroy_owner_dead},
    {"recursive robust mutex held 3 times by a dying owner is fully released",
     test_recursive_held_three_times},
    {"recursive: inconsistent until its last unlock", test_recursive_inconsistent_until_last_unlock},
    {"sleepers when the owner dies: one EOWNERDEAD, the others get it after (each kind)",
     test_sleepers_woken_when_owner_dies},
    {"sleepers when the owner dies, not made consistent: ENOTRECOVERABLE to the others",
     test_sleepers_told_not_recoverable},
    {"several held, some unlocked out of order, owner dies", test_several_held_unlocked_out_of_order},
    {"a key destructor that dies holding one: EOWNERDEAD", test_key_destructor_dies_holding},
    {"cond_wait relocking a mutex whose owner died: EOWNERDEAD", test_cond_wait_relock_owner_dead},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("robust", cases, 60);
}
