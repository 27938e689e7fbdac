/*
 * c11_threads.c - the C11 threads library (<threads.h>) on slimpthreads' objects.
 *
 * Each C11 type is the pthread type (threads.h), so every function here is the
 * pthread call's work (the slim_* calls of internal.h, or pthread.h's inline
 * paths), between the checked build's hooks (check.h) where the pthread call
 * has them, plus the translation of its result (slim_thrd_result: 0 ->
 * thrd_success, EBUSY -> thrd_busy, ETIMEDOUT -> thrd_timedout, ENOMEM ->
 * thrd_nomem, any other error -> thrd_error). Nothing here keeps state of its
 * own, which is why the two APIs can be mixed on one object and one thread.
 * mtx_lock, mtx_trylock and mtx_unlock inline the pthread mutex's fast paths
 * instead of paying a second call.
 *
 * What C11 asks differently from POSIX:
 *   a thread returns an int: the start routine runs through a trampoline that
 *     stores it, converted, in the thread's pointer-sized result, where
 *     thrd_join and pthread_join both find it (thrd_exit stores it the same way);
 *   deadlines are TIME_UTC, i.e. CLOCK_REALTIME, whatever clock the condition
 *     variable was made with (pthread_cond_clockwait);
 *   thrd_sleep returns 0, -1 if a signal interrupted it (never on Windows, so
 *     remaining is never written), or -2 for a bad duration.
 */
#include "wait.h"
#include "check.h"

/* ---- Threads ---- */

/* What the trampoline needs; freed by the new thread before func runs, so that
 * a thread leaving by thrd_exit or cancellation leaks nothing. */
struct c11_start {
    thrd_start_t func;
    void *arg;
};

static void *c11_trampoline(void *raw)
{
    struct c11_start start = *(struct c11_start *)raw;

    free(raw);
    return (void *)(intptr_t)start.func(start.arg);
}

int thrd_create(thrd_t *thr, thrd_start_t func, void *arg)
{
    struct c11_start *start;
    int error;

    if (thr == NULL || func == NULL)
        return thrd_error;
    start = malloc(sizeof *start);
    if (start == NULL)
        return thrd_nomem;
    start->func = func;
    start->arg = arg;
    error = pthread_create(thr, NULL, c11_trampoline, start);
    if (error != 0)
        free(start);
    /* pthread_create's EAGAIN is a record or a stack it could not allocate. */
    return error == EAGAIN ? thrd_nomem : slim_thrd_result(error);
}

thrd_t thrd_current(void)
{
    return pthread_self();
}

int thrd_detach(thrd_t thr)
{
    return pthread_detach(thr) == 0 ? thrd_success : thrd_error;
}

int thrd_equal(thrd_t thr0, thrd_t thr1)
{
    return pthread_equal(thr0, thr1);
}

void thrd_exit(int res)
{
    pthread_exit((void *)(intptr_t)res);
}

int thrd_join(thrd_t thr, int *res)
{
    void *result;

    if (pthread_join(thr, &result) != 0)
        return thrd_error;
    if (res != NULL)
        *res = (int)(intptr_t)result;
    return thrd_success;
}

int thrd_sleep(const struct timespec *duration, struct timespec *remaining)
{
    if (slim_timespec_invalid(duration) || duration->tv_sec < 0)
        return -2;
    return clock_nanosleep(CLOCK_MONOTONIC, 0, duration, remaining) == 0 ? 0 : -2;
}

void thrd_yield(void)
{
    slim_yield();
}

/* ---- Mutexes: mtx_t is pthread_mutex_t ----
 * mtx_plain and mtx_timed make a DEFAULT mutex (C11 leaves relocking one
 * undefined, as POSIX does DEFAULT's: the fast path lets it recurse),
 * mtx_recursive a RECURSIVE one; every kind takes deadlines. mtx_lock,
 * mtx_trylock and mtx_unlock run pthread.h's inline fast paths here too. */

