/*
 * internal.h - the shared vocabulary of slimpthreads' Windows implementation.
 *
 * Atomics, the one wait road (wait_on / wake_one / wake_all over WaitOnAddress),
 * deadlines, the per-thread record and error translation. Every blocking call
 * travels: deadline from timespec and clock -> wait_on(word, expected, deadline)
 * until the word changes or the deadline passes -> re-check its own condition.
 * No file has its own clock arithmetic or wait loop.
 *
 * Compiles without config.h so that the files can be vendored. Internal symbols
 * with external linkage all begin with slim_ so they never clash with an
 * application's or another library's (winpthreads', libgit2's) pthread_* shims.
 */
#ifndef SLIMPTHREADS_INTERNAL_H
#define SLIMPTHREADS_INTERNAL_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0602 /* Windows 8: WaitOnAddress */
#endif
#include <windows.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>

/* MinGW-w64's <errno.h> has the POSIX codes we return (ETIMEDOUT, ENOTSUP,
 * EOWNERDEAD, ECANCELED, ...); we never invent our own numbers. */

/* __extension__: C11 assertions stay quiet in projects that vendor us with -std=gnu99 -pedantic. */
#define SLIM_STATIC_ASSERT(condition, message) __extension__ _Static_assert(condition, message)

/* ---- Atomics (sequentially consistent unless the name says otherwise) ---- */

