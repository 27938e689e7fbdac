/*
 * check_api.c - the checked library's public lock calls: each is the
 * unchecked work of its own file (SLIM_UNCHECKED in check.h) between the
 * checker's hooks. Only in the checked build.
 *
 * The return address of each is the call site a report names. A public call
 * made from inside another (pthread_mutex_timedlock's call of clocklock,
 * cond.c's unlock and relock of its mutex) is not checked again: only the
 * outermost call on a thread checks (check.c). C11's calls name their
 * caller's site and go through the pthread calls.
 */
#include "internal.h"
#include "check.h"

#if defined(SLIMPTHREADS_CHECKED)

/* ---- Mutexes ---- */

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    SLIM_CHECKED_CALL(slim_check_initialized, mutex, SLIM_CHECK_KIND_UNKNOWN,
                      slim_unchecked_pthread_mutex_init(mutex, attr));
}

int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    SLIM_CHECKED_CALL(slim_check_destroyed, mutex, slim_mutex_check_kind(mutex),
                      slim_unchecked_pthread_mutex_destroy(mutex));
}

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    SLIM_CHECKED_LOCK(mutex, slim_mutex_check_kind(mutex), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_mutex_lock(mutex));
}

int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
{
    SLIM_CHECKED_LOCK(mutex, slim_mutex_check_kind(mutex), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_mutex_clocklock(mutex, clock, abstime));
}

int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
{
    SLIM_CHECKED_LOCK(mutex, slim_mutex_check_kind(mutex), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_mutex_timedlock(mutex, abstime));
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    SLIM_CHECKED_LOCK(mutex, slim_mutex_check_kind(mutex), SLIM_CHECK_TRY,
                      slim_unchecked_pthread_mutex_trylock(mutex));
}

int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    SLIM_CHECKED_CALL(slim_check_unlocked, mutex, slim_mutex_check_kind(mutex),
                      slim_unchecked_pthread_mutex_unlock(mutex));
}

/* ---- Rwlocks ---- */

#define RWLOCK_KIND(rwlock, mode) slim_rwlock_check_kind((rwlock), (mode))

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    SLIM_CHECKED_CALL(slim_check_initialized, rwlock, SLIM_CHECK_RWLOCK,
                      slim_unchecked_pthread_rwlock_init(rwlock, attr));
}

int pthread_rwlock_destroy(pthread_rwlock_t *rwlock)
{
    SLIM_CHECKED_CALL(slim_check_destroyed, rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK),
                      slim_unchecked_pthread_rwlock_destroy(rwlock));
}

int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_READ), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_rwlock_rdlock(rwlock));
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_READ), SLIM_CHECK_TRY,
                      slim_unchecked_pthread_rwlock_tryrdlock(rwlock));
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_READ), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_rwlock_clockrdlock(rwlock, clock, abstime));
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_READ), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_rwlock_timedrdlock(rwlock, abstime));
}

int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_WRITE), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_rwlock_wrlock(rwlock));
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_WRITE), SLIM_CHECK_TRY,
                      slim_unchecked_pthread_rwlock_trywrlock(rwlock));
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_WRITE), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_rwlock_clockwrlock(rwlock, clock, abstime));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    SLIM_CHECKED_LOCK(rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK_WRITE), SLIM_CHECK_BLOCKING,
                      slim_unchecked_pthread_rwlock_timedwrlock(rwlock, abstime));
}

int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    SLIM_CHECKED_CALL(slim_check_unlocked, rwlock, RWLOCK_KIND(rwlock, SLIM_CHECK_RWLOCK),
                      slim_unchecked_pthread_rwlock_unlock(rwlock));
}

/* ---- Conds and barriers: cond.c checks the wait itself ---- */

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    struct slim_check_thread *thread = slim_check_enter(SLIM_CHECK_SITE());
    int error = slim_unchecked_pthread_cond_wait(cond, mutex);

    slim_check_leave(thread);
    return error;
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                           const struct timespec *abstime)
{
    struct slim_check_thread *thread = slim_check_enter(SLIM_CHECK_SITE());
    int error = slim_unchecked_pthread_cond_timedwait(cond, mutex, abstime);

    slim_check_leave(thread);
    return error;
}

int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime)
{
    struct slim_check_thread *thread = slim_check_enter(SLIM_CHECK_SITE());
    int error = slim_unchecked_pthread_cond_clockwait(cond, mutex, clock, abstime);

    slim_check_leave(thread);
    return error;
}

int pthread_cond_destroy(pthread_cond_t *cond)
{
    SLIM_CHECKED_CALL(slim_check_cond_destroyed, cond, SLIM_CHECK_COND,
                      slim_unchecked_pthread_cond_destroy(cond));
}

int pthread_barrier_destroy(pthread_barrier_t *barrier)
{
    SLIM_CHECKED_CALL(slim_check_barrier_destroyed, barrier, SLIM_CHECK_BARRIER,
                      slim_unchecked_pthread_barrier_destroy(barrier));
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
