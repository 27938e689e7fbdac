/* test_thread.c - threads: create, join, detach, exit, self, cleanup handlers,
 * attributes, names and the rest of thread.c and attr.c, plus stress runs.
 * Synchronizes with Win32 events and Interlocked calls, not with the library's
 * own primitives, so that a failure points at the thread code. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include "testutil.h"

#define CHILD_EXIT_MAIN_ARGUMENT "--pthread-exit-from-main"
#define CHILD_SUCCESS_STATUS 42
#define CHILD_TIMEOUT_MS 30000

static HANDLE new_event(void)
{
    HANDLE event = CreateEventW(NULL, TRUE, FALSE, NULL);

    CU_ASSERT_PTR_NOT_NULL_FATAL(event);
    return event;
}

/* ---- create and join ---- */

static void *add_one(void *argument)
{
    return (void *)((intptr_t)argument + 1);
}

/* Runs routine(argument) on a new thread, joins it and returns its result. The
 * result starts as a value that no routine here returns, so that a join that
 * does not store it fails the caller's check. */
static void *result_of_thread(void *(*routine)(void *), void *argument)
{
    pthread_t thread;
    void *result = (void *)(intptr_t)-1;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, routine, argument), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    return result;
}

static void test_create_join_result(void)
{
    pthread_t thread;
    void *result = NULL;
    int i;

    for (i = 0; i < 20; i++) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, add_one, (void *)(intptr_t)i), 0);
        CU_ASSERT_NOT_EQUAL(thread, 0);
        CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
        CU_ASSERT_EQUAL((intptr_t)result, i + 1);
    }
    /* A NULL result pointer is allowed. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, add_one, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
}

/* The new thread can read its id from where pthread_create stored it. */
static pthread_t published_thread;
static pthread_t seen_by_thread;

static void *read_published_id(void *argument)
{
    (void)argument;
    seen_by_thread = published_thread;
    return (void *)pthread_self();
}

static void test_create_stores_id_first(void)
{
    void *self_of_thread = NULL;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&published_thread, NULL, read_published_id, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(published_thread, &self_of_thread), 0);
    CU_ASSERT_EQUAL(seen_by_thread, published_thread);
    CU_ASSERT_EQUAL((pthread_t)self_of_thread, published_thread);
}

static void test_create_errors(void)
{
    pthread_t thread;
    pthread_attr_t attr;
    struct sched_param param;

    CU_ASSERT_EQUAL(pthread_create(NULL, NULL, add_one, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_create(&thread, NULL, NULL, NULL), EINVAL);
    /* SCHED_OTHER's priority 0 is outside SCHED_FIFO's range. */
    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED), 0);
    CU_ASSERT_EQUAL(pthread_attr_setschedpolicy(&attr, SCHED_FIFO), 0);
    CU_ASSERT_EQUAL(pthread_create(&thread, &attr, add_one, NULL), EINVAL);
    param.sched_priority = sched_get_priority_min(SCHED_FIFO);
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, &attr, add_one, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    /* An attribute filled by pthread_getattr_np names a stack Windows cannot use. */
    CU_ASSERT_EQUAL(pthread_getattr_np(pthread_self(), &attr), 0);
    CU_ASSERT_EQUAL(pthread_create(&thread, &attr, add_one, NULL), EINVAL);
    pthread_attr_destroy(&attr);
}

/* ---- create returns without waiting for the thread to start ---- */

/* ntdll's loader lock: a starting thread takes it (DLL_THREAD_ATTACH) before
 * it reaches its start routine, as on Windows. */
typedef LONG(NTAPI *lock_loader_function)(ULONG flags, ULONG *disposition, ULONG_PTR *cookie);
typedef LONG(NTAPI *unlock_loader_function)(ULONG flags, ULONG_PTR cookie);

struct locked_create {
    HANDLE ready, go, done;
    /* Set: the creating thread holds the loader lock itself (see below). */
    lock_loader_function creator_lock;
    unlock_loader_function creator_unlock;
    int error;
    pthread_t thread;
    volatile LONG started;
    LONG started_before_unlock;
};

static void *note_started(void *argument)
{
    struct locked_create *create = argument;

    InterlockedExchange(&create->started, 1);
    return argument;
}

static void create_under_own_loader_lock(struct locked_create *create)
{
    ULONG_PTR cookie;

    if (create->creator_lock(0, NULL, &cookie) != 0) {
        create->error = EAGAIN;
        return;
    }
    create->error = pthread_create(&create->thread, NULL, note_started, create);
    create->started_before_unlock = create->started;
    create->creator_unlock(0, cookie);
}

static DWORD WINAPI create_on_signal(void *argument)
{
    struct locked_create *create = argument;

    (void)pthread_self(); /* its record made now, before the loader lock is held */
    SetEvent(create->ready);
    WaitForSingleObject(create->go, INFINITE);
    if (create->creator_lock != NULL)
        create_under_own_loader_lock(create);
    else
        create->error = pthread_create(&create->thread, NULL, note_started, create);
    SetEvent(create->done);
    return 0;
}

/* The UCRT's _beginthreadex pins the start routine's module, which takes the
 * loader lock: it waits while another thread holds that lock (msvcrt's does
 * not), though not in the thread that holds it, as DllMain's does. */
static int creator_must_hold_loader_lock(void)
{
#ifdef _UCRT
    return 1;
#else
    return 0;
#endif
}

/* A creator that holds the loader lock (DllMain, a DLL's constructors) gets
 * its thread, which runs once the lock is free: pthread_create does not wait
 * for the new thread to start, as _beginthreadex does not. The lock is held by
 * this thread, or with the UCRT by the creator itself. */
