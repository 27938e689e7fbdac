/*
 * spin.h - spinning: the one spin helper (slim_spin_begin / slim_spin_again),
 * its three policies and every spin constant of the library, so that no file
 * spins by a count of its own; and the cycle clock that times its windows.
 * Separate from wait.h: a spin ends where the wait road begins, and spin.c's
 * spinlock never sleeps on a word at all.
 * Private to the library.
 */
#ifndef SLIMPTHREADS_SPIN_H
#define SLIMPTHREADS_SPIN_H

#include "internal.h"

/* ---- Spinning: one helper, three policies, every spin constant ----
 * Two quantities, never mixed: a *pause* is one slim_cpu_pause (the unit of
 * every gap between two looks at a word), and the *window* of a spin before a
 * sleep is time, read from the time stamp counter where x86 has one (a pause
 * costs 10 cycles on one CPU and 140 on the next; invariant on the CPUs Windows
 * 8 runs on), from the virtual counter on aarch64, else counted in pauses.
 * Why a window: sleeping and being woken
 * costs a few microseconds of CPU under Wine (a futex wait, a wake, two context
 * switches) and tens of microseconds of latency when the sleeper's core has
 * gone idle. A waiter that spins about that long first never pays more than
 * twice the sleep it tried to avoid, and a partner that answers within the
 * window (a ping-pong, a queue whose consumer keeps up) is never put to sleep.
 *
 * Every spinner in the library runs slim_spin_begin(&spin, POLICY), then
 * looks at its word and calls slim_spin_again(&spin) between two looks, until
 * the word lets it in or slim_spin_again returns 0 (then it sleeps on the
 * road, wait.c). The policies differ only in the gaps between looks and in
 * what ends the spin. */
enum slim_spin_policy {
    /* A word another thread is about to change, which costs nothing to look
     * at (a semaphore's count, a new thread's start report, a bias slot, the
     * condvar's queue lock, held for a few instructions): a look after every
     * pause, for one window. sem.c, thread.c, rwlock_bias.c, cond.c. */
    SLIM_SPIN_WAIT,
    /* A lock that a running thread holds (the mutex's section, the rwlock's
     * word): looks at gaps doubling from
     * SLIM_SPIN_FIRST_GAP to SLIM_SPIN_MAX_GAP pauses, for one window. Each
     * look pulls the lock's cache line away from the holder, and the first
     * gap lets a running holder keep the lock for a streak: a waiter that
     * looks at once catches the holder's next unlock, and two threads then
     * hand the lock and its data across cores every pair or two for good.
     * mutex.c, rwlock.c. */
    SLIM_SPIN_LOCK,
    /* A spinlock, which may never sleep on a word (POSIX spinlocks have no
     * waiters to wake): SLIM_SPINLOCK_LOOKS looks at doubling gaps as above,
     * then SLIM_SPINLOCK_YIELDS yields (the holder may want this core), then
     * naps of SLIM_SPINLOCK_NAP_MS (a preempted lower-priority holder gets to
     * run). It never ends by itself. spin.c. */
    SLIM_SPIN_LADDER
};
#define SLIM_SPIN_TICKS 20000 /* the window: about 7-10 us at the usual 2-3 GHz */
/* aarch64: the window is 1/SLIM_SPIN_WINDOWS_PER_SECOND of the virtual
 * counter's frequency, 8 us as on x86: the counter runs at 19.2 MHz to 1 GHz
 * depending on the SoC, so no fixed count of its ticks means one time. */
#define SLIM_SPIN_WINDOWS_PER_SECOND 125000
#define SLIM_SPIN_PAUSES 400  /* the window where there is no time stamp counter */
#define SLIM_SPIN_FIRST_GAP 16 /* SLIM_SPIN_LOCK, LADDER: pauses before the first look */
#define SLIM_SPIN_MAX_GAP 64   /* SLIM_SPIN_LOCK: pauses between two looks at most */
#define SLIM_SPINLOCK_LOOKS 4  /* SLIM_SPIN_LADDER: gaps of 16, 32, 64, 128 pauses, */
#define SLIM_SPINLOCK_YIELDS 64 /* then this many yields, */
#define SLIM_SPINLOCK_NAP_MS 1  /* then naps of this long */
/* What the lock spinners do besides the policy (each file says why): */
#define SLIM_MUTEX_CONFIRM_PAUSES 1    /* mutex.c: a free section must stay free this long */
#define SLIM_MUTEX_SPIN_YIELD_AFTER 127 /* mutex.c: one yield once this many pauses passed */
#define SLIM_MUTEX_RECHECK_FIRST_MS 1  /* mutex.c: a sleeper looks again after this, */
#define SLIM_MUTEX_RECHECK_MOST_MS 128 /* doubling up to this (the missed wake) */
#define SLIM_RWLOCK_BEHIND_WRITER_PAUSES 48 /* rwlock.c: a reader behind a waiting writer */

