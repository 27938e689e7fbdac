/*
 * bench_raw.c - the benchmark cases on bare Win32 primitives: the floor.
 *
 * The same drivers as bench_posix.c (cases.h), with the primitive each POSIX
 * object maps onto most directly:
 *   mutex (every kind)  CRITICAL_SECTION          trylock  TryEnterCriticalSection
 *   rwlock              SRWLOCK shared/exclusive  spinlock a test-and-test-and-set word
 *   condvar             CONDITION_VARIABLE + CRITICAL_SECTION
 *   sem                 kernel semaphore (CreateSemaphore)
 *   once                InitOnceExecuteOnce       keys     TlsGetValue/TlsSetValue
 *   self                GetCurrentThreadId        threads  _beginthreadex
 * These are what a POSIX layer could at best cost; they lack POSIX's semantics
 * (a CRITICAL_SECTION is always recursive, SRWLOCK read locks do not nest).
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0602
#endif
#include <windows.h>
#include <process.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

#define PROGRAM_NAME "raw"
/* The raw spin lock spins this many pause instructions, then yields the core. */
#define RAW_SPIN_LIMIT 100

/* ---- Threads for the harness ---- */

struct raw_thread {
    HANDLE handle;
    bench_thread_fn fn;
    void *argument;
};

static unsigned __stdcall raw_thread_start(void *argument)
{
    struct raw_thread *thread = argument;

    thread->fn(thread->argument);
    return 0;
}

void *bench_spawn(bench_thread_fn fn, void *argument)
{
    struct raw_thread *thread = malloc(sizeof *thread);

    if (thread == NULL)
        return NULL;
    thread->fn = fn;
    thread->argument = argument;
    thread->handle = (HANDLE)_beginthreadex(NULL, 0, raw_thread_start, thread, 0, NULL);
    if (thread->handle == NULL) {
        free(thread);
        bench_fatal("_beginthreadex", (int)GetLastError());
    }
    return thread;
}

void bench_join(void *handle)
{
    struct raw_thread *thread = handle;

    if (WaitForSingleObject(thread->handle, INFINITE) != WAIT_OBJECT_0)
        bench_fatal("WaitForSingleObject(thread)", (int)GetLastError());
    CloseHandle(thread->handle);
    free(thread);
}

/* ---- Primitive tables ---- */

static void cs_lock(void *cs) { EnterCriticalSection(cs); }
static void cs_unlock(void *cs) { LeaveCriticalSection(cs); }
static void srw_shared(void *l) { AcquireSRWLockShared(l); }
static void srw_shared_unlock(void *l) { ReleaseSRWLockShared(l); }
static void srw_exclusive(void *l) { AcquireSRWLockExclusive(l); }
static void srw_exclusive_unlock(void *l) { ReleaseSRWLockExclusive(l); }

static void raw_spin_lock(void *s)
{
    volatile LONG *word = s;

    while (InterlockedExchange(word, 1) != 0) {
        int spins = 0;
        while (__atomic_load_n(word, __ATOMIC_RELAXED) != 0) {
            YieldProcessor();
            if (++spins == RAW_SPIN_LIMIT) {
                SwitchToThread();
                spins = 0;
            }
        }
    }
}

static void raw_spin_unlock(void *s)
{
    __atomic_store_n((volatile LONG *)s, 0, __ATOMIC_RELEASE);
}

static void cv_wait(void *cv, void *cs)
{
    if (!SleepConditionVariableCS(cv, cs, INFINITE))
        bench_fatal("SleepConditionVariableCS", (int)GetLastError());
}
static void cv_signal(void *cv) { WakeConditionVariable(cv); }
static void cv_broadcast(void *cv) { WakeAllConditionVariable(cv); }

static void ksem_post(void *h)
{
    if (!ReleaseSemaphore(*(HANDLE *)h, 1, NULL))
        bench_fatal("ReleaseSemaphore", (int)GetLastError());
}
static void ksem_wait(void *h)
{
    if (WaitForSingleObject(*(HANDLE *)h, INFINITE) != WAIT_OBJECT_0)
        bench_fatal("WaitForSingleObject(semaphore)", (int)GetLastError());
}