static void test_create_does_not_wait_for_start(void)
{
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    lock_loader_function lock_loader;
    unlock_loader_function unlock_loader;
    struct locked_create create;
    ULONG_PTR cookie;
    HANDLE helper;
    DWORD returned;
    LONG started_under_lock;
    void *result = NULL;

    CU_ASSERT_PTR_NOT_NULL_FATAL(ntdll);
    lock_loader = (lock_loader_function)(void (*)(void))GetProcAddress(ntdll, "LdrLockLoaderLock");
    unlock_loader =
        (unlock_loader_function)(void (*)(void))GetProcAddress(ntdll, "LdrUnlockLoaderLock");
    CU_ASSERT_FATAL(lock_loader != NULL && unlock_loader != NULL);
    memset(&create, 0, sizeof create);
    create.ready = new_event();
    create.go = new_event();
    create.done = new_event();
    if (creator_must_hold_loader_lock()) {
        create.creator_lock = lock_loader;
        create.creator_unlock = unlock_loader;
    }
    helper = CreateThread(NULL, 0, create_on_signal, &create, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(helper);
    WaitForSingleObject(create.ready, INFINITE);
    if (create.creator_lock == NULL)
        CU_ASSERT_EQUAL_FATAL(lock_loader(0, NULL, &cookie), 0);
    SetEvent(create.go);
    /* A bound for a hang, not a timing: the old wait never returned here. */
    returned = WaitForSingleObject(create.done, 20000);
    started_under_lock = create.creator_lock != NULL ? create.started_before_unlock : create.started;
    if (create.creator_lock == NULL)
        CU_ASSERT_EQUAL(unlock_loader(0, cookie), 0);
    CU_ASSERT_EQUAL(returned, WAIT_OBJECT_0);
    CU_ASSERT_EQUAL(started_under_lock, 0); /* the premise: it could not start meanwhile */
    CU_ASSERT_EQUAL_FATAL(WaitForSingleObject(create.done, CHILD_TIMEOUT_MS), WAIT_OBJECT_0);
    CU_ASSERT_EQUAL_FATAL(create.error, 0);
    CU_ASSERT_EQUAL(pthread_join(create.thread, &result), 0);
    CU_ASSERT_PTR_EQUAL(result, &create);
    CU_ASSERT_EQUAL(create.started, 1);
    CU_ASSERT_EQUAL(WaitForSingleObject(helper, CHILD_TIMEOUT_MS), WAIT_OBJECT_0);
    CloseHandle(helper);
    CloseHandle(create.ready);
    CloseHandle(create.go);
    CloseHandle(create.done);
}

struct gate {
    HANDLE open;      /* manual-reset: set to let the thread finish */
    HANDLE arrived;   /* set by the thread when it is running */
};

static void *wait_at_gate(void *argument)
{
    struct gate *gate = argument;

    SetEvent(gate->arrived);
    WaitForSingleObject(gate->open, INFINITE);
    return (void *)(intptr_t)7;
}

static void gate_init(struct gate *gate)
{
    gate->open = new_event();
    gate->arrived = new_event();
}

static void gate_destroy(struct gate *gate)
{
    CloseHandle(gate->open);
    CloseHandle(gate->arrived);
}

static void *join_target(void *argument)
{
    return (void *)(intptr_t)pthread_join(*(pthread_t *)argument, NULL);
}

static void *join_self(void *argument)
{
    (void)argument;
    return (void *)(intptr_t)pthread_join(pthread_self(), NULL);
}

static void test_join_errors(void)
{
    struct gate gate;
    pthread_t thread, joiner;
    pthread_attr_t attr;
    void *result;

    gate_init(&gate);
    CU_ASSERT_EQUAL(pthread_join(0, NULL), ESRCH);
    CU_ASSERT_EQUAL(pthread_join(pthread_self(), NULL), EDEADLK);
    CU_ASSERT_EQUAL((intptr_t)result_of_thread(join_self, NULL), EDEADLK);

    /* A thread another thread is already joining. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_at_gate, &gate), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&joiner, NULL, join_target, &thread), 0);
    /* tryjoin says EBUSY while nobody joins it, EINVAL once the joiner has claimed it. */
    while (pthread_tryjoin_np(thread, NULL) == EBUSY)
        slimtest_sleep_ms(1);
    CU_ASSERT_EQUAL(pthread_tryjoin_np(thread, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_detach(thread), EINVAL);
    SetEvent(gate.open);
    CU_ASSERT_EQUAL(pthread_join(joiner, &result), 0);
    CU_ASSERT_EQUAL((intptr_t)result, 0);

    /* A detached thread. */
    ResetEvent(gate.open);
    ResetEvent(gate.arrived);
    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, &attr, wait_at_gate, &gate), 0);
    WaitForSingleObject(gate.arrived, INFINITE);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_tryjoin_np(thread, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_detach(thread), EINVAL);
    SetEvent(gate.open);
    pthread_attr_destroy(&attr);
    slimtest_sleep_ms(50); /* let it finish with the gate before the gate goes */
    gate_destroy(&gate);
}

static void test_tryjoin_timedjoin(void)
{
    struct gate gate;
    pthread_t thread;
    struct timespec deadline, bad;
    void *result = NULL;
    double started;

    gate_init(&gate);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_at_gate, &gate), 0);
    WaitForSingleObject(gate.arrived, INFINITE);
    CU_ASSERT_EQUAL(pthread_tryjoin_np(thread, &result), EBUSY);
    deadline = slimtest_time_after_ms(CLOCK_REALTIME, 50);
    started = slimtest_now_ms();
    CU_ASSERT_EQUAL(pthread_timedjoin_np(thread, &result, &deadline), ETIMEDOUT);
    CU_ASSERT(slimtest_now_ms() - started >= 45.0);
    bad = deadline;
    bad.tv_nsec = 1000000000L;
    CU_ASSERT_EQUAL(pthread_timedjoin_np(thread, &result, &bad), EINVAL);
    bad.tv_nsec = -1;
    CU_ASSERT_EQUAL(pthread_timedjoin_np(thread, &result, &bad), EINVAL);
    /* Still joinable after those failures. */
    SetEvent(gate.open);
    deadline = slimtest_time_after_ms(CLOCK_REALTIME, 20000);
    CU_ASSERT_EQUAL(pthread_timedjoin_np(thread, &result, &deadline), 0);
    CU_ASSERT_EQUAL((intptr_t)result, 7);
    CU_ASSERT_EQUAL(pthread_tryjoin_np(0, NULL), ESRCH);
    CU_ASSERT_EQUAL(pthread_timedjoin_np(0, NULL, &deadline), ESRCH);
    CU_ASSERT_EQUAL(pthread_tryjoin_np(pthread_self(), NULL), EDEADLK);

    /* tryjoin succeeds once the thread has finished. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, add_one, (void *)(intptr_t)9), 0);
    started = slimtest_now_ms();
    while (pthread_tryjoin_np(thread, &result) == EBUSY && slimtest_now_ms() - started < 20000)
        slimtest_sleep_ms(1);
    CU_ASSERT_EQUAL((intptr_t)result, 10);

    /* A NULL deadline joins without limit. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, add_one, (void *)(intptr_t)1), 0);
    CU_ASSERT_EQUAL(pthread_timedjoin_np(thread, &result, NULL), 0);
    CU_ASSERT_EQUAL((intptr_t)result, 2);
    gate_destroy(&gate);
}

/* ---- detach ---- */