static inline long slim_load_acquire(volatile long *word)
{
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline long slim_load_relaxed(volatile long *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static inline void slim_store_release(volatile long *word, long value)
{
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/* Returns nonzero when *word held expected and now holds desired. */
static inline int slim_cas(volatile long *word, long expected, long desired)
{
    return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

static inline long slim_swap(volatile long *word, long value)
{
    return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

/* Both return the new value. */
static inline long slim_increment(volatile long *word)
{
    return __atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
}

static inline long slim_decrement(volatile long *word)
{
    return __atomic_sub_fetch(word, 1, __ATOMIC_SEQ_CST);
}

static inline void slim_full_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void slim_cpu_relax(void)
{
    YieldProcessor();
}

/* The gap between two looks at a word another core is writing: each look
 * pulls the word's cache line away from that core, so spinners that back off
 * look at doubling intervals rather than after every pause. */
static inline void slim_pause(unsigned pauses)
{
    while (pauses-- > 0)
        YieldProcessor();
}

/* ---- A bounded spin before a sleep ----
 * Sleeping and being woken costs a few microseconds of CPU under Wine (a futex
 * wait, a wake, two context switches) and tens of microseconds of latency when
 * the sleeper's core has gone idle. A waiter that spins about that long first
 * never pays more than twice the sleep it tried to avoid, and a partner that
 * answers within the window (a ping-pong, a queue whose consumer keeps up) is
 * never put to sleep at all. x86 measures the window with the time stamp
 * counter, invariant on the CPUs Windows 8 runs on; elsewhere it counts pauses. */
#define SLIM_SPIN_TICKS 20000 /* about 7-10 us at the usual 2-3 GHz */
#define SLIM_SPIN_PAUSES 400  /* where there is no time stamp counter */

struct slim_spin {
#if defined(__x86_64__) || defined(__i386__)
    unsigned long long end_tick;
#else
    unsigned pauses_left;
#endif
};

static inline void slim_spin_begin(struct slim_spin *spin)
{
#if defined(__x86_64__) || defined(__i386__)
    spin->end_tick = __builtin_ia32_rdtsc() + SLIM_SPIN_TICKS;
#else
    spin->pauses_left = SLIM_SPIN_PAUSES;
#endif
}

/* Pauses once; 0 once the window is over. */
static inline int slim_spin_again(struct slim_spin *spin)
{
    YieldProcessor();
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc() < spin->end_tick;
#else
    return spin->pauses_left-- > 0;
#endif
}

/* The calling thread's Win32 id: ClientId.UniqueThread of its TEB, at an offset
 * fixed by the ABI. GetCurrentThreadId reads the same field behind an import
 * call, which costs the lock paths that check an owner ~1-4 ns per call (and
 * MinGW's NtCurrentTeb trips GCC 12's -Warray-bounds): one instruction here. */
#if defined(__x86_64__)
#define SLIM_TEB_THREAD_ID_OFFSET 0x48
static inline DWORD slim_current_thread_id(void)
{
    DWORD64 id;

    __asm__("movq %%gs:%c1, %0" : "=r"(id) : "i"(SLIM_TEB_THREAD_ID_OFFSET));
    return (DWORD)id;
}
#elif defined(__i386__)
#define SLIM_TEB_THREAD_ID_OFFSET 0x24
static inline DWORD slim_current_thread_id(void)
{
    DWORD id;

    __asm__("movl %%fs:%c1, %0" : "=r"(id) : "i"(SLIM_TEB_THREAD_ID_OFFSET));
    return id;
}
#else
static inline DWORD slim_current_thread_id(void)
{
    return GetCurrentThreadId();
}
#endif

/* ---- Deadlines ---- */

/* An absolute point on one clock, or no limit at all. Waits convert it into a
 * millisecond timeout afresh each time they block, rounded up so that nobody
 * wakes early, and re-check it after every wake. */
struct slim_deadline {
    int unlimited;
    clockid_t clock;
    struct timespec at;
};

/* The deadline that never passes. */
void slim_deadline_unlimited(struct slim_deadline *deadline);

/* An absolute timespec on clock: EINVAL for a bad clock or tv_nsec outside
 * [0, 1e9), else 0. Only CLOCK_REALTIME and CLOCK_MONOTONIC are accepted. */
int slim_deadline_absolute(struct slim_deadline *deadline, clockid_t clock,
                           const struct timespec *at);

/* Milliseconds until the deadline, rounded up; 0 once it has passed;
 * INFINITE for an unlimited deadline. */
DWORD slim_deadline_remaining_ms(const struct slim_deadline *deadline);

/* Nonzero once the deadline has passed. */
int slim_deadline_passed(const struct slim_deadline *deadline);

/* clock_gettime for the clocks deadlines use, without errno traffic. */
void slim_clock_now(clockid_t clock, struct timespec *now);

/* ---- The wait road ---- */

/* Sleep while *word == expected, until woken or the deadline passes. Returns 0
 * after a wake (which may be spurious: the caller re-checks its condition) or
 * ETIMEDOUT once the deadline has passed. NULL deadline: no limit. */
int slim_wait_on(volatile long *word, long expected, const struct slim_deadline *deadline);

static inline void slim_wake_one(volatile long *word)
{
    WakeByAddressSingle((PVOID)word);
}

static inline void slim_wake_all(volatile long *word)
{
    WakeByAddressAll((PVOID)word);
}

/* ---- The lightweight semaphore (sem.c) ---- */

/* Under sem_t and under each condvar waiter: a word that sleeps on the wait road. */
enum slim_wait_kind {
    SLIM_WAIT_PLAIN,       /* not a cancellation point */
    SLIM_WAIT_CANCELLABLE  /* may return ECANCELED (see slim_wait_on_cancellable) */
};

/* Takes a token, sleeping until one comes: 0, ETIMEDOUT once the deadline (NULL:
 * none) has passed, or ECANCELED for a cancellable wait. Unnamed semaphores only. */
int slim_sem_wait(sem_t *sem, const struct slim_deadline *deadline, enum slim_wait_kind kind);

/* Adds a token and wakes a sleeper: 0 or EOVERFLOW. Its last access to *sem is
 * one atomic update, so a woken waiter may free the semaphore at once. */
int slim_sem_post(sem_t *sem);

/* ---- Cancellation points (cancel.c) ---- */

/* slim_wait_on for cancellation points: also returns ECANCELED when the calling
 * thread has a cancellation request it must act on, before or during the wait.
 * The caller then undoes what its own wait set up and calls slim_cancel_act. */
int slim_wait_on_cancellable(volatile long *word, long expected,
                             const struct slim_deadline *deadline);

/* Nonzero when the calling thread must act on a cancellation request now. */
int slim_cancel_requested(void);

/* Acts on the calling thread's cancellation request: pthread_exit(PTHREAD_CANCELED). */
void slim_cancel_act(void) __attribute__((__noreturn__));

/* ---- The per-thread record ---- */

/* A read hold on one rwlock, kept on the holding thread's side so that the lock's
 * cache line stays quiet and a recursive rdlock never queues behind a writer. */
struct slim_rwlock_hold {
    const pthread_rwlock_t *rwlock;
    long read_count;
};
#define SLIM_RWLOCK_HOLDS_MAX 16

/* Join states: a thread is joinable until somebody joins or detaches it; the
 * record is freed by whichever of the joiner and the exiting thread comes last
 * (the transitions are described in thread.c). */
enum slim_join_state {
    SLIM_THREAD_JOINABLE = 0,
    SLIM_THREAD_DETACHED = 1,
    SLIM_THREAD_JOINED = 2, /* a joiner owns the record now */
    SLIM_THREAD_EXITED = 3, /* finished, not yet joined: a zombie */
    SLIM_THREAD_REAPED = 4  /* finished and claimed: the claimer frees it */
};

/* A thread's value for one key, with the sequence number the key had when it was
 * stored: a deleted (or deleted and re-created) key no longer matches. */
struct slim_key_value {
    void *value;
    unsigned long sequence;
};

struct slim_thread {
    HANDLE handle;             /* a real handle (ours to close); NULL for adopted threads */
    DWORD id;                  /* Win32 thread id */
    int adopted;               /* created outside slimpthreads, record made on first need */
    void *(*start_routine)(void *);
    void *start_argument;
    void *result;
    volatile long join_state;  /* enum slim_join_state */
    volatile long exited;      /* set once the thread has run its exit path */

    struct __slim_cleanup_frame *cleanup_top;

    struct slim_key_value *key_values; /* indexed by pthread_key_t; grown on setspecific */
    unsigned key_capacity;

    struct slim_rwlock_hold rwlock_holds[SLIM_RWLOCK_HOLDS_MAX];
    pthread_mutex_t *robust_held; /* robust mutexes it holds, linked by __robust_next */

    int cancel_state;          /* PTHREAD_CANCEL_ENABLE / DISABLE */
    int cancel_type;           /* PTHREAD_CANCEL_DEFERRED / ASYNCHRONOUS */
    volatile long cancel_pending;
    volatile long *cancel_wake_word; /* the word it sleeps on at a cancellation point */

    sigset_t signal_mask;      /* reported back by pthread_sigmask; inherited by new threads */
    int sched_policy;          /* SCHED_*: Windows cannot report it back */
    int sched_priority;        /* last priority set through sched.c, within sched_policy */

    void *stack_low;           /* the stack as the thread found it, for getattr_np */
    size_t stack_size;
    size_t guard_size;         /* as asked at creation: Windows keeps its own guard page */
    int inherit_sched;         /* PTHREAD_INHERIT_SCHED / EXPLICIT_SCHED, as created */
    HANDLE sleep_timer;        /* clock.c: high-resolution timer for sleeps, closed at exit */
    unsigned long signature;   /* SLIM_THREAD_SIGNATURE while the record lives */
    volatile LONGLONG unique_number; /* np.c: 0 until pthread_getunique_np first asks */
};
#define SLIM_THREAD_SIGNATURE 0x736c696dUL /* "slim" */

/* The calling thread's record, made (and registered for the exit hook) on first
 * use by threads that slimpthreads did not create. Never NULL: aborts the process
 * if not even a record can be allocated, since no pthread function could go on. */
struct slim_thread *slim_self(void);

/* The calling thread's record if it has one, else NULL; never allocates. */
struct slim_thread *slim_self_if_known(void);

/* Binds self to the calling thread and arms the thread-exit hook for it. */
void slim_thread_attach(struct slim_thread *self);

/* Called by the exit hook on the exiting thread, after key destructors: marks the
 * record exited and frees it if nobody will join it (thread.c). */
void slim_thread_finished(struct slim_thread *self);

static inline struct slim_thread *slim_thread_from_handle(pthread_t thread)
{
    return (struct slim_thread *)thread;
}

/* The record behind thread, or NULL (ESRCH) when thread is 0 or names no living
 * record as far as can be told (a joined thread's record has been freed). */
struct slim_thread *slim_thread_checked(pthread_t thread);

/* The Windows thread priority for a POSIX policy and priority: EINVAL for an
 * unknown policy or a priority outside sched_get_priority_min/max (clock.c). */
int slim_priority_to_win32(int policy, int priority, int *win32_priority);

/* The POSIX priority that reports a Windows thread priority under policy. */
int slim_priority_from_win32(int policy, int win32_priority);

/* Runs the calling thread's key destructors (PTHREAD_DESTRUCTOR_ITERATIONS rounds)
 * and frees its key values; called from the thread-exit path. */
void slim_keys_run_destructors(struct slim_thread *self);

/* Called from the thread-exit path after the key destructors: each robust mutex
 * the thread still holds becomes owner-dead and is released (mutex.c). */
void slim_mutex_robust_owner_exits(struct slim_thread *self);

/* ---- Errors ---- */

/* The POSIX error code for a Win32 error code. */
int slim_errno_from_win32(DWORD win32_error);

/* Gives a suspended new thread the name and affinity its attribute holds (np.c):
 * 0, or the error pthread_setname_np / pthread_setaffinity_np gave. */
int slim_attr_apply_np(const pthread_attr_t *attr, pthread_t thread);

/* Validates a timespec used as an interval or deadline: EINVAL or 0. */
static inline int slim_timespec_invalid(const struct timespec *time)
{
    return time == NULL || time->tv_nsec < 0 || time->tv_nsec >= 1000000000L;
}

/* 0 for PROCESS_PRIVATE; ENOTSUP for PROCESS_SHARED, legal but not honoured since
 * our objects (WaitOnAddress, SRWLOCKs, thread records) live in one process; else EINVAL. */
static inline int slim_pshared_error(int pshared)
{
    if (pshared == PTHREAD_PROCESS_PRIVATE)
        return 0;
    return pshared == PTHREAD_PROCESS_SHARED ? ENOTSUP : EINVAL;
}

#endif /* SLIMPTHREADS_INTERNAL_H */
