/*
 * test_checked.c - the checked build (libslimpthreads-checked): lock-order
 * cycles and misuse are reported, correct programs are not.
 *
 * Compiled with -DSLIMPTHREADS_CHECKED. Reports go to a file of this run's
 * own (SLIMPTHREADS_CHECK_FILE, set before the first lock call); each case
 * reads what was appended during it. The abort mode and a NORMAL mutex's
 * relock (which blocks for good once reported) run in child processes. A case
 * that asserts no report first provokes a real one and sees it (its positive
 * control): a checker that reports nothing fails it.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <semaphore.h>
#include <threads.h>
#include "testutil.h"

#define REPORTS_MAX (256 * 1024)
#define CHILD_TIMEOUT_MS 30000
#define ABORT_EXIT_STATUS 3 /* the C runtime's abort() */

static char report_path[MAX_PATH];
static LONGLONG report_seen; /* bytes of the file the cases have read */
static char reports[REPORTS_MAX + 1];

/* What was reported since the last call. */
static const char *new_reports(void)
{
    HANDLE file = CreateFileA(report_path, GENERIC_READ,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                              OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    LARGE_INTEGER at;
    DWORD got = 0;

    reports[0] = '\0';
    if (file == INVALID_HANDLE_VALUE)
        return reports;
    at.QuadPart = report_seen;
    SetFilePointerEx(file, at, NULL, FILE_BEGIN);
    if (ReadFile(file, reports, REPORTS_MAX, &got, NULL))
        reports[got] = '\0';
    /* What did not fit is skipped: the next case starts at the end. */
    if (GetFileSizeEx(file, &at))
        report_seen = at.QuadPart;
    CloseHandle(file);
    return reports;
}

static int count_of(const char *text, const char *what)
{
    int count = 0;

    for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what))
        count++;
    return count;
}

static int names(const char *text, const void *object)
{
    char address[32];

    snprintf(address, sizeof address, "0x%llx", (unsigned long long)(uintptr_t)object);
    return strstr(text, address) != NULL;
}

#define INVERSION "slimpthreads-check: lock order inversion"

/* The positive control of a case that asserts no report: an AB/BA inversion on
 * two locks of its own, which must be reported, so that a checker that reports
 * nothing fails the case instead of passing it. The locks are destroyed, and
 * the report read, before the case's own sequence starts. */
static void see_an_inversion_reported(void)
{
    pthread_mutex_t a, b;

    pthread_mutex_init(&a, NULL);
    pthread_mutex_init(&b, NULL);
    new_reports();
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&a);
    pthread_mutex_unlock(&a);
    pthread_mutex_unlock(&b);
    CU_ASSERT_EQUAL(count_of(new_reports(), INVERSION), 1);
    pthread_mutex_destroy(&a);
    pthread_mutex_destroy(&b);
}

/* ---- Lock order ---- */

struct pair {
    pthread_mutex_t *first, *second;
};

static void *lock_pair(void *argument)
{
    struct pair *pair = argument;

    CU_ASSERT_EQUAL(pthread_mutex_lock(pair->first), 0);
    CU_ASSERT_EQUAL(pthread_mutex_lock(pair->second), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(pair->second), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(pair->first), 0);
    return NULL;
}

static void run_pair(pthread_mutex_t *first, pthread_mutex_t *second)
{
    struct pair pair = {first, second};
    pthread_t thread;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, lock_pair, &pair), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
}

/* Two threads that never overlap, in opposite orders: nothing hangs, and the
 * second order is reported with both locks, the thread and both sites. */
static void test_ab_ba(void)
{
    pthread_mutex_t a, b;
    const char *text;

    pthread_mutex_init(&a, NULL);
    pthread_mutex_init(&b, NULL);
    new_reports();
    run_pair(&a, &b);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    run_pair(&b, &a);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    CU_ASSERT(names(text, &a) && names(text, &b));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "this order closes a cycle"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "the opposite order was seen before"));
    /* Once: the same inversion again says nothing new. */
    run_pair(&b, &a);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_mutex_destroy(&a);
    pthread_mutex_destroy(&b);
}

/* The report's shape: each lock with its kind and init site, the thread id,
 * the sites as module+offset with an address for addr2line. */
static void test_report_format(void)
{
    pthread_mutex_t a, b;
    pthread_mutexattr_t attr;
    char thread_line[64];
    const char *text;

    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&a, &attr);
    pthread_mutex_init(&b, NULL);
    new_reports();
    lock_pair(&(struct pair){&a, &b});
    lock_pair(&(struct pair){&b, &a});
    text = new_reports();
    snprintf(thread_line, sizeof thread_line, "  thread %lu, at test_checked.exe+0x",
             GetCurrentThreadId());
    CU_ASSERT_PTR_NOT_NULL(strstr(text, thread_line));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "(ERRORCHECK, initialized at test_checked.exe+0x"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "(DEFAULT, initialized at test_checked.exe+0x"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "(addr2line -f -e test_checked.exe 0x"));
    CU_ASSERT(count_of(text, "the first taken at test_checked.exe+0x") == 2);
    CU_ASSERT(count_of(text, "the second at test_checked.exe+0x") == 2);
    pthread_mutex_destroy(&a);
    pthread_mutex_destroy(&b);
    pthread_mutexattr_destroy(&attr);
}