static volatile LONG detached_done;

static void *count_and_leave(void *argument)
{
    (void)argument;
    InterlockedIncrement(&detached_done);
    return NULL;
}

static void wait_for_count(volatile LONG *counter, LONG expected)
{
    double started = slimtest_now_ms();

    while (*counter < expected && slimtest_now_ms() - started < 30000)
        slimtest_sleep_ms(1);
    CU_ASSERT_EQUAL(*counter, expected);
}

static void test_detach(void)
{
    struct gate gate;
    pthread_t thread;

    gate_init(&gate);
    CU_ASSERT_EQUAL(pthread_detach(0), ESRCH);
    /* Detach a running thread. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_at_gate, &gate), 0);
    WaitForSingleObject(gate.arrived, INFINITE);
    CU_ASSERT_EQUAL(pthread_detach(thread), 0);
    CU_ASSERT_EQUAL(pthread_detach(thread), EINVAL);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), EINVAL);
    SetEvent(gate.open);
    /* Detach a thread that has (almost certainly) finished already. */
    detached_done = 0;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, count_and_leave, NULL), 0);
    wait_for_count(&detached_done, 1);
    slimtest_sleep_ms(20);
    CU_ASSERT_EQUAL(pthread_detach(thread), 0);
    slimtest_sleep_ms(50);
    gate_destroy(&gate);
}

#define DETACHED_THREADS 300

static void test_detached_threads_exit_while_creator_runs(void)
{
    pthread_attr_t attr;
    pthread_t thread;
    int i, failures = 0;

    detached_done = 0;
    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED), 0);
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
    /* Their ids die with them: nothing may be done with thread afterwards. */
    for (i = 0; i < DETACHED_THREADS; i++) {
        if (pthread_create(&thread, &attr, count_and_leave, NULL) != 0)
            failures++;
    }
    CU_ASSERT_EQUAL(failures, 0);
    wait_for_count(&detached_done, DETACHED_THREADS);
    pthread_attr_destroy(&attr);
    slimtest_sleep_ms(50);
}

/* ---- exit and cleanup handlers ---- */

static volatile LONG cleanup_log[8];
static volatile LONG cleanup_count;

static void log_cleanup(void *argument)
{
    LONG slot = InterlockedIncrement(&cleanup_count) - 1;

    if (slot < 8)
        cleanup_log[slot] = (LONG)(intptr_t)argument;
}

static void reset_cleanup_log(void)
{
    memset((void *)cleanup_log, 0, sizeof cleanup_log);
    cleanup_count = 0;
}

static void leave_now(void)
{
    pthread_exit((void *)(intptr_t)42);
}

/* Through a pointer, so that pthread_exit leaves from a nested frame. */
static void (*volatile leave_indirectly)(void) = leave_now;

static volatile LONG after_exit_ran;

static void *exit_with_handlers(void *argument)
{
    (void)argument;
    pthread_cleanup_push(log_cleanup, (void *)1);
    pthread_cleanup_push(log_cleanup, (void *)2);
    pthread_cleanup_push(log_cleanup, (void *)3);
    pthread_cleanup_pop(0); /* 3 does not run */
    leave_indirectly();
    after_exit_ran = 1;
    pthread_cleanup_pop(0);
    pthread_cleanup_pop(0);
    return NULL;
}

static void test_exit_runs_cleanup(void)
{
    reset_cleanup_log();
    after_exit_ran = 0;
    CU_ASSERT_EQUAL((intptr_t)result_of_thread(exit_with_handlers, NULL), 42);
    CU_ASSERT_EQUAL(after_exit_ran, 0);
    CU_ASSERT_EQUAL(cleanup_count, 2);
    CU_ASSERT_EQUAL(cleanup_log[0], 2); /* last pushed runs first */
    CU_ASSERT_EQUAL(cleanup_log[1], 1);
}

static void test_cleanup_push_pop(void)
{
    reset_cleanup_log();
    pthread_cleanup_push(log_cleanup, (void *)10);
    pthread_cleanup_push(log_cleanup, (void *)11);
    pthread_cleanup_pop(1);
    pthread_cleanup_pop(0);
    CU_ASSERT_EQUAL(cleanup_count, 1);
    CU_ASSERT_EQUAL(cleanup_log[0], 11);
    pthread_cleanup_push(log_cleanup, (void *)12);
    pthread_cleanup_pop(1);
    CU_ASSERT_EQUAL(cleanup_count, 2);
    CU_ASSERT_EQUAL(cleanup_log[1], 12);
}

/* ---- threads we did not create ---- */

struct foreign_report {
    pthread_t self_first, self_again;
    int detach_result, join_result;
    pthread_t created;
    int join_created_result;
    void *created_result;
};

static DWORD WINAPI foreign_thread(LPVOID argument)
{
    struct foreign_report *report = argument;

    report->self_first = pthread_self();
    report->self_again = pthread_self();
    report->detach_result = pthread_detach(report->self_first);
    report->join_result = pthread_join(report->self_first, NULL);
    /* A foreign thread can create and join threads of its own. */
    if (pthread_create(&report->created, NULL, add_one, (void *)(intptr_t)100) == 0)
        report->join_created_result = pthread_join(report->created, &report->created_result);
    return 0;
}

