/*
 * pthread.h - slimpthreads: POSIX threads for Windows (MinGW-w64).
 *
 * Every object embeds the Win32 primitive it maps onto plus a few words of our
 * own state, so creating one never allocates and zero-filled memory is a valid
 * statically initialized object:
 *   pthread_mutex_t   a CRITICAL_SECTION, initialized on first use
 *   pthread_rwlock_t  one 64-bit word of our own (readers, writer, waiters)
 *   pthread_cond_t    a queue of waiters, each asleep on its own lightweight semaphore
 *   sem_t, barriers   words waited on with WaitOnAddress
 * The mirrors below copy the size and alignment of the Win32 types without
 * including <windows.h>; compat/win32 pins each one to the real type.
 */
#ifndef SLIMPTHREADS_PTHREAD_H
#define SLIMPTHREADS_PTHREAD_H

/* MinGW-w64's own (winpthreads') <pthread.h>, <sched.h> or <semaphore.h> came
 * first: its types would clash with ours in a flood of errors, or agree in name
 * but not in size. Say once what to do instead. */
#if defined(WIN_PTHREADS_H)
#error "slimpthreads: a winpthreads header (MinGW-w64's <pthread.h>, <sched.h> or <semaphore.h>) was included before slimpthreads' <pthread.h>. Put slimpthreads' include directory first on the include path (-I<prefix>/include before any other -I, -isystem or vendored copy)."
#else /* the rest of the header: only without winpthreads' */

#include "slimpthreads_abi.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <pthread_time.h>
#include <sched.h>