static const struct lock_ops cs_ops = { cs_lock, cs_unlock, cs_lock, cs_unlock };
static const struct lock_ops srw_ops = { srw_exclusive, srw_exclusive_unlock, srw_shared,
                                         srw_shared_unlock };
static const struct lock_ops spin_ops = { raw_spin_lock, raw_spin_unlock, raw_spin_lock,
                                          raw_spin_unlock };
static const struct cond_ops cv_ops = { cv_wait, cv_signal, cv_broadcast };
static const struct sem_ops ksem_ops = { ksem_post, ksem_wait };

static HANDLE kernel_semaphore(void)
{
    HANDLE semaphore = CreateSemaphoreW(NULL, 0, 0x7fffffff, NULL);

    if (semaphore == NULL)
        bench_fatal("CreateSemaphore", (int)GetLastError());
    return semaphore;
}

/* ---- a. lockperf ---- */

static void lockperf_cs(void *self) { lockperf_loop(self, &cs_ops, 0); }
static void lockperf_cs_held(void *self) { lockperf_held_loop(self, &cs_ops); }
static void lockperf_srw_shared(void *self) { lockperf_loop(self, &srw_ops, 1); }
static void lockperf_srw_exclusive(void *self) { lockperf_loop(self, &srw_ops, 0); }
static void lockperf_spin(void *self) { lockperf_loop(self, &spin_ops, 0); }

static void case_lockperf(void)
{
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    SRWLOCK srw BENCH_OWN_CACHE_LINE = SRWLOCK_INIT;
    volatile LONG spin BENCH_OWN_CACHE_LINE = 0;
    int threads;

    InitializeCriticalSection(&cs);
    bench_impl("lockperf", "mutex", "CRITICAL_SECTION");
    bench_impl("lockperf", "mutex_held", "CRITICAL_SECTION");
    bench_impl("lockperf", "rwlock_read", "SRWLOCK shared");
    bench_impl("lockperf", "rwlock_write", "SRWLOCK exclusive");
    bench_impl("lockperf", "spinlock", "InterlockedExchange, pause, SwitchToThread");
    for (threads = 1; threads <= LOCKPERF_MAX_THREADS; threads++) {
        lockperf_add_row("mutex", lockperf_cs, &cs, 0, threads);
        if (threads == 1)
            lockperf_add_held_row("mutex_held", lockperf_cs_held, &cs, &cs_ops);
        if (bench_loaded())
            continue; /* under load, the contended mutex only: the case is long */
        lockperf_add_row("rwlock_read", lockperf_srw_shared, &srw, 1, threads);
        lockperf_add_row("rwlock_write", lockperf_srw_exclusive, &srw, 0, threads);
        lockperf_add_row("spinlock", lockperf_spin, (void *)&spin, 0, threads);
    }
    lockperf_run();
    DeleteCriticalSection(&cs);
}

/* ---- b. nsv ---- */

static void nsv_cs(void *self) { nsv_loop(self, &cs_ops); }
static void nsv_srw(void *self) { nsv_loop(self, &srw_ops); }

static void case_nsv(void)
{
    static const unsigned write_permille[] = { 0, 10, 100, 500 };
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    SRWLOCK srw BENCH_OWN_CACHE_LINE = SRWLOCK_INIT;
    size_t i;

    InitializeCriticalSection(&cs);
    bench_impl("nsv", "mutex", "CRITICAL_SECTION");
    bench_impl("nsv", "rwlock", "SRWLOCK");
    bench_impl("nsv", "nolock", "no lock at all: the floor");
    nsv_measure("nolock", nsv_unlocked, NULL, 0); /* the floor */
    for (i = 0; i < sizeof write_permille / sizeof write_permille[0]; i++) {
        nsv_measure("mutex", nsv_cs, &cs, write_permille[i]);
        nsv_measure("rwlock", nsv_srw, &srw, write_permille[i]);
    }
    for (i = 0; i < NSV_BUSY_SETTINGS; i++) {
        nsv_busy_measure("mutex", nsv_cs, &cs, nsv_busy_settings[i][0], nsv_busy_settings[i][1]);
        nsv_busy_measure("rwlock", nsv_srw, &srw, nsv_busy_settings[i][0],
                         nsv_busy_settings[i][1]);
    }
    DeleteCriticalSection(&cs);
}

