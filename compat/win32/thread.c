/*
 * thread.c - threads: the per-thread record, create/join/detach/exit, the exit hook.
 *
 * Every thread that uses slimpthreads has a record (struct slim_thread), reached
 * from the thread itself through one TLS slot; a pthread_t is its address.
 * Threads we create start in a trampoline under _beginthreadex, so that the C
 * runtime makes and frees its per-thread data; they leave by returning or by
 * _endthreadex, never ExitThread. Any other thread gets a record on first need
 * ("adopted"): it is born detached, and pthread_exit leaves it by ExitThread.
 *
 * The exit hook is an FLS callback: Windows calls it on the exiting thread for
 * every thread that stored a value in the slot, however the thread ends
 * (returning, _endthreadex, ExitThread) and whoever created it. It runs key
 * destructors and then settles who frees the record.
 *
 * Record lifetime, one word changed only by CAS (enum slim_join_state):
 *   JOINABLE -detach-> DETACHED -exit-> freed by the exiting thread itself
 *   JOINABLE -join---> JOINED   -exit-> EXITED: the waiting joiner frees it
 *   JOINABLE -exit---> EXITED   -join or detach-> REAPED: the claimer frees it
 * Exactly one side sees the other's mark, so the record is freed exactly once.
 * A claimer waits for the thread's handle before freeing: by then the exiting
 * thread is gone and can no longer touch the record, not even to wake a joiner.
 */
#include "internal.h"

#include <process.h>
#include <string.h>
#include <winternl.h>

static DWORD record_slot = TLS_OUT_OF_INDEXES; /* TLS: the calling thread's record */
static DWORD exit_hook_slot = FLS_OUT_OF_INDEXES; /* FLS: the same record, for the hook */

static void WINAPI thread_exit_hook(void *record);

/* The slots exist before main (or before DllMain returns), so the hot path never
 * checks for them. */
__attribute__((constructor)) static void allocate_slots(void)
{
    record_slot = TlsAlloc();
    exit_hook_slot = FlsAlloc(thread_exit_hook);
    if (record_slot == TLS_OUT_OF_INDEXES || exit_hook_slot == FLS_OUT_OF_INDEXES)
        abort();
}

/* NtCurrentTeb, whose MinGW version trips GCC 12's -Warray-bounds. */
static inline TEB *current_teb(void)
{
    TEB *teb;

#if defined(__x86_64__)
    __asm__("movq %%gs:%c1, %0" : "=r"(teb) : "i"(offsetof(NT_TIB, Self)));
#elif defined(__i386__)
    __asm__("movl %%fs:%c1, %0" : "=r"(teb) : "i"(offsetof(NT_TIB, Self)));
#else
    teb = NtCurrentTeb();
#endif
    return teb;
}

/* The load TlsGetValue makes, without its call and without clearing the
 * caller's last error, which a pthread call must leave alone. */
struct slim_thread *slim_self_if_known(void)
{
    DWORD last_error;
    void *record;

    if (record_slot < TLS_MINIMUM_AVAILABLE)
        return (struct slim_thread *)current_teb()->TlsSlots[record_slot];
    last_error = GetLastError();
    record = TlsGetValue(record_slot);
    SetLastError(last_error);
    return (struct slim_thread *)record;
}

/* Binds a record to the calling thread and arms the exit hook for it. */
void slim_thread_attach(struct slim_thread *self)
{
    ULONG_PTR low, high;

    TlsSetValue(record_slot, self);
    FlsSetValue(exit_hook_slot, self);
    GetCurrentThreadStackLimits(&low, &high);
    self->stack_low = (void *)low;
    self->stack_size = (size_t)(high - low);
}

/* A record with the defaults every thread starts from. */
static struct slim_thread *new_record(void)
{
    struct slim_thread *record = calloc(1, sizeof *record);

    if (record == NULL)
        return NULL;
    record->join_state = SLIM_THREAD_JOINABLE;
    record->cancel_state = PTHREAD_CANCEL_ENABLE;
    record->cancel_type = PTHREAD_CANCEL_DEFERRED;
    record->sched_policy = SCHED_OTHER;
    record->inherit_sched = PTHREAD_INHERIT_SCHED;
    record->signature = SLIM_THREAD_SIGNATURE;
    return record;
}

static struct slim_thread *adopt_current_thread(void)
{
    struct slim_thread *self = new_record();
    SYSTEM_INFO system;