/* count locks in a ring: each pair in order, then the last before the first. */
static void check_ring(unsigned count)
{
    pthread_mutex_t locks[5];
    const char *text;

    for (unsigned i = 0; i < count; i++)
        pthread_mutex_init(&locks[i], NULL);
    new_reports();
    for (unsigned i = 0; i + 1 < count; i++)
        run_pair(&locks[i], &locks[i + 1]);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    run_pair(&locks[count - 1], &locks[0]);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    for (unsigned i = 0; i < count; i++)
        CU_ASSERT(names(text, &locks[i]));
    /* The closing order plus the count - 1 of the other way round. */
    CU_ASSERT_EQUAL(count_of(text, "      then "), (int)count);
    for (unsigned i = 0; i < count; i++)
        pthread_mutex_destroy(&locks[i]);
}

static void test_three_lock_cycle(void)
{
    check_ring(3);
}

static void test_five_lock_cycle(void)
{
    check_ring(5);
}

/* A cycle through a lock held in another order only in between (a -> b -> c
 * taken nested in one thread, then c -> a): the graph knows a -> c. */
static void test_nested_orders(void)
{
    pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER,
                    c = PTHREAD_MUTEX_INITIALIZER;
    const char *text;

    new_reports();
    pthread_mutex_lock(&a);
    pthread_mutex_lock(&b);
    pthread_mutex_lock(&c);
    pthread_mutex_unlock(&c);
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    run_pair(&c, &a);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "init not seen: static or earlier"));
}

/* Locks initialized in the opposite order of the one taken: each order taken
 * goes against the graph's first topological order, which must move, or the
 * closing order (agreeing with the stale one) would pass unsearched. */
static void test_cycle_against_init_order(void)
{
    pthread_mutex_t locks[4];
    const char *text;

    for (unsigned i = 4; i-- > 0;)
        pthread_mutex_init(&locks[i], NULL);
    new_reports();
    for (unsigned i = 0; i + 1 < 4; i++)
        run_pair(&locks[i], &locks[i + 1]);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    run_pair(&locks[3], &locks[0]);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    for (unsigned i = 0; i < 4; i++)
        pthread_mutex_destroy(&locks[i]);
}

#define ONE_ORDER_LOCKS 1000
#define NEST 8

/* 1,000 locks always taken in one order, nested 8 deep from every start: no report. */
static void test_one_order_no_report(void)
{
    static pthread_mutex_t locks[ONE_ORDER_LOCKS];

    /* Initialized last to first: the graph's first order is the opposite of
     * the one taken, so every order taken moves it (and must find no cycle). */
    for (unsigned i = ONE_ORDER_LOCKS; i-- > 0;)
        pthread_mutex_init(&locks[i], NULL);
    see_an_inversion_reported();
    for (unsigned start = 0; start + NEST <= ONE_ORDER_LOCKS; start++) {
        for (unsigned k = 0; k < NEST; k++)
            pthread_mutex_lock(&locks[start + k]);
        for (unsigned k = NEST; k-- > 0;)
            pthread_mutex_unlock(&locks[start + k]);
    }
    /* Pairs further apart: more orders, the same direction. */
    for (unsigned start = ONE_ORDER_LOCKS - NEST; start-- > 0;) {
        pthread_mutex_lock(&locks[start]);
        pthread_mutex_lock(&locks[start + NEST]);
        pthread_mutex_unlock(&locks[start + NEST]);
        pthread_mutex_unlock(&locks[start]);
    }
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    for (unsigned i = 0; i < ONE_ORDER_LOCKS; i++)
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&locks[i]), 0);
}

/* A trylock orders nothing (it cannot block): b then a after it is no cycle. */
static void test_trylock_no_order(void)
{
    pthread_mutex_t a, b;

    pthread_mutex_init(&a, NULL);
    pthread_mutex_init(&b, NULL);
    see_an_inversion_reported();
    CU_ASSERT_EQUAL(pthread_mutex_lock(&a), 0);
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&b), 0);
    pthread_mutex_unlock(&b);
    pthread_mutex_unlock(&a);
    run_pair(&b, &a);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_mutex_destroy(&a);
    pthread_mutex_destroy(&b);
}

/* A recursive relock orders nothing: r, a, r again is no cycle. */
static void test_recursive_relock(void)
{
    pthread_mutex_t r, a;
    pthread_mutexattr_t attr;

    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&r, &attr);
    pthread_mutex_init(&a, NULL);
    see_an_inversion_reported();
    pthread_mutex_lock(&r);
    pthread_mutex_lock(&a);
    CU_ASSERT_EQUAL(pthread_mutex_lock(&r), 0);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&r), 0);
    pthread_mutex_unlock(&a);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&r), 0);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_mutex_destroy(&r);
    pthread_mutex_destroy(&a);
    pthread_mutexattr_destroy(&attr);
}