#ifdef __cplusplus
extern "C" {
#endif

/* winpthreads' own pthread.h must not add a second, conflicting copy. */
#ifndef WIN_PTHREADS_H
#define WIN_PTHREADS_H
#endif

#define SLIMPTHREADS_VERSION_MAJOR 0
#define SLIMPTHREADS_VERSION_MINOR 1

/* ---- Limits and constants (glibc's values where POSIX leaves them open) ---- */

#define PTHREAD_KEYS_MAX 1024
#define PTHREAD_DESTRUCTOR_ITERATIONS 4
#define PTHREAD_STACK_MIN 16384

/* winpthreads' and pthreads4w's <pthread.h> give these too, with these values,
 * so that programs written for them build and size their tables the same.
 * Neither count is a limit of ours: the thread table holds 65472 threads on
 * i686 and about four million on x86_64, and what ends pthread_create first
 * (EAGAIN) is address space for the stacks; an unnamed semaphore is memory, a
 * named one a kernel object (tests/peer_headers.sh opens that many at once, and
 * runs that many threads at once on x86_64). SEM_VALUE_MAX and SEM_NSEMS_MAX
 * are <semaphore.h>'s too. */
#define PTHREAD_THREADS_MAX 2019
#define SEM_NSEMS_MAX 1024
#define SEM_VALUE_MAX 0x7fffffff
#define PTHREAD_MAX_NAMELEN_NP 16 /* a thread's name, its terminating NUL included */

/* POSIX's minimum acceptable values (POSIX puts them in <limits.h>). */
#define _POSIX_THREAD_DESTRUCTOR_ITERATIONS 4
#define _POSIX_THREAD_KEYS_MAX 128
#define _POSIX_THREAD_THREADS_MAX 64
#define _POSIX_SEM_NSEMS_MAX 256
#define _POSIX_SEM_VALUE_MAX 32767

#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1

#define PTHREAD_INHERIT_SCHED 0
#define PTHREAD_EXPLICIT_SCHED 1

#define PTHREAD_SCOPE_SYSTEM 0
#define PTHREAD_SCOPE_PROCESS 1

#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED 1
#define PTHREAD_MUTEX_PRIVATE PTHREAD_PROCESS_PRIVATE /* winpthreads' names */
#define PTHREAD_MUTEX_SHARED PTHREAD_PROCESS_SHARED

#define PTHREAD_CANCEL_ENABLE 0
#define PTHREAD_CANCEL_DISABLE 1
#define PTHREAD_CANCEL_DEFERRED 0
#define PTHREAD_CANCEL_ASYNCHRONOUS 1
#define PTHREAD_CANCELED ((void *)(intptr_t)-1)

#define PTHREAD_BARRIER_SERIAL_THREAD (-1)

/* DEFAULT is its own kind: the fastest correct mutex (relocking it is undefined
 * behaviour), while NORMAL promises the self-deadlock POSIX describes. */
#define PTHREAD_MUTEX_DEFAULT 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_NORMAL 3
#define PTHREAD_MUTEX_TIMED_NP PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_ADAPTIVE_NP PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_FAST_NP PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_RECURSIVE_NP PTHREAD_MUTEX_RECURSIVE
#define PTHREAD_MUTEX_ERRORCHECK_NP PTHREAD_MUTEX_ERRORCHECK

#define PTHREAD_MUTEX_STALLED 0
#define PTHREAD_MUTEX_ROBUST 1
#define PTHREAD_MUTEX_STALLED_NP PTHREAD_MUTEX_STALLED
#define PTHREAD_MUTEX_ROBUST_NP PTHREAD_MUTEX_ROBUST

#define PTHREAD_PRIO_NONE 0
#define PTHREAD_PRIO_INHERIT 1
#define PTHREAD_PRIO_PROTECT 2

#define PTHREAD_RWLOCK_PREFER_READER_NP 0
#define PTHREAD_RWLOCK_PREFER_WRITER_NP 1
#define PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP 2
#define PTHREAD_RWLOCK_DEFAULT_NP PTHREAD_RWLOCK_PREFER_READER_NP

/* ---- Mirrors of the embedded Win32 objects ---- */

struct __slim_critical_section { /* RTL_CRITICAL_SECTION */
    void *__debug_info;
    long __lock_count;
    long __recursion_count;
    void *__owning_thread;
    void *__lock_semaphore;
    uintptr_t __spin_count;
};

/* ---- Threads ---- */

/* A scalar, as real programs expect: compared with ==, zeroed, printed. It holds
 * the address of the thread's record inside the library. */
typedef uintptr_t pthread_t;

typedef struct {
    int __detach_state;
    int __inherit_sched;
    int __sched_policy;
    int __scope;
    struct sched_param __sched_param;
    size_t __stack_size; /* 0: the executable's default */
    size_t __guard_size;
    void *__stack_address; /* recorded for getstack; Windows cannot run on it */
    char __name[16];       /* pthread_attr_setname_np; "" for none */
    int __affinity_set;    /* nonzero: __affinity applies to the new thread */
    cpu_set_t __affinity;  /* pthread_attr_setaffinity_np */
} pthread_attr_t;

typedef volatile long pthread_once_t;
#define PTHREAD_ONCE_INIT 0

typedef unsigned pthread_key_t;

/* ---- Mutexes ---- */

typedef struct {
    int __kind;       /* PTHREAD_MUTEX_* type */
    int __pshared;
    int __protocol;
    int __prioceiling;
    int __robustness;
} pthread_mutexattr_t;

typedef struct {
    struct __slim_critical_section __section; /* valid once __state says ready */
    volatile long __state;           /* 0: not yet initialized (static or zero-filled) */
    int __kind;                      /* PTHREAD_MUTEX_* type */
    int __robustness;                /* PTHREAD_MUTEX_STALLED, or a robust mutex's state */
    volatile long __waiters;         /* threads in the contended path of a lock */
    volatile long __wake_flag;       /* sleepers wait on it; unlock wakes by its address (mutex.c) */
    volatile long __cond_waited;     /* a condvar has waited with it: its waiters take over eagerly */
    void *__robust_next;             /* next robust mutex its owner holds */
} pthread_mutex_t;

#define __SLIM_MUTEX_INITIALIZER(kind) \
    { { 0, 0, 0, 0, 0, 0 }, 0, (kind), PTHREAD_MUTEX_STALLED, 0, 0, 0, 0 }
#define PTHREAD_MUTEX_INITIALIZER __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_DEFAULT)
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_RECURSIVE)
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_ERRORCHECK)
#define PTHREAD_NORMAL_MUTEX_INITIALIZER_NP __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_NORMAL)
#define PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP PTHREAD_MUTEX_INITIALIZER
/* The peers' names without _NP. NORMAL is its own kind here, as above (in
 * winpthreads it is DEFAULT's). */
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP
#define PTHREAD_NORMAL_MUTEX_INITIALIZER PTHREAD_NORMAL_MUTEX_INITIALIZER_NP
#define PTHREAD_DEFAULT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER

/* ---- Reader-writer locks ---- */

typedef struct {
    int __kind; /* PTHREAD_RWLOCK_*_NP */
    int __pshared;
} pthread_rwlockattr_t;

/* One 64-bit lock word (readers, writer, waiters; see compat/win32/rwlock.c):
 * all zero is a free lock, so PTHREAD_RWLOCK_INITIALIZER and zero-filled memory
 * need no init call. */
typedef struct {
    volatile int64_t __state __attribute__((__aligned__(8)));
    volatile unsigned long __writer_thread_id; /* Win32 id of the exclusive holder, 0 if none */
    int __kind;
    volatile int64_t __read_bias_after; /* when readers may bypass the word again */
} pthread_rwlock_t;

#define PTHREAD_RWLOCK_INITIALIZER { 0, 0, PTHREAD_RWLOCK_DEFAULT_NP, 0 }
#define PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP \
    { 0, 0, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, 0 }

/* ---- Condition variables ---- */

typedef struct {
    clockid_t __clock;
    int __pshared;
} pthread_condattr_t;

typedef struct {
    void *__oldest_waiter;         /* FIFO of waiter nodes living on the waiters' stacks */
    void *__newest_waiter;
    volatile long __queue_lock;    /* guards the FIFO for a few instructions */
    clockid_t __clock;             /* clock of timedwait deadlines */
} pthread_cond_t;