/* ---- c. cond2010 ---- */

static void cond2010_waiter(void *self) { cond2010_loop(self, &cs_ops, &cv_ops); }

static void case_cond2010(void)
{
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    CONDITION_VARIABLE cv BENCH_OWN_CACHE_LINE = CONDITION_VARIABLE_INIT;

    InitializeCriticalSection(&cs);
    bench_impl("cond2010", "*", "CONDITION_VARIABLE + CRITICAL_SECTION");
    cond2010_measure(cond2010_waiter, &cs_ops, &cv_ops, &cs, &cv, 10, 100);
    cond2010_measure(cond2010_waiter, &cs_ops, &cv_ops, &cs, &cv, 100, 10);
    DeleteCriticalSection(&cs);
}

/* ---- d. uncontended ---- */

static int op_cs_pair(void *cs)
{
    EnterCriticalSection(cs);
    LeaveCriticalSection(cs);
    return 1;
}

static int op_cs_try(void *cs)
{
    if (!TryEnterCriticalSection(cs))
        return 0;
    LeaveCriticalSection(cs);
    return 1;
}

static int op_srw_shared(void *l)
{
    AcquireSRWLockShared(l);
    ReleaseSRWLockShared(l);
    return 1;
}

static int op_srw_exclusive(void *l)
{
    AcquireSRWLockExclusive(l);
    ReleaseSRWLockExclusive(l);
    return 1;
}

static int op_spin(void *s)
{
    raw_spin_lock(s);
    raw_spin_unlock(s);
    return 1;
}

static int op_cv_signal(void *cv)
{
    WakeConditionVariable(cv);
    return 1;
}

static int op_cv_broadcast(void *cv)
{
    WakeAllConditionVariable(cv);
    return 1;
}

static volatile long once_runs;
static BOOL CALLBACK once_routine(INIT_ONCE *once, void *parameter, void **context)
{
    (void)once;
    (void)parameter;
    (void)context;
    once_runs++;
    return TRUE;
}
static int op_once(void *o) { return InitOnceExecuteOnce(o, once_routine, NULL, NULL) != 0; }

struct tls_object {
    DWORD index;
    void *value;
};

static int op_tls_get(void *t)
{
    struct tls_object *object = t;
    return TlsGetValue(object->index) == object->value;
}

static int op_tls_set(void *t)
{
    struct tls_object *object = t;
    return TlsSetValue(object->index, object->value) != 0;
}

static int op_thread_id(void *id) { return GetCurrentThreadId() == *(DWORD *)id; }

static int op_ksem(void *h)
{
    BOOL posted = ReleaseSemaphore(*(HANDLE *)h, 1, NULL);
    DWORD taken = WaitForSingleObject(*(HANDLE *)h, 0);
    return posted && taken == WAIT_OBJECT_0;
}

static long batch_cs(void *o, long n) { return uncontended_batch(o, op_cs_pair, n); }
static long batch_cs_try(void *o, long n) { return uncontended_batch(o, op_cs_try, n); }
static long batch_srw_shared(void *o, long n) { return uncontended_batch(o, op_srw_shared, n); }
static long batch_srw_exclusive(void *o, long n) { return uncontended_batch(o, op_srw_exclusive, n); }
static long batch_spin(void *o, long n) { return uncontended_batch(o, op_spin, n); }
static long batch_cv_signal(void *o, long n) { return uncontended_batch(o, op_cv_signal, n); }
static long batch_cv_broadcast(void *o, long n) { return uncontended_batch(o, op_cv_broadcast, n); }
static long batch_once(void *o, long n) { return uncontended_batch(o, op_once, n); }
static long batch_tls_get(void *o, long n) { return uncontended_batch(o, op_tls_get, n); }
static long batch_tls_set(void *o, long n) { return uncontended_batch(o, op_tls_set, n); }
static long batch_thread_id(void *o, long n) { return uncontended_batch(o, op_thread_id, n); }
static long batch_ksem(void *o, long n) { return uncontended_batch(o, op_ksem, n); }