/* Timed locks and C11's mtx_* order as lock does. */
static void test_timed_and_c11(void)
{
    mtx_t a, b;
    pthread_mutex_t c, d;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 10000);
    const char *text;

    mtx_init(&a, mtx_plain);
    mtx_init(&b, mtx_timed);
    pthread_mutex_init(&c, NULL);
    pthread_mutex_init(&d, NULL);
    new_reports();
    mtx_lock(&a);
    mtx_lock(&b);
    mtx_unlock(&b);
    mtx_unlock(&a);
    mtx_lock(&b);
    CU_ASSERT_EQUAL(mtx_timedlock(&a, &later), thrd_success);
    mtx_unlock(&a);
    mtx_unlock(&b);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    CU_ASSERT(names(text, &a) && names(text, &b));
    pthread_mutex_lock(&c);
    pthread_mutex_timedlock(&d, &later);
    pthread_mutex_unlock(&d);
    pthread_mutex_unlock(&c);
    pthread_mutex_lock(&d);
    CU_ASSERT_EQUAL(pthread_mutex_clocklock(&c, CLOCK_MONOTONIC, &(struct timespec){0, 0}), 0);
    CU_ASSERT_EQUAL(count_of(new_reports(), INVERSION), 1);
    pthread_mutex_unlock(&c);
    pthread_mutex_unlock(&d);
    mtx_destroy(&a);
    mtx_destroy(&b);
    pthread_mutex_destroy(&c);
    pthread_mutex_destroy(&d);
}

/* Rwlocks: a read -> write and a write -> read inversion are cycles (our
 * rwlock queues new readers behind a waiting writer); a second read of a
 * lock the thread reads already orders nothing. */
static void test_rwlock_cycles(void)
{
    pthread_rwlock_t x, y, z;
    const char *text;

    pthread_rwlock_init(&x, NULL);
    pthread_rwlock_init(&y, NULL);
    pthread_rwlock_init(&z, NULL);
    new_reports();
    pthread_rwlock_rdlock(&x);
    pthread_rwlock_wrlock(&y);
    pthread_rwlock_unlock(&y);
    pthread_rwlock_unlock(&x);
    pthread_rwlock_rdlock(&y);
    pthread_rwlock_wrlock(&x);
    pthread_rwlock_unlock(&x);
    pthread_rwlock_unlock(&y);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "held for reading"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "held for writing"));
    /* read -> read, then read while holding z, then z -> x again by reads. */
    pthread_rwlock_rdlock(&x);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&x), 0);
    pthread_rwlock_rdlock(&z);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&x), 0); /* recursive: no z -> x */
    pthread_rwlock_unlock(&x);
    pthread_rwlock_unlock(&z);
    pthread_rwlock_unlock(&x);
    pthread_rwlock_unlock(&x);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_rwlock_rdlock(&z);
    pthread_rwlock_rdlock(&x); /* z -> x by reads closes x -> z: reported */
    pthread_rwlock_unlock(&x);
    pthread_rwlock_unlock(&z);
    CU_ASSERT_EQUAL(count_of(new_reports(), INVERSION), 1);
    pthread_rwlock_destroy(&x);
    pthread_rwlock_destroy(&y);
    pthread_rwlock_destroy(&z);
}

/* Destroying forgets: the same memory made into new locks inherits no order;
 * an init over memory never destroyed forgets too. */
static void test_destroy_and_reuse(void)
{
    pthread_mutex_t *pair = malloc(2 * sizeof *pair);
    pthread_rwlock_t rw[2];

    pthread_mutex_init(&pair[0], NULL);
    pthread_mutex_init(&pair[1], NULL);
    see_an_inversion_reported();
    run_pair(&pair[0], &pair[1]);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&pair[0]), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&pair[1]), 0);
    pthread_mutex_init(&pair[0], NULL);
    pthread_mutex_init(&pair[1], NULL);
    run_pair(&pair[1], &pair[0]);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    /* Now 1 -> 0 is known: without a destroy, an init alone forgets it. */
    pthread_mutex_init(&pair[0], NULL);
    run_pair(&pair[0], &pair[1]);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_mutex_destroy(&pair[0]);
    pthread_mutex_destroy(&pair[1]);
    free(pair);
    pthread_rwlock_init(&rw[0], NULL);
    pthread_rwlock_init(&rw[1], NULL);
    pthread_rwlock_wrlock(&rw[0]);
    pthread_rwlock_wrlock(&rw[1]);
    pthread_rwlock_unlock(&rw[1]);
    pthread_rwlock_unlock(&rw[0]);
    pthread_rwlock_destroy(&rw[0]);
    pthread_rwlock_init(&rw[0], NULL);
    pthread_rwlock_wrlock(&rw[1]);
    pthread_rwlock_wrlock(&rw[0]);
    pthread_rwlock_unlock(&rw[0]);
    pthread_rwlock_unlock(&rw[1]);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_rwlock_destroy(&rw[0]);
    pthread_rwlock_destroy(&rw[1]);
}

/* A cond wait's relock is ordered after the locks still held: m, then l,
 * then a wait on m while holding l closes l -> m against m -> l. */
static void test_cond_relock_order(void)
{
    pthread_mutex_t m, l;
    pthread_cond_t cond;
    struct timespec soon = slimtest_time_after_ms(CLOCK_REALTIME, 1);

    pthread_mutex_init(&m, NULL);
    pthread_mutex_init(&l, NULL);
    pthread_cond_init(&cond, NULL);
    new_reports();
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&l);
    CU_ASSERT_EQUAL(pthread_cond_timedwait(&cond, &m, &soon), ETIMEDOUT);
    pthread_mutex_unlock(&l);
    pthread_mutex_unlock(&m);
    CU_ASSERT_EQUAL(count_of(new_reports(), INVERSION), 1);
    pthread_cond_destroy(&cond);
    pthread_mutex_destroy(&m);
    pthread_mutex_destroy(&l);
}