#define PTHREAD_COND_INITIALIZER { 0, 0, 0, CLOCK_REALTIME }

/* ---- Spinlocks and barriers ---- */

typedef volatile long pthread_spinlock_t;
#define PTHREAD_SPINLOCK_INITIALIZER __SLIM_SPIN_UNLOCKED /* as zero-filled memory */

typedef struct {
    int __pshared;
} pthread_barrierattr_t;

typedef struct {
    unsigned __threads_per_round;
    volatile long __arrived;  /* tickets taken (wraps at a multiple of the count); waiters sleep on it */
    volatile long __round;    /* rounds completed, for debuggers */
    volatile long __inside;   /* threads inside pthread_barrier_wait, + top bit: destroy waits */
} pthread_barrier_t;

/* ---- Cleanup handlers: a frame on the caller's stack, linked into the thread ---- */

struct __slim_cleanup_frame {
    void (*__routine)(void *);
    void *__argument;
    struct __slim_cleanup_frame *__previous;
};

void __slim_cleanup_push(struct __slim_cleanup_frame *frame, void (*routine)(void *),
                         void *argument) SLIMPTHREADS_ABI(cleanup_push);
void __slim_cleanup_pop(struct __slim_cleanup_frame *frame, int execute)
    SLIMPTHREADS_ABI(cleanup_pop);

#define pthread_cleanup_push(routine, argument)                 \
    {                                                           \
        struct __slim_cleanup_frame __slim_frame;               \
        __slim_cleanup_push(&__slim_frame, (routine), (argument));
#define pthread_cleanup_pop(execute)                            \
        __slim_cleanup_pop(&__slim_frame, (execute));           \
    }

/* ---- Threads ---- */

int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start_routine)(void *), void *argument)
    SLIMPTHREADS_ABI(pthread_create);
int pthread_join(pthread_t thread, void **result) SLIMPTHREADS_ABI(pthread_join);
int pthread_tryjoin_np(pthread_t thread, void **result) SLIMPTHREADS_ABI(pthread_tryjoin_np);
int pthread_timedjoin_np(pthread_t thread, void **result, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_timedjoin_np);
int pthread_detach(pthread_t thread) SLIMPTHREADS_ABI(pthread_detach);
void pthread_exit(void *result) SLIMPTHREADS_ABI(pthread_exit)
#if defined(__GNUC__)
    __attribute__((__noreturn__))
#endif
    ;
pthread_t pthread_self(void) SLIMPTHREADS_ABI(pthread_self);
int pthread_equal(pthread_t a, pthread_t b) SLIMPTHREADS_ABI(pthread_equal);
int pthread_setname_np(pthread_t thread, const char *name) SLIMPTHREADS_ABI(pthread_setname_np);
int pthread_getname_np(pthread_t thread, char *name, size_t size)
    SLIMPTHREADS_ABI(pthread_getname_np);
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
    SLIMPTHREADS_ABI(pthread_getattr_np);
int pthread_getconcurrency(void) SLIMPTHREADS_ABI(pthread_getconcurrency);
int pthread_setconcurrency(int level) SLIMPTHREADS_ABI(pthread_setconcurrency);
int pthread_getcpuclockid(pthread_t thread, clockid_t *clock)
    SLIMPTHREADS_ABI(pthread_getcpuclockid);
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
    SLIMPTHREADS_ABI(pthread_atfork);

int pthread_attr_init(pthread_attr_t *attr) SLIMPTHREADS_ABI(pthread_attr_init);
int pthread_attr_destroy(pthread_attr_t *attr) SLIMPTHREADS_ABI(pthread_attr_destroy);
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state)
    SLIMPTHREADS_ABI(pthread_attr_setdetachstate);
int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state)
    SLIMPTHREADS_ABI(pthread_attr_getdetachstate);
int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size)
    SLIMPTHREADS_ABI(pthread_attr_setstacksize);
int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size)
    SLIMPTHREADS_ABI(pthread_attr_getstacksize);
int pthread_attr_setguardsize(pthread_attr_t *attr, size_t size)
    SLIMPTHREADS_ABI(pthread_attr_setguardsize);
int pthread_attr_getguardsize(const pthread_attr_t *attr, size_t *size)
    SLIMPTHREADS_ABI(pthread_attr_getguardsize);
int pthread_attr_setstack(pthread_attr_t *attr, void *address, size_t size)
    SLIMPTHREADS_ABI(pthread_attr_setstack);
int pthread_attr_getstack(const pthread_attr_t *attr, void **address, size_t *size)
    SLIMPTHREADS_ABI(pthread_attr_getstack);
int pthread_attr_setscope(pthread_attr_t *attr, int scope) SLIMPTHREADS_ABI(pthread_attr_setscope);
int pthread_attr_getscope(const pthread_attr_t *attr, int *scope)
    SLIMPTHREADS_ABI(pthread_attr_getscope);
int pthread_attr_setinheritsched(pthread_attr_t *attr, int inherit)
    SLIMPTHREADS_ABI(pthread_attr_setinheritsched);
