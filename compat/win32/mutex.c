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
 * flag is still 1. unlock leaves the section and, when the flag is set, clears it
 * and wakes one sleeper, which sets the flag again before it retries, so that the
 * next unlock wakes the next sleeper. A sleeper that gives up (timed out) passes
 * on the wake it may have taken.
 *
 * Kinds: a non-recursive kind that finds RecursionCount > 1 right after entering
 * knows that the caller already held it, and backs out. Unlock checks the owner
 * for every kind but DEFAULT, which only refuses a mutex nobody holds: POSIX
 * leaves its misuse undefined, and like glibc it lets one thread release a mutex
 * another one locked (some programs rely on that).
 */
#include "internal.h"

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

enum {
    MUTEX_UNINITIALIZED = 0,
    MUTEX_INITIALIZING = 1,
    MUTEX_DESTROYED = 2,
    MUTEX_READY_BASE = 16, /* READY for kind k is MUTEX_READY_BASE + k */
    MUTEX_READY_DEFAULT = MUTEX_READY_BASE + PTHREAD_MUTEX_DEFAULT,
    MUTEX_READY_RECURSIVE = MUTEX_READY_BASE + PTHREAD_MUTEX_RECURSIVE,
    MUTEX_READY_ERRORCHECK = MUTEX_READY_BASE + PTHREAD_MUTEX_ERRORCHECK,
    MUTEX_READY_NORMAL = MUTEX_READY_BASE + PTHREAD_MUTEX_NORMAL
};

enum { WAKE_FLAG_CLEAR = 0, WAKE_FLAG_SET = 1 };

/* Tries of a contended lock before it sleeps: about the time a short critical
 * region takes, so that a holder running on the other core can finish. */
#define MUTEX_SPIN_TRIES 100

static inline CRITICAL_SECTION *section_of(pthread_mutex_t *mutex)
{
    return (CRITICAL_SECTION *)&mutex->__section;
}

static inline int kind_is_valid(int kind)
{
    return kind == PTHREAD_MUTEX_DEFAULT || kind == PTHREAD_MUTEX_NORMAL ||
           kind == PTHREAD_MUTEX_ERRORCHECK || kind == PTHREAD_MUTEX_RECURSIVE;
}

/* The calling thread's id, as a section records its owner: ClientId.UniqueThread
 * of the TEB, at an offset fixed by the ABI. GetCurrentThreadId reads the same
 * field behind an import call, which costs the checked kinds ~1 ns per call (and
 * NtCurrentTeb trips GCC 12's -Warray-bounds), hence the one-instruction read. */
#if defined(__x86_64__)
#define TEB_THREAD_ID_OFFSET 0x48
static inline HANDLE caller_as_owner(void)
{
    HANDLE id;

    __asm__("movq %%gs:%c1, %0" : "=r"(id) : "i"(TEB_THREAD_ID_OFFSET));
    return id;
}
#elif defined(__i386__)
#define TEB_THREAD_ID_OFFSET 0x24
static inline HANDLE caller_as_owner(void)
{
    HANDLE id;

    __asm__("movl %%fs:%c1, %0" : "=r"(id) : "i"(TEB_THREAD_ID_OFFSET));
    return id;
}
#else
static inline HANDLE caller_as_owner(void)
{
    return (HANDLE)(ULONG_PTR)GetCurrentThreadId();
}
#endif

/* Another thread's owner field may be read racily: it equals our id only if we
 * wrote it, and only the owner writes it. */
static inline int held_by_caller(pthread_mutex_t *mutex)
{
    return __atomic_load_n(&section_of(mutex)->OwningThread, __ATOMIC_RELAXED) ==
           caller_as_owner();
}

static void init_section(pthread_mutex_t *mutex)
{
    /* No debug info: nothing is allocated, so init cannot fail and a mutex that is
     * never destroyed leaks nothing. Spin count 0: nobody waits inside the section. */
    InitializeCriticalSectionEx(section_of(mutex), 0, CRITICAL_SECTION_NO_DEBUG_INFO);
    mutex->__waiters = 0;
    mutex->__wake_flag = WAKE_FLAG_CLEAR;
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
        if (state != MUTEX_INITIALIZING)
            return MUTEX_DESTROYED; /* garbage: not a mutex */
        slim_wait_on(&mutex->__state, MUTEX_INITIALIZING, NULL);
    }
}

/* Sleeps until the deadline (forever without one): a NORMAL mutex relocked by its
 * owner deadlocks, as POSIX says, without burning a core. */
static int sleep_until(const struct slim_deadline *deadline)
{
    volatile long never_changes = 0;

    while (slim_wait_on(&never_changes, 0, deadline) != ETIMEDOUT)
        continue;
    return ETIMEDOUT;
}

/* The caller already held the non-recursive mutex it just tried to lock. */
static int relock_by_owner(long state, const struct slim_deadline *deadline)
{
    if (state == MUTEX_READY_ERRORCHECK)
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
    if (section->RecursionCount == 1 || state == MUTEX_READY_RECURSIVE)
        return 0;
    LeaveCriticalSection(section); /* only drops the count: we still hold it */
    *relocked = 1;
    return EBUSY;
}

