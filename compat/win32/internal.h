/*
 * internal.h - the shared vocabulary of slimpthreads' Windows implementation.
 *
 * Atomics, the spin helper, the one wait road (slim_wait_on / wake_one /
 * wake_all over WaitOnAddress, and the same entry over a handle and for
 * sleeps), deadlines, the clock readers, the per-thread record and error
 * translation. Every blocking call travels: deadline from timespec and clock
 * -> slim_wait_on(word, expected, deadline, kind) until the word changes or the
 * deadline passes -> re-check its own condition. No file but wait.c has clock
 * arithmetic or an OS wait loop (compat/win32/README.md follows one wait).
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
#include <winternl.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* The library defines the functions that pthread.h inlines into its callers. */
#define SLIMPTHREADS_NO_INLINE 1
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <threads.h>

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

/* ---- Spinning: one helper, three policies, every spin constant ----
 * Two quantities, never mixed: a *pause* is one YieldProcessor (the unit of
 * every gap between two looks at a word), and the *window* of a spin before a
 * sleep is time, read from the time stamp counter where x86 has one (a pause
 * costs 10 cycles on one CPU and 140 on the next; invariant on the CPUs Windows
 * 8 runs on), else counted in pauses. Why a window: sleeping and being woken
 * costs a few microseconds of CPU under Wine (a futex wait, a wake, two context
 * switches) and tens of microseconds of latency when the sleeper's core has
 * gone idle. A waiter that spins about that long first never pays more than
 * twice the sleep it tried to avoid, and a partner that answers within the
 * window (a ping-pong, a queue whose consumer keeps up) is never put to sleep.
 *
 * Every spinner in the library runs slim_spin_begin(&spin, POLICY), then
 * looks at its word and calls slim_spin_again(&spin) between two looks, until
 * the word lets it in or slim_spin_again returns 0 (then it sleeps on the
 * road, wait.c). The policies differ only in the gaps between looks and in
 * what ends the spin. */
enum slim_spin_policy {
    /* A word another thread is about to change, which costs nothing to look
     * at (a semaphore's count, a new thread's start report, a bias slot, the
     * condvar's queue lock, held for a few instructions): a look after every
     * pause, for one window. sem.c, thread.c, rwlock.c, cond.c. */
    SLIM_SPIN_WAIT,
    /* A lock that a running thread holds (the mutex's section, the rwlock's
     * word): looks at gaps doubling from
     * SLIM_SPIN_FIRST_GAP to SLIM_SPIN_MAX_GAP pauses, for one window. Each
     * look pulls the lock's cache line away from the holder, and the first
     * gap lets a running holder keep the lock for a streak: a waiter that
     * looks at once catches the holder's next unlock, and two threads then
     * hand the lock and its data across cores every pair or two for good.
     * mutex.c, rwlock.c. */
    SLIM_SPIN_LOCK,
    /* A spinlock, which may never sleep on a word (POSIX spinlocks have no
     * waiters to wake): SLIM_SPINLOCK_LOOKS looks at doubling gaps as above,
     * then SLIM_SPINLOCK_YIELDS yields (the holder may want this core), then
     * naps of SLIM_SPINLOCK_NAP_MS (a preempted lower-priority holder gets to
     * run). It never ends by itself. spin.c. */
    SLIM_SPIN_LADDER
};
#define SLIM_SPIN_TICKS 20000 /* the window: about 7-10 us at the usual 2-3 GHz */
#define SLIM_SPIN_PAUSES 400  /* the window where there is no time stamp counter */
#define SLIM_SPIN_FIRST_GAP 16 /* SLIM_SPIN_LOCK, LADDER: pauses before the first look */
#define SLIM_SPIN_MAX_GAP 64   /* SLIM_SPIN_LOCK: pauses between two looks at most */
#define SLIM_SPINLOCK_LOOKS 4  /* SLIM_SPIN_LADDER: gaps of 16, 32, 64, 128 pauses, */
#define SLIM_SPINLOCK_YIELDS 64 /* then this many yields, */
#define SLIM_SPINLOCK_NAP_MS 1  /* then naps of this long */
/* What the lock spinners do besides the policy (each file says why): */
#define SLIM_MUTEX_CONFIRM_PAUSES 1    /* mutex.c: a free section must stay free this long */
#define SLIM_MUTEX_SPIN_YIELD_AFTER 127 /* mutex.c: one yield once this many pauses passed */
#define SLIM_MUTEX_RECHECK_FIRST_MS 1  /* mutex.c: a sleeper looks again after this, */
#define SLIM_MUTEX_RECHECK_MOST_MS 128 /* doubling up to this (the missed wake) */
#define SLIM_RWLOCK_BEHIND_WRITER_PAUSES 48 /* rwlock.c: a reader behind a waiting writer */

