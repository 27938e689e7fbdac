/*
 * wait.c - the bottom of the library: the clock readers, the deadline, and the
 * one wait entry that every blocking call travels.
 *
 * Clocks: CLOCK_REALTIME is GetSystemTimePreciseAsFileTime (Windows 8+),
 * CLOCK_REALTIME_COARSE the tick-updated GetSystemTimeAsFileTime,
 * CLOCK_MONOTONIC the performance counter. clock.c builds the POSIX clock API
 * on these readers; nothing here calls up into it.
 *
 * A deadline is saturating nanoseconds on REALTIME or MONOTONIC: a timespec
 * beyond about 292 years from the epoch becomes SLIM_DEADLINE_NEVER (or the far
 * past), so no deadline arithmetic can overflow, and "too far for Windows to
 * count" means "forever", never "at once".
 *
 * The road, slim_wait, waits on one of three things, with one loop: look at
 * the target, at a cancellation request, at the deadline (wait.h's precedence
 * rule is that order), then wait at most what is left (rounded up, so never
 * early) and look again after any return. States of a wait: BLOCKED (asleep),
 * HAPPENED (0: the word changed, the handle was signalled), CANCELLED
 * (ECANCELED, cancellable waits only; cancel.c's bookkeeping is called from
 * here, before each wait and after the last), TIMED_OUT (ETIMEDOUT, only once
 * the deadline's own clock says it has passed: the tick may end an OS wait
 * short of a deadline on another clock).
 *  - a word: WaitOnAddress, in process (no kernel object, no wineserver round
 *    trip under Wine), millisecond timeouts;
 *  - a handle (named semaphores): WaitForSingleObjectEx, alertable when
 *    cancellable so that pthread_cancel's APC ends it;
 *  - nothing (sleeps): a high-resolution waitable timer per thread (Windows 10
 *    1803+, else an ordinary one), kept in its record and closed at its exit,
 *    since WaitOnAddress and Sleep round up to the 15.6 ms tick. Under Wine the
 *    timer is served at millisecond granularity, while a non-alertable
 *    NtDelayExecution sleeps with the host's microsecond precision, so there
 *    sleeps shorter than SHORT_SLEEP_NS take it, acting on cancellation before
 *    and after (bench/README.md has the measurements).
 */
#include "spin.h"
#include "wait.h"
#include "shared.h"
#include "cancel_point.h"

/* FILETIME counts from 1601-01-01; the Unix epoch is 11644473600 s later. */
#define FILETIME_TICKS_AT_UNIX_EPOCH 116444736000000000LL
/* The last second after the Unix epoch whose FILETIME still fits a LONGLONG. */
#define LATEST_FILETIME_SECONDS \
    ((LLONG_MAX - FILETIME_TICKS_AT_UNIX_EPOCH) / SLIM_FILETIME_TICKS_PER_SECOND - 1)
/* tv_sec beyond this saturates: its nanoseconds would not fit a long long. */
#define SATURATING_SECONDS (LLONG_MAX / SLIM_NANOSECONDS_PER_SECOND - 1)
/* INFINITE is 0xFFFFFFFF: a finite timeout must stay below it. */
#define LONGEST_FINITE_TIMEOUT_MS (INFINITE - 1)
/* Sleeps shorter than this may be served without an alertable wait (Wine). */
#define SHORT_SLEEP_NS (2 * SLIM_NANOSECONDS_PER_MILLISECOND)
/* A shared object's sleeper the system gave no doorbell looks again this often. */
#define DOORBELL_NAP_NS SLIM_NANOSECONDS_PER_MILLISECOND

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* ---- The clock readers ---- */

long long slim_filetime_ticks(const FILETIME *time)
{
    return (long long)(((unsigned long long)time->dwHighDateTime << 32) | time->dwLowDateTime);
}

void slim_timespec_from_ticks(long long ticks, struct timespec *out)
{
    out->tv_sec = (time_t)(ticks / SLIM_FILETIME_TICKS_PER_SECOND);
    out->tv_nsec =
        (long)((ticks % SLIM_FILETIME_TICKS_PER_SECOND) * SLIM_NANOSECONDS_PER_FILETIME_TICK);
}

static void timespec_from_filetime(const FILETIME *time, struct timespec *out)
{
    slim_timespec_from_ticks(slim_filetime_ticks(time) - FILETIME_TICKS_AT_UNIX_EPOCH, out);
}