/* ---- Misuse ---- */

#define NOT_HELD "slimpthreads-check: unlock of a lock this thread does not hold"
#define UNUSABLE "slimpthreads-check: use of a destroyed or never initialized object"
#define RELEASED_FOR_OWNER "this unlock releases it for that thread"

static void *unlock_other(void *argument)
{
    pthread_mutex_unlock(argument);
    return NULL;
}

static void test_unlock_not_held(void)
{
    static const int kinds[] = {PTHREAD_MUTEX_DEFAULT, PTHREAD_MUTEX_NORMAL,
                                PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE};
    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    pthread_t thread;
    const char *text;

    for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        pthread_mutexattr_t attr;
        pthread_mutex_t m;

        pthread_mutexattr_init(&attr);
        pthread_mutexattr_settype(&attr, kinds[i]);
        pthread_mutex_init(&m, &attr);
        new_reports();
        pthread_mutex_unlock(&m); /* unlocked */
        text = new_reports();
        CU_ASSERT_EQUAL(count_of(text, NOT_HELD), 1);
        CU_ASSERT(names(text, &m));
        pthread_mutex_lock(&m); /* held by another thread */
        CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, unlock_other, &m), 0);
        pthread_join(thread, NULL);
        CU_ASSERT_EQUAL(count_of(new_reports(), NOT_HELD), 1);
        if (kinds[i] != PTHREAD_MUTEX_DEFAULT) /* DEFAULT lets another thread release it */
            CU_ASSERT_EQUAL(pthread_mutex_unlock(&m), 0); /* still the owner's */
        pthread_mutex_destroy(&m);
        pthread_mutexattr_destroy(&attr);
    }
    new_reports();
    pthread_rwlock_unlock(&rw);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, NOT_HELD), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "rwlock 0x"));
}

/* A mutex held by a thread that another thread unlocks (check.c: releases
 * by other threads). */
struct handoff {
    pthread_mutex_t *held, *other;
    HANDLE locked, unlocked_by_other; /* events */
    int still_owner;                  /* the unlock was refused (NORMAL: EPERM) */
};

static void *hold_while_other_unlocks(void *argument)
{
    struct handoff *handoff = argument;

    pthread_mutex_lock(handoff->held);
    SetEvent(handoff->locked);
    WaitForSingleObject(handoff->unlocked_by_other, INFINITE);
    if (handoff->still_owner) {
        CU_ASSERT_EQUAL(pthread_mutex_unlock(handoff->held), 0);
        return NULL;
    }
    /* Released: taking another lock orders nothing after it, taking it again
     * is no relock, and the thread exits holding nothing. */
    pthread_mutex_lock(handoff->other);
    pthread_mutex_unlock(handoff->other);
    pthread_mutex_lock(handoff->held);
    pthread_mutex_unlock(handoff->held);
    return NULL;
}

static const char *unlock_while_held_by_other(pthread_mutex_t *held, pthread_mutex_t *other,
                                              int still_owner, int expected_error)
{
    struct handoff handoff = {held, other, CreateEventA(NULL, TRUE, FALSE, NULL),
                              CreateEventA(NULL, TRUE, FALSE, NULL), still_owner};
    pthread_t thread;

    new_reports();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, hold_while_other_unlocks, &handoff), 0);
    WaitForSingleObject(handoff.locked, INFINITE);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(held), expected_error);
    SetEvent(handoff.unlocked_by_other);
    pthread_join(thread, NULL);
    CloseHandle(handoff.locked);
    CloseHandle(handoff.unlocked_by_other);
    return new_reports();
}

static void test_unlocked_by_other_thread(void)
{
    pthread_mutexattr_t attr;
    pthread_mutex_t m, other;
    const char *text;

    pthread_mutex_init(&m, NULL);
    pthread_mutex_init(&other, NULL);
    /* DEFAULT: the unlock releases it (like glibc); the owner's state follows. */
    text = unlock_while_held_by_other(&m, &other, 0, 0);
    CU_ASSERT_EQUAL(count_of(text, NOT_HELD), 1);
    CU_ASSERT_EQUAL(count_of(text, RELEASED_FOR_OWNER), 1);
    CU_ASSERT_EQUAL(count_of(text, "relock of a DEFAULT mutex"), 0);
    CU_ASSERT_EQUAL(count_of(text, "thread exits holding locks"), 0);
    /* No order m -> other was recorded: the opposite one is no inversion. */
    pthread_mutex_lock(&other);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&other);
    CU_ASSERT_EQUAL(count_of(new_reports(), INVERSION), 0);
    pthread_mutex_destroy(&m);

    /* NORMAL: the unlock is refused, the owner still holds it. */
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
    pthread_mutex_init(&m, &attr);
    text = unlock_while_held_by_other(&m, &other, 1, EPERM);
    CU_ASSERT_EQUAL(count_of(text, NOT_HELD), 1);
    CU_ASSERT_EQUAL(count_of(text, RELEASED_FOR_OWNER), 0);
    CU_ASSERT_EQUAL(count_of(text, "thread exits holding locks"), 0);
    pthread_mutex_destroy(&m);
    pthread_mutex_destroy(&other);
    pthread_mutexattr_destroy(&attr);
}

