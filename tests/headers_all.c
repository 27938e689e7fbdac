/*
 * headers_all.c - compiled by tests/headers.sh as C99, C11 and C++ with
 * -pedantic -Werror: all of slimpthreads' headers together with the MinGW-w64
 * headers that pull in winpthreads' pthread_time.h, pthread_signal.h and
 * pthread_unistd.h, in the order HEADERS_ORDER selects.
 */
#if HEADERS_ORDER == 1
#include <time.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#else
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>
#endif

#ifndef SLIMPTHREADS_PTHREAD_TIME_H
#error "<time.h> did not pick up slimpthreads' pthread_time.h"
#endif
#ifndef SLIMPTHREADS_PTHREAD_SIGNAL_H
#error "<signal.h> did not pick up slimpthreads' pthread_signal.h"
#endif
#ifdef pthread_sigmask
#error "pthread_sigmask must be a function, not winpthreads' macro"
#endif
#if _POSIX_THREADS <= 0 || _POSIX_READER_WRITER_LOCKS <= 0 || _POSIX_BARRIERS <= 0
#error "the POSIX options slimpthreads provides are not advertised"
#endif

/* Static initializers, spelled as programs spell them. */
static pthread_mutex_t plain_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive_mutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t errorcheck_mutex = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void nothing(void)
{
}

static void cleanup(void *argument)
{
    (void)argument;
}

int headers_all_use(void);
int headers_all_use(void)
{
    pthread_t thread = 0; /* a scalar: zeroed, compared, printed */
    struct timespec now;
    sigset_t set;
    sem_t sem;
    cpu_set_t cpus;
    int result = 0;

    pthread_cleanup_push(cleanup, NULL);
    if (thread == pthread_self() || pthread_equal(thread, pthread_self()))
        result = 1;
    pthread_cleanup_pop(0);
    clock_gettime(CLOCK_MONOTONIC, &now);
    sigemptyset(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    sem_init(&sem, 0, 1);
    pthread_once(&once, nothing);
    pthread_mutex_lock(&plain_mutex);
    pthread_mutex_lock(&recursive_mutex);
    pthread_mutex_lock(&errorcheck_mutex);
    pthread_rwlock_rdlock(&rwlock);
    pthread_cond_signal(&cond);
    return result + CPU_ISSET(0, &cpus) + (int)(unsigned long)(uintptr_t)thread;
}
