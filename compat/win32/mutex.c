/*
 * mutex.c - pthread_mutex_t on an embedded CRITICAL_SECTION.
 *
 * States of __state: UNINITIALIZED (0: PTHREAD_MUTEX_INITIALIZER or zero-filled),
 * INITIALIZING (one thread won the CAS and sets the section up; racers sleep on the
 * word), READY + kind (usable; the kind is folded into the state so that the fast
 * path is one load and one compare), DESTROYED (a later lock gives EINVAL).
 *
 * The section is only ever entered with TryEnterCriticalSection: it supplies the
 * lock word, the owner and the recursion count. A locker that finds it busy spins
 * briefly, then sleeps on __wake_flag through the wait road, never inside
 * EnterCriticalSection. Why: a section with sleepers inside it is handed from
 * thread to thread (under Wine nobody may barge in while one is queued, so every
 * contended acquire costs a context switch), it has no timed acquire, and under
 * Wine its sleepers go through a wineserver semaphore when it has no debug info.
 *
 * The sleeper protocol (a futex mutex, with the section as the lock word): a
 * sleeper sets __wake_flag to 1, tries the section once more and sleeps while the
 * flag is still 1. unlock, while it still holds the section, clears a set flag;
 * it leaves, and then wakes one sleeper by the flag's address alone (the rule of
 * release: the mutex may be freed the instant it is left). The woken sleeper
 * first spins as a newcomer does, with the flag still clear, so that the
 * holder's unlocks meanwhile wake nobody: at most one woken waiter is on its
 * way at a time, and a running holder keeps the lock for a streak instead of
 * paying a wake per unlock to a waiter that loses the race and sleeps again.
 * Only then does it set the flag again and retry; one that wins the section
 * while others still sleep (__waiters) sets the flag, so that its own unlock
 * wakes the next. A sleeper that gives up (timed out) passes on the wake it
 * may have taken; one that set the flag just after an unlock read it sleeps
 * unseen, and looks again after a short, doubling while (leave() says why
 * that is rare).
 *
 * Two ways to spin. Every look a waiter takes at a busy section pulls its
 * cache line away from the holder, and a waiter that enters the moment the
 * holder lets go moves the lock, and the data it guards, to the other core.
 * Whether that move pays depends on what the threads do with the lock, which
 * the mutex learns from the one thing it can see: whether a condvar waits with
 * it. Such a mutex guards state that threads wait for one another to change (a
 * queue, a job list): a waiter that gets in at the holder's first unlock keeps
 * the producers and the consumers going in turn, and the queue away from its
 * full and empty ends where they sleep. Its waiters are *eager*: they look at
 * doubling gaps and enter a free section at once. A mutex no condvar waits with
 * guards data that threads only update (a counter, a cache, an allocator):
 * throughput comes from a holder that keeps it for a streak of short regions.
 * Its waiters keep streaks: a look that finds the section free checks that it
 * stays free a moment (SLIM_MUTEX_CONFIRM_PAUSES) before entering; the holder
 * of a streak has taken it back by then, and the waiter looks no more until the
 * end of its spin. cond.c marks the mutex (__cond_waited) each time a wait
 * releases it, just before, and it stays marked until the mutex is initialized
 * again.
 *
 * Kinds: a non-recursive kind that finds RecursionCount > 1 right after entering
 * knows that the caller already held it, and backs out. Unlock checks the owner
 * for every kind but DEFAULT, which only refuses a mutex nobody holds: POSIX
 * leaves its misuse undefined, and like glibc it lets one thread release a mutex
 * another one locked (some programs rely on that).
 *
 * Process-shared mutexes (mutex_shared.c) have states of their own below
 * READY_BASE: every path here meets them only in the branch that used to
 * refuse a state below READY_BASE, and hands them on from there, so that a
 * private mutex's paths make no new test.
 *
 * Robust mutexes (process-private) never take the fast paths: their READY state
 * is MUTEX_READY_ROBUST_BASE + kind, so DEFAULT's one compare sends them to the
 * slow path and the other mutexes pay nothing; mutex_robust.c keeps their
 * states and each owner's list.
 *
 * Inline fast paths: include/slimpthreads_mutex_inline.h (part of pthread.h)
 * holds the uncontended lock and unlock of every kind but the robust ones, and
 * a DEFAULT mutex's trylock, as always-inlined helpers: the lock reads the
 * state and tries the section, and for a checked kind looks at the recursion it
 * just entered (a NORMAL or ERRORCHECK relock by the owner is left again at
 * once: only the count drops); the unlock reads the state, for DEFAULT that the
 * section is held and for a checked kind that the caller holds it (the owner
 * field against the thread id in its TEB), then the wake flag, and leaves. The
 * whole calls on them (__slim_mutex_lock, _trylock, _unlock) and
 * pthread_mutex_lock/trylock/unlock (threads.h: mtx_*) as GNU inline functions
 * over them let a caller compiled with optimisation enter and leave the section
 * with no call into us in between. What they do not finish they hand to
 * __slim_mutex_lock_slow, _trylock_slow and _unlock_slow below; the library's
 * own functions of the same names use the same helpers, so a call that is not
 * inlined gives the same results. The values the helpers know (the READY
 * states, the clear flag) are pinned to this file's by static asserts.
 */