/* One pause. x86: YieldProcessor, the pause instruction. aarch64: isb, not
 * YieldProcessor's "dmb ishst; yield": yield is a hint for SMT cores, which
 * Windows ARM64 machines do not have, and retires in a cycle or two, so gaps
 * counted in it would shrink to nothing and the looks would pull the
 * holder's cache line away at full speed; isb waits for the pipeline to drain,
 * tens of cycles, a gap of the order of x86's pause (Rust's spin_loop hint
 * made the same choice). It orders nothing the spinners rely on: every look
 * is an atomic load of its own. */
static inline void slim_cpu_pause(void)
{
#if defined(__aarch64__)
    __asm__ __volatile__("isb" ::: "memory");
#else
    YieldProcessor();
#endif
}

/* The gap between two looks at a word another core is writing. */
static inline void slim_pause(unsigned pauses)
{
    while (pauses-- > 0)
        slim_cpu_pause();
}

/* The cycle clock, the library's one cheap clock reader, for time that must
 * cost no call: the spin windows here and the read bias's inhibition
 * (rwlock_bias.h); deadlines and every other clock are wait.c's readers. x86:
 * the time stamp counter (rdtsc). aarch64: the virtual counter, readable at
 * EL0 on Windows ARM64 (it is what QueryPerformanceCounter reads), and its
 * frequency, slim_virtual_counter_frequency. Elsewhere there is none, and
 * windows are counted in pauses. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
static inline unsigned long long slim_cycle_clock(void)
{
#if defined(__aarch64__)
    unsigned long long ticks;

    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(ticks));
    return ticks;
#else
    return __builtin_ia32_rdtsc();
#endif
}
#endif

#if defined(__aarch64__)
static inline unsigned long long slim_virtual_counter_frequency(void)
{
    unsigned long long frequency;

    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frequency));
    return frequency;
}
#endif

/* One spin: the policy, the gap before the next look, what it paused so far. */
struct slim_spin {
    enum slim_spin_policy policy;
    unsigned gap;    /* pauses before the next look */
    unsigned paused; /* pauses since slim_spin_begin */
    unsigned looks;  /* SLIM_SPIN_LADDER: looks since slim_spin_begin */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    unsigned long long end_tick;
#endif
};

static inline void slim_spin_begin(struct slim_spin *spin, enum slim_spin_policy policy)
{
    spin->policy = policy;
    spin->gap = policy == SLIM_SPIN_WAIT ? 1 : SLIM_SPIN_FIRST_GAP;
    spin->paused = 0;
    spin->looks = 0;
#if defined(__x86_64__) || defined(__i386__)
    spin->end_tick = slim_cycle_clock() + SLIM_SPIN_TICKS;
#elif defined(__aarch64__)
    spin->end_tick = slim_cycle_clock() +
                     slim_virtual_counter_frequency() / SLIM_SPIN_WINDOWS_PER_SECOND;
#endif
}

/* Nonzero while the window lasts. */
static inline int slim_spin_window_open(const struct slim_spin *spin)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    return slim_cycle_clock() < spin->end_tick;
#else
    return spin->paused < SLIM_SPIN_PAUSES;
#endif
}

/* The ladder's yields and naps: slim_spin_ladder_step (wait.c). */
void slim_spin_ladder_step(struct slim_spin *spin);

/* Waits the gap before the next look, as the policy says: 0 once the spin is
 * over (the caller sleeps), else nonzero (it looks again). */
static inline int slim_spin_again(struct slim_spin *spin)
{
    if (spin->policy == SLIM_SPIN_LADDER && spin->looks >= SLIM_SPINLOCK_LOOKS) {
        slim_spin_ladder_step(spin);
        return 1;
    }
    slim_pause(spin->gap);
    spin->paused += spin->gap;
    spin->looks++;
    if (spin->policy != SLIM_SPIN_WAIT && spin->gap < SLIM_SPIN_MAX_GAP)
        spin->gap *= 2;
    else if (spin->policy == SLIM_SPIN_LADDER)
        spin->gap *= 2; /* the ladder's fourth gap is 128 */
    return spin->policy == SLIM_SPIN_LADDER || slim_spin_window_open(spin);
}

/* The rest of the window in one gap: the next look is the spin's last. */
static inline void slim_spin_last_look(struct slim_spin *spin)
{
    spin->gap = 1;
    while (slim_spin_window_open(spin)) {
        slim_cpu_pause();
        spin->paused++;
    }
}

#endif /* SLIMPTHREADS_SPIN_H */
