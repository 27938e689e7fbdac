/*
 * clock.c - the POSIX clock API (clock_gettime, getres, settime,
 * clock_nanosleep, nanosleep, pthread_getcpuclockid) on the clock readers and the wait entry
 * at the bottom of the library (wait.c).
 *
 * CLOCK_REALTIME, CLOCK_REALTIME_COARSE and CLOCK_MONOTONIC are read by
 * slim_clock_now (wait.c). The CPU-time clocks add kernel and user time from
 * GetProcessTimes / GetThreadTimes: real time units (100 ns), unlike
 * QueryThreadCycleTime's cycles, whose frequency Windows does not tell.
 * pthread_getcpuclockid names another thread's CPU clock by its Win32 id,
 * encoded below zero where no POSIX clock lives (THREAD_CLOCK_BASE - id). Every
 * function taking a clockid_t checks such an id with Windows (a live thread of
 * this process has that id) and gives EINVAL otherwise; nothing of ours is
 * dereferenced. Limit: once the thread has exited, Windows may give its id to a
 * new thread, whose CPU clock the old id then names.
 *
 * Sleeps are a deadline (absolute, or relative on CLOCK_MONOTONIC) handed to
 * the road (slim_wait with nothing to wait for), a cancellation point that
 * never returns early.
 */
#include "wait.h"
#include "cancel_point.h"

/* Another thread's CPU-time clock: THREAD_CLOCK_BASE - Win32 thread id. */
#define THREAD_CLOCK_BASE (-2)
#define THREAD_CLOCK_HIGHEST_ID ((DWORD)(THREAD_CLOCK_BASE - INT_MIN))


/* Kernel plus user time of a thread (GetThreadTimes) or the process. */
static int cpu_time(HANDLE thread, struct timespec *now)
{
    FILETIME creation, exit, kernel, user;
    BOOL ok;

    if (thread != NULL)
        ok = GetThreadTimes(thread, &creation, &exit, &kernel, &user);
    else
        ok = GetProcessTimes(GetCurrentProcess(), &creation, &exit, &kernel, &user);
    if (!ok)
        return EINVAL;
    slim_timespec_from_ticks(slim_filetime_ticks(&kernel) + slim_filetime_ticks(&user), now);
    return 0;
}

/* The thread whose CPU clock id names, or NULL when it names none: the id is
 * checked with Windows alone (a live thread of this process with that Win32
 * id), never by reading a record that a join may have freed. */
static HANDLE open_thread_clock(clockid_t clock)
{
    HANDLE thread;

    if (clock > THREAD_CLOCK_BASE)
        return NULL;
    thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE,
                        (DWORD)(THREAD_CLOCK_BASE - clock));
    if (thread == NULL)
        return NULL; /* no such thread, or it is gone: its clock no longer exists */
    if (GetProcessIdOfThread(thread) != GetCurrentProcessId()) {
        CloseHandle(thread); /* another process's thread: not a clock of ours */
        return NULL;
    }
    return thread;
}

static int is_thread_clock(clockid_t clock)
{
    HANDLE thread = open_thread_clock(clock);

    if (thread == NULL)
        return 0;
    CloseHandle(thread);
    return 1;
}

static int other_thread_cpu_time(clockid_t clock, struct timespec *now)
{
    HANDLE thread = open_thread_clock(clock);
    int error;

    if (thread == NULL)
        return EINVAL;
    error = cpu_time(thread, now);
    CloseHandle(thread);
    return error;
}

int clock_gettime(clockid_t clock, struct timespec *now)
{
    int error = 0;

    if (now == NULL)
        return slim_fail(EINVAL);
    switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC:
        slim_clock_now(clock, now);
        break;
    case CLOCK_PROCESS_CPUTIME_ID:
        error = cpu_time(NULL, now);
        break;
    case CLOCK_THREAD_CPUTIME_ID:
        error = cpu_time(GetCurrentThread(), now);
        break;
    default:
        error = other_thread_cpu_time(clock, now);
        break;
    }
    if (error != 0)
        return slim_fail(error);
    return 0;
}

/* The timer interrupt period, which paces the coarse clock and CPU-time accounting. */
static long tick_nanoseconds(void)
{
    DWORD adjustment, increment;
    BOOL disabled;

    if (!GetSystemTimeAdjustment(&adjustment, &increment, &disabled) || increment == 0)
        increment = 156250; /* the usual 15.625 ms */
    return (long)(increment * SLIM_NANOSECONDS_PER_FILETIME_TICK);
}