#include "mutex_state.h"
#include "spin.h"
#include "check.h"

#include <stddef.h>

/* The public mirror must be the real thing, on 32- and 64-bit alike. */
SLIM_STATIC_ASSERT(sizeof(struct __slim_critical_section) == sizeof(CRITICAL_SECTION),
                   "CRITICAL_SECTION mirror size");
SLIM_STATIC_ASSERT(_Alignof(struct __slim_critical_section) == _Alignof(CRITICAL_SECTION),
                   "CRITICAL_SECTION mirror alignment");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __debug_info) ==
                       offsetof(CRITICAL_SECTION, DebugInfo), "DebugInfo offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __lock_count) ==
                       offsetof(CRITICAL_SECTION, LockCount), "LockCount offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __recursion_count) ==
                       offsetof(CRITICAL_SECTION, RecursionCount), "RecursionCount offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __owning_thread) ==
                       offsetof(CRITICAL_SECTION, OwningThread), "OwningThread offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __lock_semaphore) ==
                       offsetof(CRITICAL_SECTION, LockSemaphore), "LockSemaphore offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __spin_count) ==
                       offsetof(CRITICAL_SECTION, SpinCount), "SpinCount offset");

/* A contended lock spins one window of SLIM_SPIN_LOCK (spin.h: about as
 * long as a sleep would cost), so that a holder running on the other core can
 * finish, looking at the section at doubling gaps: each look pulls the
 * section's cache line away from the holder, and a spinner that looked at
 * every pause slowed a holder running a tight loop of short regions to
 * 100-250 ns a pair (APR's lockperf on 2 cores; 35-50 ns with the sparse
 * looks). */

/* The kind of a READY state. */
static inline int kind_of(long state)
{
    return (int)(state - (state_is_robust(state) ? MUTEX_READY_ROBUST_BASE : MUTEX_READY_BASE));
}

static void init_section(pthread_mutex_t *mutex)
{
    /* No debug info: nothing is allocated, so init cannot fail and a mutex that is
     * never destroyed leaks nothing. Spin count 0: nobody waits inside the section. */
    InitializeCriticalSectionEx(section_of(mutex), 0, CRITICAL_SECTION_NO_DEBUG_INFO);
    mutex->__waiters = 0;
    mutex->__wake_flag = WAKE_FLAG_CLEAR;
    mutex->__cond_waited = 0;
}

/* Brings a mutex to READY exactly once, however many threads race on its first
 * use, and returns its state: READY + kind, or DESTROYED for an unusable one. */