static void test_destroy_held(void)
{
    pthread_mutex_t m;
    pthread_rwlock_t rw;

    pthread_mutex_init(&m, NULL);
    pthread_rwlock_init(&rw, NULL);
    new_reports();
    pthread_mutex_lock(&m);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&m), EBUSY);
    pthread_rwlock_rdlock(&rw);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rw), EBUSY);
    CU_ASSERT_EQUAL(count_of(new_reports(), "destroy of a lock that is held or waited for"), 2);
    pthread_mutex_unlock(&m);
    pthread_rwlock_unlock(&rw);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&m), 0);
    CU_ASSERT_EQUAL(pthread_rwlock_destroy(&rw), 0);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
}

static void test_use_after_destroy(void)
{
    pthread_mutex_t m;
    pthread_rwlock_t rw;

    pthread_mutex_init(&m, NULL);
    pthread_rwlock_init(&rw, NULL);
    pthread_mutex_destroy(&m);
    pthread_rwlock_destroy(&rw);
    new_reports();
    CU_ASSERT_EQUAL(pthread_mutex_lock(&m), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutex_unlock(&m), EINVAL);
    CU_ASSERT_EQUAL(pthread_rwlock_rdlock(&rw), EINVAL);
    CU_ASSERT_EQUAL(count_of(new_reports(), UNUSABLE), 3);
}

/* The call site a report names, as an address in this program (the library
 * is linked in too: the module alone does not tell whose call it was). */
static uintptr_t reported_site(const char *text)
{
    static const char site_prefix[] = ", at test_checked.exe+";
    const char *at = strstr(text, site_prefix);

    if (at == NULL)
        return 0;
    return (uintptr_t)GetModuleHandleA(NULL) +
           (uintptr_t)strtoull(at + sizeof site_prefix - 1, NULL, 16);
}

#define CALLER_SPAN 64 /* bytes: the whole of a function as small as the one below */

/* A C11 call names its caller's site, not the library's pthread call. The
 * empty asm after the call keeps it a call (no tail jump). */
static int __attribute__((noinline)) cnd_signal_here(cnd_t *cond)
{
    int result = cnd_signal(cond);

    __asm__ volatile("" ::: "memory");
    return result;
}

/* Conds, barriers, spinlocks and semaphores: a use after destroy, or of
 * memory no init wrote, where the state shows it; an init makes the object
 * usable again. */
static void test_other_objects_after_destroy(void)
{
    pthread_cond_t cond;
    pthread_barrier_t barrier, zeroed = {0};
    pthread_spinlock_t spin;
    sem_t sem;
    const char *text;

    pthread_cond_init(&cond, NULL);
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    sem_init(&sem, 0, 1);
    CU_ASSERT_EQUAL(pthread_cond_signal(&cond), 0);
    CU_ASSERT_EQUAL(pthread_spin_lock(&spin), 0);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&spin), 0);
    CU_ASSERT_EQUAL(sem_trywait(&sem), 0);
    new_reports();
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&barrier), 0);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&spin), 0);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
    CU_ASSERT_EQUAL(new_reports()[0], '\0'); /* correct use: nothing */

    CU_ASSERT_EQUAL(pthread_cond_signal(&cond), 0);
    CU_ASSERT_EQUAL(pthread_cond_broadcast(&cond), 0);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, UNUSABLE), 2);
    CU_ASSERT(names(text, &cond));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "cond 0x"));
    CU_ASSERT_EQUAL(cnd_signal_here(&cond), thrd_success);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, UNUSABLE), 1);
    CU_ASSERT(reported_site(text) - (uintptr_t)cnd_signal_here < CALLER_SPAN);
    CU_ASSERT_EQUAL(pthread_barrier_wait(&barrier), EINVAL);
    CU_ASSERT_EQUAL(pthread_barrier_wait(&zeroed), EINVAL); /* never initialized */
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, UNUSABLE), 2);
    CU_ASSERT(names(text, &barrier) && names(text, &zeroed));
    CU_ASSERT_EQUAL(pthread_spin_lock(&spin), EINVAL);
    CU_ASSERT_EQUAL(pthread_spin_trylock(&spin), EINVAL);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&spin), EINVAL);
    CU_ASSERT_EQUAL(pthread_spin_destroy(&spin), EINVAL);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, UNUSABLE), 4);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "spinlock 0x"));
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(sem_trywait(&sem), 0);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, UNUSABLE), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "semaphore 0x"));

    /* Initialized again: usable, nothing reported. */
    pthread_cond_init(&cond, NULL);
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    sem_init(&sem, 0, 0);
    CU_ASSERT_EQUAL(pthread_cond_signal(&cond), 0);
    CU_ASSERT_EQUAL(pthread_spin_trylock(&spin), 0);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&spin), 0);
    CU_ASSERT_EQUAL(sem_post(&sem), 0);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_cond_destroy(&cond);
    pthread_spin_destroy(&spin);
    sem_destroy(&sem);
}