    if (self == NULL)
        abort();
    self->id = GetCurrentThreadId();
    self->adopted = 1;
    self->join_state = SLIM_THREAD_DETACHED;
    GetSystemInfo(&system);
    self->guard_size = system.dwPageSize;
    /* A real handle, so that other threads can name this one (priorities, kill). */
    DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &self->handle,
                    0, FALSE, DUPLICATE_SAME_ACCESS);
    slim_thread_attach(self);
    return self;
}

struct slim_thread *slim_self(void)
{
    struct slim_thread *self = slim_self_if_known();

    return self != NULL ? self : adopt_current_thread();
}

struct slim_thread *slim_thread_checked(pthread_t thread)
{
    struct slim_thread *record = slim_thread_from_handle(thread);

    if (record == NULL || record->signature != SLIM_THREAD_SIGNATURE)
        return NULL;
    return record;
}

/* ---- Leaving: the exit hook and the end of a record ---- */

static void free_record(struct slim_thread *record)
{
    if (record->handle != NULL)
        CloseHandle(record->handle);
    free(record->key_values);
    /* An atomic store: a plain one right before free() is a dead store the
     * compiler removes, and then a joined thread would still look alive. */
    __atomic_store_n(&record->signature, 0UL, __ATOMIC_RELEASE);
    free(record);
}

static void WINAPI thread_exit_hook(void *record)
{
    struct slim_thread *self = record;

    if (self == NULL)
        return;
    slim_keys_run_destructors(self);
    slim_mutex_robust_owner_exits(self);
    if (self->sleep_timer != NULL) {
        CloseHandle(self->sleep_timer);
        self->sleep_timer = NULL;
    }
    TlsSetValue(record_slot, NULL);
    slim_thread_finished(self);
}

void slim_thread_finished(struct slim_thread *self)
{
    long state;

    slim_store_release(&self->exited, 1);
    for (;;) {
        state = slim_load_acquire(&self->join_state);
        if (state == SLIM_THREAD_DETACHED) {
            free_record(self);
            return;
        }
        /* JOINABLE or JOINED: whoever joins or detaches later frees the record. */
        if (slim_cas(&self->join_state, state, SLIM_THREAD_EXITED)) {
            if (state == SLIM_THREAD_JOINED)
                slim_wake_all(&self->join_state);
            return;
        }
    }
}

/* The claimer of a finished thread collects its result and frees the record,
 * once the thread has really gone (see the top of the file). */
static void reap(struct slim_thread *target, void **result)
{
    WaitForSingleObject(target->handle, INFINITE);
    if (result != NULL)
        *result = target->result;
    free_record(target);
}

/* ---- Creating ---- */

/* Runs on the new thread: binds the record, runs the start routine, and returns
 * into _beginthreadex's own epilogue (_endthreadex), which fires the exit hook. */
