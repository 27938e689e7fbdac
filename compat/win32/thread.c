/*
 * thread.c - the life of a thread: create, join, detach, exit, self, the exit
 * hook, and the unload of the module that holds the library.
 *
 * Every thread that uses slimpthreads has a record (struct slim_thread, kept by
 * thread_table.c), reached from the thread itself through one TLS slot. A
 * pthread_t names one life of a record (its index and the life's generation),
 * so that an id presented after its thread was joined reads as ESRCH without
 * touching freed memory. Threads we create start in a trampoline under
 * _beginthreadex, so that the C runtime makes and frees its per-thread data;
 * they leave by returning or by _endthreadex, never ExitThread. Any other thread
 * gets a record on first need ("adopted"): it is born detached, and
 * pthread_exit leaves it by ExitThread.
 *
 * A thread leaves the library (leave_thread: key destructors, then who ends
 * the record's life) on its POSIX ways out: the return from its start routine
 * into our trampoline, and pthread_exit (cancellation included). The exit hook
 * is an FLS callback for every other end: Windows calls it on the exiting
 * thread for every thread that stored a value in the slot, however the thread
 * ends (_endthreadex or ExitThread called by the program, a thread we did not
 * create) and whoever created it. The POSIX ways clear the slot first, so
 * that a thread leaves once.
 *
 * A life, in the record's lifecycle word (generation | state), changed only by
 * CAS on the whole word, so that an id of an earlier life can never move it:
 *   JOINABLE -detach-> DETACHED -exit-> FREE: the exiting thread ends the life
 *   JOINABLE -join---> JOINED   -exit-> REAPED: the waiting joiner ends it
 *   JOINABLE -exit---> EXITED   -join or detach-> REAPED: the claimer ends it
 * Exactly one side sees the other's mark, so a life ends exactly once. A
 * claimer waits for the thread's handle before it ends the life: by then the
 * exiting thread is gone. The exiting thread's last touch of a record that
 * somebody joins is its CAS to EXITED; the wake after it goes by address.
 *
 * pthread_create starts the thread suspended, so that the record is complete
 * (handle, priority, *thread) before the thread can run, resumes it and
 * returns, as a bare _beginthreadex would: it does not wait for the thread to
 * be scheduled (a creator that started threads one after another would pay
 * each one's start-up in turn, and one that holds the loader lock, which a
 * starting thread takes, would wait for ever). The new thread binds its record
 * itself: the TLS slot, allocated before main, lies in the thread's TEB and
 * takes no memory, and the exit hook's FLS slot is needed only for the ends
 * that are not POSIX's. Only when the record's slot is an expansion slot
 * (past the TEB's 64, which Windows allocates on a thread's first use) does
 * pthread_create wait for the thread's report: a failure there is EAGAIN, with
 * nothing left.
 *
 * A DLL that links the library statically may be unloaded and loaded again any
 * number of times. At its unload (FreeLibrary, not the end of the process) the
 * last destructor of the module gives back the TLS and FLS slots, so that no
 * FLS callback points into unmapped code and no slot leaks, runs the unloading
 * thread's key destructors (the thread leaves this copy of the library), and
 * returns every record, handle and value to Windows and the heap. Threads that
 * are still running keep their own values without destructors, as at
 * pthread_key_delete: their destructors could only run on them, and their code
 * is going away. Each static copy (the .exe's, each DLL's) has its own slots and
 * table, so copies never see each other's records.
 */
#include "spin.h"
#include "wait.h"
#include "cancel_point.h"
#include "check.h"

#include <process.h>
#include <string.h>
#include <winternl.h>

DWORD slim_record_slot = TLS_OUT_OF_INDEXES; /* TLS: the calling thread's record */
static DWORD exit_hook_slot = FLS_OUT_OF_INDEXES; /* FLS: the same record, for the hook */

/* What pthread_create's start report holds. */
enum start_report {
    START_PENDING = 0,
    START_WAITED = 1, /* pending, and pthread_create sleeps on it */
    START_BOUND = 2,
    START_FAILED = 3
};

static void WINAPI thread_exit_hook(void *record);

/* The slots exist before main (or before DllMain returns), so the hot path never
 * checks for them. Without them no pthread function can work at all. */