static long settle_state(pthread_mutex_t *mutex)
{
    for (;;) {
        long state = slim_load_acquire(&mutex->__state);

        if (state >= MUTEX_READY_BASE || state == MUTEX_DESTROYED)
            return state;
        if (state == MUTEX_UNINITIALIZED) {
            int kind = mutex->__kind;

            if (!kind_is_valid(kind))
                return MUTEX_DESTROYED;
            if (slim_cas(&mutex->__state, MUTEX_UNINITIALIZED, MUTEX_INITIALIZING)) {
                init_section(mutex);
                slim_store_release(&mutex->__state, MUTEX_READY_BASE + kind);
                slim_wake_all(&mutex->__state);
                return MUTEX_READY_BASE + kind;
            }
            continue;
        }
        if (state != MUTEX_INITIALIZING) /* shared (mutex_shared.c), or garbage */
            return state_is_shared(state) ? state : MUTEX_DESTROYED;
        slim_wait_on(&mutex->__state, MUTEX_INITIALIZING, NULL, SLIM_WAIT_PLAIN);
    }
}

/* Sleeps until the deadline (forever without one): a NORMAL mutex relocked by its
 * owner deadlocks, as POSIX says, without burning a core. */
static int sleep_until(const struct slim_deadline *deadline)
{
    const struct slim_wait_target nothing = {NULL, 0, NULL, NULL};

    return slim_wait(&nothing, deadline, SLIM_WAIT_PLAIN);
}

/* The caller already held the non-recursive mutex it just tried to lock. */
static int relock_by_owner(long state, const struct slim_deadline *deadline)
{
    if (kind_of(state) == PTHREAD_MUTEX_ERRORCHECK)
        return EDEADLK;
    return sleep_until(deadline);
}

/* Enters the section; for a non-recursive kind, undoes an entry by the owner.
 * Returns 0, EBUSY (busy, or relocked by the owner: *relocked says which). */
static inline int try_enter(pthread_mutex_t *mutex, long state, int *relocked)
{
    CRITICAL_SECTION *section = section_of(mutex);

    *relocked = 0;
    if (!TryEnterCriticalSection(section))
        return EBUSY;
    if (section->RecursionCount == 1 || kind_of(state) == PTHREAD_MUTEX_RECURSIVE)
        return 0;
    LeaveCriticalSection(section); /* only drops the count: we still hold it */
    *relocked = 1;
    return EBUSY;
}

static inline int section_free(CRITICAL_SECTION *section)
{
    return slim_pointer_load_relaxed((void *volatile *)&section->OwningThread) == NULL;
}

static inline int section_taken(CRITICAL_SECTION *section)
{
    return section_free(section) && TryEnterCriticalSection(section);
}

/* What one look at a busy section found. */
enum look { LOOK_BUSY, LOOK_TAKEN, LOOK_TAKEN_BACK };

/* Looks once: a waiter that takes over eagerly enters a free section at once;
 * one that keeps streaks first checks that the section stays free for
 * SLIM_MUTEX_CONFIRM_PAUSES, which a holder running a loop of short regions
 * never leaves it (LOOK_TAKEN_BACK: it took it back, or another waiter did). */
static enum look look_at_section(CRITICAL_SECTION *section, int eager)
{
    if (!section_free(section))
        return LOOK_BUSY;
    if (!eager) {
        slim_pause(SLIM_MUTEX_CONFIRM_PAUSES);
        if (!section_free(section))
            return LOOK_TAKEN_BACK;
    }
    return TryEnterCriticalSection(section) ? LOOK_TAKEN : LOOK_TAKEN_BACK;
}