static unsigned __stdcall thread_start(void *argument)
{
    struct slim_thread *self = argument;

    if (self->start_routine == NULL)
        return 0; /* pthread_create gave up on this thread before it ran */
    slim_thread_attach(self);
    self->result = self->start_routine(self->start_argument);
    return 0;
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

/* Lets a suspended thread that must not run the start routine end at once. */
static void abandon_new_thread(struct slim_thread *record)
{
    record->start_routine = NULL;
    ResumeThread(record->handle);
    WaitForSingleObject(record->handle, INFINITE);
    free_record(record);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start_routine)(void *),
                   void *argument)
{
    pthread_attr_t defaults;
    struct slim_thread *creator, *record;
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
    record = new_record();
    if (record == NULL)
        return EAGAIN;
    record->start_routine = start_routine;
    record->start_argument = argument;
    record->join_state = attr->__detach_state == PTHREAD_CREATE_DETACHED ? SLIM_THREAD_DETACHED
                                                                          : SLIM_THREAD_JOINABLE;
    record->stack_size = attr->__stack_size;
    record->guard_size = attr->__guard_size;
    record->inherit_sched = attr->__inherit_sched;
    record->signal_mask = creator->signal_mask;
    error = priority_for_new_thread(attr, creator, record, &win32_priority);
    if (error != 0) {
        free_record(record);
        return error;
    }

    /* A reservation, as POSIX means the stack size: without the flag Windows
     * would read it as the size to commit up front. */
    if (attr->__stack_size != 0)
        flags |= STACK_SIZE_PARAM_IS_A_RESERVATION;
    /* Suspended, so that the record is complete (handle, priority, *thread)
     * before the thread can run, exit, or be detached and freed. */
    handle = _beginthreadex(NULL, (unsigned)attr->__stack_size, thread_start, record, flags, &id);
    if (handle == 0) {
        free_record(record);
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
    error = slim_attr_apply_np(attr, (pthread_t)record);
    if (error != 0) {
        abandon_new_thread(record);
        return error;
    }
    *thread = (pthread_t)record;
    ResumeThread(record->handle); /* the record may be gone from here on */
    return 0;
}

/* ---- Joining and detaching ---- */

/* Waits until the thread we claimed as JOINED has exited; ETIMEDOUT if the
 * deadline passes first, after handing the thread back as JOINABLE. A join is a
 * cancellation point: cancelled, the joiner hands the thread back the same way
 * (it stays joinable, as POSIX asks) and acts on the request. */
static int wait_for_exit(struct slim_thread *target, const struct slim_deadline *deadline)
{
    while (slim_load_acquire(&target->join_state) == SLIM_THREAD_JOINED) {
        int error = slim_wait_on_cancellable(&target->join_state, SLIM_THREAD_JOINED, deadline);

        if (error != 0 &&
            slim_cas(&target->join_state, SLIM_THREAD_JOINED, SLIM_THREAD_JOINABLE)) {
            if (error == ECANCELED)
                slim_cancel_act();
            return ETIMEDOUT;
        }
    }
    target->join_state = SLIM_THREAD_REAPED; /* EXITED, and only we hold it now */
    return 0;
}

/* pthread_join with a deadline (NULL: none); EBUSY instead of waiting if
 * try_only. */
static int join_thread(pthread_t thread, void **result, const struct slim_deadline *deadline,
                       int try_only)
{
    struct slim_thread *target = slim_thread_checked(thread);
    long state;
    int error;

    if (target == NULL)
        return ESRCH;
    if (target == slim_self_if_known())
        return EDEADLK;
    for (;;) {
        state = slim_load_acquire(&target->join_state);
        if (state == SLIM_THREAD_EXITED) {
            if (slim_cas(&target->join_state, SLIM_THREAD_EXITED, SLIM_THREAD_REAPED))
                break;
        } else if (state != SLIM_THREAD_JOINABLE) {
            return EINVAL; /* detached, or another thread joins it */
        } else if (try_only) {
            return EBUSY;
        } else if (slim_cas(&target->join_state, SLIM_THREAD_JOINABLE, SLIM_THREAD_JOINED)) {
            error = wait_for_exit(target, deadline);
            if (error != 0)
                return error;
            break;
        }
    }
    reap(target, result);
    return 0;
}

int pthread_join(pthread_t thread, void **result)
{
    pthread_testcancel();
    return join_thread(thread, result, NULL, 0);
}

int pthread_tryjoin_np(pthread_t thread, void **result)
{
    return join_thread(thread, result, NULL, 1);
}

int pthread_timedjoin_np(pthread_t thread, void **result, const struct timespec *abstime)
{
    struct slim_deadline deadline;

    pthread_testcancel();
    if (abstime == NULL)
        return join_thread(thread, result, NULL, 0);
    if (slim_deadline_absolute(&deadline, CLOCK_REALTIME, abstime) != 0)
        return EINVAL;
    return join_thread(thread, result, &deadline, 0);
}

int pthread_detach(pthread_t thread)
{
    struct slim_thread *target = slim_thread_checked(thread);
    long state;

    if (target == NULL)
        return ESRCH;
    for (;;) {
        state = slim_load_acquire(&target->join_state);
        if (state == SLIM_THREAD_JOINABLE) {
            if (slim_cas(&target->join_state, SLIM_THREAD_JOINABLE, SLIM_THREAD_DETACHED))
                return 0;
        } else if (state == SLIM_THREAD_EXITED) {
            if (slim_cas(&target->join_state, SLIM_THREAD_EXITED, SLIM_THREAD_REAPED)) {
                reap(target, NULL);
                return 0;
            }
        } else {
            return EINVAL; /* already detached, or being joined */
        }
    }
}

/* ---- Exiting, identity, cleanup handlers ---- */

void pthread_exit(void *result)
{
    struct slim_thread *self = slim_self();
    struct __slim_cleanup_frame *frame;

    /* Unlink each handler before it runs, so that one that exits again goes on
     * with the rest instead of running itself twice. */
    while ((frame = self->cleanup_top) != NULL) {
        self->cleanup_top = frame->__previous;
        if (frame->__routine != NULL)
            frame->__routine(frame->__argument);
    }
    self->result = result;
    if (self->adopted)
        ExitThread(0); /* not ours: we cannot know how its C runtime data was made */
    _endthreadex(0);
}

pthread_t pthread_self(void)
{
    return (pthread_t)slim_self();
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

/* ---- Names: SetThreadDescription, never the debugger exception ---- */

/* Windows 10 1607 and later; older headers and systems lack them, so they are
 * looked up once. Without them the name calls fail with ENOTSUP. */
typedef HRESULT(WINAPI *set_description_function)(HANDLE thread, PCWSTR description);
typedef HRESULT(WINAPI *get_description_function)(HANDLE thread, PWSTR *description);

static set_description_function set_description;
static get_description_function get_description;
static volatile long descriptions_resolved;

#define NAME_SIZE_MAX 16 /* glibc's: 15 characters and the terminator */

static void (*resolve_function(const char *name))(void)
{
    static const wchar_t *const modules[] = {L"kernel32.dll", L"kernelbase.dll"};
    HMODULE module;
    FARPROC function;
    size_t i;

    for (i = 0; i < sizeof modules / sizeof modules[0]; i++) {
        module = GetModuleHandleW(modules[i]);
        function = module != NULL ? GetProcAddress(module, name) : NULL;
        if (function != NULL)
            return (void (*)(void))function;
    }
    return NULL;
}

/* Racing callers resolve the same addresses: the race is harmless. */
static int resolve_descriptions(void)
{
    if (!slim_load_acquire(&descriptions_resolved)) {
        set_description = (set_description_function)resolve_function("SetThreadDescription");
        get_description = (get_description_function)resolve_function("GetThreadDescription");
        slim_store_release(&descriptions_resolved, 1);
    }
    return set_description != NULL && get_description != NULL;
}

int pthread_setname_np(pthread_t thread, const char *name)
{
    struct slim_thread *target = slim_thread_checked(thread);
    wchar_t wide[NAME_SIZE_MAX];
    HRESULT result;

    if (target == NULL)
        return ESRCH;
    if (name == NULL)
        return EINVAL;
    if (strlen(name) >= NAME_SIZE_MAX)
        return ERANGE;
    if (!resolve_descriptions())
        return ENOTSUP;
    if (MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, NAME_SIZE_MAX) == 0)
        return EINVAL;
    result = set_description(target->handle, wide);
    return FAILED(result) ? slim_errno_from_win32(HRESULT_CODE(result)) : 0;
}

/* Copies the UTF-8 form of wide into name, cut at a character boundary to fit
 * size bytes (names set by Windows code may be longer than POSIX ones). */
static int copy_name(const wchar_t *wide, char *name, size_t size)
{
    int length = WideCharToMultiByte(CP_UTF8, 0, wide, -1, NULL, 0, NULL, NULL);
    char *utf8;
    size_t kept;

    if (length <= 0)
        return EINVAL;
    utf8 = malloc((size_t)length);
    if (utf8 == NULL)
        return ENOMEM;
    WideCharToMultiByte(CP_UTF8, 0, wide, -1, utf8, length, NULL, NULL);
    kept = strlen(utf8);
    if (kept >= size) {
        kept = size - 1;
        while (kept > 0 && ((unsigned char)utf8[kept] & 0xC0) == 0x80) /* a continuation byte */
            kept--;
    }
    memcpy(name, utf8, kept);
    name[kept] = '\0';
    free(utf8);
    return 0;
}

int pthread_getname_np(pthread_t thread, char *name, size_t size)
{
    struct slim_thread *target = slim_thread_checked(thread);
    wchar_t *wide = NULL;
    HRESULT result;
    int error;

    if (target == NULL)
        return ESRCH;
    if (name == NULL)
        return EINVAL;
    if (size < NAME_SIZE_MAX)
        return ERANGE;
    if (!resolve_descriptions())
        return ENOTSUP;
    result = get_description(target->handle, &wide);
    if (FAILED(result))
        return slim_errno_from_win32(HRESULT_CODE(result));
    error = copy_name(wide, name, size);
    LocalFree(wide);
    return error;
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
    SwitchToThread();
    return 0;
}