/* The gap between two looks at a word another core is writing. */
static inline void slim_pause(unsigned pauses)
{
    while (pauses-- > 0)
        YieldProcessor();
}

/* One spin: the policy, the gap before the next look, what it paused so far. */
struct slim_spin {
    enum slim_spin_policy policy;
    unsigned gap;    /* pauses before the next look */
    unsigned paused; /* pauses since slim_spin_begin */
    unsigned looks;  /* SLIM_SPIN_LADDER: looks since slim_spin_begin */
#if defined(__x86_64__) || defined(__i386__)
    unsigned long long end_tick;
#endif
};

static inline void slim_spin_begin(struct slim_spin *spin, enum slim_spin_policy policy)
{
    spin->policy = policy;
    spin->gap = policy == SLIM_SPIN_WAIT ? 1 : SLIM_SPIN_FIRST_GAP;
    spin->paused = 0;
    spin->looks = 0;
#if defined(__x86_64__) || defined(__i386__)
    spin->end_tick = __builtin_ia32_rdtsc() + SLIM_SPIN_TICKS;
#endif
}

/* Nonzero while the window lasts. */
static inline int slim_spin_window_open(const struct slim_spin *spin)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc() < spin->end_tick;
#else
    return spin->paused < SLIM_SPIN_PAUSES;
#endif
}

void slim_spin_ladder_step(struct slim_spin *spin); /* wait.c: the yields and naps */

/* Waits the gap before the next look, as the policy says: 0 once the spin is
 * over (the caller sleeps), else nonzero (it looks again). */
static inline int slim_spin_again(struct slim_spin *spin)
{
    if (spin->policy == SLIM_SPIN_LADDER && spin->looks >= SLIM_SPINLOCK_LOOKS) {
        slim_spin_ladder_step(spin);
        return 1;
    }
    slim_pause(spin->gap);
    spin->paused += spin->gap;
    spin->looks++;
    if (spin->policy != SLIM_SPIN_WAIT && spin->gap < SLIM_SPIN_MAX_GAP)
        spin->gap *= 2;
    else if (spin->policy == SLIM_SPIN_LADDER)
        spin->gap *= 2; /* the ladder's fourth gap is 128 */
    return spin->policy == SLIM_SPIN_LADDER || slim_spin_window_open(spin);
}

/* The rest of the window in one gap: the next look is the spin's last. */
static inline void slim_spin_last_look(struct slim_spin *spin)
{
    spin->gap = 1;
    while (slim_spin_window_open(spin)) {
        YieldProcessor();
        spin->paused++;
    }
}

/* ---- The clock readers (wait.c) ---- */

#define SLIM_NANOSECONDS_PER_SECOND 1000000000LL
#define SLIM_NANOSECONDS_PER_FILETIME_TICK 100LL /* a FILETIME counts 100 ns ticks */

/* CLOCK_REALTIME, CLOCK_REALTIME_COARSE or CLOCK_MONOTONIC now, without errno
 * traffic; any other id reads CLOCK_REALTIME (callers check ids first). */
void slim_clock_now(clockid_t clock, struct timespec *now);

/* The performance counter's ticks per second (CLOCK_MONOTONIC's source). */
long long slim_performance_frequency(void);

/* FILETIME's 100 ns ticks: a duration (a thread's CPU time) as a timespec. */
long long slim_filetime_ticks(const FILETIME *time);
void slim_timespec_from_ticks(long long ticks, struct timespec *out);

/* The FILETIME of a CLOCK_REALTIME time: 0, or EINVAL for one FILETIME cannot
 * hold (before the Unix epoch, or past the year 30828). */
int slim_filetime_of_realtime(const struct timespec *at, FILETIME *out);

/* *at + interval, both valid timespecs, saturating at the largest time_t. */
void slim_timespec_add(struct timespec *at, const struct timespec *interval);

