/*
 * check_api.c - the checked library's public lock calls: each is the
 * unchecked work of its own file (SLIM_UNCHECKED in check.h) between the
 * checker's hooks. Only in the checked build.
 *
 * Each opens a call (slim_check_*_begin, with its return address: the call
 * site a report names), does the work and closes the call with the hook for
 * its result (check.h). A public call made from inside another
 * (pthread_mutex_timedlock's call of clocklock, cond.c's unlock and relock of
 * its mutex) is not checked again: only the outermost call on a thread checks
 * (check.c). C11's calls name their caller's site and go through the pthread
 * calls.
 */
#include "internal.h"
#include "check.h"

#if defined(SLIMPTHREADS_CHECKED)

/* ---- Mutexes ---- */

static void mutex_lock_begin(struct slim_check_call *call, void *site, pthread_mutex_t *mutex,
                             int how)
{
    slim_check_lock_begin(call, site, mutex, slim_mutex_check_kind(mutex), how);
}

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    struct slim_check_call call;

    slim_check_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_KIND_UNKNOWN);
    return slim_check_initialized(&call, slim_unchecked_pthread_mutex_init(mutex, attr));
}

int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_check_begin(&call, SLIM_CHECK_SITE(), mutex, slim_mutex_check_kind(mutex));
    return slim_check_destroyed(&call, slim_unchecked_pthread_mutex_destroy(mutex));
}

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_mutex_lock(mutex));
}

int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
{
    struct slim_check_call call;

    mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_mutex_clocklock(mutex, clock, abstime));
}

int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
{
    struct slim_check_call call;

    mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_mutex_timedlock(mutex, abstime));
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    mutex_lock_begin(&call, SLIM_CHECK_SITE(), mutex, SLIM_CHECK_TRY);
    return slim_check_locked(&call, slim_unchecked_pthread_mutex_trylock(mutex));
}

int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_check_unlock_begin(&call, SLIM_CHECK_SITE(), mutex, slim_mutex_check_kind(mutex));
    return slim_check_unlocked(&call, slim_unchecked_pthread_mutex_unlock(mutex));
}

/* ---- Rwlocks ---- */

/* mode: SLIM_CHECK_RWLOCK_READ or _WRITE. */
static void rwlock_lock_begin(struct slim_check_call *call, void *site, pthread_rwlock_t *rwlock,
                              int mode, int how)
{
    slim_check_lock_begin(call, site, rwlock, slim_rwlock_check_kind(rwlock, mode), how);
}

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    struct slim_check_call call;

    slim_check_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK);
    return slim_check_initialized(&call, slim_unchecked_pthread_rwlock_init(rwlock, attr));
}

int pthread_rwlock_destroy(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_check_begin(&call, SLIM_CHECK_SITE(), rwlock, slim_rwlock_check_kind(rwlock,
                     SLIM_CHECK_RWLOCK));
    return slim_check_destroyed(&call, slim_unchecked_pthread_rwlock_destroy(rwlock));
}

int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                      SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_rwlock_rdlock(rwlock));
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ, SLIM_CHECK_TRY);
    return slim_check_locked(&call, slim_unchecked_pthread_rwlock_tryrdlock(rwlock));
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                      SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call,
                             slim_unchecked_pthread_rwlock_clockrdlock(rwlock, clock, abstime));
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                      SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_rwlock_timedrdlock(rwlock, abstime));
}

int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                      SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_rwlock_wrlock(rwlock));
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE, SLIM_CHECK_TRY);
    return slim_check_locked(&call, slim_unchecked_pthread_rwlock_trywrlock(rwlock));
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                      SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call,
                             slim_unchecked_pthread_rwlock_clockwrlock(rwlock, clock, abstime));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    struct slim_check_call call;

    rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                      SLIM_CHECK_BLOCKING);
    return slim_check_locked(&call, slim_unchecked_pthread_rwlock_timedwrlock(rwlock, abstime));
}

int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_check_unlock_begin(&call, SLIM_CHECK_SITE(), rwlock, slim_rwlock_check_kind(rwlock,
                            SLIM_CHECK_RWLOCK));
    return slim_check_unlocked(&call, slim_unchecked_pthread_rwlock_unlock(rwlock));
}

/* ---- Conds and barriers: cond.c checks the wait itself ---- */

static void cond_begin(struct slim_check_call *call, void *site, pthread_cond_t *cond)
{
    slim_check_begin(call, site, cond, slim_cond_check_kind(cond));
}

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_check_end(&call, slim_unchecked_pthread_cond_wait(cond, mutex));
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                           const struct timespec *abstime)
{
    struct slim_check_call call;

    cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_check_end(&call, slim_unchecked_pthread_cond_timedwait(cond, mutex, abstime));
}