/* The section is busy: spin a little, then sleep on the wake flag. */
static int lock_contended(pthread_mutex_t *mutex, const struct slim_deadline *deadline)
{
    CRITICAL_SECTION *section = section_of(mutex);
    int tries, error = 0;

    for (tries = 0; tries < MUTEX_SPIN_TRIES; tries++) {
        slim_cpu_relax();
        if (__atomic_load_n(&section->OwningThread, __ATOMIC_RELAXED) == NULL &&
            TryEnterCriticalSection(section))
            return 0;
    }
    slim_increment(&mutex->__waiters);
    for (;;) {
        slim_swap(&mutex->__wake_flag, WAKE_FLAG_SET);
        if (TryEnterCriticalSection(section))
            break;
        if (slim_wait_on(&mutex->__wake_flag, WAKE_FLAG_SET, deadline) == ETIMEDOUT) {
            slim_wake_one(&mutex->__wake_flag); /* the wake we may have taken */
            error = ETIMEDOUT;
            break;
        }
    }
    slim_decrement(&mutex->__waiters);
    return error;
}

/* Every lock that is not an uncontended DEFAULT one comes here. */
static int __attribute__((noinline)) lock_slow(pthread_mutex_t *mutex,
                                               const struct slim_deadline *deadline)
{
    long state = settle_state(mutex);
    int relocked;

    if (state < MUTEX_READY_BASE)
        return EINVAL;
    if (try_enter(mutex, state, &relocked) == 0)
        return 0;
    if (relocked)
        return relock_by_owner(state, deadline);
    return lock_contended(mutex, deadline);
}

/* Leaves the section and wakes a sleeper if one may be waiting for it. */
static inline void leave(pthread_mutex_t *mutex)
{
    LeaveCriticalSection(section_of(mutex));
    /* Sequentially consistent after Leave's interlocked release: either we see the
     * flag a sleeper set, or its retry after setting it sees the section free. */
    if (__atomic_load_n(&mutex->__wake_flag, __ATOMIC_SEQ_CST) != WAKE_FLAG_CLEAR &&
        slim_swap(&mutex->__wake_flag, WAKE_FLAG_CLEAR) != WAKE_FLAG_CLEAR)
        slim_wake_one(&mutex->__wake_flag);
}

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    int kind = attr ? attr->__kind : PTHREAD_MUTEX_DEFAULT;

    if (mutex == NULL || !kind_is_valid(kind))
        return EINVAL;
    if (attr && (attr->__pshared != PTHREAD_PROCESS_PRIVATE ||
                 attr->__robustness != PTHREAD_MUTEX_STALLED ||
                 attr->__protocol != PTHREAD_PRIO_NONE))
        return EINVAL; /* the setters refuse these: not an initialized attr */
    mutex->__kind = kind;
    mutex->__robustness = PTHREAD_MUTEX_STALLED;
    mutex->__robust_owner = NULL;
    init_section(mutex);
    slim_store_release(&mutex->__state, MUTEX_READY_BASE + kind);
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);
    CRITICAL_SECTION *section = section_of(mutex);

    if (state == MUTEX_UNINITIALIZED)
        return slim_cas(&mutex->__state, MUTEX_UNINITIALIZED, MUTEX_DESTROYED) ? 0 : EBUSY;
    if (state == MUTEX_INITIALIZING)
        return EBUSY; /* another thread is locking it right now */
    if (state < MUTEX_READY_BASE)
        return EINVAL;
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

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    if (slim_load_acquire(&mutex->__state) == MUTEX_READY_DEFAULT &&
        TryEnterCriticalSection(section_of(mutex)))
        return 0;
    return lock_slow(mutex, NULL);
}

int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error ? error : lock_slow(mutex, &deadline);
}

int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
{
    return pthread_mutex_clocklock(mutex, CLOCK_REALTIME, abstime);
}

static int __attribute__((noinline)) trylock_slow(pthread_mutex_t *mutex)
{
    long state = settle_state(mutex);
    int relocked;

    if (state < MUTEX_READY_BASE)
        return EINVAL;
    return try_enter(mutex, state, &relocked);
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    int relocked;

    if (slim_load_acquire(&mutex->__state) == MUTEX_READY_DEFAULT)
        return try_enter(mutex, MUTEX_READY_DEFAULT, &relocked);
    return trylock_slow(mutex);
}

static int __attribute__((noinline)) unlock_checked(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);

    if (state < MUTEX_READY_BASE)
        return EINVAL;
    if (state == MUTEX_READY_DEFAULT || !held_by_caller(mutex))
        return EPERM; /* DEFAULT comes here only when it is not locked at all */
    if (section_of(mutex)->RecursionCount > 1) {
        LeaveCriticalSection(section_of(mutex)); /* still held: nobody to wake */
        return 0;
    }
    leave(mutex);
    return 0;
}

int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    /* DEFAULT does not check the owner (POSIX leaves that undefined; like glibc, a
     * thread may release a mutex another thread locked), but an unlocked section
     * is refused: leaving it would corrupt it. */
    if (slim_load_acquire(&mutex->__state) == MUTEX_READY_DEFAULT &&
        section_of(mutex)->RecursionCount > 0) {
        leave(mutex);
        return 0;
    }
    return unlock_checked(mutex);
}

int pthread_mutex_consistent(pthread_mutex_t *mutex)
{
    (void)mutex;
    return EINVAL; /* robust mutexes are not supported yet: none is inconsistent */
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
