/*
 * check.h - the checked build's hooks (compiled only with -DSLIMPTHREADS_CHECKED).
 *
 * The checked library (libslimpthreads-checked) is the same sources with the
 * lock-order and misuse checker of check.c called at the public entry points
 * of mutex.c, rwlock.c, cond.c, barrier.c and c11_threads.c. The normal
 * library has none of it: every hook is under #if defined(SLIMPTHREADS_CHECKED).
 *
 * A public call opens with slim_check_enter(return address): it returns the
 * calling thread's checker state when this is the outermost public call (one
 * public function calling another, pthread_mutex_timedlock calling
 * pthread_mutex_clocklock or cond.c's wait unlocking its mutex, is not checked
 * twice), NULL otherwise; every hook takes that state and does nothing with
 * NULL. slim_check_leave closes the call.
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

/* What a lock is, as the reports name it: a mutex's PTHREAD_MUTEX_* kind
 * (0-3), SLIM_CHECK_ROBUST added for a robust one, or an rwlock held for
 * reading or writing (SLIM_CHECK_RWLOCK: either, for an unlock). An object
 * whose state says it was destroyed, or holds no state we ever write, is
 * SLIM_CHECK_UNUSABLE (a mutex) or SLIM_CHECK_RWLOCK_UNUSABLE: its use is
 * reported. */
#define SLIM_CHECK_ROBUST 4
#define SLIM_CHECK_RWLOCK_READ 8
#define SLIM_CHECK_RWLOCK_WRITE 9
#define SLIM_CHECK_RWLOCK 10
#define SLIM_CHECK_COND 11
#define SLIM_CHECK_BARRIER 12
#define SLIM_CHECK_RWLOCK_UNUSABLE 13
#define SLIM_CHECK_UNUSABLE 14 /* a mutex */
#define SLIM_CHECK_KIND_UNKNOWN 15

/* How a lock is taken: a trylock never blocks, so it orders nothing. */
#define SLIM_CHECK_BLOCKING 0
#define SLIM_CHECK_TRY 1

struct slim_check_thread;

struct slim_check_thread *slim_check_enter(void *site);
void slim_check_leave(struct slim_check_thread *thread);
/* A wrapper (C11's mtx_* and cnd_*) names its caller's site for the public
 * call it makes next. */
void slim_check_from(void *site);

/* Before an acquisition: use of an unusable lock, relock and lock-order
 * checks (each may report). */
void slim_check_lock(struct slim_check_thread *thread, const void *lock, int kind, int how);
/* After it: with error 0 (or EOWNERDEAD) the caller holds the lock. */
int slim_check_locked(struct slim_check_thread *thread, const void *lock, int kind, int error);
/* After a release: a lock the caller did not hold is reported (the address
 * is only a key: the lock may be gone by then). */
int slim_check_unlocked(struct slim_check_thread *thread, const void *lock, int kind, int error);
/* After an init (the memory is a new lock: its orders are forgotten) and a
 * destroy (EBUSY reported; 0 forgets the lock's orders). */
int slim_check_initialized(struct slim_check_thread *thread, const void *lock, int kind, int error);
int slim_check_destroyed(struct slim_check_thread *thread, const void *lock, int kind, int error);

/* A cond wait (cond.c): begin before the wait releases the mutex (it must be
 * held, and one cond waits with one mutex at a time; the relock is ordered
 * after the locks still held), end on every way out, with held_again when
 * the caller holds the mutex then, before a cancellation acts (cancelled:
 * the public call never returns). */
void slim_check_cond_wait_begin(const void *cond, const void *mutex, int mutex_kind);
void slim_check_cond_wait_end(const void *cond, const void *mutex, int mutex_kind, int held_again,
                              int cancelled);
/* After a cond's or a barrier's destroy (kind unused: SLIM_CHECKED_CALL's shape). */
int slim_check_cond_destroyed(struct slim_check_thread *thread, const void *cond, int kind,
                              int error);
int slim_check_barrier_destroyed(struct slim_check_thread *thread, const void *barrier, int kind,
                                 int error);

/* The exit path of a thread (thread.c): locks still held are reported. */
void slim_check_thread_exits(void);

/* mutex.c: the kind a mutex's state (or static initializer) says;
 * rwlock.c: SLIM_CHECK_RWLOCK_UNUSABLE for a destroyed rwlock, else `kind`. */
int slim_mutex_check_kind(const pthread_mutex_t *mutex);
int slim_rwlock_check_kind(const pthread_rwlock_t *rwlock, int kind);

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
int slim_unchecked_mtx_init(mtx_t *mtx, int type);
int slim_unchecked_mtx_lock(mtx_t *mtx);
int slim_unchecked_mtx_timedlock(mtx_t *__restrict mtx, const struct timespec *__restrict ts);
int slim_unchecked_mtx_trylock(mtx_t *mtx);
int slim_unchecked_mtx_unlock(mtx_t *mtx);
void slim_unchecked_mtx_destroy(mtx_t *mtx);
int slim_unchecked_cnd_wait(cnd_t *cond, mtx_t *mtx);
int slim_unchecked_cnd_timedwait(cnd_t *__restrict cond, mtx_t *__restrict mtx,
                                 const struct timespec *__restrict ts);

/* The return address of the public function that calls this. */
#define SLIM_CHECK_SITE() __builtin_return_address(0)

/* A public acquisition: `call` is the unchecked work, its POSIX result. */
#define SLIM_CHECKED_LOCK(lock, kind, how, call)                                      \
    do {                                                                              \
        struct slim_check_thread *check_thread_ = slim_check_enter(SLIM_CHECK_SITE()); \
        int check_kind_ = (kind), check_error_;                                       \
        slim_check_lock(check_thread_, (lock), check_kind_, (how));                   \
        check_error_ = (call);                                                        \
        check_error_ = slim_check_locked(check_thread_, (lock), check_kind_, check_error_); \
        slim_check_leave(check_thread_);                                              \
        return check_error_;                                                          \
    } while (0)

/* A public release, init or destroy: `after` is one of the hooks above. */
#define SLIM_CHECKED_CALL(after, lock, kind, call)                                    \
    do {                                                                              \
        struct slim_check_thread *check_thread_ = slim_check_enter(SLIM_CHECK_SITE()); \
        int check_kind_ = (kind), check_error_ = (call);                              \
        check_error_ = after(check_thread_, (lock), check_kind_, check_error_);       \
        slim_check_leave(check_thread_);                                              \
        return check_error_;                                                          \
    } while (0)

#endif /* SLIMPTHREADS_CHECKED */
#endif /* SLIMPTHREADS_CHECK_H */