int slim_filetime_of_realtime(const struct timespec *at, FILETIME *out)
{
    long long seconds = at->tv_sec, ticks; /* a 32-bit time_t is always in range */

    if (seconds < 0 || seconds > LATEST_FILETIME_SECONDS)
        return EINVAL;
    ticks = seconds * SLIM_FILETIME_TICKS_PER_SECOND +
            at->tv_nsec / SLIM_NANOSECONDS_PER_FILETIME_TICK + FILETIME_TICKS_AT_UNIX_EPOCH;
    out->dwLowDateTime = (DWORD)ticks;
    out->dwHighDateTime = (DWORD)((unsigned long long)ticks >> 32);
    return 0;
}

/* time_t's largest value, whichever its width. */
#define LATEST_TIME_T ((time_t)(sizeof(time_t) == 8 ? LLONG_MAX : LONG_MAX))

void slim_timespec_add(struct timespec *at, const struct timespec *interval)
{
    long nanoseconds = at->tv_nsec + interval->tv_nsec; /* below 2e9: fits a long */
    time_t carry = nanoseconds >= SLIM_NANOSECONDS_PER_SECOND;

    if (at->tv_sec > LATEST_TIME_T - interval->tv_sec - carry) {
        at->tv_sec = LATEST_TIME_T;
        at->tv_nsec = SLIM_NANOSECONDS_PER_SECOND - 1;
        return;
    }
    at->tv_sec += interval->tv_sec + carry;
    at->tv_nsec = carry ? nanoseconds - SLIM_NANOSECONDS_PER_SECOND : nanoseconds;
}

long long slim_performance_frequency(void)
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
    long long frequency = slim_performance_frequency();

    QueryPerformanceCounter(&counter);
    now->tv_sec = (time_t)(counter.QuadPart / frequency);
    now->tv_nsec = (long)((counter.QuadPart % frequency) * SLIM_NANOSECONDS_PER_SECOND / frequency);
}

void slim_clock_now(clockid_t clock, struct timespec *now)
{
    FILETIME system_time;

    if (clock == CLOCK_MONOTONIC) {
        monotonic_now(now);
        return;
    }
    if (clock == CLOCK_REALTIME_COARSE)
        GetSystemTimeAsFileTime(&system_time);
    else
        GetSystemTimePreciseAsFileTime(&system_time);
    timespec_from_filetime(&system_time, now);
}

/* ---- Deadlines ---- */

long long slim_nanoseconds_of(const struct timespec *time)
{
    long long seconds = time->tv_sec;

    if (seconds > SATURATING_SECONDS)
        return LLONG_MAX;
    if (seconds < -SATURATING_SECONDS)
        return -LLONG_MAX;
    return seconds * SLIM_NANOSECONDS_PER_SECOND + time->tv_nsec;
}

static long long now_ns(clockid_t clock)
{
    struct timespec now;

    slim_clock_now(clock, &now);
    return slim_nanoseconds_of(&now);
}

void slim_deadline_unlimited(struct slim_deadline *deadline)
{
    deadline->clock = CLOCK_MONOTONIC;
    deadline->at_ns = SLIM_DEADLINE_NEVER;
}

int slim_deadline_absolute(struct slim_deadline *deadline, clockid_t clock,
                           const struct timespec *at)
{
    if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
        return EINVAL;
    if (slim_timespec_invalid(at))
        return EINVAL;
    deadline->clock = clock;
    deadline->at_ns = slim_nanoseconds_of(at);
    return 0;
}

int slim_deadline_relative(struct slim_deadline *deadline, const struct timespec *interval)
{
    long long length, now;

    if (slim_timespec_invalid(interval) || interval->tv_sec < 0)
        return EINVAL;
    length = slim_nanoseconds_of(interval);
    now = now_ns(CLOCK_MONOTONIC);
    deadline->clock = CLOCK_MONOTONIC;
    deadline->at_ns = length >= SLIM_DEADLINE_NEVER - now ? SLIM_DEADLINE_NEVER : now + length;
    return 0;
}

/* Nanoseconds left, 0 once passed, SLIM_DEADLINE_NEVER for no limit (NULL too). */
static long long nanoseconds_left(const struct slim_deadline *deadline)
{
    long long now;

    if (deadline == NULL || deadline->at_ns == SLIM_DEADLINE_NEVER)
        return SLIM_DEADLINE_NEVER;
    now = now_ns(deadline->clock); /* both within +-LLONG_MAX: compare before subtracting */
    return deadline->at_ns <= now ? 0 : deadline->at_ns - now;
}

