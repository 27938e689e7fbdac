/*
 * wait.h - the wait road (wait.c): the clock readers, the timespec and
 * FILETIME helpers, deadlines, the one wait entry (slim_wait_on, the same
 * over a handle, the sleeps) and the wakes. Every blocking call travels:
 * deadline from timespec and clock -> slim_wait_on(word, expected, deadline,
 * kind) until the word changes or the deadline passes -> re-check its own
 * condition. No file but wait.c has clock arithmetic or an OS wait loop
 * (compat/win32/README.md follows one wait). Private to the library.
 */
#ifndef SLIMPTHREADS_WAIT_H
#define SLIMPTHREADS_WAIT_H

#include "internal.h"

/* ---- The clock readers (wait.c) ---- */

#define SLIM_NANOSECONDS_PER_SECOND 1000000000LL
#define SLIM_NANOSECONDS_PER_FILETIME_TICK 100LL /* a FILETIME counts 100 ns ticks */

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

/* ---- The one wait entry (wait.c) ---- */

enum slim_wait_kind {
    SLIM_WAIT_PLAIN,       /* not a cancellation point */
    SLIM_WAIT_CANCELLABLE  /* may return ECANCELED: a cancellation point */
};

/* Sleeps while *word == expected, until woken or the deadline (NULL: none)
 * passes. Returns 0 after a wake (which may be spurious: the caller re-checks
 * its condition) or ETIMEDOUT once the deadline has passed. A CANCELLABLE wait
 * also returns ECANCELED when the calling thread has a cancellation request it
 * must act on, before or during the wait; the caller then undoes what its own
 * wait set up and calls slim_cancel_act. */
int slim_wait_on(volatile long *word, long expected, const struct slim_deadline *deadline,
                 enum slim_wait_kind kind);

/* The same for a kernel object (a named semaphore): 0 once it is signalled,
 * ETIMEDOUT, ECANCELED for a CANCELLABLE wait, EINVAL for a bad handle. */
int slim_wait_on_handle(HANDLE handle, const struct slim_deadline *deadline,
                        enum slim_wait_kind kind);

/* Sleeps until the deadline has passed: 0, or ECANCELED for a CANCELLABLE sleep. */
int slim_sleep_until(const struct slim_deadline *deadline, enum slim_wait_kind kind);

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