__attribute__((constructor)) static void allocate_slots(void)
{
    slim_record_slot = TlsAlloc();
    exit_hook_slot = FlsAlloc(thread_exit_hook);
    if (slim_record_slot == TLS_OUT_OF_INDEXES || exit_hook_slot == FLS_OUT_OF_INDEXES)
        abort();
}

struct slim_thread *slim_self_in_expansion_slot(void)
{
    DWORD last_error = GetLastError();
    void *record = TlsGetValue(slim_record_slot);

    SetLastError(last_error);
    return (struct slim_thread *)record;
}

/* The size first, then the address with release: pthread_getattr_np, on
 * another thread that may not have run yet, reads the address first. */
static void note_stack(struct slim_thread *self)
{
    ULONG_PTR low, high;

    GetCurrentThreadStackLimits(&low, &high);
    self->stack_size = (size_t)(high - low);
    slim_pointer_store_release(&self->stack_low, (void *)low);
}

/* Binds a record to the calling thread and arms the exit hook for it: 0, or
 * EAGAIN when Windows has no memory for the record's TLS slot (an expansion
 * slot only; then nothing stays bound). Without memory for the FLS slot the
 * thread goes on without the hook: its POSIX ways out leave the library
 * without it. */
static int bind_record(struct slim_thread *self)
{
    if (!TlsSetValue(slim_record_slot, self))
        return EAGAIN;
    FlsSetValue(exit_hook_slot, self);
    note_stack(self);
    return 0;
}

/* A record with the defaults every thread starts from, in join_state. */
static struct slim_thread *new_record(long join_state)
{
    struct slim_thread *record = slim_record_acquire(join_state);

    if (record == NULL)
        return NULL;
    record->cancel_state = PTHREAD_CANCEL_ENABLE;
    record->cancel_type = PTHREAD_CANCEL_DEFERRED;
    record->sched_policy = SCHED_OTHER;
    record->inherit_sched = PTHREAD_INHERIT_SCHED;
    return record;
}

/* Gives back what one life holds (handles, key values): at its end, and for
 * every record left at the unload. */
static void release_resources(struct slim_thread *record)
{
    if (record->handle != NULL)
        CloseHandle(record->handle);
    if (record->sleep_timer != NULL)
        CloseHandle(record->sleep_timer);
    free(record->key_values);
    slim_rwlock_holds_free(record);
    record->handle = NULL;
    record->sleep_timer = NULL;
    record->key_values = NULL;
    record->key_capacity = 0;
}

static void end_life(struct slim_thread *record)
{
    release_resources(record);
    slim_record_release(record);
}

/* Adoption has no error to report: its callers (pthread_self, a lock) return
 * none. So it does without what it can: without a real handle (DuplicateHandle
 * failed) the calls that need one (priorities, CPU clock, cancel's APC) fail
 * for this thread; without the exit hook (FlsSetValue failed) its destructors
 * never run and its record is never reclaimed. Only without a record, or
 * without the TLS slot to find it again, can nothing of the library work on
 * this thread: then, and only then, the process aborts. */
struct slim_thread *slim_adopt_current_thread(void)
{
    struct slim_thread *self = new_record(SLIM_THREAD_DETACHED);
    SYSTEM_INFO system;

    if (self == NULL)
        abort();
    self->id = GetCurrentThreadId();
    self->adopted = 1;
    GetSystemInfo(&system);
    self->guard_size = system.dwPageSize;
    /* A real handle, so that other threads can name this one (priorities, kill). */
    if (!DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(),
                         &self->handle, 0, FALSE, DUPLICATE_SAME_ACCESS))
        self->handle = NULL;
    if (!TlsSetValue(slim_record_slot, self))
        abort();
    FlsSetValue(exit_hook_slot, self); /* a failure is borne, see above */
    note_stack(self);
    return self;
}

/* ---- Leaving: the exit hook and the end of a life ---- */

/* What a thread leaving the library runs, on that thread. */
static void leave_library(struct slim_thread *self)
{
    slim_keys_run_destructors(self);
    slim_hook_thread_exits(); /* before robust mutexes are marked: it names them held */
    slim_mutex_robust_owner_exits(self);
    slim_rwlock_owner_exits(self);
    if (self->sleep_timer != NULL) {
        CloseHandle(self->sleep_timer);
        self->sleep_timer = NULL;
    }
}

/* After the destructors: the record is the joiner's or the claimer's to end,
 * or, detached, its own. */