static void case_uncontended(void)
{
    /* One CRITICAL_SECTION per POSIX kind, so that each row has its own object. */
    CRITICAL_SECTION cs_default, cs_normal, cs_errorcheck, cs_recursive;
    SRWLOCK srw = SRWLOCK_INIT;
    volatile LONG spin = 0;
    CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
    INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    struct tls_object tls;
    DWORD self = GetCurrentThreadId();
    HANDLE semaphore = kernel_semaphore();

    InitializeCriticalSection(&cs_default);
    InitializeCriticalSection(&cs_normal);
    InitializeCriticalSection(&cs_errorcheck);
    InitializeCriticalSection(&cs_recursive);
    tls.index = TlsAlloc();
    if (tls.index == TLS_OUT_OF_INDEXES)
        bench_fatal("TlsAlloc", (int)GetLastError());
    tls.value = &tls;
    TlsSetValue(tls.index, tls.value);
    InitOnceExecuteOnce(&once, once_routine, NULL, NULL);

    bench_impl("uncontended", "mutex_*", "EnterCriticalSection + LeaveCriticalSection");
    bench_impl("uncontended", "mutex_trylock", "TryEnterCriticalSection + LeaveCriticalSection");
    bench_impl("uncontended", "rwlock_read", "AcquireSRWLockShared + ReleaseSRWLockShared");
    bench_impl("uncontended", "rwlock_write", "AcquireSRWLockExclusive + ReleaseSRWLockExclusive");
    bench_impl("uncontended", "spinlock", "InterlockedExchange + release store");
    bench_impl("uncontended", "cond_*", "WakeConditionVariable / WakeAllConditionVariable");
    bench_impl("uncontended", "once", "InitOnceExecuteOnce");
    bench_impl("uncontended", "getspecific", "TlsGetValue");
    bench_impl("uncontended", "setspecific", "TlsSetValue");
    bench_impl("uncontended", "self", "GetCurrentThreadId");
    bench_impl("uncontended", "sem_post_trywait", "ReleaseSemaphore + WaitForSingleObject(0)");

    uncontended_add_row("mutex_default", batch_cs, &cs_default);
    uncontended_add_row("mutex_normal", batch_cs, &cs_normal);
    uncontended_add_row("mutex_errorcheck", batch_cs, &cs_errorcheck);
    uncontended_add_row("mutex_recursive", batch_cs, &cs_recursive);
    uncontended_add_row("mutex_trylock", batch_cs_try, &cs_default);
    uncontended_add_row("rwlock_read", batch_srw_shared, &srw);
    uncontended_add_row("rwlock_write", batch_srw_exclusive, &srw);
    uncontended_add_row("spinlock", batch_spin, (void *)&spin);
    uncontended_add_row("cond_signal", batch_cv_signal, &cv);
    uncontended_add_row("cond_broadcast", batch_cv_broadcast, &cv);
    uncontended_add_row("once", batch_once, &once);
    uncontended_add_row("getspecific", batch_tls_get, &tls);
    uncontended_add_row("setspecific", batch_tls_set, &tls);
    uncontended_add_row("self", batch_thread_id, &self);
    uncontended_add_row("sem_post_trywait", batch_ksem, &semaphore);
    uncontended_run();
    if (once_runs != 1)
        bench_report("uncontended", "once", "runs", 0, "count", once_runs, 1);

    CloseHandle(semaphore);
    TlsFree(tls.index);
    DeleteCriticalSection(&cs_recursive);
    DeleteCriticalSection(&cs_errorcheck);
    DeleteCriticalSection(&cs_normal);
    DeleteCriticalSection(&cs_default);
}

/* ---- e. queue ---- */

static void queue_worker(void *self) { queue_loop(self, &cs_ops, &cv_ops); }

static void case_queue(void)
{
    static const int sides[] = { 1, 4 };
    size_t i;

    bench_impl("queue", "*", "CONDITION_VARIABLE x2 + CRITICAL_SECTION");
    for (i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        CRITICAL_SECTION cs;
        CONDITION_VARIABLE not_full = CONDITION_VARIABLE_INIT;
        CONDITION_VARIABLE not_empty = CONDITION_VARIABLE_INIT;

        InitializeCriticalSection(&cs);
        queue_measure(queue_worker, &cs, &not_full, &not_empty, sides[i], "");
        DeleteCriticalSection(&cs);
    }
}

/* ---- f. thread ---- */

static unsigned __stdcall thread_count(void *counter)
{
    atomic_fetch_add((atomic_long *)counter, 1);
    return 1;
}