/* Spins while the section is busy: nonzero once it is ours. An eager waiter
 * looks at doubling gaps; a streak-keeping one stops looking once it has seen
 * the holder take the section back, but for one last look at the end ("Two
 * ways to spin" at the top). Past SLIM_MUTEX_SPIN_YIELD_AFTER it gives up its
 * core once, if the mutex is one a condvar waits with or it has seen a
 * streak. A holder that has not let go by then is often the thread that just
 * woke us (a broadcast, a signal) and lost its core to us (Linux runs the
 * woken thread first); spinning on would only keep it off. A broadcast to ten
 * waiters that all want the mutex the broadcaster holds: 1.4-1.6x the raw
 * CONDITION_VARIABLE's times without the yield, 0.7-0.8x with it. Not at the
 * start: a holder running on the other core usually lets go within the first
 * looks, and a yield can hand our core to a busy thread for a whole time
 * slice. Not when a mutex no condvar waits with was only ever seen busy (a
 * holder inside a long region): with 4 threads on 2 cores holding it 3-10 us
 * each, that yield cost up to half the throughput and 1.7-1.8x the CPU per
 * operation, with 6-8 threads 0-17% (bench/README.md, "Design decisions";
 * why was not traced).
 * The first look waits SLIM_SPIN_FIRST_GAP pauses: a waiter that looks at
 * once catches the holder's next unlock and takes the lock after a pair or two;
 * the lock and the data it guards then cross cores every few pairs, and two
 * threads settle into that ping-pong for good (each one's spin succeeds, nobody
 * sleeps). Looking a little later lets a running holder keep the lock for a
 * streak, which is what a contended lock's throughput is made of; a holder that
 * is really done by then is still taken over within a fraction of a sleep. */
static int spin_for_section(pthread_mutex_t *mutex, int has_slept)
{
    CRITICAL_SECTION *section = section_of(mutex);
    int cond_waited = slim_load_relaxed(&mutex->__cond_waited) != 0;
    int eager = has_slept || cond_waited;
    int saw_streak = 0, again;
    struct slim_spin spin;
    unsigned paused_before;

    slim_spin_begin(&spin, SLIM_SPIN_LOCK);
    do {
        enum look seen = look_at_section(section, eager);

        if (seen == LOOK_TAKEN)
            return 1;
        paused_before = spin.paused;
        if (seen == LOOK_TAKEN_BACK && !eager) {
            saw_streak = 1;
            slim_spin_last_look(&spin); /* one more look, at the end */
            again = 0;
        } else {
            again = slim_spin_again(&spin);
        }
        if ((cond_waited || saw_streak) && paused_before < SLIM_MUTEX_SPIN_YIELD_AFTER &&
            spin.paused >= SLIM_MUTEX_SPIN_YIELD_AFTER)
            slim_yield();
    } while (again);
    return section_taken(section);
}

/* Sleeps on the wake flag until woken, or until it is time to look at the
 * section again (see leave()): 0, or ETIMEDOUT once the caller's deadline has
 * passed. recheck_ms doubles from one sleep to the next. */
static int sleep_on_wake_flag(pthread_mutex_t *mutex, const struct slim_deadline *deadline,
                              long *recheck_ms)
{
    struct slim_deadline recheck;

    slim_deadline_capped(&recheck, deadline, *recheck_ms * SLIM_NANOSECONDS_PER_MILLISECOND);
    if (*recheck_ms < SLIM_MUTEX_RECHECK_MOST_MS)
        *recheck_ms *= 2;
    if (slim_wait_on(&mutex->__wake_flag, WAKE_FLAG_SET, &recheck, SLIM_WAIT_PLAIN) == 0)
        return 0;
    return slim_deadline_passed(deadline) ? ETIMEDOUT : 0;
}

/* The section is busy: spin a little, then sleep on the wake flag; once woken,
 * spin again before flagging (see the top). */
/* Never inlined: its loop's registers would make every caller save them all,
 * the uncontended acquire of __slim_mutex_lock_slow too. */
