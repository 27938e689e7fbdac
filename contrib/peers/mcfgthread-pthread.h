/*
 * mcfgthread-pthread.h - the part of <pthread.h>, <semaphore.h> and <sched.h>
 * that bench/bench_posix.c uses, on mcfgthread's own API, so that the
 * benchmark can run mcfgthread as a peer (contrib/peers/build-mcfgthread.sh
 * installs it as OUT_DIR/include/pthread.h; semaphore.h and sched.h there only
 * include it). mcfgthread has no POSIX layer: it is the threads library
 * behind GCC's win32/mcf thread model, with a C11 <threads.h> (mcfgthread/c11.h)
 * and its own calls. Each pthread object here is exactly one mcfgthread object:
 *
 *   pthread_mutex_t     mtx_t (C11 API; mtx_recursive for RECURSIVE; the
 *                       other kinds are plain: mcfgthread has no error checks)
 *   pthread_cond_t      cnd_t (C11 API)
 *   pthread_rwlock_t    _MCF_shared_mutex
 *   pthread_spinlock_t  _MCF_mutex: mcfgthread has no spinlock; its mutex spins
 *                       a while before it sleeps
 *   sem_t               _MCF_sem
 *   pthread_t           thrd_t; pthread_key_t tss_t; pthread_once_t once_flag
 *   sched_yield         thrd_yield; nanosleep (case i) thrd_sleep
 *
 * Everything is static inline, as mcfgthread's own fast paths are (its
 * headers define them inline), so that a wrapper costs no call. Process-shared
 * objects are refused with ENOTSUP: mcfgthread's objects are private (case k's
 * -2p cells then read "unsupported"). Not a general pthread layer: only what
 * the benchmark calls, and no cancellation, attributes or timed waits.
 */
#ifndef BENCH_MCFGTHREAD_PTHREAD_H
#define BENCH_MCFGTHREAD_PTHREAD_H

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <mcfgthread/c11.h>
#include <mcfgthread/sem.h>
#include <mcfgthread/shared_mutex.h>
#include <mcfgthread/mutex.h>

#ifndef ENOTSUP
#define ENOTSUP 129
#endif

#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED 1
#define PTHREAD_MUTEX_NORMAL 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_DEFAULT PTHREAD_MUTEX_NORMAL
#define PTHREAD_ONCE_INIT ONCE_FLAG_INIT

typedef thrd_t pthread_t;
typedef mtx_t pthread_mutex_t;
typedef cnd_t pthread_cond_t;
typedef _MCF_shared_mutex pthread_rwlock_t;
typedef _MCF_mutex pthread_spinlock_t;
typedef tss_t pthread_key_t;
typedef once_flag pthread_once_t;
typedef _MCF_sem sem_t;
typedef struct { int kind, pshared; } pthread_mutexattr_t;
typedef struct { int pshared; } pthread_condattr_t;
typedef struct { int unused; } pthread_attr_t;
typedef struct { int unused; } pthread_rwlockattr_t;

/* A C11 result as a pthread one. */
static inline int bench_mcf_result(int c11_result)
{
    return c11_result == thrd_success ? 0 : c11_result == thrd_nomem ? ENOMEM
           : c11_result == thrd_busy ? EBUSY : EINVAL;
}

/* ---- Threads ---- */

/* pthread_create's start routine and argument, for the C11 thread that runs it,
 * and the routine's result, which a C11 thread cannot return (its result is an
 * int): the thread leaves it here, and pthread_join finds the record by the
 * thread's handle in a table (the benchmark joins every thread it creates). */
struct bench_mcf_start {
    void *(*routine)(void *);
    void *argument;
    void *result;
};

#define BENCH_MCF_THREADS 1024 /* records of threads created and not yet joined */
static struct {
    thrd_t thread;
    struct bench_mcf_start *start;
} bench_mcf_threads[BENCH_MCF_THREADS];
static mtx_t bench_mcf_threads_lock; /* zero-filled: mcfgthread's static initializer */

static inline int bench_mcf_thread_main(void *argument)
{
    struct bench_mcf_start *start = argument;

    start->result = start->routine(start->argument);
    return 0;
}

