/*
 * rwlock_word.h - the rwlock's word as rwlock.c and rwlock_bias.c read it:
 * its layout (rwlock.c's header comment tells the story), and the helpers
 * that read, exchange and decode it. Private to the library.
 */
#ifndef SLIMPTHREADS_RWLOCK_WORD_H
#define SLIMPTHREADS_RWLOCK_WORD_H

#include "atomic.h"

#include <stddef.h>

SLIM_STATIC_ASSERT(sizeof(int64_t) == 8 && _Alignof(pthread_rwlock_t) >= 8,
                   "the rwlock word is one aligned 64-bit word");
SLIM_STATIC_ASSERT(offsetof(pthread_rwlock_t, __state) == 0, "the word leads the rwlock");
SLIM_STATIC_ASSERT(sizeof(long) == 4, "each half of the word is one long for WaitOnAddress");
SLIM_STATIC_ASSERT(sizeof(unsigned long) == sizeof(DWORD), "a thread id fits __writer_thread_id");

/* The low half: the reader gate. */
#define WRITERS_WAITING_ONE 0x1LL
#define WRITERS_WAITING_MASK 0xFFFFLL
#define READER_EPOCH_ONE 0x10000LL
#define READER_EPOCH_MASK 0xFFFF0000LL
/* The high half: the writer gate. */
#define READER_ONE 0x100000000LL
#define READERS_MASK 0xFFFFFF00000000LL
#define WRITER_HELD (1LL << 56)
#define READERS_WAITING (1LL << 57)
#define DESTROYED (1LL << 58)
#define WRITER_WOKEN (1LL << 59) /* a writer was woken and has not yet acted */
#define READ_BIASED (1LL << 60)  /* first-time readers may hold through their bias slot */
#define PSHARED (1LL << 61)      /* process-shared: set at init, kept for the lock's life */
#define UNKNOWN_BITS (~((1LL << 62) - 1)) /* set only in memory that is not an rwlock */
#define HALF_BITS 32

/* A process-shared lock (PSHARED) keeps its object id (shared.h) in the low half
 * of __read_bias_after, under a high half that no bias clock (rwlock_bias.h:
 * time stamp ticks over 1024, from the counter's start) ever reaches: the read
 * bias, whose slots are one process's, is never due for it, and the private
 * read path needs no test of its own for that. */
#define SHARED_NEVER_BIASED 0x7FFFFFFF00000000LL
#define SHARED_ID_MASK 0xFFFFFFFFLL
/* Its doorbells (generations): the writers' one, and one a reader epoch for the
 * readers that sleep in it, so that a write unlock wakes exactly them. */
#define WRITERS_BELL 0UL
#define READERS_BELL_ROUND 0x10000UL /* | the epoch the readers sleep in */
#define READER_EPOCH_SHIFT 16
/* A write unlock wakes every reader of the epoch at once (the private chain
 * wakes them one by one through the address): tokens enough for any number
 * of sleepers; what is left goes with the doorbell, which no later sleeper
 * opens (a later reader sleeps in a later epoch). */
#define READERS_BELL_WAKES 0xFFFFFFL

SLIM_STATIC_ASSERT(sizeof(((pthread_rwlock_t *)0)->__read_bias_after) == 8 &&
                       sizeof(unsigned long) == 4,
                   "a shared lock's 32-bit id fits under __read_bias_after's high half");

enum hold_mode { HOLD_SHARED, HOLD_EXCLUSIVE };

/* How an acquire that cannot take the lock at once goes on. */
enum acquire_way {
    ACQUIRE_TRY,     /* give up: EBUSY */
    ACQUIRE_BLOCK,   /* wait as long as it takes */
    ACQUIRE_BY_TIME  /* wait until a deadline */
};

static inline int64_t load_word(pthread_rwlock_t *rwlock)
{
    return slim_word64_load_acquire(&rwlock->__state);
}

/* On failure *seen gets the word's value. Acquire and release together: the
 * same exchange takes or gives the lock. */
static inline int exchange_word(pthread_rwlock_t *rwlock, int64_t *seen, int64_t desired)
{
    return slim_word64_cas_acq_rel_seen(&rwlock->__state, seen, desired);
}

/* The two halves as wait addresses (little-endian: the low half comes first). */
static inline volatile long *reader_gate(pthread_rwlock_t *rwlock)
{
    return (volatile long *)(void *)&rwlock->__state;
}

static inline volatile long *writer_gate(pthread_rwlock_t *rwlock)
{
    return (volatile long *)(void *)&rwlock->__state + 1;
}

static inline long low_half(int64_t word)
{
    return (long)(uint32_t)word;
}

static inline long high_half(int64_t word)
{
    return (long)(uint32_t)((uint64_t)word >> HALF_BITS);
}

static inline int64_t readers_of(int64_t word)
{
    return word & READERS_MASK;
}

static inline int64_t waiting_writers_of(int64_t word)
{
    return word & WRITERS_WAITING_MASK;
}

/* The epoch wraps inside its own bits. */
static inline int64_t with_next_epoch(int64_t word)
{
    return (word & ~READER_EPOCH_MASK) | ((word + READER_EPOCH_ONE) & READER_EPOCH_MASK);
}

static inline DWORD writer_of(const pthread_rwlock_t *rwlock)
{
    return (unsigned long)slim_load_relaxed((volatile long *)&rwlock->__writer_thread_id);
}

static inline void set_writer(pthread_rwlock_t *rwlock, DWORD thread_id)
{
    slim_store_relaxed((volatile long *)&rwlock->__writer_thread_id, (long)thread_id);
}

/* A releaser whose exchange leaves this value wakes a writer (and sets
 * WRITER_WOKEN in it): writers wait, the lock is free for one, and no woken
 * writer is on its way already. */
static inline int writer_to_wake(int64_t word)
{
    return waiting_writers_of(word) != 0 &&
           (word & (WRITER_WOKEN | WRITER_HELD | READERS_MASK)) == 0;
}

/* A releaser's desired value, with WRITER_WOKEN set when it is to wake a
 * writer (*wake_writer says so). */
static inline int64_t marking_writer_wake(int64_t desired, int *wake_writer)
{
    *wake_writer = writer_to_wake(desired);
    return *wake_writer ? desired | WRITER_WOKEN : desired;
}

static inline int not_usable(int64_t word)
{
    return (word & (DESTROYED | UNKNOWN_BITS)) != 0;
}

#endif