static void finish_life(struct slim_thread *self)
{
    const long detached = slim_lifecycle(self->pthread_id, SLIM_THREAD_DETACHED);
    const long joined = slim_lifecycle(self->pthread_id, SLIM_THREAD_JOINED);
    const long exited = slim_lifecycle(self->pthread_id, SLIM_THREAD_EXITED);
    long state;

    for (;;) {
        state = slim_load_acquire(&self->lifecycle);
        if (state == detached) {
            end_life(self);
            return;
        }
        /* JOINED: the joiner owns the life and ends it, so it goes straight to
         * REAPED; through EXITED another joiner or a detacher could claim it too
         * before the waiting joiner saw the change. JOINABLE: whoever joins or
         * detaches later ends the life. */
        if (state == joined) {
            if (slim_cas(&self->lifecycle, joined,
                         slim_lifecycle(self->pthread_id, SLIM_THREAD_REAPED))) {
                slim_wake_all(&self->lifecycle);
                return;
            }
        } else if (slim_cas(&self->lifecycle, state, exited)) {
            return;
        }
    }
}

/* The calling thread leaves the library for good: destructors, then its
 * record's life is settled. self may be gone when it returns. */
static void leave_thread(struct slim_thread *self)
{
    slim_cancel_exiting(self);
    leave_library(self);
    TlsSetValue(slim_record_slot, NULL); /* cannot fail: the slot holds a value */
    finish_life(self);
}

static void WINAPI thread_exit_hook(void *record)
{
    struct slim_thread *self = record;

    /* FlsFree, at the unload, calls the hook on the unloading thread for every
     * thread's value: another thread's destructors cannot run here, and
     * release_at_unload gives back those records itself. */
    if (self == NULL || self->id != __slim_current_thread_id())
        return;
    leave_thread(self);
}

/* A POSIX way out: the thread leaves here, and the hook, disarmed, does not
 * run again (clearing a slot never fails). */
static void leave_thread_now(struct slim_thread *self)
{
    FlsSetValue(exit_hook_slot, NULL);
    leave_thread(self);
}

/* Until the thread of handle has really gone (no deadline, not cancellable). */
static void wait_for_handle(HANDLE handle)
{
    const struct slim_wait_target target = {NULL, 0, handle, NULL};

    slim_wait(&target, NULL, SLIM_WAIT_PLAIN);
}

/* The claimer of a finished thread collects its result and ends the life,
 * once the thread has really gone (see the top of the file). */
static void reap(struct slim_thread *target, void **result)
{
    wait_for_handle(target->handle);
    if (result != NULL)
        *result = target->result;
    end_life(target);
}

/* ---- Creating ---- */

/* Runs on the new thread: binds the record, tells a waiting pthread_create how
 * that went, runs the start routine, leaves the library and returns into
 * _beginthreadex's own epilogue (_endthreadex). */
static unsigned __stdcall thread_start(void *argument)
{
    struct slim_thread *self = argument;
    volatile long *report = self->start_report;
    int error;

    if (self->start_routine == NULL)
        return 0; /* pthread_create gave up on this thread before it ran */
    error = bind_record(self);
    /* Without a report the slot lies in the TEB: binding cannot fail. From
     * this swap on, the report is gone, and so is the record on failure. */
    if (report != NULL &&
        slim_swap(report, error == 0 ? START_BOUND : START_FAILED) == START_WAITED)
        slim_wake_one(report);
    if (error != 0)
        return 0;
    self->result = self->start_routine(self->start_argument);
    leave_thread_now(self);
    return 0;
}

/* pthread_create's wait for the new thread's report: 0 or EAGAIN. */
static int wait_for_start(volatile long *report)
{
    struct slim_spin spin;
    long state;

    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (slim_load_acquire(report) == START_PENDING && slim_spin_again(&spin))
        continue;
    for (;;) {
        state = slim_load_acquire(report);
        if (state == START_BOUND)
            return 0;
        if (state == START_FAILED)
            return EAGAIN;
        if (state == START_WAITED || slim_cas(report, START_PENDING, START_WAITED))
            slim_wait_on(report, START_WAITED, NULL, SLIM_WAIT_PLAIN);
    }
}

/* The Windows priority a new thread gets: the creator's own when the attribute
 * inherits (Windows would start it at normal), else the attribute's. */