static int thread_pair(atomic_long *counter)
{
    HANDLE thread = (HANDLE)_beginthreadex(NULL, 0, thread_count, counter, 0, NULL);
    DWORD code = 0;
    int ok;

    if (thread == NULL)
        return 0;
    ok = WaitForSingleObject(thread, INFINITE) == WAIT_OBJECT_0 &&
         GetExitCodeThread(thread, &code) && code == 1;
    CloseHandle(thread);
    return ok;
}

static void case_thread(void)
{
    bench_impl("thread", "create_join", "_beginthreadex + WaitForSingleObject + CloseHandle");
    thread_measure(thread_pair);
}

/* ---- g. bufread ---- */

static long long bufread_cs(struct bufreader *reader, void *lock)
{
    return bufread_loop(reader, lock, &cs_ops);
}

static void case_bufread(void)
{
    char path[128];
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    long long expected;

    bench_temp_path(path, sizeof path, PROGRAM_NAME);
    expected = bufread_make_file(path, bench_params.bufread_bytes);
    if (expected < 0)
        bench_fatal("bufread: writing the data file", 0);
    InitializeCriticalSection(&cs);
    bench_impl("bufread", "mutex", "CRITICAL_SECTION");
    bufread_measure("nolock", path, expected, bufread_plain, NULL);
    bufread_measure("mutex", path, expected, bufread_cs, &cs);
    DeleteCriticalSection(&cs);
    remove(path);
}

/* ---- h. handoff ---- */

static void handoff_ksem(void *run) { handoff_sem_partner(run, &ksem_ops); }
static void handoff_cv(void *run) { handoff_cond_partner(run, &cs_ops, &cv_ops); }

static void case_handoff(void)
{
    HANDLE ping = kernel_semaphore(), pong = kernel_semaphore();
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    CONDITION_VARIABLE ping_cv BENCH_OWN_CACHE_LINE = CONDITION_VARIABLE_INIT, pong_cv BENCH_OWN_CACHE_LINE = CONDITION_VARIABLE_INIT;

    bench_impl("handoff", "sem", "kernel semaphore (ReleaseSemaphore / WaitForSingleObject)");
    bench_impl("handoff", "cond", "CONDITION_VARIABLE + CRITICAL_SECTION");
    handoff_sem_measure(handoff_ksem, &ksem_ops, &ping, &pong);
    CloseHandle(pong);
    CloseHandle(ping);

    InitializeCriticalSection(&cs);
    handoff_cond_measure("cond", handoff_cv, &cs_ops, &cv_ops, &cs, &ping_cv, &pong_cv);
    DeleteCriticalSection(&cs);
}

/* ---- i. sleep ---- */

/* Sleep takes milliseconds: the request rounded up, as a careful caller would. */
static void sleep_win32(long us)
{
    Sleep((DWORD)((us + 999) / 1000));
}

static void case_sleep(void)
{
    bench_impl("sleep", "all", "Sleep(ms rounded up)");
    sleep_measure(sleep_win32);
}

/* ---- j. sweep ---- */

static void case_sweep(void)
{
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;

    InitializeCriticalSection(&cs);
    bench_impl("sweep", "mutex", "CRITICAL_SECTION");
    sweep_measure("mutex", &cs_ops, &cs);
    DeleteCriticalSection(&cs);
}

/* ---- k. xproc ---- */

/* Across processes a port uses kernel objects by name: a named mutex for the
 * lock, a named semaphore pair for the semaphore ping-pong and an auto-reset
 * event pair for the condvar one (the hand-off a condvar and a turn word do).
 * Each process holds its own handles to them. Two threads use this program's
 * private floor: CRITICAL_SECTION, an unnamed kernel semaphore pair,
 * CONDITION_VARIABLE + CRITICAL_SECTION. */
static struct {
    HANDLE mutex, ping, pong;
} xproc_handles;

static void named_mutex_lock(void *h)
{
    DWORD woken = WaitForSingleObject(*(HANDLE *)h, INFINITE);

    if (woken != WAIT_OBJECT_0) /* WAIT_ABANDONED: the other process died holding it */
        bench_fatal("WaitForSingleObject(named mutex)", (int)woken);
}

