/*
 * check.h - the seam between the primitives and the checker: the one place
 * that says what the checked build (-DSLIMPTHREADS_CHECKED,
 * libslimpthreads-checked) adds to a public call.
 *
 * Each public function on a mutex, rwlock, cond, barrier, spinlock,
 * semaphore, C11 mtx_t or cnd_t is defined under its own name in its
 * primitive's file and has one shape: a slim_hook_*_begin, the work (static
 * or slim_* functions: the library never calls its own public names, so a
 * hook only ever sees the caller's call), and the hook for its result:
 *
 *     int pthread_mutex_lock(pthread_mutex_t *mutex)
 *     {
 *         struct slim_check_call call;
 *
 *         slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
 *         return slim_hook_locked(&call, __slim_mutex_lock(mutex));
 *     }
 *
 * Below, the hooks twice, each always inlined (spelled out, not a macro:
 * contrib/amalgamate.sh knows a static function by its first word): the
 * checker's calls (check.c), and empty functions for the normal library, where the compiler
 * drops them, the call record and the site with them: a public function
 * there compiles to its work alone. The one
 * #if defined(SLIMPTHREADS_CHECKED) of the primitives is this file's.
 *
 * Which calls are checked is listed once, in check_calls.h, and
 * tests/shell/check_calls.sh holds the libraries to it. With the hooks inline in
 * each public function nothing per call is left to generate (no wrapper, no
 * prototype, no second link name), so the table is a list a test reads, not a
 * generator: each listed name must be defined in its primitive's file, and the
 * checked library's function of that name must call the checker.
 */
#ifndef SLIMPTHREADS_CHECK_H
#define SLIMPTHREADS_CHECK_H

/* What an object is, as the reports name it: a mutex's PTHREAD_MUTEX_* kind
 * (0-3), SLIM_CHECK_ROBUST added for a robust one, SLIM_CHECK_KIND_UNKNOWN for
 * a mutex whose kind is not known; an rwlock held for reading or writing
 * (SLIM_CHECK_RWLOCK: either, for an unlock); a cond, a barrier, a spinlock,
 * a semaphore. SLIM_CHECK_UNUSABLE is added to the kind of an object whose
 * state says it was destroyed, or holds no state we ever write (never
 * initialized): its use is reported. */
#define SLIM_CHECK_ROBUST 4
#define SLIM_CHECK_RWLOCK_READ 8
#define SLIM_CHECK_RWLOCK_WRITE 9
#define SLIM_CHECK_RWLOCK 10
#define SLIM_CHECK_COND 11
#define SLIM_CHECK_BARRIER 12
#define SLIM_CHECK_SPINLOCK 13
#define SLIM_CHECK_SEMAPHORE 14
#define SLIM_CHECK_KIND_UNKNOWN 15
#define SLIM_CHECK_UNUSABLE 16 /* a flag over the kinds above */

/* What the checked build's destroy leaves in a cond's clock and a
 * semaphore's waiter count (slim_hook_cond_destroyed, _sem_destroyed): values
 * no init writes, so a later use is seen (an init makes them usable again).
 * The normal build leaves both as they were: there a second sem_destroy
 * stays 0 and a timed wait on a destroyed cond keeps its clock, as before. */
#define SLIM_CHECK_COND_DESTROYED_CLOCK ((clockid_t)-1)
#define SLIM_CHECK_SEM_DESTROYED_WAITERS LONG_MIN

/* How a lock is taken: a trylock never blocks, so it orders nothing. */
#define SLIM_CHECK_BLOCKING 0
#define SLIM_CHECK_TRY 1

/* The return address of the public function that calls this: the user's call
 * site a report names. An argument of the hook, so it is the public
 * function's own, in both builds. */
#define SLIM_CHECK_SITE() __builtin_return_address(0)

struct slim_check_thread;

/* One public call on one object: opened by a slim_hook_*_begin, closed by
 * one of the hooks that take its result (each returns that result). In the
 * normal build nothing reads it and the compiler drops it. */