int clock_getres(clockid_t clock, struct timespec *resolution)
{
    long nanoseconds;

    switch (clock) {
    case CLOCK_REALTIME:
        nanoseconds = SLIM_NANOSECONDS_PER_FILETIME_TICK;
        break;
    case CLOCK_MONOTONIC:
        nanoseconds = (long)((SLIM_NANOSECONDS_PER_SECOND + slim_performance_frequency() - 1) /
                             slim_performance_frequency());
        break;
    case CLOCK_REALTIME_COARSE:
    case CLOCK_PROCESS_CPUTIME_ID:
    case CLOCK_THREAD_CPUTIME_ID:
        nanoseconds = tick_nanoseconds();
        break;
    default:
        if (!is_thread_clock(clock))
            return slim_fail(EINVAL);
        nanoseconds = tick_nanoseconds();
        break;
    }
    if (resolution != NULL) {
        resolution->tv_sec = 0;
        resolution->tv_nsec = nanoseconds;
    }
    return 0;
}

/* Only CLOCK_REALTIME can be set (POSIX: EINVAL for the others), and only with
 * the privilege Windows asks for: EPERM without it. */
int clock_settime(clockid_t clock, const struct timespec *now)
{
    FILETIME file_time;
    SYSTEMTIME system_time;
    int error;

    /* A time FILETIME cannot hold (past year 30828) is EINVAL, not an overflow. */
    if (clock != CLOCK_REALTIME || slim_timespec_invalid(now) ||
        slim_filetime_of_realtime(now, &file_time) != 0)
        return slim_fail(EINVAL);
    if (!FileTimeToSystemTime(&file_time, &system_time))
        return slim_fail(EINVAL);
    if (!SetSystemTime(&system_time)) {
        error = slim_errno_from_win32(GetLastError());
        return slim_fail(error == EPERM || error == EINVAL ? error : EPERM);
    }
    return 0;
}

/* ---- Sleeping ---- */

/* Windows delivers no signals that interrupt a sleep, so a sleep never ends
 * early and the remaining time is never written (POSIX writes it on EINTR only). */
int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request,
                    struct timespec *remain)
{
    struct slim_deadline deadline;
    int error;

    (void)remain;
    slim_cancel_point_entry(); /* also for a sleep of zero or a time already past */
    if (clock == CLOCK_THREAD_CPUTIME_ID)
        return EINVAL; /* POSIX: the calling thread's own CPU clock is refused */
    if (clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_REALTIME_COARSE ||
        is_thread_clock(clock))
        return ENOTSUP;
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    if ((flags & ~TIMER_ABSTIME) != 0)
        return EINVAL;
    /* A relative sleep measures an interval: the monotonic clock, whatever the
     * clock named, as POSIX asks (setting the realtime clock must not change it). */
    if (flags & TIMER_ABSTIME)
        error = slim_deadline_absolute(&deadline, clock, request);
    else
        error = slim_deadline_relative(&deadline, request);
    if (error != 0)
        return error;
    if (slim_wait(&(const struct slim_wait_target){NULL, 0, NULL, NULL}, &deadline,
                  SLIM_WAIT_CANCELLABLE) == ECANCELED)
        slim_cancel_act();
    return 0;
}

int nanosleep(const struct timespec *request, struct timespec *remain)
{
    int error = clock_nanosleep(CLOCK_REALTIME, 0, request, remain);

    if (error != 0)
        return slim_fail(error);
    return 0;
}

/* ---- Yielding ---- */

int sched_yield(void)
{
    slim_yield();
    return 0;
}

/* ---- Per-thread CPU clocks ---- */

int pthread_getcpuclockid(pthread_t thread, clockid_t *clock)
{
    struct slim_thread *target = slim_thread_checked(thread);

    if (target == NULL)
        return ESRCH;
    if (clock == NULL)
        return EINVAL;
    if (target->id > THREAD_CLOCK_HIGHEST_ID)
        return ENOENT; /* an id too large to encode in a clockid_t */
    *clock = (clockid_t)(THREAD_CLOCK_BASE - (long long)target->id);
    return 0;
}

#include "code_end.h"
