/*
 * clock.c - POSIX clocks and sleeps on Windows.
 *
 * CLOCK_REALTIME is GetSystemTimePreciseAsFileTime (Windows 8+), CLOCK_MONOTONIC
 * the performance counter. Deadlines of every timed wait read these through
 * slim_clock_now.
 */
#include "internal.h"

#define NANOSECONDS_PER_SECOND 1000000000LL
#define FILETIME_TICKS_PER_SECOND 10000000LL /* a FILETIME counts 100 ns ticks */
#define NANOSECONDS_PER_FILETIME_TICK 100LL
/* FILETIME counts from 1601-01-01; the Unix epoch is 11644473600 s later. */
#define FILETIME_TICKS_AT_UNIX_EPOCH 116444736000000000LL

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

int clock_gettime(clockid_t clock, struct timespec *now)
{
    if (now == NULL || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)) {
        errno = EINVAL;
        return -1;
    }
    slim_clock_now(clock, now);
    return 0;
}
