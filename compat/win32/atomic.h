/*
 * atomic.h - the atomics every word of the library is read and written with:
 * loads, stores, CAS, swap, increment and the full fence over a volatile long,
 * each named for its memory order. Apart from the spinning and the waiting
 * built on them, since some files only ever touch a word and never wait.
 * Private to the library.
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

/* Returns nonzero when *word held expected and now holds desired. */
static inline int slim_cas(volatile long *word, long expected, long desired)
{
    return __atomic_compare_exchange_n(word, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
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

static inline void slim_full_fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif /* SLIMPTHREADS_ATOMIC_H */
