/*
 * clock.c - POSIX clocks, sleeps and priority ranges on Windows.
 *
 * Clocks: CLOCK_REALTIME is GetSystemTimePreciseAsFileTime (Windows 8+),
 * CLOCK_REALTIME_COARSE the tick-updated GetSystemTimeAsFileTime,
 * CLOCK_MONOTONIC the performance counter. The CPU-time clocks add kernel and
 * user time from GetProcessTimes / GetThreadTimes: real time units (100 ns),
 * unlike QueryThreadCycleTime's cycles, whose frequency Windows does not tell.
 * pthread_getcpuclockid names another thread's CPU clock by its Win32 id,
 * encoded below zero where no POSIX clock lives. Deadlines of every timed wait
 * read these clocks through slim_clock_now.
 *
 * Sleeps wait on a high-resolution waitable timer (Windows 10 1803+, falling
 * back to an ordinary one), one per thread, kept in its record and closed at
 * its exit: WaitOnAddress and Sleep round up to the 15.6 ms tick. The timer is
 * always set relative to now and the sleep re-reads its clock after every wake,
 * so it never returns early; the wait is alertable, so an APC can cut it short.
 */
#include "internal.h"

#define NANOSECONDS_PER_SECOND 1000000000LL
#define FILETIME_TICKS_PER_SECOND 10000000LL /* a FILETIME counts 100 ns ticks */
#define NANOSECONDS_PER_FILETIME_TICK 100LL
/* FILETIME counts from 1601-01-01; the Unix epoch is 11644473600 s later. */
#define FILETIME_TICKS_AT_UNIX_EPOCH 116444736000000000LL
#define NANOSECONDS_PER_MILLISECOND 1000000LL
/* Sleeps compute in nanoseconds; times beyond this (292 years) saturate. */
#define SATURATING_SECONDS (LLONG_MAX / NANOSECONDS_PER_SECOND - 1)
/* One tick-bound sleep at most, the loop going on (INFINITE is reserved). */
#define LONGEST_TICK_SLEEP_MS (INFINITE - 1)

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* Another thread's CPU-time clock: THREAD_CLOCK_BASE - Win32 thread id. */
#define THREAD_CLOCK_BASE (-2)
#define THREAD_CLOCK_HIGHEST_ID ((DWORD)(THREAD_CLOCK_BASE - INT_MIN))

static void timespec_from_filetime_ticks(long long ticks, struct timespec *out)
{
    out->tv_sec = (time_t)(ticks / FILETIME_TICKS_PER_SECOND);
    out->tv_nsec = (long)((ticks % FILETIME_TICKS_PER_SECOND) * NANOSECONDS_PER_FILETIME_TICK);
}

static long long filetime_ticks(const FILETIME *time)
{
    return (long long)(((unsigned long long)time->dwHighDateTime << 32) | time->dwLowDateTime);
}

static void realtime_now(struct timespec *now)
{
    FILETIME system_time;

    GetSystemTimePreciseAsFileTime(&system_time);
    timespec_from_filetime_ticks(filetime_ticks(&system_time) - FILETIME_TICKS_AT_UNIX_EPOCH, now);
}

static void realtime_coarse_now(struct timespec *now)
{
    FILETIME system_time;

    GetSystemTimeAsFileTime(&system_time);
    timespec_from_filetime_ticks(filetime_ticks(&system_time) - FILETIME_TICKS_AT_UNIX_EPOCH, now);
}

static long long performance_frequency(void)
{
    static volatile long long frequency; /* constant since boot: racing writers agree */
    LARGE_INTEGER value;

    if (frequency == 0) {
        QueryPerformanceFrequency(&value);
        frequency = value.QuadPart;
    }
    return frequency;
}

static void monotonic_now(struct timespec *now)
{
    LARGE_INTEGER counter;
    long long frequency = performance_frequency();

    QueryPerformanceCounter(&counter);
    now->tv_sec = (time_t)(counter.QuadPart / frequency);
    now->tv_nsec = (long)((counter.QuadPart % frequency) * NANOSECONDS_PER_SECOND / frequency);
}

void slim_clock_now(clockid_t clock, struct timespec *now)
{
    if (clock == CLOCK_MONOTONIC)
        monotonic_now(now);
    else
        realtime_now(now);
}

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
    timespec_from_filetime_ticks(filetime_ticks(&kernel) + filetime_ticks(&user), now);
    return 0;
}

static int is_thread_clock(clockid_t clock)
{
    return clock <= THREAD_CLOCK_BASE;
}

static int other_thread_cpu_time(clockid_t clock, struct timespec *now)
{
    HANDLE thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE,
                               (DWORD)(THREAD_CLOCK_BASE - clock));
    int error;

    if (thread == NULL)
        return EINVAL; /* the thread is gone: its clock no longer exists */
    error = cpu_time(thread, now);
    CloseHandle(thread);
    return error;
}