/* ---- Deadlines (wait.c) ----
 * One representation: saturating nanoseconds on a clock (REALTIME or
 * MONOTONIC). Everything beyond about 292 years, in either direction, is
 * SLIM_DEADLINE_NEVER or the far past: no arithmetic on a deadline overflows,
 * and a deadline too far for Windows to count means "forever". */
#define SLIM_DEADLINE_NEVER LLONG_MAX

struct slim_deadline {
    clockid_t clock;
    long long at_ns; /* on clock, since its epoch; SLIM_DEADLINE_NEVER: no limit */
};

/* The deadline that never passes. */
void slim_deadline_unlimited(struct slim_deadline *deadline);

/* An absolute timespec on clock: EINVAL for a clock other than CLOCK_REALTIME
 * and CLOCK_MONOTONIC or tv_nsec outside [0, 1e9), else 0. Any tv_sec is valid. */
int slim_deadline_absolute(struct slim_deadline *deadline, clockid_t clock,
                           const struct timespec *at);

/* now + interval on CLOCK_MONOTONIC: EINVAL for a bad or negative interval. */
int slim_deadline_relative(struct slim_deadline *deadline, const struct timespec *interval);

/* A timespec as nanoseconds, saturating at +-LLONG_MAX. */
long long slim_nanoseconds_of(const struct timespec *time);

/* The earlier of deadline (NULL: none) and most_ns from now, as a deadline on
 * CLOCK_MONOTONIC: for a wait that must look again after a while. */
void slim_deadline_capped(struct slim_deadline *capped, const struct slim_deadline *deadline,
                          long long most_ns);

/* Nonzero once deadline (NULL: none) has passed. */
int slim_deadline_passed(const struct slim_deadline *deadline);

/* ---- The one wait entry (wait.c) ---- */

enum slim_wait_kind {
    SLIM_WAIT_PLAIN,       /* not a cancellation point */
    SLIM_WAIT_CANCELLABLE  /* may return ECANCELED: a cancellation point */
};

/* Sleeps while *word == expected, until woken or the deadline (NULL: none)
 * passes. Returns 0 after a wake (which may be spurious: the caller re-checks
 * its condition) or ETIMEDOUT once the deadline has passed. A CANCELLABLE wait
 * also returns ECANCELED when the calling thread has a cancellation request it
 * must act on, before or during the wait; the caller then undoes what its own
 * wait set up and calls slim_cancel_act. */
int slim_wait_on(volatile long *word, long expected, const struct slim_deadline *deadline,
                 enum slim_wait_kind kind);

/* The same for a kernel object (a named semaphore): 0 once it is signalled,
 * ETIMEDOUT, ECANCELED for a CANCELLABLE wait, EINVAL for a bad handle. */
int slim_wait_on_handle(HANDLE handle, const struct slim_deadline *deadline,
                        enum slim_wait_kind kind);

/* Sleeps until the deadline has passed: 0, or ECANCELED for a CANCELLABLE sleep. */
int slim_sleep_until(const struct slim_deadline *deadline, enum slim_wait_kind kind);

/* Gives the rest of the time slice to another ready thread (SwitchToThread):
 * for a spinner whose partner may be waiting for this core. */
void slim_yield(void);

/* A plain sleep of ms milliseconds (Sleep), no timer, not cancellable: the
 * spinlock ladder's nap, and the canceller's pause between repeated wakes. */
void slim_nap_ms(unsigned ms);

static inline void slim_wake_one(volatile long *word)
{
    WakeByAddressSingle((PVOID)word);
}

static inline void slim_wake_all(volatile long *word)
{
    WakeByAddressAll((PVOID)word);
}

/* ---- The lightweight semaphore (sem.c) ---- */

/* Under sem_t and under each condvar waiter: a word that sleeps on the wait road.
 * Takes a token, sleeping until one comes: 0, ETIMEDOUT once the deadline (NULL:
 * none) has passed, or ECANCELED for a cancellable wait. Unnamed semaphores only. */
int slim_sem_wait(sem_t *sem, const struct slim_deadline *deadline, enum slim_wait_kind kind);

/* Adds a token and wakes a sleeper: 0 or EOVERFLOW. Its last access to *sem is
 * one atomic update, so a woken waiter may free the semaphore at once. */
int slim_sem_post(sem_t *sem);

/* ---- Named semaphores (sem_named.c): sem->__named holds the kernel handle ---- */

/* sem_trywait / sem_wait / the timed waits: deadline NULL waits forever; the
 * wait is a cancellation point unless try_only. 0 or the errno. */
