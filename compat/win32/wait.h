/*
 * wait.h - the wait road (wait.c): the clock readers, the timespec and
 * FILETIME helpers, deadlines, the one wait entry (slim_wait: over a word,
 * a handle or nothing) and the wakes. Every blocking call travels: deadline
 * from timespec and clock -> slim_wait(target, deadline, ends_by) until the
 * target has happened, a cancellation request must act or the deadline has
 * passed -> the primitive's own next step. No file but wait.c has an OS wait
 * loop (compat/win32/README.md follows one wait). Private to the library.
 */
#ifndef SLIMPTHREADS_WAIT_H
#define SLIMPTHREADS_WAIT_H

#include "internal.h"

/* ---- The clock readers (wait.c) ---- */

/* CLOCK_REALTIME, CLOCK_REALTIME_COARSE or CLOCK_MONOTONIC now, without errno
 * traffic; any other id reads CLOCK_REALTIME (callers check ids first). */
void slim_clock_now(clockid_t clock, struct timespec *now);

/* The performance counter's ticks per second (CLOCK_MONOTONIC's source). */
long long slim_performance_frequency(void);

/* FILETIME's 100 ns ticks: a duration (a thread's CPU time) as a timespec. */
long long slim_filetime_ticks(const FILETIME *time);
void slim_timespec_from_ticks(long long ticks, struct timespec *out);

/* The FILETIME of a CLOCK_REALTIME time: 0, or EINVAL for one FILETIME cannot
 * hold (before the Unix epoch, or past the year 30828). */
int slim_filetime_of_realtime(const struct timespec *at, FILETIME *out);

/* *at + interval, both valid timespecs, saturating at the largest time_t. */
void slim_timespec_add(struct timespec *at, const struct timespec *interval);

/* ---- Deadlines (wait.c) ----
 * One representation: saturating nanoseconds on a clock (REALTIME or
 * MONOTONIC). Everything beyond about 292 years, in either direction, is
 * SLIM_DEADLINE_NEVER or the far past: no arithmetic on a deadline overflows,
 * and a deadline too far for Windows to count means "forever". */
#define SLIM_DEADLINE_NEVER LLONG_MAX

struct slim_deadline {
    clockid_t clock;
    long long at_ns; /* on clock, since its epoch; SLIM_DEADLINE_NEVER: no limit */
};

/* The deadline that never passes. */
void slim_deadline_unlimited(struct slim_deadline *deadline);

/* An absolute timespec on clock: EINVAL for a clock other than CLOCK_REALTIME
 * and CLOCK_MONOTONIC or tv_nsec outside [0, 1e9), else 0. Any tv_sec is valid. */
int slim_deadline_absolute(struct slim_deadline *deadline, clockid_t clock,
                           const struct timespec *at);

/* now + interval on CLOCK_MONOTONIC: EINVAL for a bad or negative interval. */
int slim_deadline_relative(struct slim_deadline *deadline, const struct timespec *interval);

/* A timespec as nanoseconds, saturating at +-LLONG_MAX. */
long long slim_nanoseconds_of(const struct timespec *time);

/* The earlier of deadline (NULL: none) and most_ns from now, as a deadline on
 * CLOCK_MONOTONIC: for a wait that must look again after a while. */
void slim_deadline_capped(struct slim_deadline *capped, const struct slim_deadline *deadline,
                          long long most_ns);

/* Nonzero once deadline (NULL: none) has passed. */
int slim_deadline_passed(const struct slim_deadline *deadline);

/* ---- The road: the one wait entry (wait.c) ----
 * slim_wait(target, deadline, ends_by) is the only place a thread blocks on
 * something another thread or the clock ends. It holds the retry loop:
 * spurious wakes, the re-read of the deadline's own clock after every OS wait
 * (Win32 timeouts are whole milliseconds, rounded up here, and capped below
 * INFINITE), the canceller's bookkeeping. What it returns follows one rule,
 * the precedence POSIX implies:
 *   1. what the caller waited for has happened (the word no longer reads the
 *      expected value, the handle was signalled and so consumed): 0, even if
 *      the deadline has also passed or a cancellation request is pending, so
 *      that a token, a lock or a signal taken is never lost;
 *   2. else, for a wait that may end by cancellation (SLIM_WAIT_CANCELLABLE)
 *      while the thread's cancellation is enabled, a pending request:
 *      ECANCELED (the caller undoes its own set-up, then slim_cancel_act),
 *      also when the deadline has passed as well;
 *   3. else, once the deadline's own clock says it has passed: ETIMEDOUT
 *      (for a sleep, which waits for nothing but time, this is its end).
 * A primitive loops on its own state only (try the lock word, wait while it
 * reads contended); it never loops to wait again after a spurious wake. */

/* What may end a wait, besides what it waits for and its deadline: flags. */
enum slim_wait_kind {
    SLIM_WAIT_PLAIN = 0,           /* not a cancellation point */
    SLIM_WAIT_CANCELLABLE = 1 << 0 /* a cancellation point: may return ECANCELED */
};

struct slim_doorbell;

/* What a wait waits for: a word to read other than expected (WaitOnAddress, in
 * process), or a kernel object to be signalled (WaitForSingleObjectEx,
 * alertable when cancellable), or, with neither, only the deadline (a sleep:
 * the thread's high-resolution waitable timer). A word of a process-shared
 * object names its doorbell (shared.h): the wait sleeps on the doorbell, not
 * on the address, and looks at the word after every token; a handle given
 * with it is watched (a robust mutex's owner thread): its signal ends the wait
 * as a change of the word does, and the caller looks at what it means. */
struct slim_wait_target {
    volatile long *word; /* NULL: not a word */
    long expected;
    HANDLE handle;       /* NULL: not a handle; with a doorbell, one to watch */
    const struct slim_doorbell *doorbell; /* NULL: the word is in process */
};

/* The road: 0, ECANCELED or ETIMEDOUT by the rule above; EINVAL for a bad
 * handle. A NULL deadline never passes. */
int slim_wait(const struct slim_wait_target *target, const struct slim_deadline *deadline,
              unsigned ends_by);

/* The road for a word: slim_wait with the target {word, expected}, so 0 once
 * *word no longer reads expected. Out of line, so that a caller's code stays
 * one call of four arguments (clang would inline less around the target). */
int slim_wait_on(volatile long *word, long expected, const struct slim_deadline *deadline,
                 unsigned ends_by);

/* Gives the rest of the time slice to another ready thread (SwitchToThread):
 * for a spinner whose partner may be waiting for this core. */
void slim_yield(void);

/* A plain sleep of ms milliseconds (Sleep), no timer, not cancellable: the
 * spinlock ladder's nap, and the canceller's pause between repeated wakes. */
void slim_nap_ms(unsigned ms);

static inline void slim_wake_one(volatile long *word)
{
    WakeByAddressSingle((PVOID)word);
}

static inline void slim_wake_all(volatile long *word)
{
    WakeByAddressAll((PVOID)word);
}

#endif /* SLIMPTHREADS_WAIT_H */