static void test_self_equal_foreign(void)
{
    struct foreign_report report;
    HANDLE thread;

    memset(&report, 0, sizeof report);
    report.join_created_result = -1;
    CU_ASSERT(pthread_equal(pthread_self(), pthread_self()));
    thread = CreateThread(NULL, 0, foreign_thread, &report, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
    CU_ASSERT_EQUAL(WaitForSingleObject(thread, 20000), WAIT_OBJECT_0);
    CloseHandle(thread);
    CU_ASSERT_NOT_EQUAL(report.self_first, 0);
    CU_ASSERT(pthread_equal(report.self_first, report.self_again));
    CU_ASSERT(!pthread_equal(report.self_first, pthread_self()));
    /* Threads we did not create are born detached. */
    CU_ASSERT_EQUAL(report.detach_result, EINVAL);
    CU_ASSERT_EQUAL(report.join_result, EDEADLK);
    CU_ASSERT_EQUAL(report.join_created_result, 0);
    CU_ASSERT_EQUAL((intptr_t)report.created_result, 101);
}

static volatile LONG foreign_after_exit;

static DWORD WINAPI foreign_thread_exits(LPVOID argument)
{
    (void)argument;
    pthread_cleanup_push(log_cleanup, (void *)77);
    pthread_exit(NULL);
    pthread_cleanup_pop(0);
    foreign_after_exit = 1;
    return 5;
}

static void test_exit_from_foreign_thread(void)
{
    HANDLE thread;
    DWORD status = 1;

    reset_cleanup_log();
    foreign_after_exit = 0;
    thread = CreateThread(NULL, 0, foreign_thread_exits, NULL, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
    CU_ASSERT_EQUAL(WaitForSingleObject(thread, 20000), WAIT_OBJECT_0);
    GetExitCodeThread(thread, &status);
    CloseHandle(thread);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT_EQUAL(foreign_after_exit, 0);
    CU_ASSERT_EQUAL(cleanup_count, 1);
    CU_ASSERT_EQUAL(cleanup_log[0], 77);
}

/* ---- pthread_exit from main, in a child process ---- */

static HANDLE child_main_thread;
static volatile LONG child_main_cleanup_ran;

static void child_main_cleanup(void *argument)
{
    (void)argument;
    child_main_cleanup_ran = 1;
}

static void *outlive_main(void *argument)
{
    DWORD waited;

    (void)argument;
    waited = WaitForSingleObject(child_main_thread, CHILD_TIMEOUT_MS);
    /* The process lives on after main's pthread_exit; this thread ends it. */
    exit(waited == WAIT_OBJECT_0 && child_main_cleanup_ran ? CHILD_SUCCESS_STATUS : 1);
    return NULL;
}

static int child_exit_from_main(void)
{
    pthread_t thread;

    DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(),
                    &child_main_thread, SYNCHRONIZE, FALSE, 0);
    if (pthread_create(&thread, NULL, outlive_main, NULL) != 0)
        return 2;
    pthread_cleanup_push(child_main_cleanup, NULL);
    pthread_exit(NULL);
    pthread_cleanup_pop(0);
    return 3;
}

static void test_exit_from_main(void)
{
    CU_ASSERT_EQUAL(slimtest_run_child(CHILD_EXIT_MAIN_ARGUMENT, CHILD_TIMEOUT_MS + 10000),
                    CHILD_SUCCESS_STATUS);
}

/* ---- attributes ---- */

/* One int attribute of attr (detach state, inherit-sched): it reads initial;
 * set refuses refused, a NULL attr and get a NULL pointer with EINVAL; set
 * takes accepted, which get then reads. */
static void check_int_attribute(pthread_attr_t *attr, int (*get)(const pthread_attr_t *, int *),
                                int (*set)(pthread_attr_t *, int), int initial, int refused,
                                int accepted)
{
    int value = -1;

    CU_ASSERT_EQUAL(get(attr, &value), 0);
    CU_ASSERT_EQUAL(value, initial);
    CU_ASSERT_EQUAL(set(attr, refused), EINVAL);
    CU_ASSERT_EQUAL(set(NULL, accepted), EINVAL);
    CU_ASSERT_EQUAL(get(attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(set(attr, accepted), 0);
    CU_ASSERT_EQUAL(get(attr, &value), 0);
    CU_ASSERT_EQUAL(value, accepted);
}

static void test_attr_defaults_and_errors(void)
{
    pthread_attr_t attr;
    struct sched_param param;
    size_t size;
    void *address;
    int value;
    char stack[64];

    CU_ASSERT_EQUAL(pthread_attr_init(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_destroy(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    check_int_attribute(&attr, pthread_attr_getdetachstate, pthread_attr_setdetachstate,
                        PTHREAD_CREATE_JOINABLE, 7, PTHREAD_CREATE_DETACHED);

    CU_ASSERT_EQUAL(pthread_attr_getstacksize(&attr, &size), 0);
    CU_ASSERT(size >= PTHREAD_STACK_MIN); /* the executable's default */
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN - 1), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(NULL, PTHREAD_STACK_MIN), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getstacksize(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN), 0);
    CU_ASSERT_EQUAL(pthread_attr_getstacksize(&attr, &size), 0);
    CU_ASSERT_EQUAL(size, PTHREAD_STACK_MIN);

    CU_ASSERT_EQUAL(pthread_attr_getguardsize(&attr, &size), 0);
    CU_ASSERT(size > 0);
    CU_ASSERT_EQUAL(pthread_attr_setguardsize(&attr, 65536), 0);
    CU_ASSERT_EQUAL(pthread_attr_getguardsize(&attr, &size), 0);
    CU_ASSERT_EQUAL(size, 65536);
    CU_ASSERT_EQUAL(pthread_attr_setguardsize(NULL, 0), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getguardsize(&attr, NULL), EINVAL);

    CU_ASSERT_EQUAL(pthread_attr_setstack(&attr, stack, PTHREAD_STACK_MIN), ENOTSUP);
    CU_ASSERT_EQUAL(pthread_attr_setstack(&attr, stack, sizeof stack), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setstack(NULL, stack, PTHREAD_STACK_MIN), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getstack(&attr, &address, &size), 0);
    CU_ASSERT_PTR_NULL(address);
    CU_ASSERT_EQUAL(size, PTHREAD_STACK_MIN);
    CU_ASSERT_EQUAL(pthread_attr_getstack(&attr, NULL, &size), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getstack(&attr, &address, NULL), EINVAL);

    CU_ASSERT_EQUAL(pthread_attr_getscope(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_SCOPE_SYSTEM);
    CU_ASSERT_EQUAL(pthread_attr_setscope(&attr, PTHREAD_SCOPE_PROCESS), ENOTSUP);
    CU_ASSERT_EQUAL(pthread_attr_setscope(&attr, 5), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setscope(NULL, PTHREAD_SCOPE_SYSTEM), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setscope(&attr, PTHREAD_SCOPE_SYSTEM), 0);
    CU_ASSERT_EQUAL(pthread_attr_getscope(&attr, NULL), EINVAL);

    check_int_attribute(&attr, pthread_attr_getinheritsched, pthread_attr_setinheritsched,
                        PTHREAD_INHERIT_SCHED, 9, PTHREAD_EXPLICIT_SCHED);

    CU_ASSERT_EQUAL(pthread_attr_getschedpolicy(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, SCHED_OTHER);
    CU_ASSERT_EQUAL(pthread_attr_setschedpolicy(&attr, 42), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setschedpolicy(NULL, SCHED_RR), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getschedpolicy(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(param.sched_priority, 0);
    param.sched_priority = sched_get_priority_max(SCHED_OTHER) + 1;
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getschedparam(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setschedpolicy(&attr, SCHED_RR), 0);
    CU_ASSERT_EQUAL(pthread_attr_getschedpolicy(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, SCHED_RR);
    param.sched_priority = sched_get_priority_max(SCHED_RR);
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), 0);
    param.sched_priority = 0;
    CU_ASSERT_EQUAL(pthread_attr_getschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(param.sched_priority, sched_get_priority_max(SCHED_RR));
    CU_ASSERT_EQUAL(pthread_attr_destroy(&attr), 0);
}

static void *report_priority(void *argument)
{
    (void)argument;
    return (void *)(intptr_t)GetThreadPriority(GetCurrentThread());
}

static int priority_of_new_thread(const pthread_attr_t *attr)
{
    pthread_t thread;
    void *result = (void *)(intptr_t)THREAD_PRIORITY_ERROR_RETURN;

    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, attr, report_priority, NULL), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, &result), 0);
    return (int)(intptr_t)result;
}

static void test_attr_priorities(void)
{
    pthread_attr_t attr;
    struct sched_param param;

    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(priority_of_new_thread(&attr), THREAD_PRIORITY_NORMAL);
    /* Inherited: the creator's priority, which Windows alone would not pass on. */
    CU_ASSERT_FATAL(SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_BELOW_NORMAL));
    CU_ASSERT_EQUAL(priority_of_new_thread(&attr), THREAD_PRIORITY_BELOW_NORMAL);
    CU_ASSERT_EQUAL(priority_of_new_thread(NULL), THREAD_PRIORITY_BELOW_NORMAL);
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_NORMAL);
    /* Explicit. */
    CU_ASSERT_EQUAL(pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED), 0);
    param.sched_priority = 1;
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(priority_of_new_thread(&attr), THREAD_PRIORITY_ABOVE_NORMAL);
    param.sched_priority = -1;
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(priority_of_new_thread(&attr), THREAD_PRIORITY_BELOW_NORMAL);
    param.sched_priority = sched_get_priority_min(SCHED_OTHER);
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(priority_of_new_thread(&attr), THREAD_PRIORITY_IDLE);
    CU_ASSERT_EQUAL(pthread_attr_setschedpolicy(&attr, SCHED_FIFO), 0);
    param.sched_priority = 50;
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(priority_of_new_thread(&attr), THREAD_PRIORITY_HIGHEST);
    pthread_attr_destroy(&attr);
}

static void test_sched_priority_ranges(void)
{
    CU_ASSERT_EQUAL(sched_get_priority_min(SCHED_OTHER), -15);
    CU_ASSERT_EQUAL(sched_get_priority_max(SCHED_OTHER), 15);
    CU_ASSERT_EQUAL(sched_get_priority_min(SCHED_FIFO), 1);
    CU_ASSERT_EQUAL(sched_get_priority_max(SCHED_FIFO), 99);
    CU_ASSERT_EQUAL(sched_get_priority_min(SCHED_RR), 1);
    CU_ASSERT_EQUAL(sched_get_priority_max(SCHED_RR), 99);
    SLIMTEST_ASSERT_ERRNO(sched_get_priority_min(12345), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sched_get_priority_max(-7), EINVAL);
    CU_ASSERT_EQUAL(sched_yield(), 0);
    CU_ASSERT_EQUAL(pthread_yield(), 0);
}

struct stack_report {
    int error;
    pthread_attr_t attr;
    char *local;
};

static void *report_own_attr(void *argument)
{
    struct stack_report *report = argument;
    char local = 0;

    report->local = &local;
    report->error = pthread_getattr_np(pthread_self(), &report->attr);
    return NULL;
}

static void test_getattr_np(void)
{
    pthread_attr_t attr, wanted;
    struct stack_report report;
    struct gate gate;
    pthread_t thread;
    void *address;
    size_t size;
    char local = 0;
    int value;

    CU_ASSERT_EQUAL(pthread_getattr_np(0, &attr), ESRCH);
    CU_ASSERT_EQUAL(pthread_getattr_np(pthread_self(), NULL), EINVAL);
    /* The main thread: its stack holds our locals. */
    CU_ASSERT_EQUAL(pthread_getattr_np(pthread_self(), &attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_getstack(&attr, &address, &size), 0);
    CU_ASSERT(&local >= (char *)address && &local < (char *)address + size);
    pthread_attr_destroy(&attr);

    /* A created thread: the size it asked for, detach state, guard size. */
    CU_ASSERT_EQUAL(pthread_attr_init(&wanted), 0);
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(&wanted, 256 * 1024), 0);
    CU_ASSERT_EQUAL(pthread_attr_setguardsize(&wanted, 8192), 0);
    memset(&report, 0, sizeof report);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, &wanted, report_own_attr, &report), 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(report.error, 0);
    CU_ASSERT_EQUAL(pthread_attr_getstack(&report.attr, &address, &size), 0);
    CU_ASSERT(size >= 256 * 1024);
    CU_ASSERT(report.local >= (char *)address && report.local < (char *)address + size);
    CU_ASSERT_EQUAL(pthread_attr_getguardsize(&report.attr, &size), 0);
    CU_ASSERT_EQUAL(size, 8192);
    CU_ASSERT_EQUAL(pthread_attr_getdetachstate(&report.attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_CREATE_JOINABLE);
    CU_ASSERT_EQUAL(pthread_attr_getscope(&report.attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_SCOPE_SYSTEM);

    /* Another thread, seen from outside, detached and above normal priority. */
    gate_init(&gate);
    struct sched_param param = {1};
    CU_ASSERT_EQUAL(pthread_attr_setinheritsched(&wanted, PTHREAD_EXPLICIT_SCHED), 0);
    CU_ASSERT_EQUAL(pthread_attr_setschedparam(&wanted, &param), 0);
    CU_ASSERT_EQUAL(pthread_attr_setdetachstate(&wanted, PTHREAD_CREATE_DETACHED), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, &wanted, wait_at_gate, &gate), 0);
    WaitForSingleObject(gate.arrived, INFINITE);
    CU_ASSERT_EQUAL(pthread_getattr_np(thread, &attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_getdetachstate(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_CREATE_DETACHED);
    CU_ASSERT_EQUAL(pthread_attr_getinheritsched(&attr, &value), 0);
    CU_ASSERT_EQUAL(value, PTHREAD_EXPLICIT_SCHED);
    CU_ASSERT_EQUAL(pthread_attr_getschedparam(&attr, &param), 0);
    CU_ASSERT_EQUAL(param.sched_priority, 1);
    CU_ASSERT_EQUAL(pthread_attr_getstack(&attr, &address, &size), 0);
    CU_ASSERT_PTR_NOT_NULL(address);
    CU_ASSERT(size >= 256 * 1024);
    SetEvent(gate.open);
    pthread_attr_destroy(&wanted);
    slimtest_sleep_ms(50);
    gate_destroy(&gate);
}

/* ---- the rest ---- */

static void test_concurrency(void)
{
    CU_ASSERT_EQUAL(pthread_getconcurrency(), 0);
    CU_ASSERT_EQUAL(pthread_setconcurrency(-1), EINVAL);
    CU_ASSERT_EQUAL(pthread_setconcurrency(4), 0);
    CU_ASSERT_EQUAL(pthread_getconcurrency(), 4);
    CU_ASSERT_EQUAL(pthread_setconcurrency(0), 0);
    CU_ASSERT_EQUAL(pthread_getconcurrency(), 0);
}

static volatile LONG fork_handler_calls;

static void fork_handler(void)
{
    InterlockedIncrement(&fork_handler_calls);
}

static void test_atfork(void)
{
    CU_ASSERT_EQUAL(pthread_atfork(fork_handler, fork_handler, fork_handler), 0);
    CU_ASSERT_EQUAL(pthread_atfork(NULL, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fork_handler_calls, 0);
}

static void *name_self(void *argument)
{
    char name[32];

    if (pthread_setname_np(pthread_self(), argument) != 0 ||
        pthread_getname_np(pthread_self(), name, sizeof name) != 0)
        return (void *)1;
    return (void *)(intptr_t)(strcmp(name, argument) != 0);
}

/* winpthreads names threads by raising this exception for a debugger to catch,
 * which stops programs that run under one: we must never raise it. */
#define MS_VC_SET_THREAD_NAME_EXCEPTION 0x406D1388
static volatile long name_exceptions;

static LONG CALLBACK count_name_exceptions(EXCEPTION_POINTERS *exception)
{
    if (exception->ExceptionRecord->ExceptionCode == MS_VC_SET_THREAD_NAME_EXCEPTION)
        name_exceptions++;
    return EXCEPTION_CONTINUE_SEARCH;
}

static void test_names(void)
{
    struct gate gate;
    pthread_t thread;
    char name[32];
    void *handler = AddVectoredExceptionHandler(1, count_name_exceptions);

    name_exceptions = 0;
    CU_ASSERT_EQUAL(pthread_setname_np(pthread_self(), "main-thread"), 0);
    CU_ASSERT_EQUAL(pthread_getname_np(pthread_self(), name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "main-thread");
    /* 15 characters fit, 16 do not (glibc's limit). */
    CU_ASSERT_EQUAL(pthread_setname_np(pthread_self(), "123456789012345"), 0);
    CU_ASSERT_EQUAL(pthread_getname_np(pthread_self(), name, 16), 0);
    CU_ASSERT_STRING_EQUAL(name, "123456789012345");
    CU_ASSERT_EQUAL(pthread_setname_np(pthread_self(), "1234567890123456"), ERANGE);
    CU_ASSERT_EQUAL(pthread_getname_np(pthread_self(), name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "123456789012345");
    CU_ASSERT_EQUAL(pthread_getname_np(pthread_self(), name, 15), ERANGE);
    CU_ASSERT_EQUAL(pthread_setname_np(pthread_self(), ""), 0);
    CU_ASSERT_EQUAL(pthread_getname_np(pthread_self(), name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "");
    CU_ASSERT_EQUAL(pthread_setname_np(0, "x"), ESRCH);
    CU_ASSERT_EQUAL(pthread_getname_np(0, name, sizeof name), ESRCH);
    CU_ASSERT_EQUAL(pthread_setname_np(pthread_self(), NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_getname_np(pthread_self(), NULL, sizeof name), EINVAL);

    /* A thread names itself; another thread names it from outside. */
    CU_ASSERT_EQUAL((intptr_t)result_of_thread(name_self, "worker-7"), 0);
    gate_init(&gate);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, wait_at_gate, &gate), 0);
    CU_ASSERT_EQUAL(pthread_setname_np(thread, "named-outside"), 0);
    CU_ASSERT_EQUAL(pthread_getname_np(thread, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "named-outside");
    SetEvent(gate.open);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    gate_destroy(&gate);
    CU_ASSERT_EQUAL(name_exceptions, 0);
    RemoveVectoredExceptionHandler(handler);
}

/* ---- stale ids: a joined or ended thread's id names nothing, for good ---- */

#define STALE_ROUNDS 3000
#define STALE_DETACHED_ROUNDS 300
#define STALE_SPIN_LIMIT 200000

/* Every call that takes a pthread_t answers ESRCH for an id whose thread is
 * gone (joined, or detached and ended); counts the calls that did not. */
static int calls_not_esrch(pthread_t stale)
{
    struct sched_param param = {0};
    pthread_attr_t attr;
    clockid_t clock;
    char name[16];
    int policy, wrong = 0;

    wrong += pthread_kill(stale, 0) != ESRCH;
    wrong += pthread_join(stale, NULL) != ESRCH;
    wrong += pthread_tryjoin_np(stale, NULL) != ESRCH;
    wrong += pthread_detach(stale) != ESRCH;
    wrong += pthread_cancel(stale) != ESRCH;
    wrong += pthread_getschedparam(stale, &policy, &param) != ESRCH;
    wrong += pthread_setschedprio(stale, 0) != ESRCH;
    wrong += pthread_getattr_np(stale, &attr) != ESRCH;
    wrong += pthread_getcpuclockid(stale, &clock) != ESRCH;
    wrong += pthread_getname_np(stale, name, sizeof name) != ESRCH;
    wrong += pthread_setname_np(stale, "stale") != ESRCH;
    return wrong;
}

static int id_seen_before(const pthread_t *ids, int count, pthread_t id)
{
    int i;

    for (i = 0; i < count; i++) {
        if (ids[i] == id)
            return 1;
    }
    return 0;
}

/* A record is recycled for the next thread at once (the old code handed the
 * freed memory, and so the same id, to the next thread): the stale id must
 * still answer ESRCH while the new thread, at the same place, lives. */
static void test_stale_ids_after_join(void)
{
    static pthread_t ids[STALE_ROUNDS];
    int rounds = (int)slimtest_rounds(STALE_ROUNDS);
    struct gate gate;
    pthread_t current;
    int round, repeated = 0, wrong = 0, stale_alive = 0;

    gate_init(&gate);
    for (round = 0; round < rounds; round++) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&current, NULL, add_one, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_join(current, NULL), 0);
        ids[round] = current;
        repeated += id_seen_before(ids, round, current);
        if (round % 100 == 0)
            wrong += calls_not_esrch(current);
    }
    /* A live thread at the recycled record; every old id still names nothing. */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&current, NULL, wait_at_gate, &gate), 0);
    WaitForSingleObject(gate.arrived, INFINITE);
    CU_ASSERT_EQUAL(pthread_kill(current, 0), 0);
    for (round = 0; round < rounds; round++) {
        stale_alive += pthread_kill(ids[round], 0) != ESRCH;
        stale_alive += ids[round] == current;
    }
    wrong += calls_not_esrch(ids[rounds - 1]);
    SetEvent(gate.open);
    CU_ASSERT_EQUAL(pthread_join(current, NULL), 0);
    CU_ASSERT_EQUAL(repeated, 0);
    CU_ASSERT_EQUAL(stale_alive, 0);
    CU_ASSERT_EQUAL(wrong, 0);
    gate_destroy(&gate);
}

static void *note_end(void *argument)
{
    InterlockedIncrement((volatile LONG *)argument);
    return NULL;
}

/* A detached thread ends its record's life itself; its id then reads ESRCH. */
static void test_stale_ids_after_detached_end(void)
{
    static pthread_t ids[STALE_DETACHED_ROUNDS];
    int rounds = (int)slimtest_rounds(STALE_DETACHED_ROUNDS);
    volatile LONG ended = 0;
    pthread_attr_t attr;
    int round, spins, wrong = 0, still_alive = 0;

    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED), 0);
    for (round = 0; round < rounds; round++) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&ids[round], &attr, note_end, (void *)&ended), 0);
        /* Its end is its own: wait (bounded) until the id stops naming it. */
        for (spins = 0; pthread_kill(ids[round], 0) == 0 && spins < STALE_SPIN_LIMIT; spins++)
            Sleep(spins < 100 ? 0 : 1);
        still_alive += pthread_kill(ids[round], 0) != ESRCH;
    }
    for (round = 0; round < rounds; round++)
        wrong += calls_not_esrch(ids[round]);
    CU_ASSERT_EQUAL(ended, rounds);
    CU_ASSERT_EQUAL(still_alive, 0);
    CU_ASSERT_EQUAL(wrong, 0);
    pthread_attr_destroy(&attr);
}