/* Memory no init wrote, in words whose values the library never writes: a
 * spinlock word, a cond's queue lock, a semaphore's waiter count. */
static void test_never_initialized(void)
{
    pthread_spinlock_t spin = 0x5a5a5a5a;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    sem_t sem = {0};
    const char *text;

    new_reports();
    CU_ASSERT_EQUAL(pthread_spin_trylock(&spin), EBUSY);
    CU_ASSERT_EQUAL(pthread_spin_unlock(&spin), EPERM);
    cond.__queue_lock = 0x5a5a5a5a;
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), EBUSY);
    sem.__waiters = -7;
    CU_ASSERT_EQUAL(sem_trywait(&sem), -1);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, UNUSABLE), 4);
    CU_ASSERT(names(text, (const void *)&spin) && names(text, &cond) && names(text, &sem));
    /* Reported as unusable, not as a destroy with waiters. */
    CU_ASSERT_EQUAL(count_of(text, "destroy of a cond that threads wait on"), 0);
}

static void test_default_relock(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    const char *text;

    new_reports();
    pthread_mutex_lock(&m);
    pthread_mutex_lock(&m); /* undefined; here it recurses */
    pthread_mutex_unlock(&m);
    pthread_mutex_unlock(&m);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, "relock of a DEFAULT mutex by its owner"), 1);
    CU_ASSERT_EQUAL(count_of(text, "slimpthreads-check:"), 1);
}

struct cond_wait {
    pthread_cond_t *cond;
    pthread_mutex_t *mutex;
    int waiting; /* under mutex: set just before the wait */
};

/* Waits on cond with mutex until signaled (or a generous timeout). */
static void *wait_on_cond(void *argument)
{
    struct cond_wait *wait = argument;
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 20000);

    pthread_mutex_lock(wait->mutex);
    wait->waiting = 1;
    pthread_cond_timedwait(wait->cond, wait->mutex, &later);
    pthread_mutex_unlock(wait->mutex);
    return NULL;
}

static void test_cond_misuse(void)
{
    pthread_mutex_t m1, m2;
    pthread_cond_t cond;
    struct timespec soon = slimtest_time_after_ms(CLOCK_REALTIME, 1);
    struct cond_wait wait = {&cond, &m1, 0};
    const char *text;
    pthread_t thread;

    pthread_mutex_init(&m1, NULL);
    pthread_mutex_init(&m2, NULL);
    pthread_cond_init(&cond, NULL);
    new_reports();
    /* A wait without the mutex. */
    CU_ASSERT_NOT_EQUAL(pthread_cond_timedwait(&cond, &m2, &soon), 0);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, "cond wait with a mutex this thread does not hold"), 1);
    CU_ASSERT(names(text, &cond) && names(text, &m2));
    CU_ASSERT_EQUAL(count_of(text, NOT_HELD), 0);
    /* Another thread waits with m1: once it set `waiting` and m1 is free
     * again, it is in its wait (the wait released m1). */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_on_cond, &wait), 0);
    for (;;) {
        pthread_mutex_lock(&m1);
        if (wait.waiting)
            break;
        pthread_mutex_unlock(&m1);
        Sleep(1);
    }
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), EBUSY);
    pthread_mutex_unlock(&m1);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, "destroy of a cond that threads wait on"), 1);
    /* This one waits with m2 meanwhile. */
    soon = slimtest_time_after_ms(CLOCK_REALTIME, 1);
    pthread_mutex_lock(&m2);
    pthread_cond_timedwait(&cond, &m2, &soon);
    pthread_mutex_unlock(&m2);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, "cond waited on with two mutexes at once"), 1);
    CU_ASSERT(names(text, &cond) && names(text, &m1) && names(text, &m2));
    pthread_mutex_lock(&m1);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&m1);
    pthread_join(thread, NULL);
    /* Alone again, a wait with m2 is fine. */
    soon = slimtest_time_after_ms(CLOCK_REALTIME, 1);
    pthread_mutex_lock(&m2);
    pthread_cond_timedwait(&cond, &m2, &soon);
    pthread_mutex_unlock(&m2);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    pthread_cond_destroy(&cond);
    pthread_mutex_destroy(&m1);
    pthread_mutex_destroy(&m2);
}

static void *wait_at_barrier(void *argument)
{
    pthread_barrier_wait(argument);
    return NULL;
}

static void test_barrier_in_use(void)
{
    pthread_barrier_t barrier;
    pthread_t thread;
    int busy = 0;

    pthread_barrier_init(&barrier, NULL, 2);
    new_reports();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_at_barrier, &barrier), 0);
    /* A peek at the barrier's own word: the thread took its ticket, so it waits
     * (a destroy before that would succeed and destroy the barrier). */
    while (__atomic_load_n(&barrier.__arrived, __ATOMIC_ACQUIRE) == 0)
        Sleep(1);
    busy = pthread_barrier_destroy(&barrier) == EBUSY;
    CU_ASSERT_FATAL(busy);
    CU_ASSERT_EQUAL(count_of(new_reports(), "destroy of a barrier that threads are waiting at"), 1);
    pthread_barrier_wait(&barrier);
    pthread_join(thread, NULL);
    CU_ASSERT_EQUAL(pthread_barrier_destroy(&barrier), 0);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
}

