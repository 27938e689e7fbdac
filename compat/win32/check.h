/*
 * check.h - the checked build's hooks (compiled only with -DSLIMPTHREADS_CHECKED).
 *
 * The checked library (libslimpthreads-checked) is the same sources with the
 * lock-order and misuse checker of check.c called at the public entry points
 * of mutex.c, rwlock.c, cond.c, barrier.c, spin.c, sem.c and c11_threads.c.
 * The normal library has none of it: every hook is under
 * #if defined(SLIMPTHREADS_CHECKED).
 * check_api.c defines those public functions: each opens a call
 * (slim_check_*_begin), does the unchecked work and closes the call with the
 * hook for its result.
 */
#ifndef SLIMPTHREADS_CHECK_H
#define SLIMPTHREADS_CHECK_H

/* A public function checked in the checked library is defined as
 * SLIM_UNCHECKED(name): there the definition is the unchecked work, named
 * slim_unchecked_<name>, and check_api.c defines <name> around it. In the
 * normal library it is <name> itself, unchanged. */
#if defined(SLIMPTHREADS_CHECKED)
#define SLIM_UNCHECKED(name) slim_unchecked_##name
#else
#define SLIM_UNCHECKED(name) name
#endif

#if defined(SLIMPTHREADS_CHECKED)

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
 * semaphore's waiter count, neither of which the normal build marks: values
 * no init writes, so a later use is seen (an init makes them usable again). */
#define SLIM_CHECK_COND_DESTROYED_CLOCK ((clockid_t)-1)
#define SLIM_CHECK_SEM_DESTROYED_WAITERS LONG_MIN

/* How a lock is taken: a trylock never blocks, so it orders nothing. */
#define SLIM_CHECK_BLOCKING 0
#define SLIM_CHECK_TRY 1

struct slim_check_thread;

/* One public call on one object: opened by a slim_check_*_begin, closed by
 * one of the hooks that take its result (each returns that result). Only the
 * outermost public call on a thread checks: a call that another one makes
 * (pthread_mutex_timedlock's call of clocklock, cond.c's unlock and relock of
 * its mutex) has the same shape but does nothing. */
struct slim_check_call {
    struct slim_check_thread *thread; /* NULL: the thread is not checked */
    const void *object;
    int kind;
};

/* Opens a call on `object` made from `site` (the public function's return
 * address) in *call; the use of an object whose kind says SLIM_CHECK_UNUSABLE
 * is reported. The call is filled in place, never returned by value: a copy
 * of it read back whole right after its fields were stored stalls the store
 * forwarding on every lock call. */
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
int slim_check_end(struct slim_check_call *call, int error);
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
/* A wrapper (C11's mtx_* and cnd_*) names its caller's site for the public
 * call it makes next. */
void slim_check_from(void *site);

/* A cond wait (cond.c): begin before the wait releases the mutex (it must be
 * held, and one cond waits with one mutex at a time; the relock is ordered
 * after the locks still held), end on every way out, with held_again when
 * the caller holds the mutex then, before a cancellation acts. */
void slim_check_cond_wait_begin(const void *cond, const void *mutex, int mutex_kind);
void slim_check_cond_wait_end(const void *cond, const void *mutex, int mutex_kind, int held_again);
/* A cancellation acts (cancel.c) inside a public call, which never returns:
 * every call open on the thread is left, so that the calls its cleanup
 * handlers make (a mutex unlock) are checked as the outermost ones. */
void slim_check_calls_abandoned(void);
/* The exit path of a thread (thread.c): locks still held are reported. */
void slim_check_thread_exits(void);

/* What each object's state says: mutex.c, the kind its state (or static
 * initializer) says; the others, `kind` or, for an object their state says
 * is destroyed or never initialized, kind + SLIM_CHECK_UNUSABLE. */
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

/* The unchecked work that check_api.c's public functions call. */
int slim_unchecked_pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int slim_unchecked_pthread_mutex_destroy(pthread_mutex_t *mutex);
int slim_unchecked_pthread_mutex_lock(pthread_mutex_t *mutex);
int slim_unchecked_pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock,
                                           const struct timespec *abstime);
int slim_unchecked_pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime);
int slim_unchecked_pthread_mutex_trylock(pthread_mutex_t *mutex);
int slim_unchecked_pthread_mutex_unlock(pthread_mutex_t *mutex);
int slim_unchecked_pthread_rwlock_rdlock(pthread_rwlock_t *rwlock);
int slim_unchecked_pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock);
int slim_unchecked_pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                                              const struct timespec *abstime);
int slim_unchecked_pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock,
                                              const struct timespec *abstime);
int slim_unchecked_pthread_rwlock_wrlock(pthread_rwlock_t *rwlock);
int slim_unchecked_pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock);
int slim_unchecked_pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                                              const struct timespec *abstime);
int slim_unchecked_pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock,
                                              const struct timespec *abstime);
int slim_unchecked_pthread_rwlock_unlock(pthread_rwlock_t *rwlock);
int slim_unchecked_pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr);
int slim_unchecked_pthread_rwlock_destroy(pthread_rwlock_t *rwlock);
int slim_unchecked_pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int slim_unchecked_pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                                          const struct timespec *abstime);
int slim_unchecked_pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                                          clockid_t clock, const struct timespec *abstime);
int slim_unchecked_pthread_cond_destroy(pthread_cond_t *cond);
int slim_unchecked_pthread_barrier_destroy(pthread_barrier_t *barrier);
int slim_unchecked_pthread_cond_signal(pthread_cond_t *cond);
int slim_unchecked_pthread_cond_broadcast(pthread_cond_t *cond);
int slim_unchecked_pthread_barrier_wait(pthread_barrier_t *barrier);
int slim_unchecked_pthread_spin_destroy(pthread_spinlock_t *lock);
int slim_unchecked_pthread_spin_lock(pthread_spinlock_t *lock);
int slim_unchecked_pthread_spin_trylock(pthread_spinlock_t *lock);
int slim_unchecked_pthread_spin_unlock(pthread_spinlock_t *lock);
int slim_unchecked_sem_destroy(sem_t *sem);
int slim_unchecked_sem_trywait(sem_t *sem);
int slim_unchecked_sem_wait(sem_t *sem);
int slim_unchecked_sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime);
int slim_unchecked_sem_timedwait(sem_t *sem, const struct timespec *abstime);
int slim_unchecked_sem_post(sem_t *sem);
int slim_unchecked_sem_getvalue(sem_t *sem, int *value);
int slim_unchecked_mtx_init(mtx_t *mtx, int type);
int slim_unchecked_mtx_lock(mtx_t *mtx);
int slim_unchecked_mtx_timedlock(mtx_t *__restrict mtx, const struct timespec *__restrict ts);
int slim_unchecked_mtx_trylock(mtx_t *mtx);
int slim_unchecked_mtx_unlock(mtx_t *mtx);
void slim_unchecked_mtx_destroy(mtx_t *mtx);
int slim_unchecked_cnd_signal(cnd_t *cond);
int slim_unchecked_cnd_broadcast(cnd_t *cond);
void slim_unchecked_cnd_destroy(cnd_t *cond);
int slim_unchecked_cnd_wait(cnd_t *cond, mtx_t *mtx);
int slim_unchecked_cnd_timedwait(cnd_t *__restrict cond, mtx_t *__restrict mtx,
                                 const struct timespec *__restrict ts);

/* The return address of the public function that calls this. */
#define SLIM_CHECK_SITE() __builtin_return_address(0)

#endif /* SLIMPTHREADS_CHECKED */
#endif /* SLIMPTHREADS_CHECK_H */