static int __attribute__((noinline)) lock_contended(pthread_mutex_t *mutex,
                                                    const struct slim_deadline *deadline)
{
    CRITICAL_SECTION *section = section_of(mutex);
    long recheck_ms = SLIM_MUTEX_RECHECK_FIRST_MS;
    int error = 0;

    if (spin_for_section(mutex, 0))
        return 0;
    slim_increment(&mutex->__waiters);
    for (;;) {
        slim_swap(&mutex->__wake_flag, WAKE_FLAG_SET);
        if (TryEnterCriticalSection(section))
            break;
        if (sleep_on_wake_flag(mutex, deadline, &recheck_ms) == ETIMEDOUT) {
            slim_wake_one(&mutex->__wake_flag); /* the wake we may have taken */
            error = ETIMEDOUT;
            break;
        }
        if (spin_for_section(mutex, 1)) {
            if (slim_load_relaxed(&mutex->__waiters) > 1)
                slim_swap(&mutex->__wake_flag, WAKE_FLAG_SET); /* others still sleep */
            break;
        }
    }
    slim_decrement(&mutex->__waiters);
    return error;
}


/* Only ever 0 -> 1 until the next init, so a racing second marker changes
 * nothing; the load first keeps the line shared once it is marked. */
void slim_mutex_cond_waited(pthread_mutex_t *mutex)
{
    if (slim_load_relaxed(&mutex->__cond_waited) == 0)
        slim_store_relaxed(&mutex->__cond_waited, 1);
}

/* cond.c's question: does this mutex work across processes? */
int slim_mutex_is_shared(const pthread_mutex_t *mutex)
{
    return state_is_shared(slim_load_acquire((volatile long *)&mutex->__state));
}

/* ---- Locking ---- */

/* Takes a READY mutex: 0, EDEADLK or ETIMEDOUT. */
static int acquire(pthread_mutex_t *mutex, long state, const struct slim_deadline *deadline)
{
    int relocked;

    if (try_enter(mutex, state, &relocked) == 0)
        return 0;
    if (relocked)
        return relock_by_owner(state, deadline);
    return lock_contended(mutex, deadline);
}

/* Every lock that is not an uncontended DEFAULT one comes here. */
static int __attribute__((noinline)) lock_slow(pthread_mutex_t *mutex,
                                               const struct slim_deadline *deadline)
{
    long state = settle_state(mutex);
    int error;

    if (__builtin_expect(state < MUTEX_READY_BASE, 0)) /* the old layout: ready falls through */
        return state_is_shared(state) ? slim_mutex_shared_lock(mutex, state, deadline, 0) : EINVAL;
    error = acquire(mutex, state, deadline);
    if (error != 0 || !state_is_robust(state))
        return error;
    return slim_mutex_robust_entered(mutex);
}

/* The work of pthread_mutex_init, which C11's mtx_init shares. */
int slim_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    int kind = attr ? attr->__kind : PTHREAD_MUTEX_DEFAULT;
    int robust = attr && attr->__robustness == PTHREAD_MUTEX_ROBUST;

    if (mutex == NULL || !kind_is_valid(kind))
        return EINVAL;
    if (attr && (slim_pshared_error(attr->__pshared) != 0 ||
                 (attr->__robustness != PTHREAD_MUTEX_STALLED && !robust) ||
                 attr->__protocol != PTHREAD_PRIO_NONE))
        return EINVAL; /* the setters refuse these: not an initialized attr */
    if (slim_mutex_shared_in_use(mutex))
        return EBUSY;
    if (attr && attr->__pshared == PTHREAD_PROCESS_SHARED)
        return slim_mutex_shared_init(mutex, kind, robust);
    mutex->__kind = kind;
    mutex->__robustness = robust ? ROBUST_CONSISTENT : PTHREAD_MUTEX_STALLED;
    mutex->__robust_next = NULL;
    init_section(mutex);
    slim_store_release(&mutex->__state,
                       (robust ? MUTEX_READY_ROBUST_BASE : MUTEX_READY_BASE) + kind);
    return 0;
}

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    struct slim_check_call call;

    slim_hook_mutex_init_begin(&call, SLIM_CHECK_SITE(), mutex);
    return slim_hook_initialized(&call, slim_mutex_init(mutex, attr));
}