void slim_deadline_capped(struct slim_deadline *capped, const struct slim_deadline *deadline,
                          long long most_ns)
{
    long long left = nanoseconds_left(deadline);

    capped->clock = CLOCK_MONOTONIC;
    capped->at_ns = now_ns(CLOCK_MONOTONIC) + (left < most_ns ? left : most_ns);
}

int slim_deadline_passed(const struct slim_deadline *deadline)
{
    return nanoseconds_left(deadline) == 0;
}

/* A WaitOnAddress / WaitForSingleObject timeout for left nanoseconds: rounded
 * up, so that nobody wakes early; INFINITE for no limit. */
static DWORD timeout_ms(long long left)
{
    long long ms;

    if (left == SLIM_DEADLINE_NEVER)
        return INFINITE;
    ms = left / SLIM_NANOSECONDS_PER_MILLISECOND + (left % SLIM_NANOSECONDS_PER_MILLISECOND != 0);
    return ms > (long long)LONGEST_FINITE_TIMEOUT_MS ? LONGEST_FINITE_TIMEOUT_MS : (DWORD)ms;
}

/* ---- Sleeps ---- */

typedef LONG(NTAPI *delay_execution_fn)(BOOLEAN alertable, const LARGE_INTEGER *interval);

/* ntdll's NtDelayExecution where it sleeps with microsecond precision (Wine:
 * a host sleep), else NULL: on Windows it rounds to the tick like Sleep. */
static delay_execution_fn precise_delay(void)
{
    static volatile long looked; /* racing first callers store the same values */
    static delay_execution_fn delay;
    HMODULE ntdll;

    if (!slim_load_acquire(&looked)) {
        ntdll = GetModuleHandleW(L"ntdll.dll");
        if (ntdll != NULL && GetProcAddress(ntdll, "wine_get_version") != NULL)
            delay = (delay_execution_fn)(void (*)(void))GetProcAddress(ntdll, "NtDelayExecution");
        slim_store_release(&looked, 1);
    }
    return delay;
}

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

/* One sleep of at most left nanoseconds (SLIM_DEADLINE_NEVER: until an APC when
 * alertable), ended early by an APC when alertable. */
static void sleep_once(long long left, BOOL alertable)
{
    delay_execution_fn delay = precise_delay();
    HANDLE timer;
    LARGE_INTEGER due;

    /* Negative: relative, in 100 ns ticks, rounded up so as never to wake early. */
    due.QuadPart = -(left / SLIM_NANOSECONDS_PER_FILETIME_TICK + 1);
    if (delay != NULL && left < SHORT_SLEEP_NS) {
        delay(FALSE, &due);
        return;
    }
    if (left == SLIM_DEADLINE_NEVER) {
        SleepEx(INFINITE, alertable);
        return;
    }
    timer = sleep_timer(slim_self());
    if (timer == NULL || !SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE) ||
        WaitForSingleObjectEx(timer, INFINITE, alertable) == WAIT_FAILED)
        SleepEx(timeout_ms(left), alertable); /* tick-bound, still never early */
}

/* ---- The road ---- */

/* One wait for a kernel object: 0 once signalled (and so consumed: a token, a
 * mutex), EAGAIN to look again (a timeout, an APC, perhaps pthread_cancel's),
 * EINVAL for a handle that fails. */
static int handle_wait(HANDLE handle, DWORD ms, BOOL alertable)
{
    switch (WaitForSingleObjectEx(handle, ms, alertable)) {
    case WAIT_OBJECT_0:
    case WAIT_ABANDONED: /* a mutex whose holder died: handed over all the same */
        return 0;
    case WAIT_TIMEOUT:
    case WAIT_IO_COMPLETION:
        return EAGAIN;
    default:
        return EINVAL;
    }
}

/* Has what target waits for happened? 0 if so, EAGAIN if not, EINVAL for a
 * handle that fails. A handle is looked at by a wait that does not block. */
static int look(const struct slim_wait_target *target)
{
    if (target->word != NULL)
        return slim_load_acquire(target->word) != target->expected ? 0 : EAGAIN;
    if (target->handle == NULL)
        return EAGAIN; /* a sleep waits for nothing but its deadline */
    return handle_wait(target->handle, 0, FALSE);
}