int slim_sem_named_wait(sem_t *sem, const struct slim_deadline *deadline, int try_only);
int slim_sem_named_post(sem_t *sem);
int slim_sem_named_getvalue(sem_t *sem, int *value);

/* ---- Cancellation points (cancel.c) ---- */

/* The bookkeeping of a CANCELLABLE wait, called by the wait entry only: before
 * it sleeps, the thread publishes what a canceller must wake (the word, or NULL
 * for an alertable handle wait, which an APC ends); both return nonzero when a
 * request must be acted on. */
int slim_cancel_wait_begin(volatile long *word);
int slim_cancel_wait_end(void);

/* Nonzero when the calling thread must act on a cancellation request now. */
int slim_cancel_requested(void);

/* A thread's cancel_pending word: pthread_cancel moves it NO_REQUEST ->
 * REQUESTED, once per life. */
enum { SLIM_CANCEL_NO_REQUEST = 0, SLIM_CANCEL_REQUESTED = 1 };

/* The slow half of slim_cancel_point_entry (below): a request is pending; acts
 * on it if cancellation is enabled, else returns. */
void slim_cancel_point_pending(void) __attribute__((__cold__));

/* Acts on the calling thread's cancellation request: pthread_exit(PTHREAD_CANCELED). */
void slim_cancel_act(void) __attribute__((__noreturn__));

struct slim_thread;

/* The calling thread is leaving (pthread_exit, return from its start routine,
 * the exit hook): from here on no request acts on it, and no other thread
 * stops it to redirect it while cleanup handlers and key destructors run. */
void slim_cancel_exiting(struct slim_thread *self);

/* Asynchronous cancellation of another thread (cancel_async.c): stops target
 * and sends it to slim_cancel_act, at once when it runs the program's own code,
 * or when the call it is in returns into that code, whose return address is
 * known exactly. Nonzero once that is arranged; 0 when it is not yet: the
 * request then acts at the target's next cancellation point, or once the
 * retrier (cancel_async_retry.c), which keeps looking, can arrange it. */
int slim_cancel_async(struct slim_thread *target);

/* What one look at a thread found (cancel_async.c). */
enum slim_async_verdict {
    SLIM_ASYNC_ARRANGED,    /* redirected now, or its return into the program replaced */
    SLIM_ASYNC_LOOK_AGAIN,  /* nowhere safe to act yet: it runs on, to be looked at later */
    SLIM_ASYNC_LEFT_PENDING /* no longer asynchronous and enabled, or gone: its own
                             * calls (setcanceltype, setcancelstate, points) see the request */
};

/* One look at target, through handle (a handle of its thread), while life is
 * the record's current life. */
enum slim_async_verdict slim_async_look(struct slim_thread *target, HANDLE handle,
                                        pthread_t life);

/* Whether address lies in the program's own code (the executable's, or the
 * module's that links us, less our own) (cancel_async.c). */
int slim_async_in_program_code(const char *address);

/* The images whose code is the program's: the executable, and the module our
 * code lives in (the same one when we are linked into the executable). */
void slim_async_program_images(const void **executable, const void **library);

/* For a target stopped outside the program's code (cancel_async_return.c):
 * replaces the return address into the program's code of the call it is in,
 * when its slot is known exactly. Nonzero once done. */
int slim_async_replace_return(struct slim_thread *target, const CONTEXT *stopped);

/* The slot that holds that return address, known exactly, or NULL
 * (cancel_async_unwind.c on x86_64, cancel_async_frames.c on i686). */
uintptr_t *slim_async_return_slot(const struct slim_thread *target, const CONTEXT *stopped);

/* Hands target's request to the retrier (cancel_async_retry.c): nonzero when it
 * took it, 0 when Windows gave neither the memory nor the thread for it. */
int slim_async_retry_later(struct slim_thread *target);

/* ---- Where our code lies, for asynchronous cancellation ----
 * Every file of the library includes this header first, so this block puts one
 * entry {first byte, end} of the file's .text into a table that cancel_async.c
 * brackets with two markers: the linker sorts .rdata$ sections by name, so the
 * table is contiguous whatever the link order (the same device as the C
 * runtime's .CRT$XC* initializer tables). GCC emits top-level asm before any
 * function, so the first label opens the file's code; .text subsection 8191
 * follows all of it. Clang's COFF assembler has no subsections: without the
 * table our code cannot be told from the program's, and cancel_async.c then
 * never stops a thread at an arbitrary instruction (README.md). */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SLIM_CODE_TABLE 1