/* The work of pthread_mutex_destroy, which C11's mtx_destroy shares. */
int slim_mutex_destroy(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);
    CRITICAL_SECTION *section = section_of(mutex);

    if (state == MUTEX_UNINITIALIZED)
        return slim_cas(&mutex->__state, MUTEX_UNINITIALIZED, MUTEX_DESTROYED) ? 0 : EBUSY;
    if (state == MUTEX_INITIALIZING)
        return EBUSY; /* another thread is locking it right now */
    if (state < MUTEX_READY_BASE)
        return state_is_shared(state) ? slim_mutex_shared_destroy(mutex) : EINVAL;
    if (slim_load_acquire(&mutex->__waiters) != 0 || !TryEnterCriticalSection(section))
        return EBUSY;
    if (section->RecursionCount > 1) { /* the caller holds it */
        LeaveCriticalSection(section);
        return EBUSY;
    }
    slim_store_release(&mutex->__state, MUTEX_DESTROYED);
    LeaveCriticalSection(section);
    DeleteCriticalSection(section);
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_hook_mutex_begin(&call, SLIM_CHECK_SITE(), mutex);
    return slim_hook_destroyed(&call, slim_mutex_destroy(mutex));
}

/* The checked build names a mutex by its kind: from its state once ready,
 * from its initializer before (check.h's hooks; the normal build never
 * calls this). */
int slim_mutex_check_kind(const pthread_mutex_t *mutex)
{
    long state;

    if (mutex == NULL)
        return SLIM_CHECK_KIND_UNKNOWN;
    state = slim_load_acquire((volatile long *)&mutex->__state);
    if (state >= MUTEX_READY_BASE && state < MUTEX_READY_ROBUST_BASE + 4 &&
        kind_is_valid(kind_of(state)))
        return kind_of(state) + (state_is_robust(state) ? SLIM_CHECK_ROBUST : 0);
    if (state_is_shared(state))
        return state >= MUTEX_SHARED_ROBUST_BASE
                   ? (int)(state - MUTEX_SHARED_ROBUST_BASE) + SLIM_CHECK_ROBUST
                   : (int)(state - MUTEX_SHARED_BASE);
    if (state == MUTEX_UNINITIALIZED || state == MUTEX_INITIALIZING)
        return kind_is_valid(mutex->__kind) ? mutex->__kind : SLIM_CHECK_KIND_UNKNOWN;
    /* destroyed, or a state we never write */
    return SLIM_CHECK_KIND_UNKNOWN | SLIM_CHECK_UNUSABLE;
}

/* The owner whose hold an unlock by another thread releases: a locked
 * DEFAULT mutex's, as __slim_mutex_unlock_slow and pthread.h's inline unlock
 * leave its section for anyone; the other kinds refuse (EPERM). */
unsigned long slim_mutex_check_released_owner(const pthread_mutex_t *mutex)
{
    pthread_mutex_t *readable = (pthread_mutex_t *)mutex;

    if (slim_load_acquire(&readable->__state) != MUTEX_READY_DEFAULT ||
        section_of(readable)->RecursionCount <= 0)
        return 0;
    return (unsigned long)(uintptr_t)section_of(readable)->OwningThread;
}

/* pthread.h's inline lock comes here when its fast path failed: the mutex is
 * busy, relocked by its owner, robust, or not yet set up. A ready NORMAL,
 * ERRORCHECK or RECURSIVE one goes straight to acquire, without lock_slow's
 * call to settle the state. */
int __slim_mutex_lock_slow(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);

    if (__slim_mutex_state_is_checked_kind(state))
        return acquire(mutex, state, NULL);
    return lock_slow(mutex, NULL);
}

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, __slim_mutex_lock(mutex));
}