static void named_mutex_unlock(void *h)
{
    if (!ReleaseMutex(*(HANDLE *)h))
        bench_fatal("ReleaseMutex", (int)GetLastError());
}

static void event_set(void *h)
{
    if (!SetEvent(*(HANDLE *)h))
        bench_fatal("SetEvent", (int)GetLastError());
}

static void event_wait(void *h)
{
    if (WaitForSingleObject(*(HANDLE *)h, INFINITE) != WAIT_OBJECT_0)
        bench_fatal("WaitForSingleObject(event)", (int)GetLastError());
}

static const struct lock_ops named_mutex_ops = { named_mutex_lock, named_mutex_unlock,
                                                 named_mutex_lock, named_mutex_unlock };
static const struct sem_ops event_ops = { event_set, event_wait };

/* The private rows' objects, in the control block's object area. */
struct xproc_private_objects {
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    CONDITION_VARIABLE ping BENCH_OWN_CACHE_LINE;
    CONDITION_VARIABLE pong BENCH_OWN_CACHE_LINE;
    HANDLE sem_ping, sem_pong;
};

_Static_assert(sizeof(struct xproc_private_objects) <= XPROC_OBJECTS_SIZE,
               "case k's objects fit the object area");

static struct xproc_control xproc_private;

static struct xproc_private_objects *xproc_private_objects(void)
{
    return (struct xproc_private_objects *)xproc_private.objects;
}

/* A side: the control block says which: a shared one uses the named objects. */
static void xproc_mutex(struct xproc_control *control, struct xproc_parent *parent)
{
    if (control == &xproc_private)
        xproc_mutex_side(control, parent, &xproc_private_objects()->cs, &cs_ops);
    else
        xproc_mutex_side(control, parent, &xproc_handles.mutex, &named_mutex_ops);
}

static void xproc_sem(struct xproc_control *control, struct xproc_parent *parent)
{
    if (control == &xproc_private)
        xproc_signal_side(control, parent, &xproc_private_objects()->sem_ping,
                          &xproc_private_objects()->sem_pong, &ksem_ops);
    else
        xproc_signal_side(control, parent, &xproc_handles.ping, &xproc_handles.pong, &ksem_ops);
}

static void xproc_cond(struct xproc_control *control, struct xproc_parent *parent)
{
    struct xproc_private_objects *objects = xproc_private_objects();

    if (control == &xproc_private)
        xproc_cond_side(control, parent, &objects->cs, &objects->ping, &objects->pong, &cs_ops,
                        &cv_ops);
    else
        xproc_signal_side(control, parent, &xproc_handles.ping, &xproc_handles.pong, &event_ops);
}

/* Creates (or, in the child, opens) the named objects of role, after the
 * mapping's name. */
static void xproc_open(const char *role, const char *shared_name)
{
    char name[BENCH_NAME_SIZE + 16];

    memset(&xproc_handles, 0, sizeof xproc_handles);
    if (strcmp(role, "mutex") == 0) {
        snprintf(name, sizeof name, "%s-mutex", shared_name);
        xproc_handles.mutex = CreateMutexA(NULL, FALSE, name);
        if (xproc_handles.mutex == NULL)
            bench_fatal("CreateMutex", (int)GetLastError());
        return;
    }
    snprintf(name, sizeof name, "%s-ping", shared_name);
    xproc_handles.ping = strcmp(role, "sem") == 0 ? CreateSemaphoreA(NULL, 0, 0x7fffffff, name)
                                                  : CreateEventA(NULL, FALSE, FALSE, name);
    snprintf(name, sizeof name, "%s-pong", shared_name);
    xproc_handles.pong = strcmp(role, "sem") == 0 ? CreateSemaphoreA(NULL, 0, 0x7fffffff, name)
                                                  : CreateEventA(NULL, FALSE, FALSE, name);
    if (xproc_handles.ping == NULL || xproc_handles.pong == NULL)
        bench_fatal("CreateSemaphore/CreateEvent (named)", (int)GetLastError());
}

static void xproc_close(void)
{
    HANDLE *handles[] = { &xproc_handles.mutex, &xproc_handles.ping, &xproc_handles.pong };
    size_t i;

    for (i = 0; i < sizeof handles / sizeof handles[0]; i++)
        if (*handles[i] != NULL)
            CloseHandle(*handles[i]);
    memset(&xproc_handles, 0, sizeof xproc_handles);
}