int clock_gettime(clockid_t clock, struct timespec *now)
{
    int error = 0;

    if (now == NULL) {
        errno = EINVAL;
        return -1;
    }
    switch (clock) {
    case CLOCK_REALTIME:
        realtime_now(now);
        break;
    case CLOCK_REALTIME_COARSE:
        realtime_coarse_now(now);
        break;
    case CLOCK_MONOTONIC:
        monotonic_now(now);
        break;
    case CLOCK_PROCESS_CPUTIME_ID:
        error = cpu_time(NULL, now);
        break;
    case CLOCK_THREAD_CPUTIME_ID:
        error = cpu_time(GetCurrentThread(), now);
        break;
    default:
        error = is_thread_clock(clock) ? other_thread_cpu_time(clock, now) : EINVAL;
        break;
    }
    if (error != 0) {
        errno = error;
        return -1;
    }
    return 0;
}

/* The timer interrupt period, which paces the coarse clock and CPU-time accounting. */
static long tick_nanoseconds(void)
{
    DWORD adjustment, increment;
    BOOL disabled;

    if (!GetSystemTimeAdjustment(&adjustment, &increment, &disabled) || increment == 0)
        increment = 156250; /* the usual 15.625 ms */
    return (long)(increment * NANOSECONDS_PER_FILETIME_TICK);
}

int clock_getres(clockid_t clock, struct timespec *resolution)
{
    long nanoseconds;

    switch (clock) {
    case CLOCK_REALTIME:
        nanoseconds = NANOSECONDS_PER_FILETIME_TICK;
        break;
    case CLOCK_MONOTONIC:
        nanoseconds = (long)((NANOSECONDS_PER_SECOND + performance_frequency() - 1) /
                             performance_frequency());
        break;
    case CLOCK_REALTIME_COARSE:
    case CLOCK_PROCESS_CPUTIME_ID:
    case CLOCK_THREAD_CPUTIME_ID:
        nanoseconds = tick_nanoseconds();
        break;
    default:
        if (!is_thread_clock(clock)) {
            errno = EINVAL;
            return -1;
        }
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
    long long ticks;
    FILETIME file_time;
    SYSTEMTIME system_time;
    int error;

    if (clock != CLOCK_REALTIME || slim_timespec_invalid(now) || now->tv_sec < 0) {
        errno = EINVAL;
        return -1;
    }
    ticks = (long long)now->tv_sec * FILETIME_TICKS_PER_SECOND +
            now->tv_nsec / NANOSECONDS_PER_FILETIME_TICK + FILETIME_TICKS_AT_UNIX_EPOCH;
    file_time.dwLowDateTime = (DWORD)ticks;
    file_time.dwHighDateTime = (DWORD)((unsigned long long)ticks >> 32);
    if (!FileTimeToSystemTime(&file_time, &system_time)) {
        errno = EINVAL;
        return -1;
    }
    if (!SetSystemTime(&system_time)) {
        error = slim_errno_from_win32(GetLastError());
        errno = error == EPERM || error == EINVAL ? error : EPERM;
        return -1;
    }
    return 0;
}

/* ---- Sleeping ---- */

static HANDLE sleep_timer(struct slim_thread *self)
{
    if (self->sleep_timer == NULL) {
        self->sleep_timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                                   TIMER_MODIFY_STATE | SYNCHRONIZE);
        if (self->sleep_timer == NULL) /* before Windows 10 1803: tick-bound, still correct */
            self->sleep_timer = CreateWaitableTimerExW(NULL, NULL, 0,
                                                       TIMER_MODIFY_STATE | SYNCHRONIZE);
    }
    return self->sleep_timer;
}

/* A timespec as nanoseconds, saturating where a long long ends. */
static long long nanoseconds_of(const struct timespec *time)
{
    long long seconds = time->tv_sec;

    if (seconds > SATURATING_SECONDS)
        return LLONG_MAX;
    if (seconds < -SATURATING_SECONDS)
        return -LLONG_MAX;
    return seconds * NANOSECONDS_PER_SECOND + time->tv_nsec;
}

static long long nanoseconds_now(clockid_t clock)
{
    struct timespec now;

    slim_clock_now(clock, &now);
    return nanoseconds_of(&now);
}

/* Without a timer: alertable, tick-bound, still never early. */
static void sleep_by_ticks(long long left)
{
    long long ms = (left + NANOSECONDS_PER_MILLISECOND - 1) / NANOSECONDS_PER_MILLISECOND;

    SleepEx(ms > LONGEST_TICK_SLEEP_MS ? LONGEST_TICK_SLEEP_MS : (DWORD)ms, TRUE);
}