static int mutex_init(mtx_t *mtx, int type)
{
    pthread_mutexattr_t attr;
    int error;

    /* mtx_plain or mtx_timed, either of them | mtx_recursive. */
    if (mtx == NULL || (type & ~(mtx_timed | mtx_recursive)) != 0)
        return EINVAL;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, (type & mtx_recursive) ? PTHREAD_MUTEX_RECURSIVE
                                                            : PTHREAD_MUTEX_DEFAULT);
    error = slim_mutex_init(mtx, &attr);
    pthread_mutexattr_destroy(&attr);
    return error;
}

int mtx_init(mtx_t *mtx, int type)
{
    struct slim_check_call call;

    slim_hook_mutex_init_begin(&call, SLIM_CHECK_SITE(), mtx);
    return slim_thrd_result(slim_hook_initialized(&call, mutex_init(mtx, type)));
}

/* A robust mutex made by pthreads reports its owner's death as thrd_error,
 * with the mutex held: C11 has no word for EOWNERDEAD. */
int mtx_lock(mtx_t *mtx)
{
    struct slim_check_call call;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mtx, SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, __slim_mutex_lock(mtx)) == 0 ? thrd_success : thrd_error;
}

int mtx_timedlock(mtx_t *__restrict mtx, const struct timespec *__restrict ts)
{
    struct slim_check_call call;
    int error;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mtx, SLIM_CHECK_BLOCKING);
    error = slim_hook_locked(&call, slim_mutex_clocklock(mtx, CLOCK_REALTIME, ts));
    return slim_thrd_result(error);
}

int mtx_trylock(mtx_t *mtx)
{
    struct slim_check_call call;

    slim_hook_mutex_lock_begin(&call, SLIM_CHECK_SITE(), mtx, SLIM_CHECK_TRY);
    return slim_thrd_result(slim_hook_locked(&call, __slim_mutex_trylock(mtx)));
}

int mtx_unlock(mtx_t *mtx)
{
    struct slim_check_call call;

    slim_hook_mutex_unlock_begin(&call, SLIM_CHECK_SITE(), mtx);
    return slim_hook_unlocked(&call, __slim_mutex_unlock(mtx)) == 0 ? thrd_success : thrd_error;
}

void mtx_destroy(mtx_t *mtx)
{
    struct slim_check_call call;

    slim_hook_mutex_begin(&call, SLIM_CHECK_SITE(), mtx);
    slim_hook_destroyed(&call, slim_mutex_destroy(mtx));
}

/* ---- Condition variables ---- */

int cnd_init(cnd_t *cond)
{
    return cond == NULL ? thrd_error : slim_thrd_result(pthread_cond_init(cond, NULL));
}

int cnd_signal(cnd_t *cond)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, __slim_cond_signal_slow(cond)) == 0 ? thrd_success : thrd_error;
}

int cnd_broadcast(cnd_t *cond)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, __slim_cond_broadcast_slow(cond)) == 0 ? thrd_success : thrd_error;
}

int cnd_wait(cnd_t *cond, mtx_t *mtx)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, slim_cond_wait(cond, mtx)) == 0 ? thrd_success : thrd_error;
}

int cnd_timedwait(cnd_t *__restrict cond, mtx_t *__restrict mtx,
                  const struct timespec *__restrict ts)
{
    struct slim_check_call call;
    int error;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    error = slim_hook_end(&call, slim_cond_clockwait(cond, mtx, CLOCK_REALTIME, ts));
    return slim_thrd_result(error);
}

void cnd_destroy(cnd_t *cond)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    slim_hook_waited_destroyed(&call, slim_cond_destroy(cond));
}

/* ---- Thread-specific storage: destructors run from the thread-exit hook ---- */

int tss_create(tss_t *key, tss_dtor_t dtor)
{
    return pthread_key_create(key, dtor) == 0 ? thrd_success : thrd_error;
}

void *tss_get(tss_t key)
{
    return pthread_getspecific(key);
}

int tss_set(tss_t key, void *val)
{
    return pthread_setspecific(key, val) == 0 ? thrd_success : thrd_error;
}

void tss_delete(tss_t key)
{
    pthread_key_delete(key);
}

/* ---- Once ---- */

void call_once(once_flag *flag, void (*func)(void))
{
    (void)__slim_once(flag, func);
}

#include "code_end.h"
