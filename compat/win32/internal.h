/*
 * internal.h - the common base of slimpthreads' Windows implementation, which
 * every file of the library includes first (itself or through one of the
 * private headers below, which all begin with it): <windows.h> for Windows 8
 * (WaitOnAddress), the public headers with the inline paths turned off, the
 * table of where our code lies, the few calls between two files that share no
 * other header, the translation of errors, the one way to fail through errno
 * (slim_fail) and the library's one set of time units.
 *
 * The vocabulary lives in small headers, one each, so that a file includes
 * what it speaks: atomic.h (the atomics), spin.h (the spin helper, its
 * policies and constants, the cycle clock), wait.h (clocks, deadlines, the
 * one wait entry, slim_wait), sem_calls.h (the semaphores' calls),
 * thread_record.h (the per-thread record and its table), cancel_point.h
 * (cancellation points) and cancel_async.h (asynchronous cancellation);
 * compat/win32/README.md lists them all.
 *
 * Compiles without config.h so that the files can be vendored. Internal symbols
 * with external linkage all begin with slim_ so they never clash with an
 * application's or another library's (winpthreads', libgit2's) pthread_* shims.
 */
#ifndef SLIMPTHREADS_INTERNAL_H
#define SLIMPTHREADS_INTERNAL_H

/* ---- Where our code lies, for asynchronous cancellation (clang) ----
 * Clang's COFF assembler has no subsections, so the table below cannot be
 * built: instead every function of the library goes into one section,
 * .text$slim_code_b, which cancel_async.c brackets with two markers in
 * .text$slim_code_a and .text$slim_code_c. GNU ld and lld both sort .text$
 * sections by name after all of .text, as they do the .CRT$XC* tables, so our
 * code is one contiguous range whatever the link order, in a static library
 * or a DLL; an explicit section also overrides -ffunction-sections. The
 * section is an attribute pushed on every function declared from here on,
 * before any header, so that no out-of-line copy of a header's inline function
 * (code run inside our calls) lands outside the range; every file pops it at
 * its end (code_end.h), as clang requires. Not #pragma clang section: clang
 * before 19 drops its name on COFF and puts the code in a nameless section. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((section(".text$slim_code_b"))), apply_to = function)
#define SLIM_CODE_SECTION 1
#endif

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0602
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0602 /* Windows 8: WaitOnAddress */
#endif
#include <windows.h>
#include <winternl.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* The library defines the functions that pthread.h inlines into its callers. */
#define SLIMPTHREADS_NO_INLINE 1
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <threads.h>

/* MinGW-w64's <errno.h> has the POSIX codes we return (ETIMEDOUT, ENOTSUP,
 * EOWNERDEAD, ECANCELED, ...); we never invent our own numbers. */

/* __extension__: C11 assertions stay quiet in projects that vendor us with -std=gnu99 -pedantic. */
#define SLIM_STATIC_ASSERT(condition, message) __extension__ _Static_assert(condition, message)

/* ---- Where our code lies, for asynchronous cancellation (GCC) ----
 * Every file of the library includes this header first, so this block puts one
 * entry {first byte, end} of the file's .text into a table that cancel_async.c
 * brackets with two markers: the linker sorts .rdata$ sections by name, so the
 * table is contiguous whatever the link order (the same device as the C
 * runtime's .CRT$XC* initializer tables). GCC emits top-level asm before any
 * function, so the first label opens the file's code; .text subsection 8191
 * follows all of it. Where neither this table nor clang's section exists (GCC
 * for another processor), our code cannot be told from the program's, and
 * cancel_async.c then never stops a thread at an arbitrary instruction
 * (README.md). */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SLIM_CODE_TABLE 1
#if defined(__x86_64__)
#define SLIM_CODE_ADDRESS_DIRECTIVE ".quad"
#else
#define SLIM_CODE_ADDRESS_DIRECTIVE ".long"
#endif
__asm__(".text\n"
        ".Lslim_code_begin:\n"
        ".text 8191\n"
        ".Lslim_code_end:\n"
        ".section .rdata$slim_code_b,\"dr\"\n"
        ".balign 8\n"
        SLIM_CODE_ADDRESS_DIRECTIVE " .Lslim_code_begin, .Lslim_code_end\n"
        ".text\n");
