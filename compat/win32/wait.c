/*
 * wait.c - the one road every blocking call travels: deadlines and wait_on.
 *
 * A wait converts its deadline into a WaitOnAddress timeout afresh each time it
 * blocks, rounded up so that it never wakes before the deadline, and treats any
 * early return as a spurious wake: the caller re-checks its own condition and
 * comes back. WaitOnAddress keeps the wait in the process (no kernel object, no
 * wineserver round trip under Wine).
 */
#include "internal.h"

#define NANOSECONDS_PER_SECOND 1000000000LL
#define NANOSECONDS_PER_MILLISECOND 1000000LL
/* INFINITE is 0xFFFFFFFF: a finite timeout must stay below it. */
#define LONGEST_FINITE_TIMEOUT_MS (INFINITE - 1)

void slim_deadline_unlimited(struct slim_deadline *deadline)
{
    deadline->unlimited = 1;
    deadline->clock = CLOCK_MONOTONIC;
    deadline->at.tv_sec = 0;
    deadline->at.tv_nsec = 0;
}

int slim_deadline_absolute(struct slim_deadline *deadline, clockid_t clock,
                           const struct timespec *at)
{
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    if (slim_timespec_invalid(at))
        return EINVAL;
    deadline->unlimited = 0;
    deadline->clock = clock;
    deadline->at = *at;
    return 0;
}

/* Nanoseconds from now until the deadline; negative or zero once it has passed. */
static long long nanoseconds_left(const struct slim_deadline *deadline)
{
    struct timespec now;

    slim_clock_now(deadline->clock, &now);
    return ((long long)deadline->at.tv_sec - (long long)now.tv_sec) * NANOSECONDS_PER_SECOND +
           (deadline->at.tv_nsec - now.tv_nsec);
}

DWORD slim_deadline_remaining_ms(const struct slim_deadline *deadline)
{
    long long left, ms;

    if (deadline == NULL || deadline->unlimited)
        return INFINITE;
    left = nanoseconds_left(deadline);
    if (left <= 0)
        return 0;
    ms = (left + NANOSECONDS_PER_MILLISECOND - 1) / NANOSECONDS_PER_MILLISECOND;
    return ms > (long long)LONGEST_FINITE_TIMEOUT_MS ? LONGEST_FINITE_TIMEOUT_MS : (DWORD)ms;
}

int slim_deadline_passed(const struct slim_deadline *deadline)
{
    if (deadline == NULL || deadline->unlimited)
        return 0;
    return nanoseconds_left(deadline) <= 0;
}

int slim_wait_on(volatile long *word, long expected, const struct slim_deadline *deadline)
{
    DWORD timeout_ms = slim_deadline_remaining_ms(deadline);

    if (timeout_ms == 0)
        return ETIMEDOUT;
    if (WaitOnAddress(word, &expected, sizeof expected, timeout_ms))
        return 0;
    /* A timeout from WaitOnAddress is only a hint: the tick may have rounded it
     * short of a deadline on another clock. Report only what has really passed. */
    return slim_deadline_passed(deadline) ? ETIMEDOUT : 0;
}

int slim_errno_from_win32(DWORD win32_error)
{
    switch (win32_error) {
    case ERROR_SUCCESS:
        return 0;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_COMMITMENT_LIMIT:
        return ENOMEM;
    case ERROR_ACCESS_DENIED:
    case ERROR_PRIVILEGE_NOT_HELD:
        return EPERM;
    case ERROR_TIMEOUT:
    case WAIT_TIMEOUT:
        return ETIMEDOUT;
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
        return ENOENT;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        return EEXIST;
    case ERROR_MAX_THRDS_REACHED:
    case ERROR_TOO_MANY_SEMAPHORES:
    case ERROR_TOO_MANY_POSTS:
    case ERROR_NO_SYSTEM_RESOURCES:
        return EAGAIN;
    case ERROR_NOT_SUPPORTED:
    case ERROR_CALL_NOT_IMPLEMENTED:
        return ENOTSUP;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_INVALID_HANDLE:
        return ESRCH;
    default:
        return EINVAL;
    }
}