#if defined(__x86_64__)
#define SLIM_CODE_ADDRESS_DIRECTIVE ".quad"
#else
#define SLIM_CODE_ADDRESS_DIRECTIVE ".long"
#endif
__asm__(".text\n"
        ".Lslim_code_begin:\n"
        ".text 8191\n"
        ".Lslim_code_end:\n"
        ".section .rdata$slim_code_b,\"dr\"\n"
        ".balign 8\n"
        SLIM_CODE_ADDRESS_DIRECTIVE " .Lslim_code_begin, .Lslim_code_end\n"
        ".text\n");
#endif

/* One entry of that table. */
struct slim_code_range {
    const char *begin;
    const char *end;
};

/* ---- The per-thread record ---- */

/* A read hold on one rwlock, kept on the holding thread's side so that the lock's
 * cache line stays quiet and a recursive rdlock never queues behind a writer.
 * A thread's holds fill the inline table first, then a heap table that grows
 * without limit (rwlock.c); the heap table is freed with the record. */
struct slim_rwlock_hold {
    const pthread_rwlock_t *rwlock;
    long read_count;
    int biased; /* taken through the thread's read-bias slot, not the lock word */
};
#define SLIM_RWLOCK_HOLDS_INLINE 8

/* A record's life, in one word (lifecycle) that also carries the generation of
 * the life: generation << SLIM_JOIN_STATE_BITS | enum slim_join_state. Every
 * transition is a CAS on the whole word, so that a stale pthread_t (whose
 * generation is older) can never move a record that lives a later life.
 * The transitions are described in thread.c; thread_table.c keeps the records. */
enum slim_join_state {
    SLIM_THREAD_FREE = 0,     /* no life: in the table's free list, or never used */
    SLIM_THREAD_JOINABLE = 1,
    SLIM_THREAD_DETACHED = 2,
    SLIM_THREAD_JOINED = 3,   /* a joiner waits for it */
    SLIM_THREAD_EXITED = 4,   /* finished, not yet joined: a zombie */
    SLIM_THREAD_REAPED = 5    /* finished and claimed: the claimer ends the life */
};
#define SLIM_JOIN_STATE_BITS 3
#define SLIM_JOIN_STATE_MASK ((1L << SLIM_JOIN_STATE_BITS) - 1)

/* A pthread_t is generation << SLIM_ID_INDEX_BITS | the record's index in the
 * table: a scalar compared with ==, never 0 (generations start at 1), and never
 * the id of a later life of the same record. The generation is as wide as the
 * lifecycle word (a 32-bit long) leaves room for beside the state, or as the
 * 32-bit pthread_t of i686 leaves beside the index; it wraps from its maximum
 * back to 1, so an id comes back only after that many lives of its record. */
#if UINTPTR_MAX > 0xffffffffUL
#define SLIM_ID_INDEX_BITS 32
#define SLIM_ID_GENERATION_BITS 28
#else
#define SLIM_ID_INDEX_BITS 16
#define SLIM_ID_GENERATION_BITS 16
#endif
#define SLIM_ID_INDEX_MASK (((uintptr_t)1 << SLIM_ID_INDEX_BITS) - 1)
#define SLIM_ID_GENERATION_MAX ((1UL << SLIM_ID_GENERATION_BITS) - 1)

/* A thread's value for one key, with the sequence number the key had when it was
 * stored: a deleted (or deleted and re-created) key no longer matches. */
struct slim_key_value {
    void *value;
    unsigned long sequence;
};

/* A return address cancel_async_return.c replaced on the thread's stack:
 * where it was, and where it went. */
struct slim_patched_return {
    void **slot;
    void *original;
};
#define SLIM_PATCHED_RETURNS_MAX 16

struct slim_thread {
    /* Kept by the table across lives (thread_table.c): the memory of a record
     * is never returned to the heap while its module is loaded, so reading these
     * through a stale pthread_t is always safe. */
    volatile long lifecycle;   /* generation and enum slim_join_state, see above */
    unsigned long table_index; /* where the record sits in the table */
    volatile unsigned long next_free; /* index + 1 of the next free record; 0: none */

