/*
 * threads.h - slimpthreads: the C11/C17 threads library (ISO C 7.26) for Windows.
 *
 * MinGW-w64 ships no <threads.h>; this one is a thin layer over slimpthreads'
 * own objects, so that the two APIs mix freely in one program:
 *   thrd_t     is pthread_t        (the same thread record; thrd_current() == pthread_self())
 *   mtx_t      is pthread_mutex_t  (plain: the DEFAULT kind; recursive: RECURSIVE)
 *   cnd_t      is pthread_cond_t
 *   tss_t      is pthread_key_t    (destructors run at the exit of any thread)
 *   once_flag  is pthread_once_t
 * Nothing allocates per object, and zero-filled memory is a usable mtx_t,
 * cnd_t and once_flag (C11 does not promise that; it is harmless here).
 * Deadlines are absolute TIME_UTC times, i.e. CLOCK_REALTIME. A thread's int
 * result travels in the pointer-sized result of its pthread record: thrd_join
 * of a thread made by pthread_create gives its void * result converted to int.
 */
#ifndef SLIMPTHREADS_THREADS_H
#define SLIMPTHREADS_THREADS_H

#include <time.h>
#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ours is a threads library: whatever a compiler or CRT header claimed. */
#ifdef __STDC_NO_THREADS__
#undef __STDC_NO_THREADS__
#endif

/* thread_local became a keyword in C23 and is one in C++. */
#if !defined(__cplusplus) && !defined(thread_local) && \
    (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 202311L)
#define thread_local _Thread_local
#endif

/* MinGW-w64's msvcrt <time.h> has neither (its UCRT one has both): C11
 * programs compute deadlines with timespec_get(&ts, TIME_UTC). */
#ifndef TIME_UTC
#define TIME_UTC 1
static __inline int timespec_get(struct timespec *__ts, int __base)
{
    return __base == TIME_UTC && clock_gettime(CLOCK_REALTIME, __ts) == 0 ? __base : 0;
}
#endif

#define TSS_DTOR_ITERATIONS PTHREAD_DESTRUCTOR_ITERATIONS
#define ONCE_FLAG_INIT PTHREAD_ONCE_INIT

typedef pthread_t thrd_t;
typedef int (*thrd_start_t)(void *);
typedef pthread_mutex_t mtx_t;
typedef pthread_cond_t cnd_t;
typedef pthread_key_t tss_t;
typedef void (*tss_dtor_t)(void *);
typedef pthread_once_t once_flag;

/* glibc's and musl's values. */
enum {
    thrd_success = 0,
    thrd_busy = 1,
    thrd_error = 2,
    thrd_nomem = 3,
    thrd_timedout = 4
};

/* Every mutex here can wait with a deadline, so mtx_timed is a promise kept
 * by every kind; mtx_recursive selects PTHREAD_MUTEX_RECURSIVE. */
enum {
    mtx_plain = 0,
    mtx_recursive = 1,
    mtx_timed = 2
};

/* ---- Threads ---- */

int thrd_create(thrd_t *thr, thrd_start_t func, void *arg) SLIMPTHREADS_ABI(thrd_create);
thrd_t thrd_current(void) SLIMPTHREADS_ABI(thrd_current);
int thrd_detach(thrd_t thr) SLIMPTHREADS_ABI(thrd_detach);
int thrd_equal(thrd_t thr0, thrd_t thr1) SLIMPTHREADS_ABI(thrd_equal);
void thrd_exit(int res) SLIMPTHREADS_ABI(thrd_exit) __SLIM_NORETURN;
int thrd_join(thrd_t thr, int *res) SLIMPTHREADS_ABI(thrd_join);
int thrd_sleep(const struct timespec *duration, struct timespec *remaining) SLIMPTHREADS_ABI(thrd_sleep);
void thrd_yield(void) SLIMPTHREADS_ABI(thrd_yield);

/* ---- Mutexes ---- */

int mtx_init(mtx_t *mtx, int type) SLIMPTHREADS_ABI(mtx_init);
int mtx_lock(mtx_t *mtx) SLIMPTHREADS_ABI(mtx_lock);
int mtx_timedlock(mtx_t *__restrict mtx, const struct timespec *__restrict ts) SLIMPTHREADS_ABI(mtx_timedlock);
int mtx_trylock(mtx_t *mtx) SLIMPTHREADS_ABI(mtx_trylock);
int mtx_unlock(mtx_t *mtx) SLIMPTHREADS_ABI(mtx_unlock);
void mtx_destroy(mtx_t *mtx) SLIMPTHREADS_ABI(mtx_destroy);

#if defined(__GNUC__) && !defined(SLIMPTHREADS_NO_INLINE)
/* The uncontended paths inline, as pthread.h's (which says why); the rest in
 * the library, with C11's results. */
__SLIM_GNU_INLINE int mtx_lock(mtx_t *mtx)
{
    return __slim_mutex_lock(mtx) == 0 ? thrd_success : thrd_error;
}

__SLIM_GNU_INLINE int mtx_trylock(mtx_t *mtx)
{
    int error = __slim_mutex_trylock(mtx);

    return error == 0 ? thrd_success : error == EBUSY ? thrd_busy : thrd_error;
}

__SLIM_GNU_INLINE int mtx_unlock(mtx_t *mtx)
{
    return __slim_mutex_unlock(mtx) == 0 ? thrd_success : thrd_error;
}
#endif

/* ---- Condition variables ---- */

int cnd_init(cnd_t *cond) SLIMPTHREADS_ABI(cnd_init);
int cnd_signal(cnd_t *cond) SLIMPTHREADS_ABI(cnd_signal);
int cnd_broadcast(cnd_t *cond) SLIMPTHREADS_ABI(cnd_broadcast);
int cnd_wait(cnd_t *cond, mtx_t *mtx) SLIMPTHREADS_ABI(cnd_wait);
int cnd_timedwait(cnd_t *__restrict cond, mtx_t *__restrict mtx,
                  const struct timespec *__restrict ts) SLIMPTHREADS_ABI(cnd_timedwait);
void cnd_destroy(cnd_t *cond) SLIMPTHREADS_ABI(cnd_destroy);

#if defined(__GNUC__) && !defined(SLIMPTHREADS_NO_INLINE)
/* A cond nobody waits on answers inline, as pthread.h's. */
__SLIM_GNU_INLINE int cnd_signal(cnd_t *cond)
{
    return __slim_cond_signal(cond) == 0 ? thrd_success : thrd_error;
}

__SLIM_GNU_INLINE int cnd_broadcast(cnd_t *cond)
{
    return __slim_cond_broadcast(cond) == 0 ? thrd_success : thrd_error;
}
#endif

/* ---- Thread-specific storage ---- */

int tss_create(tss_t *key, tss_dtor_t dtor) SLIMPTHREADS_ABI(tss_create);
void *tss_get(tss_t key) SLIMPTHREADS_ABI(tss_get);
int tss_set(tss_t key, void *val) SLIMPTHREADS_ABI(tss_set);
void tss_delete(tss_t key) SLIMPTHREADS_ABI(tss_delete);

/* ---- Once ---- */

void call_once(once_flag *flag, void (*func)(void)) SLIMPTHREADS_ABI(call_once);

#if defined(__GNUC__) && !defined(SLIMPTHREADS_NO_INLINE)
/* A done flag answers inline, as pthread.h's pthread_once. */
__SLIM_GNU_INLINE void call_once(once_flag *flag, void (*func)(void))
{
    (void)__slim_once(flag, func);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* SLIMPTHREADS_THREADS_H */