/* Files (thread, start), or takes the record of thread out when start is NULL. */
static inline struct bench_mcf_start *bench_mcf_record(thrd_t thread, struct bench_mcf_start *start)
{
    struct bench_mcf_start *found = NULL;
    int i;

    mtx_lock(&bench_mcf_threads_lock);
    for (i = 0; i < BENCH_MCF_THREADS && found == NULL; i++) {
        if (start != NULL && bench_mcf_threads[i].start == NULL) {
            bench_mcf_threads[i].thread = thread;
            bench_mcf_threads[i].start = found = start;
        } else if (start == NULL && bench_mcf_threads[i].start != NULL &&
                   thrd_equal(bench_mcf_threads[i].thread, thread)) {
            found = bench_mcf_threads[i].start;
            bench_mcf_threads[i].start = NULL;
        }
    }
    mtx_unlock(&bench_mcf_threads_lock);
    return found;
}

static inline int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                 void *(*routine)(void *), void *argument)
{
    struct bench_mcf_start *start = malloc(sizeof *start);
    int rc;

    (void)attr;
    if (start == NULL)
        return EAGAIN;
    start->routine = routine;
    start->argument = argument;
    start->result = NULL;
    rc = thrd_create(thread, bench_mcf_thread_main, start);
    if (rc != thrd_success) {
        free(start);
        return EAGAIN;
    }
    if (bench_mcf_record(*thread, start) == NULL)
        abort(); /* more threads than the table holds: the benchmark never does that */
    return 0;
}

static inline int pthread_join(pthread_t thread, void **result)
{
    int rc = bench_mcf_result(thrd_join(thread, NULL));
    struct bench_mcf_start *start = bench_mcf_record(thread, NULL);

    if (result != NULL)
        *result = start != NULL ? start->result : NULL;
    free(start);
    return rc;
}

static inline pthread_t pthread_self(void) { return thrd_current(); }

static inline int pthread_equal(pthread_t a, pthread_t b) { return thrd_equal(a, b); }

static inline int sched_yield(void)
{
    thrd_yield();
    return 0;
}

static inline int bench_mcf_nanosleep(const struct timespec *request, struct timespec *remain)
{
    return thrd_sleep(request, remain) == 0 ? 0 : (errno = EINTR, -1);
}
/* MinGW-w64's <time.h> may declare winpthreads' nanosleep: this one replaces it by name. */
#define nanosleep bench_mcf_nanosleep

/* ---- Once and keys ---- */

static inline int pthread_once(pthread_once_t *once, void (*routine)(void))
{
    call_once(once, routine);
    return 0;
}

static inline int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
    return bench_mcf_result(tss_create(key, destructor));
}

static inline int pthread_key_delete(pthread_key_t key)
{
    tss_delete(key);
    return 0;
}

/* mcfgthread declares its getter pure; the barrier keeps each call a call, as
 * pthread_getspecific's is in the other libraries (case d's getspecific row
 * would otherwise time one call for a whole batch). */
static inline void *pthread_getspecific(pthread_key_t key)
{
    __asm__ volatile("" ::: "memory");
    return tss_get(key);
}

static inline int pthread_setspecific(pthread_key_t key, const void *value)
{
    return bench_mcf_result(tss_set(key, (void *)value));
}

/* ---- Mutexes ---- */

static inline int pthread_mutexattr_init(pthread_mutexattr_t *attr)
{
    attr->kind = PTHREAD_MUTEX_DEFAULT;
    attr->pshared = PTHREAD_PROCESS_PRIVATE;
    return 0;
}

static inline int pthread_mutexattr_destroy(pthread_mutexattr_t *attr)
{
    (void)attr;
    return 0;
}

static inline int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int kind)
{
    attr->kind = kind;
    return 0;
}

static inline int pthread_mutexattr_setpshared(pthread_mutexattr_t *attr, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE)
        return ENOTSUP;
    attr->pshared = pshared;
    return 0;
}