static void xproc_attach_mutex(const char *name) { xproc_open("mutex", name); }
static void xproc_attach_sem(const char *name) { xproc_open("sem", name); }
static void xproc_attach_cond(const char *name) { xproc_open("cond", name); }

static const struct xproc_role xproc_roles[] = {
    { "mutex", xproc_mutex, xproc_attach_mutex },
    { "sem", xproc_sem, xproc_attach_sem },
    { "cond", xproc_cond, xproc_attach_cond },
};

static int xproc_child(int argc, char **argv)
{
    return xproc_child_main(argc, argv, xproc_roles,
                            (int)(sizeof xproc_roles / sizeof xproc_roles[0]));
}

static void xproc_rows(const struct xproc_role *role, enum xproc_unit unit)
{
    struct xproc_private_objects *objects = xproc_private_objects();
    char variant[32], name[BENCH_NAME_SIZE];
    struct xproc_control *shared;

    InitializeCriticalSection(&objects->cs);
    InitializeConditionVariable(&objects->ping);
    InitializeConditionVariable(&objects->pong);
    objects->sem_ping = kernel_semaphore();
    objects->sem_pong = kernel_semaphore();
    snprintf(variant, sizeof variant, "%s-2t", role->name);
    xproc_measure(variant, &xproc_private, NULL, role->name, role->side, unit);
    CloseHandle(objects->sem_pong);
    CloseHandle(objects->sem_ping);
    DeleteCriticalSection(&objects->cs);

    snprintf(variant, sizeof variant, "%s-2p", role->name);
    shared = bench_shared_create(name, sizeof *shared);
    xproc_open(role->name, name);
    xproc_measure(variant, shared, name, role->name, role->side, unit);
    xproc_close();
    bench_shared_close(shared);
}

static void case_xproc(void)
{
    bench_impl("xproc", "mutex-2t", "CRITICAL_SECTION");
    bench_impl("xproc", "mutex-2p", "named mutex: CreateMutex, WaitForSingleObject, ReleaseMutex");
    bench_impl("xproc", "sem-2t", "kernel semaphore pair (ReleaseSemaphore / WaitForSingleObject)");
    bench_impl("xproc", "sem-2p", "named kernel semaphore pair");
    bench_impl("xproc", "cond-2t", "CONDITION_VARIABLE + CRITICAL_SECTION");
    bench_impl("xproc", "cond-2p", "named auto-reset event pair (SetEvent / WaitForSingleObject)");
    xproc_rows(&xproc_roles[0], XPROC_PAIRS);
    xproc_rows(&xproc_roles[1], XPROC_ROUND_TRIPS);
    xproc_rows(&xproc_roles[2], XPROC_ROUND_TRIPS);
}

/* ---- l. yieldloop ---- */

static void raw_yield(void)
{
    SwitchToThread();
}

static void yieldloop_cs(void *self) { yieldloop_loop(self, &cs_ops, raw_yield); }
static void yieldloop_srw(void *self) { yieldloop_loop(self, &srw_ops, raw_yield); }

static void case_yieldloop(void)
{
    CRITICAL_SECTION cs BENCH_OWN_CACHE_LINE;
    SRWLOCK srw BENCH_OWN_CACHE_LINE = SRWLOCK_INIT;

    InitializeCriticalSection(&cs);
    bench_impl("yieldloop", "mutex", "CRITICAL_SECTION, SwitchToThread");
    bench_impl("yieldloop", "srwlock", "SRWLOCK exclusive, SwitchToThread");
    yieldloop_measure("mutex", yieldloop_cs, &cs);
    yieldloop_measure("srwlock", yieldloop_srw, &srw);
    DeleteCriticalSection(&cs);
}

int main(int argc, char **argv)
{
    static const struct bench_cases cases = {
        case_uncontended, case_lockperf, case_nsv,     case_cond2010,
        case_queue,       case_thread,   case_bufread, case_handoff,
        case_sleep,
        case_sweep,       case_xproc,    case_yieldloop,
        xproc_child,
    };

    return bench_main(argc, argv, PROGRAM_NAME, &cases);
}