struct slim_check_call {
    struct slim_check_thread *thread; /* NULL: the thread is not checked */
    const void *object;
    int kind;
};

/* What each object's state says: mutex.c, the kind its state (or static
 * initializer) says; the others, `kind` or, for an object their state says
 * is destroyed or never initialized, kind + SLIM_CHECK_UNUSABLE. Each is
 * defined in its object's file, in both builds (the normal one never calls
 * them). */
int slim_mutex_check_kind(const pthread_mutex_t *mutex);
int slim_rwlock_check_kind(const pthread_rwlock_t *rwlock, int kind);
int slim_cond_check_kind(const pthread_cond_t *cond);
int slim_barrier_check_kind(const pthread_barrier_t *barrier);
int slim_spin_check_kind(const pthread_spinlock_t *lock);
int slim_sem_check_kind(const sem_t *sem);
/* mutex.c: the Win32 id of the thread whose hold an unlock by another thread
 * releases (the owner of a locked DEFAULT mutex), 0 when such an unlock
 * changes nothing (every other kind: EPERM). */
unsigned long slim_mutex_check_released_owner(const pthread_mutex_t *mutex);

/* The end of a call whose result the checker does not look at: in both
 * builds nothing is left open on the thread (a call is never nested in
 * another), so nothing is closed. */
static inline __attribute__((always_inline)) int slim_hook_end(
    struct slim_check_call *call, int error)
{
    (void)call;
    return error;
}

#if defined(SLIMPTHREADS_CHECKED)

/* ---- The checker (check.c, check_cond.c) ---- */

/* Opens a call on `object` made from `site` in *call; the use of an object
 * whose kind says SLIM_CHECK_UNUSABLE is reported. The call is filled in
 * place, never returned by value: a copy of it read back whole right after
 * its fields were stored stalls the store forwarding on every lock call. */
void slim_check_begin(struct slim_check_call *call, void *site, const void *object, int kind);
/* An acquisition (how: SLIM_CHECK_BLOCKING or _TRY): begin, then the relock
 * and lock-order checks (each may report), before it can block. */
void slim_check_lock_begin(struct slim_check_call *call, void *site, const void *lock, int kind,
                           int how);
/* A release: begin, and an unlock of a DEFAULT mutex another thread holds,
 * which our unlock does release (mutex.c), is handed to that thread's state
 * before it happens. */
void slim_check_unlock_begin(struct slim_check_call *call, void *site, const void *lock, int kind);

/* The ends. With error 0 (or EOWNERDEAD) the caller holds the lock. */
int slim_check_locked(struct slim_check_call *call, int error);
/* A lock the caller did not hold is reported (the address is only a key: the
 * lock may be gone by then). */
int slim_check_unlocked(struct slim_check_call *call, int error);
/* An init (the memory is a new lock: its orders are forgotten) and a destroy
 * (EBUSY reported; 0 forgets the lock's orders). */
int slim_check_initialized(struct slim_check_call *call, int error);
int slim_check_destroyed(struct slim_check_call *call, int error);
/* A cond's or a barrier's destroy: EBUSY reported. */
int slim_check_waited_destroyed(struct slim_check_call *call, int error);

/* A cond wait (cond.c): begin before the wait releases the mutex (it must be
 * held, and one cond waits with one mutex at a time; the relock is ordered
 * after the locks still held), end on every way out, with held_again when
 * the caller holds the mutex then, before a cancellation acts. */
void slim_check_cond_wait_begin(const void *cond, const void *mutex, int mutex_kind);
void slim_check_cond_wait_end(const void *cond, const void *mutex, int mutex_kind, int held_again);
/* The exit path of a thread (thread.c): locks still held are reported. */
void slim_check_thread_exits(void);

/* ---- The hooks, checked build: the checker's calls ---- */

static inline __attribute__((always_inline)) void slim_hook_mutex_init_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex)
{
    slim_check_begin(call, site, mutex, SLIM_CHECK_KIND_UNKNOWN);
}