/* One wait for a shared object's doorbell (NULL: the system would not make
 * one; nap and look again) and the handle it watches, if any: 0 when the
 * watched handle was signalled, EAGAIN to look again (a token, a timeout, an
 * APC), EINVAL for a handle that fails. */
static int doorbell_wait(HANDLE bell, HANDLE watched, long long left, BOOL alertable)
{
    HANDLE handles[2] = {bell, watched};

    if (bell == NULL) {
        sleep_once(left < DOORBELL_NAP_NS ? left : DOORBELL_NAP_NS, alertable);
        return EAGAIN;
    }
    switch (WaitForMultipleObjectsEx(watched != NULL ? 2 : 1, handles, FALSE, timeout_ms(left),
                                     alertable)) {
    case WAIT_OBJECT_0:
    case WAIT_TIMEOUT:
    case WAIT_IO_COMPLETION:
        return EAGAIN;
    case WAIT_OBJECT_0 + 1:
    case WAIT_ABANDONED_0 + 1:
        return 0;
    default:
        return EINVAL;
    }
}

/* One OS wait of at most left nanoseconds: 0 when a handle was signalled,
 * EAGAIN to look again (after a wake, spurious or not, a timeout, an APC),
 * EINVAL for a handle that fails. */
static int wait_once(const struct slim_wait_target *target, HANDLE bell, long long left,
                     BOOL alertable)
{
    long expected = target->expected;

    if (target->doorbell != NULL)
        return doorbell_wait(bell, target->handle, left, alertable);
    if (target->word != NULL) {
        WaitOnAddress(target->word, &expected, sizeof expected, timeout_ms(left));
        return EAGAIN;
    }
    if (target->handle == NULL) {
        sleep_once(left, alertable);
        return EAGAIN;
    }
    return handle_wait(target->handle, timeout_ms(left), alertable);
}

/* The word a canceller wakes by address: a word of this process only; the
 * others' waits are alertable, and pthread_cancel's APC ends them. */
static volatile long *cancel_wake_word(const struct slim_wait_target *target)
{
    return target->doorbell != NULL ? NULL : target->word;
}

/* The precedence rule (wait.h) is the order of the looks in each round: the
 * target, then a cancellation request, then the deadline; a request is looked
 * at after the wake word is published (slim_cancel_wait_begin), so that a
 * canceller either is seen here or wakes the wait that follows. A shared
 * object's doorbell is opened before the first look (shared.h says why). */
int slim_wait(const struct slim_wait_target *target, const struct slim_deadline *deadline,
              unsigned ends_by)
{
    BOOL cancellable = (ends_by & SLIM_WAIT_CANCELLABLE) != 0;
    HANDLE bell = target->doorbell != NULL ? slim_doorbell_open(target->doorbell) : NULL;
    long long left;
    int result = EAGAIN;

    while (result == EAGAIN) {
        if ((result = look(target)) != EAGAIN)
            break;
        if (cancellable && slim_cancel_wait_begin(cancel_wake_word(target)))
            result = ECANCELED;
        else if ((left = nanoseconds_left(deadline)) == 0)
            result = ETIMEDOUT;
        else
            result = wait_once(target, bell, left, cancellable);
    }
    /* A request that came after the last look outranks the timeout too. */
    if (cancellable && slim_cancel_wait_end() && result == ETIMEDOUT)
        result = ECANCELED;
    if (bell != NULL)
        CloseHandle(bell);
    return result;
}

int slim_wait_on(volatile long *word, long expected, const struct slim_deadline *deadline,
                 unsigned ends_by)
{
    const struct slim_wait_target target = {word, expected, NULL, NULL};

    return slim_wait(&target, deadline, ends_by);
}

/* ---- Errors ---- */

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

/* ---- Yields and naps: spinners' ways of letting another thread run ---- */

void slim_yield(void)
{
    SwitchToThread();
}

void slim_nap_ms(unsigned ms)
{
    Sleep(ms);
}

/* SLIM_SPIN_LADDER past its looks: SLIM_SPINLOCK_YIELDS yields, then naps. */
void slim_spin_ladder_step(struct slim_spin *spin)
{
    if (spin->looks < SLIM_SPINLOCK_LOOKS + SLIM_SPINLOCK_YIELDS) {
        spin->looks++;
        slim_yield();
    } else {
        slim_nap_ms(SLIM_SPINLOCK_NAP_MS);
    }
}

#include "code_end.h"