static int priority_for_new_thread(const pthread_attr_t *attr, struct slim_thread *creator,
                                   struct slim_thread *record, int *win32_priority)
{
    int priority;

    if (attr->__inherit_sched == PTHREAD_INHERIT_SCHED) {
        record->sched_policy = creator->sched_policy;
        record->sched_priority = creator->sched_priority;
        priority = GetThreadPriority(GetCurrentThread());
        *win32_priority = priority == THREAD_PRIORITY_ERROR_RETURN ? THREAD_PRIORITY_NORMAL
                                                                     : priority;
        return 0;
    }
    record->sched_policy = attr->__sched_policy;
    record->sched_priority = attr->__sched_param.sched_priority;
    return slim_priority_to_win32(attr->__sched_policy, attr->__sched_param.sched_priority,
                                  win32_priority);
}

/* Ends a suspended thread that must not run the start routine, and its record.
 * A thread that can be neither resumed nor terminated stays suspended, with
 * its record: Windows left no way to end it. */
static void abandon_new_thread(struct slim_thread *record)
{
    record->start_routine = NULL;
    if (ResumeThread(record->handle) == (DWORD)-1 && !TerminateThread(record->handle, 0))
        return;
    wait_for_handle(record->handle);
    end_life(record);
}

/* Runs the new thread and, if it has a report to give, waits for it: 0, or
 * EAGAIN with the thread and its record gone. */
static int start_new_thread(struct slim_thread *record, volatile long *report)
{
    if (ResumeThread(record->handle) == (DWORD)-1) {
        abandon_new_thread(record);
        return EAGAIN;
    }
    if (report == NULL)
        return 0; /* the record may be gone from here on */
    if (wait_for_start(report) != 0) {
        wait_for_handle(record->handle);
        end_life(record);
        return EAGAIN;
    }
    return 0; /* the record may be gone from here on */
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *),
                   void *argument)
{
    pthread_attr_t defaults;
    struct slim_thread *creator, *record;
    volatile long report = START_PENDING;
    unsigned flags = CREATE_SUSPENDED;
    unsigned id;
    uintptr_t handle;
    int error, win32_priority;

    if (thread == NULL || start_routine == NULL)
        return EINVAL;
    if (attr == NULL) {
        pthread_attr_init(&defaults);
        attr = &defaults;
    }
    /* Only pthread_getattr_np fills in an address: Windows cannot run a thread
     * on a stack the caller provides (see pthread_attr_setstack). */
    if (attr->__stack_address != NULL)
        return EINVAL;
    creator = slim_self();
    record = new_record(attr->__detach_state == PTHREAD_CREATE_DETACHED ? SLIM_THREAD_DETACHED
                                                                        : SLIM_THREAD_JOINABLE);
    if (record == NULL)
        return EAGAIN;
    record->start_routine = start_routine;
    record->start_argument = argument;
    /* Only an expansion slot can fail to bind on the new thread. */
    record->start_report = slim_record_slot < TLS_MINIMUM_AVAILABLE ? NULL : &report;
    record->stack_size = attr->__stack_size;
    record->guard_size = attr->__guard_size;
    record->inherit_sched = attr->__inherit_sched;
    record->signal_mask = creator->signal_mask;
    error = priority_for_new_thread(attr, creator, record, &win32_priority);
    if (error != 0) {
        end_life(record);
        return error;
    }

    /* A reservation, as POSIX means the stack size: without the flag Windows
     * would read it as the size to commit up front. */
    if (attr->__stack_size != 0)
        flags |= STACK_SIZE_PARAM_IS_A_RESERVATION;
    handle = _beginthreadex(NULL, (unsigned)attr->__stack_size, thread_start, record, flags, &id);
    if (handle == 0) {
        end_life(record);
        return EAGAIN;
    }
    record->handle = (HANDLE)handle;
    record->id = id;
    if (win32_priority != THREAD_PRIORITY_NORMAL &&
        !SetThreadPriority(record->handle, win32_priority)) {
        error = slim_errno_from_win32(GetLastError());
        abandon_new_thread(record);
        return error == EPERM ? EPERM : EINVAL;
    }
    /* The attribute's name and processors (np.c), before the thread runs. */
    error = slim_attr_apply_np(attr, record->pthread_id);
    if (error != 0) {
        abandon_new_thread(record);
        return error;
    }
    *thread = record->pthread_id;
    return start_new_thread(record, record->start_report);
}