int pthread_attr_getinheritsched(const pthread_attr_t *attr, int *inherit)
    SLIMPTHREADS_ABI(pthread_attr_getinheritsched);
int pthread_attr_setschedpolicy(pthread_attr_t *attr, int policy)
    SLIMPTHREADS_ABI(pthread_attr_setschedpolicy);
int pthread_attr_getschedpolicy(const pthread_attr_t *attr, int *policy)
    SLIMPTHREADS_ABI(pthread_attr_getschedpolicy);
int pthread_attr_setschedparam(pthread_attr_t *attr, const struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_attr_setschedparam);
int pthread_attr_getschedparam(const pthread_attr_t *attr, struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_attr_getschedparam);

int pthread_once(pthread_once_t *once, void (*init_routine)(void)) SLIMPTHREADS_ABI(pthread_once);

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
    SLIMPTHREADS_ABI(pthread_key_create);
int pthread_key_delete(pthread_key_t key) SLIMPTHREADS_ABI(pthread_key_delete);
void *pthread_getspecific(pthread_key_t key) SLIMPTHREADS_ABI(pthread_getspecific);
int pthread_setspecific(pthread_key_t key, const void *value)
    SLIMPTHREADS_ABI(pthread_setspecific);

/* ---- Cancellation ---- */

int pthread_cancel(pthread_t thread) SLIMPTHREADS_ABI(pthread_cancel);
int pthread_setcancelstate(int state, int *old_state) SLIMPTHREADS_ABI(pthread_setcancelstate);
int pthread_setcanceltype(int type, int *old_type) SLIMPTHREADS_ABI(pthread_setcanceltype);
void pthread_testcancel(void) SLIMPTHREADS_ABI(pthread_testcancel);

/* ---- Scheduling ---- */

int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_setschedparam);
int pthread_getschedparam(pthread_t thread, int *policy, struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_getschedparam);
int pthread_setschedprio(pthread_t thread, int priority) SLIMPTHREADS_ABI(pthread_setschedprio);
int pthread_setaffinity_np(pthread_t thread, size_t cpusetsize, const cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_setaffinity_np);
int pthread_getaffinity_np(pthread_t thread, size_t cpusetsize, cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_getaffinity_np);
int pthread_yield(void) SLIMPTHREADS_ABI(pthread_yield);

/* ---- Mutexes ---- */

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
    SLIMPTHREADS_ABI(pthread_mutex_init);
int pthread_mutex_destroy(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_destroy);
int pthread_mutex_lock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_lock);
int pthread_mutex_trylock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_trylock);
int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_mutex_timedlock);
int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_mutex_clocklock);
int pthread_mutex_unlock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_unlock);
int pthread_mutex_consistent(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_consistent);
int pthread_mutex_getprioceiling(const pthread_mutex_t *mutex, int *prioceiling)
    SLIMPTHREADS_ABI(pthread_mutex_getprioceiling);
int pthread_mutex_setprioceiling(pthread_mutex_t *mutex, int prioceiling, int *old_ceiling)
    SLIMPTHREADS_ABI(pthread_mutex_setprioceiling);

/* The uncontended lock and unlock of a mutex of any kind but a robust one, and
 * the trylock of a DEFAULT one, inline in the caller (mutex.c, "Inline fast
 * paths"): a call into the library that only calls on into the section costs
 * a second call and return around two interlocked instructions, as much again
 * as the section's own enter and leave on some processors. Everything else
 * goes through the library's functions, out of line: a robust mutex, one not
 * yet initialized or destroyed, a busy one, a relock by the owner of a kind
 * that does not recurse, an unlock of a checked kind by a thread that does not
 * hold it, an unlock that has a sleeper to wake. The library's own copies do
 * the same, so a caller compiled without inlining (-O0, a function pointer)
 * gets the same results. Define SLIMPTHREADS_NO_INLINE before this header to
 * call the library every time. */
#define __SLIM_MUTEX_READY_BASE 16 /* __state of a usable mutex of kind k: BASE + k (mutex.c) */
#define __SLIM_MUTEX_READY_DEFAULT (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_DEFAULT)
#define __SLIM_MUTEX_READY_RECURSIVE (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_RECURSIVE)
#define __SLIM_MUTEX_READY_ERRORCHECK (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_ERRORCHECK)
#define __SLIM_MUTEX_READY_NORMAL (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_NORMAL)
#define __SLIM_MUTEX_WAKE_FLAG_CLEAR 0 /* __wake_flag when no sleeper asked for a wake */

/* Exactly as <windows.h> declares them (kernel32), which may come before or
 * after: not again when it came first (-Wredundant-decls would say so). */
struct _RTL_CRITICAL_SECTION;
#if !defined(_SYNCHAPI_H_) && !defined(_WINBASE_)
__declspec(dllimport) int __stdcall TryEnterCriticalSection(struct _RTL_CRITICAL_SECTION *section);
__declspec(dllimport) void __stdcall LeaveCriticalSection(struct _RTL_CRITICAL_SECTION *section);
#endif
#if !defined(__x86_64__) && !defined(__i386__) && !defined(_PROCESSTHREADSAPI_H_) && \
    !defined(_WINBASE_)