static inline int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    int recursive = attr != NULL && attr->kind == PTHREAD_MUTEX_RECURSIVE;

    return bench_mcf_result(mtx_init(mutex, recursive ? mtx_plain | mtx_recursive : mtx_plain));
}

static inline int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    mtx_destroy(mutex);
    return 0;
}

static inline int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    return bench_mcf_result(mtx_lock(mutex));
}

static inline int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    return bench_mcf_result(mtx_trylock(mutex));
}

static inline int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    return bench_mcf_result(mtx_unlock(mutex));
}

/* ---- Condvars ---- */

static inline int pthread_condattr_init(pthread_condattr_t *attr)
{
    attr->pshared = PTHREAD_PROCESS_PRIVATE;
    return 0;
}

static inline int pthread_condattr_destroy(pthread_condattr_t *attr)
{
    (void)attr;
    return 0;
}

static inline int pthread_condattr_setpshared(pthread_condattr_t *attr, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE)
        return ENOTSUP;
    attr->pshared = pshared;
    return 0;
}

static inline int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr)
{
    (void)attr;
    return bench_mcf_result(cnd_init(cond));
}

static inline int pthread_cond_destroy(pthread_cond_t *cond)
{
    cnd_destroy(cond);
    return 0;
}

static inline int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    return bench_mcf_result(cnd_wait(cond, mutex));
}

static inline int pthread_cond_signal(pthread_cond_t *cond)
{
    return bench_mcf_result(cnd_signal(cond));
}

static inline int pthread_cond_broadcast(pthread_cond_t *cond)
{
    return bench_mcf_result(cnd_broadcast(cond));
}

/* ---- Rwlocks: mcfgthread's shared mutex ---- */

static inline int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    (void)attr;
    _MCF_shared_mutex_init(rwlock);
    return 0;
}

static inline int pthread_rwlock_destroy(pthread_rwlock_t *rwlock)
{
    (void)rwlock;
    return 0;
}

static inline int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock)
{
    return _MCF_shared_mutex_lock_shared(rwlock, NULL) == 0 ? 0 : EAGAIN;
}

static inline int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    return _MCF_shared_mutex_lock_exclusive(rwlock, NULL) == 0 ? 0 : EDEADLK;
}

static inline int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    _MCF_shared_mutex_unlock(rwlock);
    return 0;
}

/* ---- Spinlocks: mcfgthread's mutex ---- */

static inline int pthread_spin_init(pthread_spinlock_t *spin, int pshared)
{
    if (pshared != PTHREAD_PROCESS_PRIVATE)
        return ENOTSUP;
    _MCF_mutex_init(spin);
    return 0;
}

static inline int pthread_spin_destroy(pthread_spinlock_t *spin)
{
    (void)spin;
    return 0;
}

static inline int pthread_spin_lock(pthread_spinlock_t *spin)
{
    return _MCF_mutex_lock(spin, NULL) == 0 ? 0 : EDEADLK;
}

static inline int pthread_spin_unlock(pthread_spinlock_t *spin)
{
    _MCF_mutex_unlock(spin);
    return 0;
}

/* ---- Semaphores: mcfgthread's semaphore ---- */

static inline int sem_init(sem_t *sem, int pshared, unsigned value)
{
    if (pshared) {
        errno = ENOTSUP;
        return -1;
    }
    if (_MCF_sem_init(sem, (intptr_t)value) != 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static inline int sem_destroy(sem_t *sem)
{
    (void)sem;
    return 0;
}

static inline int sem_post(sem_t *sem)
{
    if (_MCF_sem_signal(sem) != 0) {
        errno = EOVERFLOW;
        return -1;
    }
    return 0;
}

static inline int sem_wait(sem_t *sem)
{
    return _MCF_sem_wait(sem, NULL) == 0 ? 0 : (errno = EINTR, -1);
}

/* A zero timeout: mcfgthread's try. */
static inline int sem_trywait(sem_t *sem)
{
    static const int64_t no_wait = 0;

    return _MCF_sem_wait(sem, &no_wait) == 0 ? 0 : (errno = EAGAIN, -1);
}

#endif