/* ---- Joining and detaching ---- */

/* Waits until the thread we claimed as JOINED has exited; ETIMEDOUT if the
 * deadline passes first, after handing the thread back as JOINABLE. A join is a
 * cancellation point: cancelled, the joiner hands the thread back the same way
 * (it stays joinable, as POSIX asks) and acts on the request. */
static int wait_for_exit(struct slim_thread *target, pthread_t thread,
                         const struct slim_deadline *deadline)
{
    const long joined = slim_lifecycle(thread, SLIM_THREAD_JOINED);

    int error = slim_wait_on(&target->lifecycle, joined, deadline, SLIM_WAIT_CANCELLABLE);

    /* A thread that exited as the wait gave up is joined all the same. */
    if (error != 0 &&
        slim_cas(&target->lifecycle, joined, slim_lifecycle(thread, SLIM_THREAD_JOINABLE))) {
        if (error == ECANCELED)
            slim_cancel_act();
        return ETIMEDOUT;
    }
    /* REAPED by the exiting thread itself (finish_life): ours to end. */
    return 0;
}

/* What join and detach answer for a life in a state they cannot claim. */
static int unclaimable(pthread_t thread, long lifecycle)
{
    if (lifecycle == slim_lifecycle(thread, SLIM_THREAD_DETACHED) ||
        lifecycle == slim_lifecycle(thread, SLIM_THREAD_JOINED))
        return EINVAL; /* detached, or another thread joins it */
    return ESRCH; /* joined, or ended, since it was checked */
}

/* pthread_join with a deadline (NULL: none); EBUSY instead of waiting if
 * try_only. */
static int join_thread(pthread_t thread, void **result, const struct slim_deadline *deadline,
                       int try_only)
{
    struct slim_thread *target = slim_thread_checked(thread);
    const long joinable = slim_lifecycle(thread, SLIM_THREAD_JOINABLE);
    const long exited = slim_lifecycle(thread, SLIM_THREAD_EXITED);
    long state;
    int error;

    if (target == NULL)
        return ESRCH;
    if (target == slim_self_if_known())
        return EDEADLK;
    for (;;) {
        state = slim_load_acquire(&target->lifecycle);
        if (state == exited) {
            if (slim_cas(&target->lifecycle, exited, slim_lifecycle(thread, SLIM_THREAD_REAPED)))
                break;
        } else if (state != joinable) {
            return unclaimable(thread, state);
        } else if (try_only) {
            return EBUSY;
        } else if (slim_cas(&target->lifecycle, joinable,
                            slim_lifecycle(thread, SLIM_THREAD_JOINED))) {
            error = wait_for_exit(target, thread, deadline);
            if (error != 0)
                return error;
            break;
        }
    }
    reap(target, result);
    return 0;
}

/* pthread_join and timedjoin are cancellation points, acting on a request
 * pending at entry even when the thread has ended already; tryjoin never
 * waits and is none. */
int pthread_join(pthread_t thread, void **result)
{
    slim_cancel_point_entry();
    return join_thread(thread, result, NULL, 0);
}

int pthread_tryjoin_np(pthread_t thread, void **result)
{
    return join_thread(thread, result, NULL, 1);
}

int pthread_timedjoin_np(pthread_t thread, void **result, const struct timespec *abstime)
{
    struct slim_deadline deadline;

    slim_cancel_point_entry();
    if (abstime == NULL)
        return join_thread(thread, result, NULL, 0);
    if (slim_deadline_absolute(&deadline, CLOCK_REALTIME, abstime) != 0)
        return EINVAL;
    return join_thread(thread, result, &deadline, 0);
}

int pthread_detach(pthread_t thread)
{
    struct slim_thread *target = slim_thread_checked(thread);
    const long joinable = slim_lifecycle(thread, SLIM_THREAD_JOINABLE);
    const long exited = slim_lifecycle(thread, SLIM_THREAD_EXITED);
    long state;

    if (target == NULL)
        return ESRCH;
    for (;;) {
        state = slim_load_acquire(&target->lifecycle);
        if (state == joinable) {
            if (slim_cas(&target->lifecycle, joinable,
                         slim_lifecycle(thread, SLIM_THREAD_DETACHED)))
                return 0;
        } else if (state == exited) {
            if (slim_cas(&target->lifecycle, exited,
                         slim_lifecycle(thread, SLIM_THREAD_REAPED))) {
                reap(target, NULL);
                return 0;
            }
        } else {
            return unclaimable(thread, state);
        }
    }
}