/* cond.c's relock: the whole lock, out of line, without the hooks (the
 * checker sees a cond wait's relock through its own hooks). */
int slim_mutex_lock(pthread_mutex_t *mutex)
{
    return __slim_mutex_lock(mutex);
}

/* The work of pthread_mutex_clocklock and _timedlock, and of C11's
 * mtx_timedlock. */
int slim_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error ? error : lock_slow(mutex, &deadline);
}

int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, slim_mutex_clocklock(mutex, clock, abstime));
}

int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, slim_mutex_clocklock(mutex, CLOCK_REALTIME, abstime));
}

/* Every trylock that is not on a ready DEFAULT mutex comes here. */
int __slim_mutex_trylock_slow(pthread_mutex_t *mutex)
{
    long state = settle_state(mutex);
    int relocked, error;

    if (__builtin_expect(state < MUTEX_READY_BASE, 0))
        return state_is_shared(state) ? slim_mutex_shared_lock(mutex, state, NULL, 1) : EINVAL;
    error = try_enter(mutex, state, &relocked);
    if (error != 0 || !state_is_robust(state))
        return error;
    return slim_mutex_robust_entered(mutex);
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_TRY);
    return slim_hook_locked(&call, __slim_mutex_trylock(mutex));
}

static int __attribute__((noinline)) unlock_checked(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);

    if (state == MUTEX_UNINITIALIZED && kind_is_valid(mutex->__kind))
        return EPERM; /* statically initialized, never locked: nobody holds it */
    if (__builtin_expect(state < MUTEX_READY_BASE, 0))
        return state_is_shared(state) ? slim_mutex_shared_unlock(mutex, state) : EINVAL;
    if (state == MUTEX_READY_DEFAULT || !__slim_mutex_held_by_caller(mutex))
        return EPERM; /* DEFAULT comes here only when it is not locked at all */
    if (section_of(mutex)->RecursionCount > 1) {
        LeaveCriticalSection(section_of(mutex)); /* still held: nobody to wake */
        return 0;
    }
    if (state_is_robust(state))
        slim_mutex_robust_unlock(mutex);
    else
        leave(mutex);
    return 0;
}

/* Every unlock but a DEFAULT one with nobody to wake comes here (pthread.h's
 * inline one too). DEFAULT does not check the owner (POSIX leaves that
 * undefined; like glibc, a thread may release a mutex another thread locked),
 * but an unlocked section is refused: leaving it would corrupt it. */
int __slim_mutex_unlock_slow(pthread_mutex_t *mutex)
{
    if (slim_load_acquire(&mutex->__state) == MUTEX_READY_DEFAULT &&
        section_of(mutex)->RecursionCount > 0) {
        leave(mutex);
        return 0;
    }
    return unlock_checked(mutex);
}

int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_hook_mutex_unlock_begin(&call, SLIM_CHECK_SITE(), mutex);
    return slim_hook_unlocked(&call, __slim_mutex_unlock(mutex));
}

/* cond.c's unlock before it sleeps, as slim_mutex_lock. */
int slim_mutex_unlock(pthread_mutex_t *mutex)
{
    return __slim_mutex_unlock(mutex);
}

/* Priority ceilings need PTHREAD_PRIO_PROTECT, which no mutex can have: EINVAL as
 * glibc gives for a mutex without that protocol. */
int pthread_mutex_getprioceiling(const pthread_mutex_t *mutex, int *prioceiling)
{
    (void)mutex;
    (void)prioceiling;
    return EINVAL;
}

int pthread_mutex_setprioceiling(pthread_mutex_t *mutex, int prioceiling, int *old_ceiling)
{
    (void)mutex;
    (void)prioceiling;
    (void)old_ceiling;
    return EINVAL;
}

#include "code_end.h"