static void *exit_holding(void *argument)
{
    pthread_mutex_lock(argument);
    return NULL;
}

static void *exit_holding_by_cancel(void *argument)
{
    pthread_mutex_lock(argument);
    for (;;)
        pthread_testcancel(), Sleep(1);
    return NULL;
}

static void test_exit_holding(void)
{
    pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
    pthread_t thread;
    const char *text;

    new_reports();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, exit_holding, &m1), 0);
    pthread_join(thread, NULL);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, "slimpthreads-check: thread exits holding locks"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ", at its exit\n"));
    CU_ASSERT(names(text, &m1));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, ", taken at test_checked.exe+0x"));
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, exit_holding_by_cancel, &m2), 0);
    while (pthread_mutex_trylock(&m2) == 0) /* until the thread holds it */
        pthread_mutex_unlock(&m2), Sleep(1);
    pthread_cancel(thread);
    pthread_join(thread, NULL);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, "slimpthreads-check: thread exits holding locks"), 1);
    CU_ASSERT(names(text, &m2));
}

/* A thread cancelled inside a public call (a semaphore wait; a cond wait with
 * the request pending at entry) whose cleanup handler unlocks its mutex: the
 * unlock is checked as any other, so the thread exits holding nothing. */
struct cancelled_waiter {
    pthread_mutex_t *mutex;
    sem_t *sem; /* NULL: wait on the cond instead, cancelled by itself first */
    pthread_cond_t *cond;
};

static void unlock_in_cleanup(void *mutex)
{
    pthread_mutex_unlock(mutex);
}

static void *wait_until_cancelled(void *argument)
{
    struct cancelled_waiter *waiter = argument;

    pthread_mutex_lock(waiter->mutex);
    pthread_cleanup_push(unlock_in_cleanup, waiter->mutex);
    if (waiter->sem != NULL) {
        sem_wait(waiter->sem);
    } else {
        pthread_cancel(pthread_self());
        pthread_cond_wait(waiter->cond, waiter->mutex);
    }
    pthread_cleanup_pop(1);
    return NULL;
}

static void test_cancelled_in_a_call(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    sem_t sem;
    struct cancelled_waiter in_sem = {&m, &sem, NULL}, in_cond = {&m, NULL, &cond};
    pthread_t thread;
    void *result;

    sem_init(&sem, 0, 0);
    /* The positive control: a thread that does exit holding a lock is reported. */
    new_reports();
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, exit_holding, &held), 0);
    pthread_join(thread, NULL);
    CU_ASSERT_EQUAL(count_of(new_reports(), "slimpthreads-check: thread exits holding locks"), 1);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_until_cancelled, &in_sem), 0);
    while (pthread_mutex_trylock(&m) == 0) /* until the thread holds it */
        pthread_mutex_unlock(&m), Sleep(1);
    pthread_cancel(thread);
    pthread_join(thread, &result);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_until_cancelled, &in_cond), 0);
    pthread_join(thread, &result);
    CU_ASSERT_PTR_EQUAL(result, PTHREAD_CANCELED);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&m), 0); /* both released it */
    pthread_mutex_unlock(&m);
    sem_destroy(&sem);
}

/* ---- Scale: 10,000 locks, 100 threads nesting 8 deep in one global order ---- */

#define SCALE_LOCKS 10000
#define SCALE_THREADS 100
#define SCALE_ROUNDS 30
#define SCALE_BAND (SCALE_LOCKS / NEST) /* a thread's k-th lock lies in band k */
#define SCALE_INIT_STEP 7919 /* prime to SCALE_LOCKS: locks initialized out of order */

static pthread_mutex_t scale_locks[SCALE_LOCKS];

static void *scale_thread(void *argument)
{
    unsigned seed = (unsigned)(uintptr_t)argument;

    for (unsigned round = 0; round < SCALE_ROUNDS; round++) {
        unsigned at[NEST];

        for (unsigned k = 0; k < NEST; k++) {
            at[k] = k * SCALE_BAND + (seed * 7919u + round * 104729u + k * 31u) % SCALE_BAND;
            pthread_mutex_lock(&scale_locks[at[k]]);
        }
        for (unsigned k = NEST; k-- > 0;)
            pthread_mutex_unlock(&scale_locks[at[k]]);
    }
    return NULL;
}

static void test_scale(void)
{
    pthread_t threads[SCALE_THREADS];
    double start;

    for (unsigned i = 0; i < SCALE_LOCKS; i++)
        pthread_mutex_init(&scale_locks[i * SCALE_INIT_STEP % SCALE_LOCKS], NULL);
    see_an_inversion_reported();
    start = slimtest_now_ms();
    for (unsigned t = 0; t < SCALE_THREADS; t++)
        CU_ASSERT_EQUAL_FATAL(
            pthread_create(&threads[t], NULL, scale_thread, (void *)(uintptr_t)t), 0);
    for (unsigned t = 0; t < SCALE_THREADS; t++)
        pthread_join(threads[t], NULL);
    printf("\n    scale: %u threads x %u rounds of %u nested locks over %u locks: %.0f ms\n",
           SCALE_THREADS, SCALE_ROUNDS, NEST, SCALE_LOCKS, slimtest_now_ms() - start);
    CU_ASSERT_EQUAL(new_reports()[0], '\0');
    for (unsigned i = 0; i < SCALE_LOCKS; i++)
        CU_ASSERT_EQUAL(pthread_mutex_destroy(&scale_locks[i]), 0);
}