    /* One life (zero when it begins): */
    pthread_t pthread_id;      /* the pthread_t naming this life */
    HANDLE handle;             /* a real handle (ours to close); NULL if none could be had */
    DWORD id;                  /* Win32 thread id */
    int adopted;               /* created outside slimpthreads, record made on first need */
    void *(*start_routine)(void *);
    void *start_argument;
    volatile long *start_report; /* pthread_create's word for the outcome of the binding */
    void *result;

    struct __slim_cleanup_frame *cleanup_top;

    struct slim_key_value *key_values; /* indexed by pthread_key_t; grown on setspecific */
    unsigned key_capacity;

    struct slim_rwlock_hold rwlock_holds[SLIM_RWLOCK_HOLDS_INLINE];
    struct slim_rwlock_hold *rwlock_holds_more; /* holds beyond the inline ones, or NULL */
    unsigned rwlock_holds_more_capacity;
    unsigned rwlock_hold_count;    /* used entries: inline first, then rwlock_holds_more */
    pthread_mutex_t *robust_held; /* robust mutexes it holds, linked by __robust_next */

    int cancel_state;          /* PTHREAD_CANCEL_ENABLE / DISABLE */
    int cancel_type;           /* PTHREAD_CANCEL_DEFERRED / ASYNCHRONOUS */
    volatile long cancel_pending;
    volatile long *cancel_wake_word; /* the word it sleeps on at a cancellation point */
    struct slim_patched_return async_returns[SLIM_PATCHED_RETURNS_MAX]; /* cancel_async_return.c */

    sigset_t signal_mask;      /* reported back by pthread_sigmask; inherited by new threads */
    int sched_policy;          /* SCHED_*: Windows cannot report it back */
    int sched_priority;        /* last priority set through sched.c, within sched_policy */

    void *stack_low;           /* the stack as the thread found it, for getattr_np */
    size_t stack_size;
    size_t guard_size;         /* as asked at creation: Windows keeps its own guard page */
    int inherit_sched;         /* PTHREAD_INHERIT_SCHED / EXPLICIT_SCHED, as created */
    HANDLE sleep_timer;        /* wait.c: high-resolution timer for sleeps, closed at exit */
    volatile LONGLONG unique_number; /* np.c: 0 until pthread_getunique_np first asks */
};

/* The lifecycle word of the life thread names, in join_state. */
static inline long slim_lifecycle(pthread_t thread, long join_state)
{
    return (long)((thread >> SLIM_ID_INDEX_BITS) << SLIM_JOIN_STATE_BITS) | join_state;
}

/* The join state of record's current life. */
static inline long slim_join_state(struct slim_thread *record)
{
    return slim_load_acquire(&record->lifecycle) & SLIM_JOIN_STATE_MASK;
}

/* ---- The table of records (thread_table.c) ---- */

/* A record for a new life in join_state, with a new generation, every per-life
 * field zero; NULL when memory or the table runs out. */
struct slim_thread *slim_record_acquire(long join_state);

/* Ends record's life: its pthread_t stops naming anything at once; the memory
 * stays a record, for the next life. */
void slim_record_release(struct slim_thread *record);

/* The record behind thread, or NULL (ESRCH) when thread names no life that has
 * begun and not been joined or ended: never reads freed memory. A caller that
 * races the join of thread itself may still meet the record's next life (the
 * program uses an id after its end, which POSIX leaves undefined). */
struct slim_thread *slim_thread_checked(pthread_t thread);

/* How many indexes the table has handed out: every record ever used sits below. */
unsigned long slim_records_handed_out(void);

/* At the unload of the module: calls release for each record that has a life,
 * then returns all of the table's memory to the heap. */
void slim_records_release_all(void (*release)(struct slim_thread *record));

/* The TLS slot that holds each thread's record (thread.c: allocated before
 * main, or before DllMain returns, so that no lookup checks for it). */
extern DWORD slim_record_slot;

/* NtCurrentTeb, whose MinGW version trips GCC 12's -Warray-bounds; volatile
 * as __slim_current_thread_id (pthread.h) is. */
static inline TEB *slim_current_teb(void)
{
    TEB *teb;

#if defined(__x86_64__)
    __asm__ __volatile__("movq %%gs:%c1, %0" : "=r"(teb) : "i"(offsetof(NT_TIB, Self)));
#elif defined(__i386__)
    __asm__ __volatile__("movl %%fs:%c1, %0" : "=r"(teb) : "i"(offsetof(NT_TIB, Self)));
#else
    teb = NtCurrentTeb();
#endif
    return teb;
}

