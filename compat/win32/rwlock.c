/*
 * rwlock.c - POSIX reader-writer locks on an SRWLOCK.
 *
 * pthread_rwlock_t embeds the SRWLOCK (all zero is SRWLOCK_INIT, a free lock, so
 * PTHREAD_RWLOCK_INITIALIZER and zero-filled memory need no init call) and adds
 * what POSIX needs, since an SRWLOCK remembers neither its mode nor its owners:
 *   - __writer_thread_id: the Win32 id of the exclusive holder, 0 if none. Only
 *     the holder writes its own id, so "equals my id" is never a stale answer.
 *   - read holds live on the reader's side, in its record (rwlock_holds: lock and
 *     count, packed at the front of the table). Only a thread's first read hold on
 *     a lock takes the SRWLOCK; recursive ones just count, so they never queue
 *     behind a waiting writer (a bare SRWLOCK deadlocks there) and the lock's
 *     cache line stays quiet.
 *   - __state: usable, or destroyed. destroy keeps the SRWLOCK held exclusively,
 *     so every later acquire fails its first try and meets the state on its slow
 *     path: the fast paths never read it.
 * Each fast path is one Try/Release on the SRWLOCK plus thread-local bookkeeping;
 * the error checks (EINVAL, EDEADLK) run only once a try has failed, which is
 * exactly when they can apply.
 *
 * Timed acquires (SRWLOCK has none): try; else count ourselves in
 * __timed_waiters, snapshot __unlock_events, try again and sleep on the snapshot
 * until the deadline. unlock bumps and wakes __unlock_events only while timed
 * waiters exist (one load on its fast path); a waiter registers before it
 * snapshots and tries, so no release can slip between its try and its sleep.
 *
 * Fairness is the SRWLOCK's own, whatever kind the attributes ask for: an
 * untimed writer queues inside it and new readers wait behind it, so a stream of
 * readers cannot starve it (glibc's default PREFER_READER_NP would let them
 * pass). Trying first changes nothing there: a shared try fails while waiters are
 * queued, and an exclusive Acquire starts with the same try. A timed acquirer
 * cannot queue inside an SRWLOCK (nothing could take it out again at its
 * deadline): it takes the lock only when it finds it free after an unlock,
 * possibly ahead of queued waiters, and a timed writer can be held off until its
 * deadline by readers that always overlap (it then returns ETIMEDOUT). Windows
 * also documents that a shared acquire may, now and then, keep other readers out
 * until it is released: readers must not wait for each other inside the lock.
 */
#include "internal.h"

SLIM_STATIC_ASSERT(sizeof(struct __slim_srwlock) == sizeof(SRWLOCK),
                   "pthread.h's SRWLOCK mirror has the wrong size");
SLIM_STATIC_ASSERT(_Alignof(struct __slim_srwlock) == _Alignof(SRWLOCK),
                   "pthread.h's SRWLOCK mirror has the wrong alignment");
SLIM_STATIC_ASSERT(sizeof(unsigned long) == sizeof(DWORD), "a thread id fits __writer_thread_id");

enum rwlock_state {
    RWLOCK_USABLE = 0, /* also what PTHREAD_RWLOCK_INITIALIZER and zeroed memory say */
    RWLOCK_DESTROYED = 1
};

enum hold_mode { HOLD_SHARED, HOLD_EXCLUSIVE };

/* How an acquire that cannot take the lock at once goes on. */
enum acquire_way {
    ACQUIRE_TRY,     /* give up: EBUSY */
    ACQUIRE_BLOCK,   /* queue in the SRWLOCK */
    ACQUIRE_BY_TIME  /* wait for unlocks until a deadline */
};

static inline PSRWLOCK srwlock_of(pthread_rwlock_t *rwlock)
{
    return (PSRWLOCK)&rwlock->__srwlock;
}