__declspec(dllimport) unsigned long __stdcall GetCurrentThreadId(void);
#endif

/* The library's paths past the inline ones. */
int __slim_mutex_lock_slow(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(mutex_lock_slow);
int __slim_mutex_trylock_slow(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(mutex_trylock_slow);
int __slim_mutex_unlock_slow(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(mutex_unlock_slow);

#if defined(__GNUC__)
/* The helpers below are only ever inlined (even at -O0), into the library's
 * functions and the inline ones alike: a GNU inline function may not call a
 * static one, and these must never need a definition of their own. */
#define __SLIM_INLINE_HELPER \
    extern __inline__ __attribute__((__gnu_inline__, __always_inline__))

__SLIM_INLINE_HELPER struct _RTL_CRITICAL_SECTION *__slim_mutex_section(pthread_mutex_t *mutex)
{
    return (struct _RTL_CRITICAL_SECTION *)(void *)&mutex->__section;
}

/* The calling thread's Win32 id: ClientId.UniqueThread of its TEB, at an
 * offset fixed by the ABI. GetCurrentThreadId reads the same field behind an
 * import call, which costs a lock path that checks its owner 1-4 ns. Volatile:
 * read afresh at each use, since a fiber may go on on another thread after a
 * call. */
__SLIM_INLINE_HELPER unsigned long __slim_current_thread_id(void)
{
#if defined(__x86_64__)
    uintptr_t id; /* UniqueThread is pointer-sized; ids fit in 32 bits */

    __asm__ __volatile__("movq %%gs:0x48, %0" : "=r"(id));
    return (unsigned long)id;
#elif defined(__i386__)
    unsigned long id;

    __asm__ __volatile__("movl %%fs:0x24, %0" : "=r"(id));
    return id;
#else
    return GetCurrentThreadId();
#endif
}

/* The section records its owner as the owner's thread id. Another thread's
 * entry may be read racily: it equals our id only if we wrote it, and only
 * the owner writes it. */
__SLIM_INLINE_HELPER int __slim_mutex_held_by_caller(pthread_mutex_t *mutex)
{
    return __atomic_load_n(&mutex->__section.__owning_thread, __ATOMIC_RELAXED) ==
           (void *)(uintptr_t)__slim_current_thread_id();
}

__SLIM_INLINE_HELPER long __slim_mutex_state(pthread_mutex_t *mutex)
{
    return __atomic_load_n(&mutex->__state, __ATOMIC_ACQUIRE);
}

__SLIM_INLINE_HELPER int __slim_mutex_is_ready_default(pthread_mutex_t *mutex)
{
    return __slim_mutex_state(mutex) == __SLIM_MUTEX_READY_DEFAULT;
}

/* A usable mutex of one of the four kinds, not robust: one unsigned compare,
 * since their states are READY_BASE + 0 (DEFAULT) to READY_BASE + 3 (NORMAL)
 * and a robust mutex's lie above (mutex.c asserts both). */
__SLIM_INLINE_HELPER int __slim_mutex_state_is_ready_plain(long state)
{
    return (unsigned long)(state - __SLIM_MUTEX_READY_BASE) <=
           (unsigned long)(__SLIM_MUTEX_READY_NORMAL - __SLIM_MUTEX_READY_BASE);
}

/* A usable RECURSIVE, ERRORCHECK or NORMAL mutex, not robust: the kinds whose
 * lock looks at the recursion and whose unlock checks the owner. */
__SLIM_INLINE_HELPER int __slim_mutex_state_is_checked_kind(long state)
{
    return state != __SLIM_MUTEX_READY_DEFAULT && __slim_mutex_state_is_ready_plain(state);
}

/* The __builtin_expect hints below lay out the uncontended lock of every kind
 * and the uncontended unlock of DEFAULT as straight code: left to itself, GCC
 * laid out the checked kinds' tests first and jumped to DEFAULT's path.
 *
 * Nonzero once the caller holds a usable mutex, not robust, that was free, or
 * a RECURSIVE or DEFAULT one it held already (DEFAULT's relock is undefined;
 * the section just counts it). A NORMAL or ERRORCHECK one its owner locks again
 * is left at once (that only drops the count) for the library to answer. */
__SLIM_INLINE_HELPER int __slim_mutex_lock_fast(pthread_mutex_t *mutex)
{
    long state = __slim_mutex_state(mutex);

    if (!__builtin_expect(__slim_mutex_state_is_ready_plain(state), 1) ||
        !__builtin_expect(TryEnterCriticalSection(__slim_mutex_section(mutex)), 1))
        return 0;
    if (__builtin_expect(mutex->__section.__recursion_count == 1, 1) ||
        state == __SLIM_MUTEX_READY_RECURSIVE || state == __SLIM_MUTEX_READY_DEFAULT)
        return 1;
    LeaveCriticalSection(__slim_mutex_section(mutex));
    return 0;
}

/* A ready DEFAULT mutex: 0, or EBUSY when it is held (by the caller too: DEFAULT
 * does not recurse, and entering the section again only raised its count). */
__SLIM_INLINE_HELPER int __slim_mutex_trylock_default(pthread_mutex_t *mutex)
{
    if (!__builtin_expect(TryEnterCriticalSection(__slim_mutex_section(mutex)), 1))
        return EBUSY;
    if (__builtin_expect(mutex->__section.__recursion_count == 1, 1))
        return 0;
    LeaveCriticalSection(__slim_mutex_section(mutex));
    return EBUSY;
}

/* Nonzero once a locked mutex, not robust, that no sleeper waits for is left:
 * a DEFAULT one that anybody holds (DEFAULT does not check the owner), one of
 * a checked kind that the caller holds. After LeaveCriticalSection the mutex
 * is not touched: it may be freed at once. */
__SLIM_INLINE_HELPER int __slim_mutex_unlock_fast(pthread_mutex_t *mutex)
{
    long state = __slim_mutex_state(mutex);
    int may_leave = __builtin_expect(state == __SLIM_MUTEX_READY_DEFAULT, 1)
                        ? mutex->__section.__recursion_count > 0
                        : __slim_mutex_state_is_checked_kind(state) &&
                              __slim_mutex_held_by_caller(mutex);

    if (!__builtin_expect(may_leave, 1) ||
        __builtin_expect(__atomic_load_n(&mutex->__wake_flag, __ATOMIC_RELAXED) !=
                             __SLIM_MUTEX_WAKE_FLAG_CLEAR,
                         0))
        return 0;
    LeaveCriticalSection(__slim_mutex_section(mutex));
    return 1;
}

/* The three whole calls, POSIX results: the library's functions, the GNU
 * inline ones below and threads.h's mtx_* are each one of these. */
__SLIM_INLINE_HELPER int __slim_mutex_lock(pthread_mutex_t *mutex)
{
    return __slim_mutex_lock_fast(mutex) ? 0 : __slim_mutex_lock_slow(mutex);
}

__SLIM_INLINE_HELPER int __slim_mutex_trylock(pthread_mutex_t *mutex)
{
    if (__builtin_expect(__slim_mutex_is_ready_default(mutex), 1))
        return __slim_mutex_trylock_default(mutex);
    return __slim_mutex_trylock_slow(mutex);
}

__SLIM_INLINE_HELPER int __slim_mutex_unlock(pthread_mutex_t *mutex)
{
    return __slim_mutex_unlock_fast(mutex) ? 0 : __slim_mutex_unlock_slow(mutex);
}

#if !defined(SLIMPTHREADS_NO_INLINE)
/* GNU inline: used only to inline; every other use (its address, -O0) is the
 * library's function of the same link name. */
extern __inline__ __attribute__((__gnu_inline__)) int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    return __slim_mutex_lock(mutex);
}

extern __inline__ __attribute__((__gnu_inline__)) int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    return __slim_mutex_trylock(mutex);
}

extern __inline__ __attribute__((__gnu_inline__)) int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    return __slim_mutex_unlock(mutex);
}
#endif /* not SLIMPTHREADS_NO_INLINE */
#endif /* __GNUC__ */

