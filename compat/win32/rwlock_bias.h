/*
 * rwlock_bias.h - the rwlock's read bias: readers that leave the word alone.
 *
 * Every first-time read hold and its release change the word, so readers on
 * two cores pull its cache line back and forth even though they never wait
 * for each other. A lock that is read much and written little is biased
 * (READ_BIASED, after BRAVO: Dice and Kogan, USENIX ATC 2019): a first-time
 * reader then publishes the lock in its own slot, one per thread record, and
 * re-reads the word; while the bias holds, that is its whole acquire, and its
 * release is one exchange on its own slot.
 * A writer that takes the word and finds the bias clears it, then revokes: it
 * waits for every slot that names the lock. Both sides store, then load the
 * other's word, all sequentially consistent (a Dekker pattern). A reader that
 * published before the clear is seen by the scan; one that published after it
 * sees the bias gone and withdraws to the word, where the writer holds. So the
 * writer holds the lock once the scan is through. It sleeps on a slot it finds
 * taken after tagging it (low bit), and the reader's release, seeing the tag,
 * wakes it by address: its own slot, never the lock. After a revocation the
 * bias stays off for BIAS_INHIBIT_FACTOR times what the revocation took, and
 * for BIAS_INHIBIT_LEAST at least (__read_bias_after, in time stamp units of
 * BIAS_TICK_SHIFT), so that locks written often stay on the word; the next
 * first-time reader on the word after that sets it again, provided no writer
 * waits.
 *
 * The slots and the reader's side (taking and releasing a slot, on the read
 * paths) are inline here; the writer's side, revoking the bias, and the
 * owner-exit hook are rwlock_bias.c's.
 */
#ifndef SLIMPTHREADS_RWLOCK_BIAS_H
#define SLIMPTHREADS_RWLOCK_BIAS_H

#include "rwlock_word.h"
#include "wait.h"
#include "spin.h" /* the cycle clock */
#include "thread_record.h"

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
#define BIAS_ENABLED 1
#else
#define BIAS_ENABLED 0 /* no cheap clock for the inhibition: readers stay on the word */
#endif
#define BIAS_SLOTS 256          /* threads whose record index is below this can bias */
#define BIAS_TICK_SHIFT 10      /* __read_bias_after counts 1024 time stamp ticks */
/* aarch64 counts the same time, 1024 ticks of a 2.5 GHz time stamp counter
 * (0.4 us), from the virtual counter, whose frequency (19.2 MHz to 1 GHz)
 * differs from SoC to SoC: microseconds times 5/2. */
#define BIAS_COUNTER_TICKS_PER_US_DIVISOR 1000000 /* the frequency over this: ticks a us */
#define BIAS_UNITS_PER_US_NUMERATOR 5
#define BIAS_UNITS_PER_US_DENOMINATOR 2
#define BIAS_INHIBIT_FACTOR 9   /* BRAVO's N: a revocation costs readers at most 1/N */
/* The inhibition lasts at least this (about 0.2 ms at 2-3 GHz): a writer scans
 * the slots while it holds the word, so everyone waits for a revocation, not
 * only the writer whose time BRAVO's N weighs; and with no reader in its slot
 * a scan takes a microsecond or less. A lock written half the time then
 * revoked every few microseconds (70 000 revocations in NaviServer's 600 000
 * operations at 50% writes, bench/README.md); the floor allows a few thousand
 * a second at most. */
#define BIAS_INHIBIT_LEAST 512
#define BIAS_TAG ((uintptr_t)1) /* a slot whose writer sleeps until it is released */
#define BIAS_SLOT_BYTES 64      /* a cache line of x86 */

/* One cache line a slot: two readers' releases must not pull one line back
 * and forth, which is what the bias is for. */
struct bias_slot {
    const pthread_rwlock_t *volatile lock; /* the lock held through it, tagged; or NULL */
} __attribute__((aligned(BIAS_SLOT_BYTES)));

/* One slot per thread record (by its table index), rwlock_bias.c's. */
extern struct bias_slot slim_bias_slots[BIAS_SLOTS];

SLIM_STATIC_ASSERT(_Alignof(pthread_rwlock_t) > 1, "a lock's address leaves the tag bit free");

static inline int64_t bias_clock(void)
{
#if defined(__aarch64__)
    unsigned long long ticks_per_us =
        slim_virtual_counter_frequency() / BIAS_COUNTER_TICKS_PER_US_DIVISOR;

    if (ticks_per_us == 0)
        ticks_per_us = 1; /* a counter slower than 1 MHz: never seen, but no division by 0 */
    return (int64_t)(slim_cycle_clock() / ticks_per_us * BIAS_UNITS_PER_US_NUMERATOR /
                     BIAS_UNITS_PER_US_DENOMINATOR);
#elif BIAS_ENABLED
    return (int64_t)(slim_cycle_clock() >> BIAS_TICK_SHIFT);
#else
    return 0;
#endif
}

/* A slot as the word atomic.h reads and writes. */
static inline void *volatile *bias_slot_word(unsigned long index)
{
    return (void *volatile *)&slim_bias_slots[index].lock;
}

static inline const pthread_rwlock_t *untagged(const pthread_rwlock_t *slot_value)
{
    return (const pthread_rwlock_t *)((uintptr_t)slot_value & ~BIAS_TAG);
}

/* Whether a first-time reader on the word should set the bias in its exchange:
 * no writer waits and the inhibition is over. */
static inline int bias_due(pthread_rwlock_t *rwlock, int64_t word)
{
    if (!BIAS_ENABLED || (word & (READ_BIASED | WRITERS_WAITING_MASK)) != 0)
        return 0;
    return bias_clock() >= slim_word64_load_relaxed(&rwlock->__read_bias_after);
}

/* Empties the caller's slot; wakes a writer that sleeps on it. After this the
 * reader touches nothing of the lock. */
static inline void bias_slot_release(unsigned long index)
{
    const pthread_rwlock_t *was = slim_pointer_swap(bias_slot_word(index), NULL);

    if ((uintptr_t)was & BIAS_TAG)
        slim_wake_all((volatile long *)(void *)&slim_bias_slots[index].lock);
}

/* A first-time read hold through the caller's slot: nonzero when it is held. */
static inline int bias_try_read(pthread_rwlock_t *rwlock, struct slim_thread *self, int64_t word)
{
    unsigned long index = self->table_index;
    void *expected = NULL;

    if ((word & (READ_BIASED | WRITERS_WAITING_MASK | WRITER_HELD | DESTROYED |
                              UNKNOWN_BITS)) != READ_BIASED ||
        index >= BIAS_SLOTS)
        return 0;
    if (!slim_pointer_cas_seen(bias_slot_word(index), &expected, rwlock))
        return 0; /* the slot holds another lock (or a dead thread's) */
    if ((slim_word64_load_seq_cst(&rwlock->__state) & READ_BIASED) != 0)
        return 1;
    bias_slot_release(index); /* a writer revoked the bias meanwhile */
    return 0;
}

/* The caller holds the word as a writer and found READ_BIASED: it clears it
 * and waits for the biased readers. 0; EBUSY (for a try: wait 0) when biased
 * readers remain; EDEADLK when the caller itself holds a biased read; or
 * ETIMEDOUT. On failure the bias is set again before the caller gives the
 * word back: biased readers still hold the lock, and the next writer must find
 * the bias to wait for them. */
int slim_rwlock_bias_revoke(pthread_rwlock_t *rwlock, struct slim_thread *self, int wait,
                            const struct slim_deadline *deadline);

#endif