#endif

/* One entry of that table. */
struct slim_code_range {
    const char *begin;
    const char *end;
};

/* ---- Calls between two files that share no other header ---- */

/* The Windows thread priority for a POSIX policy and priority: EINVAL for an
 * unknown policy or a priority outside sched_get_priority_min/max (sched.c). */
int slim_priority_to_win32(int policy, int priority, int *win32_priority);

/* The POSIX priority that reports a Windows thread priority under policy. */
int slim_priority_from_win32(int policy, int win32_priority);

/* A condvar wait has just relocked the mutex: its waiters take over eagerly
 * from now on (mutex.c, "Two ways to spin"). */
void slim_mutex_cond_waited(pthread_mutex_t *mutex);

/* Nonzero for a process-shared mutex (mutex_shared.c): cond.c's waits with
 * one work across processes. */
int slim_mutex_is_shared(const pthread_mutex_t *mutex);

/* The work of a checked public call (check.h) that another file's call
 * shares: the library never calls its own public names, so the checker only
 * sees the caller's call. mutex.c: cond.c's unlock and relock, C11's mtx_*;
 * cond.c: C11's cnd_*. POSIX results. */
int slim_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int slim_mutex_destroy(pthread_mutex_t *mutex);
int slim_mutex_lock(pthread_mutex_t *mutex);
int slim_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime);
int slim_mutex_unlock(pthread_mutex_t *mutex);
int slim_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int slim_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                        const struct timespec *abstime);
int slim_cond_destroy(pthread_cond_t *cond);

/* Gives a suspended new thread the name and affinity its attribute holds (np.c):
 * 0, or the error pthread_setname_np / pthread_setaffinity_np gave. */
int slim_attr_apply_np(const pthread_attr_t *attr, pthread_t thread);

/* ---- Errors ---- */

/* The POSIX error code for a Win32 error code. */
int slim_errno_from_win32(DWORD win32_error);

/* How a call that reports through errno fails: errno = error, return -1. */
static inline int slim_fail(int error)
{
    errno = error;
    return -1;
}

/* C11's result (threads.h) for a pthread call's error code, as glibc maps it. */
static inline int slim_thrd_result(int error)
{
    switch (error) {
    case 0:
        return thrd_success;
    case EBUSY:
        return thrd_busy;
    case ETIMEDOUT:
        return thrd_timedout;
    case ENOMEM:
        return thrd_nomem;
    default:
        return thrd_error;
    }
}

/* ---- Time units: the library's one set (the arithmetic is wait.c's) ---- */

#define SLIM_NANOSECONDS_PER_SECOND 1000000000LL
#define SLIM_NANOSECONDS_PER_MILLISECOND 1000000LL
#define SLIM_NANOSECONDS_PER_MICROSECOND 1000LL
#define SLIM_MICROSECONDS_PER_SECOND 1000000LL
#define SLIM_NANOSECONDS_PER_FILETIME_TICK 100LL /* FILETIME and NT intervals count 100 ns */
#define SLIM_FILETIME_TICKS_PER_SECOND \
    (SLIM_NANOSECONDS_PER_SECOND / SLIM_NANOSECONDS_PER_FILETIME_TICK)

/* Validates a timespec used as an interval or deadline: EINVAL or 0. */
static inline int slim_timespec_invalid(const struct timespec *time)
{
    return time == NULL || time->tv_nsec < 0 || time->tv_nsec >= SLIM_NANOSECONDS_PER_SECOND;
}

/* 0 for PROCESS_PRIVATE and PROCESS_SHARED (shared.h: what sharing costs and
 * how a shared object sleeps), else EINVAL. */
static inline int slim_pshared_error(int pshared)
{
    return pshared == PTHREAD_PROCESS_PRIVATE || pshared == PTHREAD_PROCESS_SHARED ? 0 : EINVAL;
}

#endif /* SLIMPTHREADS_INTERNAL_H */