int pthread_mutexattr_init(pthread_mutexattr_t *attr) SLIMPTHREADS_ABI(pthread_mutexattr_init);
int pthread_mutexattr_destroy(pthread_mutexattr_t *attr)
    SLIMPTHREADS_ABI(pthread_mutexattr_destroy);
int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_settype);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_gettype);
int pthread_mutexattr_setpshared(pthread_mutexattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_mutexattr_setpshared);
int pthread_mutexattr_getpshared(const pthread_mutexattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_mutexattr_getpshared);
int pthread_mutexattr_setprotocol(pthread_mutexattr_t *attr, int protocol)
    SLIMPTHREADS_ABI(pthread_mutexattr_setprotocol);
int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *attr, int *protocol)
    SLIMPTHREADS_ABI(pthread_mutexattr_getprotocol);
int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *attr, int prioceiling)
    SLIMPTHREADS_ABI(pthread_mutexattr_setprioceiling);
int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *attr, int *prioceiling)
    SLIMPTHREADS_ABI(pthread_mutexattr_getprioceiling);
int pthread_mutexattr_setrobust(pthread_mutexattr_t *attr, int robustness)
    SLIMPTHREADS_ABI(pthread_mutexattr_setrobust);
int pthread_mutexattr_getrobust(const pthread_mutexattr_t *attr, int *robustness)
    SLIMPTHREADS_ABI(pthread_mutexattr_getrobust);

/* ---- Reader-writer locks ---- */

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
    SLIMPTHREADS_ABI(pthread_rwlock_init);