static inline DWORD writer_of(const pthread_rwlock_t *rwlock)
{
    return __atomic_load_n(&rwlock->__writer_thread_id, __ATOMIC_RELAXED);
}

static inline void set_writer(pthread_rwlock_t *rwlock, DWORD thread_id)
{
    __atomic_store_n(&rwlock->__writer_thread_id, thread_id, __ATOMIC_RELAXED);
}

static int is_destroyed(pthread_rwlock_t *rwlock)
{
    return slim_load_acquire(&rwlock->__state) == RWLOCK_DESTROYED;
}

/* ---- The calling thread's read holds ---- */

/* The entry holding rwlock, else the first free entry, else NULL (table full).
 * Used entries form a prefix of the table, so the scan stops at the first gap. */
static inline struct slim_rwlock_hold *hold_entry(struct slim_thread *self,
                                                  const pthread_rwlock_t *rwlock)
{
    struct slim_rwlock_hold *entry = self->rwlock_holds;
    struct slim_rwlock_hold *end = entry + SLIM_RWLOCK_HOLDS_MAX;

    for (; entry != end; entry++)
        if (entry->rwlock == rwlock || entry->rwlock == NULL)
            return entry;
    return NULL;
}

static inline int holds_for_reading(struct slim_rwlock_hold *entry, const pthread_rwlock_t *rwlock)
{
    return entry != NULL && entry->rwlock == rwlock;
}

/* Frees entry and keeps the used entries packed: the last one moves into the gap
 * (with unlocks in reverse order of locking, entry usually is the last one). */
static void forget_hold(struct slim_thread *self, struct slim_rwlock_hold *entry)
{
    struct slim_rwlock_hold *last = entry;
    struct slim_rwlock_hold *end = self->rwlock_holds + SLIM_RWLOCK_HOLDS_MAX;

    while (last + 1 != end && last[1].rwlock != NULL)
        last++;
    *entry = *last;
    last->rwlock = NULL;
    last->read_count = 0;
}

/* ---- Waiting ---- */

static int try_acquire(pthread_rwlock_t *rwlock, enum hold_mode mode)
{
    if (mode == HOLD_EXCLUSIVE)
        return TryAcquireSRWLockExclusive(srwlock_of(rwlock));
    return TryAcquireSRWLockShared(srwlock_of(rwlock));
}

static int acquire_by_deadline(pthread_rwlock_t *rwlock, enum hold_mode mode,
                               const struct slim_deadline *deadline)
{
    int error;

    slim_increment(&rwlock->__timed_waiters);
    do {
        long seen = slim_load_acquire(&rwlock->__unlock_events);

        if (try_acquire(rwlock, mode)) {
            error = 0;
            break;
        }
        error = slim_wait_on(&rwlock->__unlock_events, seen, deadline, SLIM_WAIT_PLAIN);
    } while (error == 0);
    slim_decrement(&rwlock->__timed_waiters);
    return error;
}

static void acquire(pthread_rwlock_t *rwlock, enum hold_mode mode)
{
    if (mode == HOLD_EXCLUSIVE)
        AcquireSRWLockExclusive(srwlock_of(rwlock));
    else
        AcquireSRWLockShared(srwlock_of(rwlock));
}

/* After a release. The load of __timed_waiters must not pass the release, or it
 * could miss a waiter that registered, then tried the lock just before the
 * release and failed. On x86 the release is a locked instruction, which already
 * orders it; elsewhere a fence does. */
static inline void wake_timed_waiters(pthread_rwlock_t *rwlock)
{
#if !defined(__i386__) && !defined(__x86_64__)
    slim_full_fence();
#endif
    if (slim_load_acquire(&rwlock->__timed_waiters) != 0) {
        slim_increment(&rwlock->__unlock_events);
        slim_wake_all(&rwlock->__unlock_events);
    }
}

/* The slow path of every acquire, entered once a first try has failed: the lock
 * may be destroyed or held by the caller itself, else it really must wait.
 * self may be NULL for a thread without a record (it holds no read lock). */
