/*
 * atomic.h - the atomics every shared word of the library is read and written
 * with, and the only file of compat/win32 that spells the compiler's __atomic
 * builtins: loads, stores, compare-and-swap, swap, add and the full fence,
 * each named for its memory order, over four kinds of word: a volatile long
 * (slim_*: most words; an unsigned long goes through it too, as C lets a
 * signed and an unsigned type reach the same object), a volatile int
 * (slim_int_*: a record's cancel state and type, a barrier's count), a 64-bit
 * word (slim_word64_*: the rwlock's word, the read-bias deadline, the thread
 * table's free list) and a pointer (slim_pointer_*: the condvar's queue, the
 * bias slots, the thread table's chunks, a record's wake word and stack).
 * Every compare-and-swap named *_seen writes the value it found into *seen
 * when it fails. Apart from the spinning and the waiting built on them, since
 * some files only ever touch a word and never wait. Private to the library.
 */
#ifndef SLIMPTHREADS_ATOMIC_H
#define SLIMPTHREADS_ATOMIC_H

#include "internal.h"

/* ---- Atomics (sequentially consistent unless the name says otherwise) ---- */

static inline long slim_load_acquire(volatile long *word)
{
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline long slim_load_relaxed(volatile long *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/* For the load after a store to another word in a Dekker pattern (each side
 * stores its own word, then loads the other's): an acquire load may be
 * satisfied before the earlier store is visible (ARM64's LDAPR), so both
 * sides' loads and stores must be sequentially consistent for one of them to
 * see the other. A plain mov on x86, like an acquire load. */
static inline long slim_load_seq_cst(volatile long *word)
{
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static inline void slim_store_release(volatile long *word, long value)
{
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/* A hint (re-checked by a read-modify-write or a lock), or a word written under
 * a lock whose release publishes it. */
static inline void slim_store_relaxed(volatile long *word, long value)
{
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

/* Returns nonzero when *word held expected and now holds desired. */
static inline int slim_cas(volatile long *word, long expected, long desired)
{
    return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

/* The same, seq_cst on success, relaxed on failure, and *seen updated. */
static inline int slim_cas_seen(volatile long *word, long *seen, long desired)
{
    return __atomic_compare_exchange_n(word, seen, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_RELAXED);
}

static inline long slim_swap(volatile long *word, long value)
{
    return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

/* Both return the new value. */
static inline long slim_increment(volatile long *word)
{
    return __atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
}

static inline long slim_decrement(volatile long *word)
{
    return __atomic_sub_fetch(word, 1, __ATOMIC_SEQ_CST);
}

static inline long slim_add(volatile long *word, long value)
{
    return __atomic_add_fetch(word, value, __ATOMIC_SEQ_CST);
}

static inline void slim_full_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* ---- A volatile int (an unsigned one too) ---- */

static inline int slim_int_load_relaxed(volatile int *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/* The Dekker pattern's load (see slim_load_seq_cst). */
static inline int slim_int_load_seq_cst(volatile int *word)
{
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static inline void slim_int_store_release(volatile int *word, int value)
{
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/* The Dekker pattern's store: the load that follows must not pass it. */
static inline void slim_int_store_seq_cst(volatile int *word, int value)
{
    __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}

/* ---- A 64-bit word (a signed or unsigned one, 8-byte aligned) ---- */

static inline int64_t slim_word64_load_acquire(volatile int64_t *word)
{
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline int64_t slim_word64_load_relaxed(volatile int64_t *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static inline int64_t slim_word64_load_seq_cst(volatile int64_t *word)
{
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static inline void slim_word64_store_release(volatile int64_t *word, int64_t value)
{
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

static inline void slim_word64_store_relaxed(volatile int64_t *word, int64_t value)
{
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

/* Acquire and release on success, acquire on failure: a lock word's. */
static inline int slim_word64_cas_acq_rel_seen(volatile int64_t *word, int64_t *seen,
                                                int64_t desired)
{
    return __atomic_compare_exchange_n(word, seen, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* Acquire and release on success, relaxed on failure: a push onto a list,
 * whose failed tries publish and take nothing. */
static inline int slim_word64_cas_acq_rel_push_seen(volatile int64_t *word, int64_t *seen,
                                                     int64_t desired)
{
    return __atomic_compare_exchange_n(word, seen, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_RELAXED);
}

/* Both return the old value. */
static inline int64_t slim_word64_and(volatile int64_t *word, int64_t mask)
{
    return __atomic_fetch_and(word, mask, __ATOMIC_SEQ_CST);
}

static inline int64_t slim_word64_or(volatile int64_t *word, int64_t mask)
{
    return __atomic_fetch_or(word, mask, __ATOMIC_SEQ_CST);
}

/* ---- A pointer (any object pointer type, passed as void *volatile *) ---- */

static inline void *slim_pointer_load_acquire(void *volatile *word)
{
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void *slim_pointer_load_relaxed(void *volatile *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static inline void *slim_pointer_load_seq_cst(void *volatile *word)
{
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

static inline void slim_pointer_store_release(void *volatile *word, void *value)
{
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

static inline void slim_pointer_store_relaxed(void *volatile *word, void *value)
{
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

static inline void slim_pointer_store_seq_cst(void *volatile *word, void *value)
{
    __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}

static inline void *slim_pointer_swap(void *volatile *word, void *value)
{
    return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

/* Takes what another thread released into the word. */
static inline void *slim_pointer_swap_acquire(void *volatile *word, void *value)
{
    return __atomic_exchange_n(word, value, __ATOMIC_ACQUIRE);
}

/* seq_cst on success, relaxed on failure. */
static inline int slim_pointer_cas_seen(void *volatile *word, void **seen, void *desired)
{
    return __atomic_compare_exchange_n(word, seen, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_RELAXED);
}

/* Release on success (publishes what was written before), relaxed on failure. */
static inline int slim_pointer_cas_release_seen(void *volatile *word, void **seen, void *desired)
{
    return __atomic_compare_exchange_n(word, seen, desired, 0, __ATOMIC_RELEASE,
                                       __ATOMIC_RELAXED);
}

/* Acquire and release on success, acquire on failure. */
static inline int slim_pointer_cas_acq_rel_seen(void *volatile *word, void **seen, void *desired)
{
    return __atomic_compare_exchange_n(word, seen, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

#endif /* SLIMPTHREADS_ATOMIC_H */