static inline __attribute__((always_inline)) void slim_hook_mutex_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex)
{
    slim_check_begin(call, site, mutex, slim_mutex_check_kind(mutex));
}

static inline __attribute__((always_inline)) void slim_hook_mutex_lock_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex, int how)
{
    slim_check_lock_begin(call, site, mutex, slim_mutex_check_kind(mutex), how);
}

static inline __attribute__((always_inline)) void slim_hook_mutex_unlock_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex)
{
    slim_check_unlock_begin(call, site, mutex, slim_mutex_check_kind(mutex));
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_init_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock)
{
    slim_check_begin(call, site, rwlock, SLIM_CHECK_RWLOCK);
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock)
{
    slim_check_begin(call, site, rwlock, slim_rwlock_check_kind(rwlock, SLIM_CHECK_RWLOCK));
}

/* mode: SLIM_CHECK_RWLOCK_READ or _WRITE. */
static inline __attribute__((always_inline)) void slim_hook_rwlock_lock_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock, int mode, int how)
{
    slim_check_lock_begin(call, site, rwlock, slim_rwlock_check_kind(rwlock, mode), how);
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_unlock_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock)
{
    slim_check_unlock_begin(call, site, rwlock, slim_rwlock_check_kind(rwlock, SLIM_CHECK_RWLOCK));
}

static inline __attribute__((always_inline)) void slim_hook_cond_begin(
    struct slim_check_call *call, void *site, pthread_cond_t *cond)
{
    slim_check_begin(call, site, cond, slim_cond_check_kind(cond));
}

static inline __attribute__((always_inline)) void slim_hook_barrier_begin(
    struct slim_check_call *call, void *site, pthread_barrier_t *barrier)
{
    slim_check_begin(call, site, barrier, slim_barrier_check_kind(barrier));
}

/* A spinlock is a volatile word; to the checker its address is only a key. */
static inline __attribute__((always_inline)) void slim_hook_spin_begin(
    struct slim_check_call *call, void *site, pthread_spinlock_t *lock)
{
    slim_check_begin(call, site, (const void *)(uintptr_t)lock, slim_spin_check_kind(lock));
}

/* sem_* report errors in errno, which the checker leaves alone. */
static inline __attribute__((always_inline)) void slim_hook_sem_begin(
    struct slim_check_call *call, void *site, sem_t *sem)
{
    slim_check_begin(call, site, sem, slim_sem_check_kind(sem));
}

static inline __attribute__((always_inline)) int slim_hook_locked(
    struct slim_check_call *call, int error)
{
    return slim_check_locked(call, error);
}

static inline __attribute__((always_inline)) int slim_hook_unlocked(
    struct slim_check_call *call, int error)
{
    return slim_check_unlocked(call, error);
}

static inline __attribute__((always_inline)) int slim_hook_initialized(
    struct slim_check_call *call, int error)
{
    return slim_check_initialized(call, error);
}

static inline __attribute__((always_inline)) int slim_hook_destroyed(
    struct slim_check_call *call, int error)
{
    return slim_check_destroyed(call, error);
}

static inline __attribute__((always_inline)) int slim_hook_waited_destroyed(
    struct slim_check_call *call, int error)
{
    return slim_check_waited_destroyed(call, error);
}

static inline __attribute__((always_inline)) void slim_hook_cond_wait_begin(
    pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    slim_check_cond_wait_begin(cond, mutex, slim_mutex_check_kind(mutex));
}

static inline __attribute__((always_inline)) void slim_hook_cond_wait_end(
    pthread_cond_t *cond, pthread_mutex_t *mutex, int held_again)
{
    slim_check_cond_wait_end(cond, mutex, slim_mutex_check_kind(mutex), held_again);
}

/* A destroy marks the object so that a later use is reported. A negative
 * waiter count only makes sem_post wake all; timed waits alone read the
 * cond's clock. */