/* ---- The unload of the module that holds this copy of the library ---- */

typedef BOOLEAN(WINAPI *shutdown_query_function)(void);

/* Nonzero when the module is a DLL that FreeLibrary unloads. Not the .exe, nor
 * a DLL at the end of the process: then other threads may still be running
 * (an .exe's destructors run at exit()) or have been stopped anywhere, other
 * modules' detach code may still call us, and Windows reclaims everything. */
static int module_unloading(void)
{
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll"), own = NULL;
    shutdown_query_function shutdown_in_progress;

    /* Our own module, found from an address of ours (no __ImageBase, whose
     * reference a vendoring build would see as a foreign symbol). */
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)(void *)&slim_record_slot, &own) ||
        own == GetModuleHandleW(NULL) || ntdll == NULL)
        return 0;
    shutdown_in_progress = (shutdown_query_function)(void (*)(void))GetProcAddress(
        ntdll, "RtlDllShutdownInProgress");
    return shutdown_in_progress != NULL && !shutdown_in_progress();
}

/* The module's last destructor (priority 101 runs after every other one, and
 * after the module's atexit handlers and C++ static destructors, which may
 * still use the library); a TLS callback would run before them. */
__attribute__((destructor(101))) static void release_at_unload(void)
{
    struct slim_thread *self;

    if (!module_unloading())
        return;
    self = slim_self_if_known();
    if (self != NULL) {
        leave_library(self);
        FlsSetValue(exit_hook_slot, NULL); /* never fails: it only clears */
    }
    FlsFree(exit_hook_slot);
    TlsFree(slim_record_slot);
    exit_hook_slot = FLS_OUT_OF_INDEXES;
    slim_record_slot = TLS_OUT_OF_INDEXES;
    slim_records_release_all(release_resources);
}

/* ---- Exiting, identity, cleanup handlers ---- */

void pthread_exit(void *result)
{
    struct slim_thread *self = slim_self();
    struct __slim_cleanup_frame *frame;
    int adopted;

    slim_cancel_exiting(self);
    /* Unlink each handler before it runs, so that one that exits again goes on
     * with the rest instead of running itself twice. */
    while ((frame = self->cleanup_top) != NULL) {
        self->cleanup_top = frame->__previous;
        if (frame->__routine != NULL)
            frame->__routine(frame->__argument);
    }
    self->result = result;
    adopted = self->adopted;
    leave_thread_now(self);
    if (adopted)
        ExitThread(0); /* not ours: we cannot know how its C runtime data was made */
    _endthreadex(0);
}

pthread_t pthread_self(void)
{
    return slim_self()->pthread_id;
}

int pthread_equal(pthread_t a, pthread_t b)
{
    return a == b;
}

void __slim_cleanup_push(struct __slim_cleanup_frame *frame, void (*routine)(void *),
                         void *argument)
{
    struct slim_thread *self = slim_self();

    frame->__routine = routine;
    frame->__argument = argument;
    frame->__previous = self->cleanup_top;
    self->cleanup_top = frame;
}

void __slim_cleanup_pop(struct __slim_cleanup_frame *frame, int execute)
{
    struct slim_thread *self = slim_self();

    self->cleanup_top = frame->__previous;
    if (execute && frame->__routine != NULL)
        frame->__routine(frame->__argument);
}

/* ---- What Windows has no use for, kept honest ---- */

/* The level is only a hint in POSIX; Windows schedules every thread itself. */
static volatile long concurrency_level;

int pthread_getconcurrency(void)
{
    return (int)slim_load_relaxed(&concurrency_level);
}

int pthread_setconcurrency(int level)
{
    if (level < 0)
        return EINVAL;
    slim_store_release(&concurrency_level, level);
    return 0;
}

/* There is no fork on Windows: the handlers can never run, so none is kept. */
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
    (void)prepare;
    (void)parent;
    (void)child;
    return 0;
}

int pthread_yield(void)
{
    slim_yield();
    return 0;
}

#include "code_end.h"