int pthread_rwlock_destroy(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_destroy);
int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_rdlock);
int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_tryrdlock);
int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_timedrdlock);
int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_clockrdlock);
int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_wrlock);
int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_trywrlock);
int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_timedwrlock);
int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_clockwrlock);
int pthread_rwlock_unlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_unlock);

int pthread_rwlockattr_init(pthread_rwlockattr_t *attr) SLIMPTHREADS_ABI(pthread_rwlockattr_init);
int pthread_rwlockattr_destroy(pthread_rwlockattr_t *attr)
    SLIMPTHREADS_ABI(pthread_rwlockattr_destroy);
int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_rwlockattr_setpshared);
int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_rwlockattr_getpshared);
int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *attr, int kind)
    SLIMPTHREADS_ABI(pthread_rwlockattr_setkind_np);
int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *attr, int *kind)
    SLIMPTHREADS_ABI(pthread_rwlockattr_getkind_np);

/* ---- Condition variables ---- */

int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr)
    SLIMPTHREADS_ABI(pthread_cond_init);
int pthread_cond_destroy(pthread_cond_t *cond) SLIMPTHREADS_ABI(pthread_cond_destroy);
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
    SLIMPTHREADS_ABI(pthread_cond_wait);
int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                           const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_cond_timedwait);
int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_cond_clockwait);
int pthread_cond_signal(pthread_cond_t *cond) SLIMPTHREADS_ABI(pthread_cond_signal);
int pthread_cond_broadcast(pthread_cond_t *cond) SLIMPTHREADS_ABI(pthread_cond_broadcast);

int pthread_condattr_init(pthread_condattr_t *attr) SLIMPTHREADS_ABI(pthread_condattr_init);
int pthread_condattr_destroy(pthread_condattr_t *attr) SLIMPTHREADS_ABI(pthread_condattr_destroy);
int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock)
    SLIMPTHREADS_ABI(pthread_condattr_setclock);
int pthread_condattr_getclock(const pthread_condattr_t *attr, clockid_t *clock)
    SLIMPTHREADS_ABI(pthread_condattr_getclock);
int pthread_condattr_setpshared(pthread_condattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_condattr_setpshared);
int pthread_condattr_getpshared(const pthread_condattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_condattr_getpshared);

/* ---- Spinlocks ---- */

int pthread_spin_init(pthread_spinlock_t *lock, int pshared) SLIMPTHREADS_ABI(pthread_spin_init);
int pthread_spin_destroy(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_destroy);
int pthread_spin_lock(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_lock);
int pthread_spin_trylock(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_trylock);
int pthread_spin_unlock(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_unlock);

/* The word of a spinlock (spin.c): zero-filled memory is an unlocked one. Its
 * uncontended lock, its trylock and its unlock are inline in the caller, as a
 * mutex's are, and for the same reason: the call and return around one
 * interlocked instruction cost as much as the instruction. A busy lock's
 * wait is the library's. */
#define __SLIM_SPIN_UNLOCKED 0
#define __SLIM_SPIN_LOCKED 1
#define __SLIM_SPIN_DESTROYED 2 /* a later use gives EINVAL */

int __slim_spin_lock_slow(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(spin_lock_slow);

#if defined(__GNUC__)
__SLIM_INLINE_HELPER int __slim_spin_try_acquire(pthread_spinlock_t *lock)
{
    long expected = __SLIM_SPIN_UNLOCKED;

    return __atomic_compare_exchange_n(lock, &expected, __SLIM_SPIN_LOCKED, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

/* The three calls, POSIX results: the library's functions and the GNU inline
 * ones below are each one of these. */
__SLIM_INLINE_HELPER int __slim_spin_lock(pthread_spinlock_t *lock)
{
    return __slim_spin_try_acquire(lock) ? 0 : __slim_spin_lock_slow(lock);
}

__SLIM_INLINE_HELPER int __slim_spin_trylock(pthread_spinlock_t *lock)
{
    if (__slim_spin_try_acquire(lock))
        return 0;
    return __atomic_load_n(lock, __ATOMIC_RELAXED) == __SLIM_SPIN_DESTROYED ? EINVAL : EBUSY;
}

/* Owners are not recorded (a thread-id store per lock, for a check POSIX does
 * not ask for); an unlocked or destroyed lock is refused rather than resurrected. */
__SLIM_INLINE_HELPER int __slim_spin_unlock(pthread_spinlock_t *lock)
{
    long seen = __atomic_load_n(lock, __ATOMIC_RELAXED);

    if (seen != __SLIM_SPIN_LOCKED)
        return seen == __SLIM_SPIN_DESTROYED ? EINVAL : EPERM;
    __atomic_store_n(lock, __SLIM_SPIN_UNLOCKED, __ATOMIC_RELEASE);
    return 0;
}

#if !defined(SLIMPTHREADS_NO_INLINE)
extern __inline__ __attribute__((__gnu_inline__)) int pthread_spin_lock(pthread_spinlock_t *lock)
{
    return __slim_spin_lock(lock);
}

extern __inline__ __attribute__((__gnu_inline__)) int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    return __slim_spin_trylock(lock);
}

extern __inline__ __attribute__((__gnu_inline__)) int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    return __slim_spin_unlock(lock);
}
#endif /* not SLIMPTHREADS_NO_INLINE */
#endif /* __GNUC__ */

/* ---- Barriers ---- */

int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr,
                         unsigned count) SLIMPTHREADS_ABI(pthread_barrier_init);
