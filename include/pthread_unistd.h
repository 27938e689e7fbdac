/*
 * pthread_unistd.h - slimpthreads: the POSIX options this library provides.
 *
 * MinGW-w64's <unistd.h> includes <pthread_unistd.h>, and so does our
 * <pthread.h>, as winpthreads' does; this copy, found first on the include
 * path, advertises what slimpthreads implements, and declares the
 * sleeps that are cancellation points here: sleep and usleep (which replace
 * libmingwex's at link time, with the same types as MinGW-w64's <unistd.h>)
 * and pause, which blocks until the thread is cancelled (Windows delivers no
 * signals that would end it).
 */
#ifndef SLIMPTHREADS_PTHREAD_UNISTD_H
#define SLIMPTHREADS_PTHREAD_UNISTD_H

#ifndef WIN_PTHREADS_UNISTD_H
#define WIN_PTHREADS_UNISTD_H
#endif

#undef _POSIX_THREADS
#define _POSIX_THREADS 200809L
#undef _POSIX_READER_WRITER_LOCKS
#define _POSIX_READER_WRITER_LOCKS 200809L
#undef _POSIX_SPIN_LOCKS
#define _POSIX_SPIN_LOCKS 200809L
#undef _POSIX_BARRIERS
#define _POSIX_BARRIERS 200809L
#undef _POSIX_TIMEOUTS
#define _POSIX_TIMEOUTS 200809L
#undef _POSIX_CLOCK_SELECTION
#define _POSIX_CLOCK_SELECTION 200809L
#undef _POSIX_SEMAPHORES
#define _POSIX_SEMAPHORES 200809L
#undef _POSIX_THREAD_SAFE_FUNCTIONS
#define _POSIX_THREAD_SAFE_FUNCTIONS 200809L
#undef _POSIX_THREAD_ATTR_STACKSIZE
#define _POSIX_THREAD_ATTR_STACKSIZE 200809L
#undef _POSIX_THREAD_PRIORITY_SCHEDULING
#define _POSIX_THREAD_PRIORITY_SCHEDULING 200809L
#undef _POSIX_ROBUST_MUTEXES
#define _POSIX_ROBUST_MUTEXES 200809L
#undef _POSIX_THREAD_PROCESS_SHARED
#define _POSIX_THREAD_PROCESS_SHARED 200809L
/* Not provided: stack addresses, priority inheritance and protection (a
 * CRITICAL_SECTION cannot carry them); see README.md. */
#undef _POSIX_THREAD_ATTR_STACKADDR
#define _POSIX_THREAD_ATTR_STACKADDR (-1)
#undef _POSIX_THREAD_PRIO_INHERIT
#define _POSIX_THREAD_PRIO_INHERIT (-1)
#undef _POSIX_THREAD_PRIO_PROTECT
#define _POSIX_THREAD_PRIO_PROTECT (-1)

#include "slimpthreads_abi.h"
#include <sys/types.h> /* useconds_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The amalgamated drop-in defines SLIMPTHREADS_NO_SLEEP_FUNCTIONS: a project
 * that vendors us keeps its own sleep (git has one). */
#ifndef SLIMPTHREADS_NO_SLEEP_FUNCTIONS
/* Declared as MinGW-w64's <unistd.h> declares them, attributes included: in
 * C++ clang takes __MINGW_NOTHROW for an exception specification, and two
 * declarations that differ in it do not compile. They are nothrow indeed: a
 * cancelled thread leaves through _endthreadex, never by a C++ exception. */
#pragma push_macro("sleep")
#undef sleep
unsigned int __cdecl sleep(unsigned int seconds) SLIMPTHREADS_ABI(sleep);
#pragma pop_macro("sleep")
int __cdecl __MINGW_NOTHROW usleep(useconds_t microseconds) SLIMPTHREADS_ABI(usleep);
int __cdecl pause(void) SLIMPTHREADS_ABI(pause);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SLIMPTHREADS_PTHREAD_UNISTD_H */