/* Sleeps until the clock (REALTIME or MONOTONIC) reads target nanoseconds. */
static void sleep_until(clockid_t clock, long long target)
{
    HANDLE timer = sleep_timer(slim_self());
    long long left;
    LARGE_INTEGER due;

    /* A cancellation point: an APC from pthread_cancel ends the alertable wait. */
    pthread_testcancel();
    while ((left = target - nanoseconds_now(clock)) > 0) {
        pthread_testcancel();
        /* Negative: relative, in 100 ns ticks, rounded up so as never to wake early. */
        due.QuadPart = -(left / NANOSECONDS_PER_FILETIME_TICK + 1);
        if (timer == NULL || !SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE) ||
            WaitForSingleObjectEx(timer, INFINITE, TRUE) == WAIT_FAILED)
            sleep_by_ticks(left);
    }
}

/* Windows delivers no signals that interrupt a sleep, so a sleep never ends
 * early and the remaining time is never written (POSIX writes it on EINTR only). */
int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request,
                    struct timespec *remain)
{
    long long now, interval;

    (void)remain;
    if (clock == CLOCK_THREAD_CPUTIME_ID)
        return EINVAL; /* POSIX: the calling thread's own CPU clock is refused */
    if (clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_REALTIME_COARSE ||
        is_thread_clock(clock))
        return ENOTSUP;
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    if ((flags & ~TIMER_ABSTIME) != 0 || slim_timespec_invalid(request))
        return EINVAL;
    if (flags & TIMER_ABSTIME) {
        sleep_until(clock, nanoseconds_of(request));
        return 0;
    }
    interval = nanoseconds_of(request);
    if (interval < 0)
        return EINVAL;
    /* A relative sleep measures an interval: the monotonic clock, whatever the
     * clock named, as POSIX asks (setting the realtime clock must not change it). */
    now = nanoseconds_now(CLOCK_MONOTONIC);
    sleep_until(CLOCK_MONOTONIC, interval > LLONG_MAX - now ? LLONG_MAX : now + interval);
    return 0;
}

int nanosleep(const struct timespec *request, struct timespec *remain)
{
    int error = clock_nanosleep(CLOCK_REALTIME, 0, request, remain);

    if (error != 0) {
        errno = error;
        return -1;
    }
    return 0;
}

/* ---- Yielding and priority ranges ---- */

int sched_yield(void)
{
    SwitchToThread();
    return 0;
}

/* POSIX priorities of one policy mapped onto Windows thread priorities: each row
 * covers [lowest, highest]. SCHED_OTHER uses the Windows values themselves
 * (0 is normal, as POSIX programs pass for SCHED_OTHER); SCHED_FIFO and SCHED_RR
 * take Linux's 1..99 and run above normal, as real-time threads do on Linux. */
struct priority_row {
    int lowest, highest, win32;
};

static const struct priority_row other_priorities[] = {
    {-15, -15, THREAD_PRIORITY_IDLE},
    {-14, -2, THREAD_PRIORITY_LOWEST},
    {-1, -1, THREAD_PRIORITY_BELOW_NORMAL},
    {0, 0, THREAD_PRIORITY_NORMAL},
    {1, 1, THREAD_PRIORITY_ABOVE_NORMAL},
    {2, 14, THREAD_PRIORITY_HIGHEST},
    {15, 15, THREAD_PRIORITY_TIME_CRITICAL},
};

static const struct priority_row realtime_priorities[] = {
    {1, 33, THREAD_PRIORITY_ABOVE_NORMAL},
    {34, 66, THREAD_PRIORITY_HIGHEST},
    {67, 99, THREAD_PRIORITY_TIME_CRITICAL},
};

#define ROWS(table) (sizeof(table) / sizeof((table)[0]))

/* The rows of policy, or NULL for an unknown policy. */
static const struct priority_row *priority_rows(int policy, size_t *count)
{
    switch (policy) {
    case SCHED_OTHER:
        *count = ROWS(other_priorities);
        return other_priorities;
    case SCHED_FIFO:
    case SCHED_RR:
        *count = ROWS(realtime_priorities);
        return realtime_priorities;
    default:
        return NULL;
    }
}

int sched_get_priority_min(int policy)
{
    size_t count;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL) {
        errno = EINVAL;
        return -1;
    }
    return rows[0].lowest;
}

int sched_get_priority_max(int policy)
{
    size_t count;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL) {
        errno = EINVAL;
        return -1;
    }
    return rows[count - 1].highest;
}

int slim_priority_to_win32(int policy, int priority, int *win32_priority)
{
    size_t count, row;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL)
        return EINVAL;
    for (row = 0; row < count; row++) {
        if (priority >= rows[row].lowest && priority <= rows[row].highest) {
            *win32_priority = rows[row].win32;
            return 0;
        }
    }
    return EINVAL;
}

/* The row holding the Windows priority, or the nearest one above it; its own
 * value when the row holds it (SCHED_OTHER), else its lowest priority. */
int slim_priority_from_win32(int policy, int win32_priority)
{
    size_t count, row;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL)
        return 0;
    for (row = 0; row + 1 < count && rows[row].win32 < win32_priority; row++)
        continue;
    if (win32_priority >= rows[row].lowest && win32_priority <= rows[row].highest)
        return win32_priority;
    return rows[row].lowest;
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