static inline __attribute__((always_inline)) void slim_hook_cond_destroyed(pthread_cond_t *cond)
{
    cond->__clock = SLIM_CHECK_COND_DESTROYED_CLOCK;
}

static inline __attribute__((always_inline)) void slim_hook_sem_destroyed(sem_t *sem)
{
    sem->__waiters = SLIM_CHECK_SEM_DESTROYED_WAITERS;
}

static inline __attribute__((always_inline)) void slim_hook_thread_exits(void)
{
    slim_check_thread_exits();
}

#else /* the normal build: every hook is empty */

static inline __attribute__((always_inline)) void slim_hook_mutex_init_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex)
{
    (void)call, (void)site, (void)mutex;
}

static inline __attribute__((always_inline)) void slim_hook_mutex_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex)
{
    (void)call, (void)site, (void)mutex;
}

static inline __attribute__((always_inline)) void slim_hook_mutex_lock_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex, int how)
{
    (void)call, (void)site, (void)mutex, (void)how;
}

static inline __attribute__((always_inline)) void slim_hook_mutex_unlock_begin(
    struct slim_check_call *call, void *site, pthread_mutex_t *mutex)
{
    (void)call, (void)site, (void)mutex;
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_init_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock)
{
    (void)call, (void)site, (void)rwlock;
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock)
{
    (void)call, (void)site, (void)rwlock;
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_lock_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock, int mode, int how)
{
    (void)call, (void)site, (void)rwlock, (void)mode, (void)how;
}

static inline __attribute__((always_inline)) void slim_hook_rwlock_unlock_begin(
    struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock)
{
    (void)call, (void)site, (void)rwlock;
}

static inline __attribute__((always_inline)) void slim_hook_cond_begin(
    struct slim_check_call *call, void *site, pthread_cond_t *cond)
{
    (void)call, (void)site, (void)cond;
}

static inline __attribute__((always_inline)) void slim_hook_barrier_begin(
    struct slim_check_call *call, void *site, pthread_barrier_t *barrier)
{
    (void)call, (void)site, (void)barrier;
}

static inline __attribute__((always_inline)) void slim_hook_spin_begin(
    struct slim_check_call *call, void *site, pthread_spinlock_t *lock)
{
    (void)call, (void)site, (void)lock;
}

static inline __attribute__((always_inline)) void slim_hook_sem_begin(
    struct slim_check_call *call, void *site, sem_t *sem)
{
    (void)call, (void)site, (void)sem;
}

static inline __attribute__((always_inline)) int slim_hook_locked(
    struct slim_check_call *call, int error)
{
    (void)call;
    return error;
}

static inline __attribute__((always_inline)) int slim_hook_unlocked(
    struct slim_check_call *call, int error)
{
    (void)call;
    return error;
}

static inline __attribute__((always_inline)) int slim_hook_initialized(
    struct slim_check_call *call, int error)
{
    (void)call;
    return error;
}

static inline __attribute__((always_inline)) int slim_hook_destroyed(
    struct slim_check_call *call, int error)
{
    (void)call;
    return error;
}

static inline __attribute__((always_inline)) int slim_hook_waited_destroyed(
    struct slim_check_call *call, int error)
{
    (void)call;
    return error;
}

static inline __attribute__((always_inline)) void slim_hook_cond_wait_begin(
    pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    (void)cond, (void)mutex;
}

static inline __attribute__((always_inline)) void slim_hook_cond_wait_end(
    pthread_cond_t *cond, pthread_mutex_t *mutex, int held_again)
{
    (void)cond, (void)mutex, (void)held_again;
}

static inline __attribute__((always_inline)) void slim_hook_cond_destroyed(pthread_cond_t *cond)
{
    (void)cond;
}

static inline __attribute__((always_inline)) void slim_hook_sem_destroyed(sem_t *sem)
{
    (void)sem;
}

static inline __attribute__((always_inline)) void slim_hook_thread_exits(void)
{
}

#endif /* SLIMPTHREADS_CHECKED */
#endif /* SLIMPTHREADS_CHECK_H */