/* ---- Child processes: abort mode, a NORMAL mutex's relock ---- */

static int child_main(const char *mode)
{
    pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutexattr_t attr;
    pthread_mutex_t normal;

    if (strcmp(mode, "inversion") == 0) {
        pthread_mutex_lock(&a);
        pthread_mutex_lock(&b);
        pthread_mutex_unlock(&b);
        pthread_mutex_unlock(&a);
        pthread_mutex_lock(&b);
        pthread_mutex_lock(&a); /* abort mode: the process ends here */
        return 0;
    }
    if (strcmp(mode, "normal-relock") == 0) {
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
        pthread_mutex_init(&normal, &attr);
        pthread_mutex_lock(&normal);
        pthread_mutex_lock(&normal); /* reported, then aborts in abort mode */
        return 0;
    }
    return 2;
}

static unsigned long run_child_with(const char *mode, const char *check)
{
    char arguments[64];
    unsigned long status;

    snprintf(arguments, sizeof arguments, "--child %s", mode);
    SetEnvironmentVariableA("SLIMPTHREADS_CHECK", check);
    status = slimtest_run_child(arguments, CHILD_TIMEOUT_MS);
    SetEnvironmentVariableA("SLIMPTHREADS_CHECK", NULL);
    return status;
}

static void test_abort_mode(void)
{
    const char *text;

    new_reports();
    CU_ASSERT_EQUAL(run_child_with("inversion", "abort"), ABORT_EXIT_STATUS);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    CU_ASSERT_EQUAL(count_of(text, "slimpthreads-check:"), 1); /* nothing after the first */
    /* Without it the child reports and goes on to its end. */
    CU_ASSERT_EQUAL(run_child_with("inversion", NULL), 0);
    text = new_reports();
    CU_ASSERT_EQUAL(count_of(text, INVERSION), 1);
    /* Its main thread returned from main holding two locks: an exit, not a report. */
    CU_ASSERT_EQUAL(count_of(text, "slimpthreads-check:"), 1);
}

/* A NORMAL mutex relocked by its owner blocks for good: reported first (the
 * child aborts after the report; in the default mode it would hang). */
static void test_normal_relock(void)
{
    new_reports();
    CU_ASSERT_EQUAL(run_child_with("normal-relock", "abort"), ABORT_EXIT_STATUS);
    CU_ASSERT_EQUAL(count_of(new_reports(), "relock of a NORMAL mutex by its owner: it deadlocks"),
                    1);
}

static CU_TestInfo cases[] = {
    {"AB/BA inversion reported, threads never overlap", test_ab_ba},
    {"report format: kinds, init sites, thread, module+offset", test_report_format},
    {"3-lock cycle", test_three_lock_cycle},
    {"5-lock cycle", test_five_lock_cycle},
    {"nested orders: a cycle through a transitive order", test_nested_orders},
    {"a cycle against the order of initialization", test_cycle_against_init_order},
    {"1,000 locks in one order: no report", test_one_order_no_report},
    {"trylock adds no order", test_trylock_no_order},
    {"recursive relock adds no order", test_recursive_relock},
    {"timed locks and C11 mtx_* are ordered", test_timed_and_c11},
    {"rwlock read/write cycles; recursive reads", test_rwlock_cycles},
    {"destroy (or init) and reuse of the same memory", test_destroy_and_reuse},
    {"a cond wait's relock is ordered", test_cond_relock_order},
    {"unlock of a lock not held, every kind", test_unlock_not_held},
    {"destroy of a held mutex and rwlock", test_destroy_held},
    {"use after destroy", test_use_after_destroy},
    {"a DEFAULT or NORMAL mutex unlocked by another thread than its owner",
     test_unlocked_by_other_thread},
    {"conds, barriers, spinlocks, semaphores used after destroy", test_other_objects_after_destroy},
    {"conds, spinlocks, semaphores never initialized", test_never_initialized},
    {"DEFAULT relock by its owner", test_default_relock},
    {"cond: wait without the mutex, two mutexes, destroy with waiters", test_cond_misuse},
    {"barrier destroyed in use", test_barrier_in_use},
    {"thread exits or is cancelled holding locks", test_exit_holding},
    {"cancelled inside a sem or cond wait, the cleanup unlocks: nothing held",
     test_cancelled_in_a_call},
    {"10,000 locks, 100 threads nesting 8 deep", test_scale},
    {"abort mode (child process)", test_abort_mode},
    {"NORMAL relock reported before it blocks (child process)", test_normal_relock},
    CU_TEST_INFO_NULL,
};

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    snprintf(report_path, sizeof report_path, "test_checked-%lu.reports", GetCurrentProcessId());
    DeleteFileA(report_path);
    SetEnvironmentVariableA("SLIMPTHREADS_CHECK_FILE", report_path);
    SetEnvironmentVariableA("SLIMPTHREADS_CHECK", NULL);
    {
        int status = slimtest_run("checked", cases, 300);

        if (getenv("KEEP") == NULL)
            DeleteFileA(report_path);
        return status;
    }
}