/* A record slot past the TEB's own 64: TlsGetValue, keeping the caller's last
 * error (thread.c). */
struct slim_thread *slim_self_in_expansion_slot(void);

/* The calling thread's record if it has one, else NULL; never allocates. Inline:
 * the load TlsGetValue makes, without its call and without clearing the
 * caller's last error, which a pthread call must leave alone;
 * pthread_getspecific and the rwlock's unlock start here. */
static inline struct slim_thread *slim_self_if_known(void)
{
    if (__builtin_expect(slim_record_slot < TLS_MINIMUM_AVAILABLE, 1))
        return (struct slim_thread *)slim_current_teb()->TlsSlots[slim_record_slot];
    return slim_self_in_expansion_slot();
}

/* Makes and binds the record of a thread slimpthreads did not create (thread.c). */
struct slim_thread *slim_adopt_current_thread(void);

/* The calling thread's record, made (and registered for the exit hook) on first
 * use by threads that slimpthreads did not create. Never NULL: aborts the process
 * if not even a record can be allocated, since no pthread function could go on. */
static inline struct slim_thread *slim_self(void)
{
    struct slim_thread *self = slim_self_if_known();

    return __builtin_expect(self != NULL, 1) ? self : slim_adopt_current_thread();
}

/* The entry of every cancellation point that POSIX says "shall occur" in
 * (XSH 2.9.5.2): a request pending when the call begins is acted on there,
 * before the arguments are looked at, whether or not the call would go on to
 * block (a semaphore with a token, a deadline already past, a thread already
 * ended), as glibc and musl test at entry. A request that arrives later is the
 * wait entry's (wait.c). The fast path is one load of the caller's own
 * cancel_pending word. A thread without a record has no request to act on: only
 * pthread_cancel sets the word, naming the thread by a pthread_t, and every
 * record that has one is bound to its thread (pthread_create's thread binds its
 * record before it runs the program's code; pthread_self binds a record to a
 * thread we did not create), so the word is read once it is bound. */
static inline void slim_cancel_point_entry(void)
{
    struct slim_thread *self = slim_self_if_known();

    if (__builtin_expect(self != NULL && slim_load_acquire(&self->cancel_pending) !=
                                             SLIM_CANCEL_NO_REQUEST, 0))
        slim_cancel_point_pending();
}

/* The Windows thread priority for a POSIX policy and priority: EINVAL for an
 * unknown policy or a priority outside sched_get_priority_min/max (sched.c). */
int slim_priority_to_win32(int policy, int priority, int *win32_priority);

/* The POSIX priority that reports a Windows thread priority under policy. */
int slim_priority_from_win32(int policy, int win32_priority);

/* Runs the calling thread's key destructors (PTHREAD_DESTRUCTOR_ITERATIONS rounds)
 * and frees its key values; called from the thread-exit path. */
void slim_keys_run_destructors(struct slim_thread *self);

/* Called from the thread-exit path after the key destructors: each robust mutex
 * the thread still holds becomes owner-dead and is released (mutex.c). */
void slim_mutex_robust_owner_exits(struct slim_thread *self);
/* A condvar wait has just relocked the mutex: its waiters take over eagerly
 * from now on (mutex.c, "Two ways to spin"). */
void slim_mutex_cond_waited(pthread_mutex_t *mutex);

/* Called from the thread-exit path: a read hold the thread still has through its
 * rwlock bias slot is dropped, so that the slot does not name that address for
 * good (rwlock.c). Holds in a lock's word stay, as in glibc. */
void slim_rwlock_owner_exits(struct slim_thread *self);

/* Frees a record's heap table of read holds (rwlock_hold.c). */
void slim_rwlock_holds_free(struct slim_thread *record);

/* ---- Errors ---- */

/* The POSIX error code for a Win32 error code. */
int slim_errno_from_win32(DWORD win32_error);

/* C11's result (threads.h) for a pthread call's error code, as glibc maps it. */
static inline int slim_thrd_result(int error)
{
    switch (error) {
    case 0:
        return thrd_success;
    case EBUSY:
        return thrd_busy;
    case ETIMEDOUT:
        return thrd_timedout;
    case ENOMEM:
        return thrd_nomem;
    default:
        return thrd_error;
    }
}

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