int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime)
{
    struct slim_check_call call;

    cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_check_end(&call,
                          slim_unchecked_pthread_cond_clockwait(cond, mutex, clock, abstime));
}

int pthread_cond_signal(pthread_cond_t *cond)
{
    struct slim_check_call call;

    cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_check_end(&call, slim_unchecked_pthread_cond_signal(cond));
}

int pthread_cond_broadcast(pthread_cond_t *cond)
{
    struct slim_check_call call;

    cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_check_end(&call, slim_unchecked_pthread_cond_broadcast(cond));
}

int pthread_cond_destroy(pthread_cond_t *cond)
{
    struct slim_check_call call;

    cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_check_waited_destroyed(&call, slim_unchecked_pthread_cond_destroy(cond));
}

int pthread_barrier_wait(pthread_barrier_t *barrier)
{
    struct slim_check_call call;

    slim_check_begin(&call, SLIM_CHECK_SITE(), barrier, slim_barrier_check_kind(barrier));
    return slim_check_end(&call, slim_unchecked_pthread_barrier_wait(barrier));
}

int pthread_barrier_destroy(pthread_barrier_t *barrier)
{
    struct slim_check_call call;

    slim_check_begin(&call, SLIM_CHECK_SITE(), barrier, slim_barrier_check_kind(barrier));
    return slim_check_waited_destroyed(&call, slim_unchecked_pthread_barrier_destroy(barrier));
}

/* ---- Spinlocks and semaphores: not in the graph, but a use their state
 * calls destroyed or never initialized is reported ---- */

/* A spinlock is a volatile word; to the checker its address is only a key. */
static void spin_begin(struct slim_check_call *call, void *site, pthread_spinlock_t *lock)
{
    slim_check_begin(call, site, (const void *)(uintptr_t)lock, slim_spin_check_kind(lock));
}

int pthread_spin_destroy(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_check_end(&call, slim_unchecked_pthread_spin_destroy(lock));
}

int pthread_spin_lock(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_check_end(&call, slim_unchecked_pthread_spin_lock(lock));
}

int pthread_spin_trylock(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_check_end(&call, slim_unchecked_pthread_spin_trylock(lock));
}

int pthread_spin_unlock(pthread_spinlock_t *lock)
{
    struct slim_check_call call;

    spin_begin(&call, SLIM_CHECK_SITE(), lock);
    return slim_check_end(&call, slim_unchecked_pthread_spin_unlock(lock));
}

/* sem_* report errors in errno, which the checker leaves alone. */
static void sem_begin(struct slim_check_call *call, void *site, sem_t *sem)
{
    slim_check_begin(call, site, sem, slim_sem_check_kind(sem));
}

int sem_destroy(sem_t *sem)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_destroy(sem));
}

int sem_trywait(sem_t *sem)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_trywait(sem));
}

int sem_wait(sem_t *sem)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_wait(sem));
}

int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_clockwait(sem, clock, abstime));
}

int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_timedwait(sem, abstime));
}

int sem_post(sem_t *sem)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_post(sem));
}

int sem_getvalue(sem_t *sem, int *value)
{
    struct slim_check_call call;

    sem_begin(&call, SLIM_CHECK_SITE(), sem);
    return slim_check_end(&call, slim_unchecked_sem_getvalue(sem, value));
}

/* ---- C11: the caller's site, then the pthread call ---- */

int mtx_init(mtx_t *mtx, int type)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_mtx_init(mtx, type);
}

int mtx_lock(mtx_t *mtx)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_mtx_lock(mtx);
}

int mtx_timedlock(mtx_t *__restrict mtx, const struct timespec *__restrict ts)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_mtx_timedlock(mtx, ts);
}

int mtx_trylock(mtx_t *mtx)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_mtx_trylock(mtx);
}

int mtx_unlock(mtx_t *mtx)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_mtx_unlock(mtx);
}

void mtx_destroy(mtx_t *mtx)
{
    slim_check_from(SLIM_CHECK_SITE());
    slim_unchecked_mtx_destroy(mtx);
}

int cnd_signal(cnd_t *cond)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_cnd_signal(cond);
}

int cnd_broadcast(cnd_t *cond)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_cnd_broadcast(cond);
}

void cnd_destroy(cnd_t *cond)
{
    slim_check_from(SLIM_CHECK_SITE());
    slim_unchecked_cnd_destroy(cond);
}

int cnd_wait(cnd_t *cond, mtx_t *mtx)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_cnd_wait(cond, mtx);
}

int cnd_timedwait(cnd_t *__restrict cond, mtx_t *__restrict mtx,
                  const struct timespec *__restrict ts)
{
    slim_check_from(SLIM_CHECK_SITE());
    return slim_unchecked_cnd_timedwait(cond, mtx, ts);
}

#endif /* SLIMPTHREADS_CHECKED */

#include "code_end.h"