static int acquire_slowly(pthread_rwlock_t *rwlock, enum hold_mode mode, struct slim_thread *self,
                          enum acquire_way way, const struct slim_deadline *deadline)
{
    if (is_destroyed(rwlock))
        return EINVAL;
    if (way == ACQUIRE_TRY)
        return EBUSY;
    if (writer_of(rwlock) == slim_current_thread_id())
        return EDEADLK;
    /* A reader asking for the write lock would wait for itself. */
    if (mode == HOLD_EXCLUSIVE && self != NULL && holds_for_reading(hold_entry(self, rwlock), rwlock))
        return EDEADLK;
    if (way == ACQUIRE_BLOCK) {
        acquire(rwlock, mode);
        return 0;
    }
    return acquire_by_deadline(rwlock, mode, deadline);
}

/* ---- Acquiring ---- */

static inline int read_lock(pthread_rwlock_t *rwlock, enum acquire_way way,
                            const struct slim_deadline *deadline)
{
    struct slim_thread *self;
    struct slim_rwlock_hold *entry;
    int error;

    if (rwlock == NULL)
        return EINVAL;
    self = slim_self();
    entry = hold_entry(self, rwlock);
    if (holds_for_reading(entry, rwlock)) {
        if (entry->read_count == LONG_MAX)
            return EAGAIN;
        entry->read_count++;
        return 0;
    }
    if (entry == NULL) {
        /* POSIX's "maximum number of read locks exceeded": this thread already
         * holds SLIM_RWLOCK_HOLDS_MAX other rwlocks for reading. */
        if (is_destroyed(rwlock))
            return EINVAL;
        if (way != ACQUIRE_TRY && writer_of(rwlock) == self->id)
            return EDEADLK;
        return EAGAIN;
    }
    if (!TryAcquireSRWLockShared(srwlock_of(rwlock))) {
        error = acquire_slowly(rwlock, HOLD_SHARED, self, way, deadline);
        if (error != 0)
            return error;
    }
    entry->rwlock = rwlock;
    entry->read_count = 1;
    return 0;
}

/* Needs no thread record: a thread that finds the SRWLOCK free holds no read
 * lock on it, so only the slow path looks at the caller's read holds. */
static inline int write_lock(pthread_rwlock_t *rwlock, enum acquire_way way,
                             const struct slim_deadline *deadline)
{
    int error;

    if (rwlock == NULL)
        return EINVAL;
    if (!TryAcquireSRWLockExclusive(srwlock_of(rwlock))) {
        error = acquire_slowly(rwlock, HOLD_EXCLUSIVE, slim_self_if_known(), way, deadline);
        if (error != 0)
            return error;
    }
    set_writer(rwlock, slim_current_thread_id());
    return 0;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock)
{
    return read_lock(rwlock, ACQUIRE_BLOCK, NULL);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock)
{
    return read_lock(rwlock, ACQUIRE_TRY, NULL);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error != 0 ? error : read_lock(rwlock, ACQUIRE_BY_TIME, &deadline);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    return pthread_rwlock_clockrdlock(rwlock, CLOCK_REALTIME, abstime);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    return write_lock(rwlock, ACQUIRE_BLOCK, NULL);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    return write_lock(rwlock, ACQUIRE_TRY, NULL);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error != 0 ? error : write_lock(rwlock, ACQUIRE_BY_TIME, &deadline);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    return pthread_rwlock_clockwrlock(rwlock, CLOCK_REALTIME, abstime);
}

/* ---- Releasing ---- */

/* The caller's read holds first: they are thread-local, so a read unlock touches
 * the lock's cache line only to release it. */