/* Garbage ids: anything that was never handed out reads ESRCH, never a crash. */
static void test_garbage_ids(void)
{
    static const pthread_t garbage[] = {
        0, 1, 2, 0xffff, 0x10000, 0x10001, (pthread_t)-1, (pthread_t)-2,
        (pthread_t)0x7fffffff, (pthread_t)0x12345678, (pthread_t)UINTPTR_MAX / 3,
    };
    size_t i;
    int wrong = 0;

    for (i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        if (garbage[i] != pthread_self())
            wrong += calls_not_esrch(garbage[i]);
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

/* ---- races of join and detach with the thread's end (nothing touched after) ---- */

#define RACE_ROUNDS 2000

struct race {
    pthread_t target;
    HANDLE go;
    volatile LONG outcome;
};

static void *join_race_target(void *argument)
{
    struct race *race = argument;

    race->outcome = pthread_join(race->target, NULL);
    return NULL;
}

static void *probe_race_target(void *argument)
{
    struct race *race = argument;
    int i, answer;

    for (i = 0; i < 50; i++) {
        answer = pthread_kill(race->target, 0);
        if (answer != 0 && answer != ESRCH)
            InterlockedIncrement(&race->outcome);
        if (answer == ESRCH)
            break;
        SwitchToThread();
    }
    return NULL;
}

/* Two joiners race each other and the thread's exit: exactly one joins it; the
 * other gets EINVAL (the thread is being joined) or ESRCH (already joined). A
 * detach races the exit as well; a prober asks pthread_kill meanwhile. */
static void test_join_detach_races(void)
{
    struct race race;
    pthread_t joiner, prober;
    void *unused;
    int round, double_joins = 0, bad_answers = 0, detach_errors = 0, joined_here;
    int rounds = (int)slimtest_rounds(RACE_ROUNDS);

    for (round = 0; round < rounds; round++) {
        race.outcome = -1;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&race.target, NULL, add_one, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&joiner, NULL, join_race_target, &race), 0);
        if (round % 2)
            SwitchToThread();
        joined_here = pthread_join(race.target, &unused);
        CU_ASSERT_EQUAL_FATAL(pthread_join(joiner, NULL), 0);
        if ((joined_here == 0) == (race.outcome == 0))
            double_joins++;
        if ((joined_here != 0 && joined_here != EINVAL && joined_here != ESRCH) ||
            (race.outcome != 0 && race.outcome != EINVAL && race.outcome != ESRCH))
            bad_answers++;

        race.outcome = 0;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&race.target, NULL, add_one, NULL), 0);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&prober, NULL, probe_race_target, &race), 0);
        if (round % 3 == 0)
            SwitchToThread();
        detach_errors += pthread_detach(race.target) != 0;
        CU_ASSERT_EQUAL_FATAL(pthread_join(prober, NULL), 0);
        bad_answers += race.outcome != 0;
    }
    CU_ASSERT_EQUAL(double_joins, 0);
    CU_ASSERT_EQUAL(bad_answers, 0);
    CU_ASSERT_EQUAL(detach_errors, 0);
}

