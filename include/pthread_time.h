/*
 * pthread_time.h - slimpthreads: POSIX clocks and sleeps.
 *
 * MinGW-w64's <time.h> includes <pthread_time.h> from winpthreads; with our
 * include/ first on the path it finds this one instead, so clock_gettime,
 * nanosleep and friends resolve to slimpthreads and never to libwinpthread.
 * The prototypes match MinGW-w64's, so either header may come first.
 */
#ifndef SLIMPTHREADS_PTHREAD_TIME_H
#define SLIMPTHREADS_PTHREAD_TIME_H

#include "slimpthreads_abi.h"

#include <time.h>

/* Claim winpthreads' guard: its pthread_time.h must not add a second copy. */
#ifndef WIN_PTHREADS_TIME_H
#define WIN_PTHREADS_TIME_H
#endif

/* As MinGW-w64 declares them: clock_gettime and nanosleep are provided, although
 * the POSIX timer_* family is not (see README.md). */
#ifndef _POSIX_TIMERS
#define _POSIX_TIMERS 200809L
#endif
#ifndef _POSIX_MONOTONIC_CLOCK
#define _POSIX_MONOTONIC_CLOCK 200809L
#endif
#ifndef _POSIX_CPUTIME
#define _POSIX_CPUTIME 200809L
#endif
#ifndef _POSIX_THREAD_CPUTIME
#define _POSIX_THREAD_CPUTIME 200809L
#endif

#ifndef __clockid_t_defined
typedef int clockid_t;
#define __clockid_t_defined 1
#endif

#ifndef TIMER_ABSTIME
#define TIMER_ABSTIME 1
#endif
#ifndef CLOCK_REALTIME
#define CLOCK_REALTIME 0
#endif
#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#endif
#ifndef CLOCK_PROCESS_CPUTIME_ID
#define CLOCK_PROCESS_CPUTIME_ID 2
#endif
#ifndef CLOCK_THREAD_CPUTIME_ID
#define CLOCK_THREAD_CPUTIME_ID 3
#endif
#ifndef CLOCK_REALTIME_COARSE
#define CLOCK_REALTIME_COARSE 4
#endif

#ifdef __cplusplus
extern "C" {
#endif

int __cdecl nanosleep(const struct timespec *request, struct timespec *remain)
    SLIMPTHREADS_ABI(nanosleep);
int __cdecl clock_nanosleep(clockid_t clock_id, int flags, const struct timespec *request,
                            struct timespec *remain) SLIMPTHREADS_ABI(clock_nanosleep);
int __cdecl clock_getres(clockid_t clock_id, struct timespec *resolution)
    SLIMPTHREADS_ABI(clock_getres);
int __cdecl clock_gettime(clockid_t clock_id, struct timespec *now)
    SLIMPTHREADS_ABI(clock_gettime);
int __cdecl clock_settime(clockid_t clock_id, const struct timespec *now)
    SLIMPTHREADS_ABI(clock_settime);

#ifdef __cplusplus
}
#endif

#endif /* SLIMPTHREADS_PTHREAD_TIME_H */
