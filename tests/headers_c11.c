/*
 * headers_c11.c - compiled by tests/headers.sh with -pedantic -Werror as C11,
 * C17 and gnu2x (and as C++, where thread_local is the language's): the whole
 * of <threads.h>, with <time.h> before or after it (HEADERS_ORDER), and the
 * promise that its types are the pthread ones.
 */
#if HEADERS_ORDER == 1
#include <time.h>
#include <threads.h>
#else
#include <threads.h>
#include <time.h>
#endif
#include <pthread.h>

#ifdef __STDC_NO_THREADS__
#error "__STDC_NO_THREADS__ is defined although <threads.h> is there"
#endif
#if !defined(TIME_UTC) || TIME_UTC <= 0
#error "TIME_UTC must be a positive integer constant"
#endif
#if TSS_DTOR_ITERATIONS < 1
#error "TSS_DTOR_ITERATIONS"
#endif
#ifdef __cplusplus
#ifdef thread_local
#error "thread_local is a C++ keyword: <threads.h> must not define it"
#endif
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 202311L
#ifdef thread_local
#error "thread_local is a C23 keyword: <threads.h> must not define it"
#endif
#elif !defined(thread_local)
#error "thread_local is missing before C23"
#endif

#ifndef __cplusplus
/* The C11 types are the pthread ones: objects pass between the two APIs. */
_Static_assert(_Generic((thrd_t)0, pthread_t: 1, default: 0), "thrd_t is pthread_t");
_Static_assert(_Generic((mtx_t *)0, pthread_mutex_t *: 1, default: 0), "mtx_t");
_Static_assert(_Generic((cnd_t *)0, pthread_cond_t *: 1, default: 0), "cnd_t");
_Static_assert(_Generic((tss_t)0, pthread_key_t: 1, default: 0), "tss_t");
_Static_assert(_Generic((once_flag *)0, pthread_once_t *: 1, default: 0), "once_flag");
#endif

static thread_local int per_thread;
static once_flag flag = ONCE_FLAG_INIT;
static mtx_t mutex;
static cnd_t cond;

static void once_routine(void)
{
}

static int start(void *argument)
{
    (void)argument;
    return per_thread;
}

static void destructor(void *value)
{
    (void)value;
}

int headers_c11_use(void);
int headers_c11_use(void)
{
    thrd_t thread;
    thrd_start_t start_routine = start;
    tss_dtor_t tss_destructor = destructor;
    tss_t key;
    struct timespec deadline, interval = {0, 1000};
    int result = 0;
    const int results[] = {thrd_success, thrd_busy, thrd_error, thrd_nomem, thrd_timedout};
    const int types[] = {mtx_plain, mtx_timed, mtx_plain | mtx_recursive,
                         mtx_timed | mtx_recursive};

    call_once(&flag, once_routine);
    timespec_get(&deadline, TIME_UTC);
    if (mtx_init(&mutex, types[1]) != thrd_success || cnd_init(&cond) != thrd_success)
        return results[2];
    mtx_lock(&mutex);
    mtx_trylock(&mutex);
    mtx_timedlock(&mutex, &deadline);
    cnd_timedwait(&cond, &mutex, &deadline);
    cnd_signal(&cond);
    cnd_broadcast(&cond);
    mtx_unlock(&mutex);
    if (thrd_create(&thread, start_routine, NULL) == thrd_success)
        thrd_join(thread, &result);
    if (thrd_create(&thread, start_routine, NULL) == thrd_success)
        thrd_detach(thread);
    if (tss_create(&key, tss_destructor) == thrd_success) {
        tss_set(key, &result);
        result += tss_get(key) != NULL;
        tss_delete(key);
    }
    thrd_sleep(&interval, NULL);
    thrd_yield();
    result += thrd_equal(thrd_current(), thrd_current());
    cnd_destroy(&cond);
    mtx_destroy(&mutex);
    if (result < 0)
        thrd_exit(result);
    return result + results[0];
}