/* ---- stress ---- */

#define STRESS_TOTAL 10000
#define STRESS_BATCH 50
#define ALIVE_AT_ONCE 500

static void test_stress_create_join(void)
{
    pthread_t threads[STRESS_BATCH];
    pthread_attr_t attr;
    void *result;
    int batch, i, created, wrong = 0, failed = 0;
    int batches = (int)slimtest_rounds(STRESS_TOTAL / STRESS_BATCH);

    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
    for (batch = 0; batch < batches; batch++) {
        for (created = 0; created < STRESS_BATCH; created++) {
            if (pthread_create(&threads[created], &attr, add_one,
                               (void *)(intptr_t)(batch * STRESS_BATCH + created)) != 0) {
                failed++;
                break;
            }
        }
        for (i = 0; i < created; i++) {
            if (pthread_join(threads[i], &result) != 0 ||
                (intptr_t)result != batch * STRESS_BATCH + i + 1)
                wrong++;
        }
    }
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(wrong, 0);
    pthread_attr_destroy(&attr);
}

static volatile LONG alive;

static void *stay_until_released(void *argument)
{
    InterlockedIncrement(&alive);
    WaitForSingleObject((HANDLE)argument, INFINITE);
    return argument;
}

static void test_stress_many_alive(void)
{
    static pthread_t threads[ALIVE_AT_ONCE];
    HANDLE release = new_event();
    pthread_attr_t attr;
    void *result;
    int i, created, wrong = 0;

    alive = 0;
    CU_ASSERT_EQUAL(pthread_attr_init(&attr), 0);
    CU_ASSERT_EQUAL(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
    for (created = 0; created < ALIVE_AT_ONCE; created++) {
        if (pthread_create(&threads[created], &attr, stay_until_released, release) != 0)
            break;
    }
    CU_ASSERT_EQUAL(created, ALIVE_AT_ONCE);
    wait_for_count(&alive, created);
    SetEvent(release);
    for (i = 0; i < created; i++) {
        if (pthread_join(threads[i], &result) != 0 || result != release)
            wrong++;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    pthread_attr_destroy(&attr);
    CloseHandle(release);
}

static CU_TestInfo cases[] = {
    {"create and join return the result", test_create_join_result},
    {"create stores the id before the thread runs", test_create_stores_id_first},
    {"create errors", test_create_errors},
    {"create returns while the new thread cannot start yet", test_create_does_not_wait_for_start},
    {"join errors: ESRCH, EDEADLK, EINVAL", test_join_errors},
    {"tryjoin and timedjoin", test_tryjoin_timedjoin},
    {"detach", test_detach},
    {"detached threads exit while the creator runs", test_detached_threads_exit_while_creator_runs},
    {"pthread_exit runs cleanup handlers", test_exit_runs_cleanup},
    {"cleanup push and pop", test_cleanup_push_pop},
    {"self and equal in a CreateThread thread", test_self_equal_foreign},
    {"pthread_exit from a CreateThread thread", test_exit_from_foreign_thread},
    {"pthread_exit from main (child process)", test_exit_from_main},
    {"attribute defaults and errors", test_attr_defaults_and_errors},
    {"attribute priorities applied at create", test_attr_priorities},
    {"priority ranges and yield", test_sched_priority_ranges},
    {"getattr_np", test_getattr_np},
    {"concurrency level", test_concurrency},
    {"atfork registers nothing", test_atfork},
    {"setname and getname", test_names},
    {"stale ids after join: ESRCH, never reused", test_stale_ids_after_join},
    {"stale ids after a detached thread ends", test_stale_ids_after_detached_end},
    {"garbage ids: ESRCH", test_garbage_ids},
    {"join and detach race the thread's end", test_join_detach_races},
    {"stress: threads created and joined in batches (10000 where threads are cheap)", test_stress_create_join},
    {"stress: 500 threads alive at once", test_stress_many_alive},
    CU_TEST_INFO_NULL,
};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], CHILD_EXIT_MAIN_ARGUMENT) == 0)
        return child_exit_from_main();
    return slimtest_run("thread", cases, 90);
}