int pthread_barrier_destroy(pthread_barrier_t *barrier) SLIMPTHREADS_ABI(pthread_barrier_destroy);
int pthread_barrier_wait(pthread_barrier_t *barrier) SLIMPTHREADS_ABI(pthread_barrier_wait);
int pthread_barrierattr_init(pthread_barrierattr_t *attr)
    SLIMPTHREADS_ABI(pthread_barrierattr_init);
int pthread_barrierattr_destroy(pthread_barrierattr_t *attr)
    SLIMPTHREADS_ABI(pthread_barrierattr_destroy);
int pthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_barrierattr_setpshared);
int pthread_barrierattr_getpshared(const pthread_barrierattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_barrierattr_getpshared);

/* ---- Extensions of winpthreads and pthreads4w (compat/win32/np.c) ---- */

int pthread_num_processors_np(void) SLIMPTHREADS_ABI(pthread_num_processors_np);
int pthread_set_num_processors_np(int count) SLIMPTHREADS_ABI(pthread_set_num_processors_np);
int pthread_delay_np(const struct timespec *interval) SLIMPTHREADS_ABI(pthread_delay_np);
struct timespec *pthread_win32_getabstime_np(struct timespec *abstime,
                                             const struct timespec *relative)
    SLIMPTHREADS_ABI(pthread_win32_getabstime_np);
int pthread_cond_timedwait_relative_np(pthread_cond_t *cond, pthread_mutex_t *mutex,
                                       const struct timespec *relative)
    SLIMPTHREADS_ABI(pthread_cond_timedwait_relative_np);
/* The thread's Win32 HANDLE (void *: no <windows.h> here) and thread id. */
void *pthread_getw32threadhandle_np(pthread_t thread)
    SLIMPTHREADS_ABI(pthread_getw32threadhandle_np);
void *pthread_gethandle(pthread_t thread) SLIMPTHREADS_ABI(pthread_gethandle);
unsigned long pthread_getw32threadid_np(pthread_t thread)
    SLIMPTHREADS_ABI(pthread_getw32threadid_np);
uint64_t pthread_getunique_np(pthread_t thread) SLIMPTHREADS_ABI(pthread_getunique_np);
int pthread_win32_process_attach_np(void) SLIMPTHREADS_ABI(pthread_win32_process_attach_np);
int pthread_win32_process_detach_np(void) SLIMPTHREADS_ABI(pthread_win32_process_detach_np);
int pthread_win32_thread_attach_np(void) SLIMPTHREADS_ABI(pthread_win32_thread_attach_np);
int pthread_win32_thread_detach_np(void) SLIMPTHREADS_ABI(pthread_win32_thread_detach_np);
int pthread_attr_setstackaddr(pthread_attr_t *attr, void *address)
    SLIMPTHREADS_ABI(pthread_attr_setstackaddr);
int pthread_attr_getstackaddr(const pthread_attr_t *attr, void **address)
    SLIMPTHREADS_ABI(pthread_attr_getstackaddr);
int pthread_mutexattr_setkind_np(pthread_mutexattr_t *attr, int kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_setkind_np);
int pthread_mutexattr_getkind_np(const pthread_mutexattr_t *attr, int *kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_getkind_np);
int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t cpusetsize, const cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_attr_setaffinity_np);
int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t cpusetsize, cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_attr_getaffinity_np);
/* pthreads4w's (NetBSD's) form: name may hold one %s, replaced by arg. */
int pthread_attr_setname_np(pthread_attr_t *attr, const char *name, void *arg)
    SLIMPTHREADS_ABI(pthread_attr_setname_np);
int pthread_attr_getname_np(pthread_attr_t *attr, char *name, int size)
    SLIMPTHREADS_ABI(pthread_attr_getname_np);
int pthread_get_concurrency(int *level) SLIMPTHREADS_ABI(pthread_get_concurrency);
int pthread_set_concurrency(int level) SLIMPTHREADS_ABI(pthread_set_concurrency);

#ifdef __cplusplus
}
#endif

/* winpthreads' <pthread.h> includes <signal.h> and <pthread_unistd.h>, and
 * pthreads4w's declares pthread_kill: so ours gives pthread_kill,
 * pthread_sigmask, sigset_t, SIG_BLOCK/UNBLOCK/SETMASK and the _POSIX_* options.
 * Last, after every type they use (each includes <pthread.h> and finds it
 * done); ours by their path next to this file, whatever the include path holds. */
#include "pthread_signal.h"
#include <signal.h>
#include "pthread_unistd.h"

#endif /* not after winpthreads' header */
#endif /* SLIMPTHREADS_PTHREAD_H */