int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    struct slim_thread *self;
    struct slim_rwlock_hold *entry = NULL;

    if (rwlock == NULL)
        return EINVAL;
    self = slim_self_if_known();
    if (self != NULL)
        entry = hold_entry(self, rwlock);
    if (holds_for_reading(entry, rwlock)) {
        if (--entry->read_count == 0) {
            forget_hold(self, entry);
            ReleaseSRWLockShared(srwlock_of(rwlock));
            wake_timed_waiters(rwlock);
        }
        return 0;
    }
    if (writer_of(rwlock) == slim_current_thread_id()) {
        set_writer(rwlock, 0);
        ReleaseSRWLockExclusive(srwlock_of(rwlock));
        wake_timed_waiters(rwlock);
        return 0;
    }
    return is_destroyed(rwlock) ? EINVAL : EPERM;
}

/* ---- Life cycle ---- */

static int kind_valid(int kind)
{
    return kind == PTHREAD_RWLOCK_PREFER_READER_NP || kind == PTHREAD_RWLOCK_PREFER_WRITER_NP ||
           kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    int kind = PTHREAD_RWLOCK_DEFAULT_NP;

    if (rwlock == NULL)
        return EINVAL;
    if (attr != NULL) {
        if (!kind_valid(attr->__kind) || attr->__pshared != PTHREAD_PROCESS_PRIVATE)
            return EINVAL;
        kind = attr->__kind;
    }
    InitializeSRWLock(srwlock_of(rwlock));
    set_writer(rwlock, 0);
    rwlock->__timed_waiters = 0;
    rwlock->__unlock_events = 0;
    rwlock->__kind = kind;
    slim_store_release(&rwlock->__state, RWLOCK_USABLE);
    return 0;
}

/* Holding the SRWLOCK exclusively is how destroy proves nobody holds it, and
 * keeping it is what turns every later use into EINVAL (see the top). */
int pthread_rwlock_destroy(pthread_rwlock_t *rwlock)
{
    if (rwlock == NULL || is_destroyed(rwlock))
        return EINVAL;
    if (!TryAcquireSRWLockExclusive(srwlock_of(rwlock)))
        return EBUSY;
    if (slim_load_acquire(&rwlock->__timed_waiters) != 0) {
        ReleaseSRWLockExclusive(srwlock_of(rwlock));
        wake_timed_waiters(rwlock);
        return EBUSY;
    }
    slim_store_release(&rwlock->__state, RWLOCK_DESTROYED);
    return 0;
}

/* ---- Attributes ---- */

int pthread_rwlockattr_init(pthread_rwlockattr_t *attr)
{
    if (attr == NULL)
        return EINVAL;
    attr->__kind = PTHREAD_RWLOCK_DEFAULT_NP;
    attr->__pshared = PTHREAD_PROCESS_PRIVATE;
    return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *attr)
{
    return attr == NULL ? EINVAL : 0;
}

/* PTHREAD_PROCESS_SHARED is a valid value this implementation cannot honour: an
 * SRWLOCK and the per-thread hold tables live in one process. ENOTSUP says so;
 * EINVAL stays for values that are not attributes at all. */
int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *attr, int pshared)
{
    int error = attr == NULL ? EINVAL : slim_pshared_error(pshared);

    if (error == 0)
        attr->__pshared = pshared;
    return error;
}

int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *attr, int *pshared)
{
    if (attr == NULL || pshared == NULL)
        return EINVAL;
    *pshared = attr->__pshared;
    return 0;
}

/* glibc's three kinds are accepted and remembered, but every kind gets the
 * SRWLOCK's own policy (see the top) and recursive reads are safe in all of them,
 * PREFER_WRITER_NONRECURSIVE included, thanks to the hold tables. */
int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *attr, int kind)
{
    if (attr == NULL || !kind_valid(kind))
        return EINVAL;
    attr->__kind = kind;
    return 0;
}

int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *attr, int *kind)
{
    if (attr == NULL || kind == NULL)
        return EINVAL;
    *kind = attr->__kind;
    return 0;
}
