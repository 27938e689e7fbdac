/*
 * rwlock_hold.h - a thread's read holds: which rwlocks it holds for reading,
 * how often, and whether through its bias slot. They live on the reader's
 * side (its record: SLIM_RWLOCK_HOLDS_INLINE entries inline, then a heap table
 * that grows), so that only a thread's first read hold of a lock touches the
 * lock, recursive ones never queue behind a waiting writer, and unlock knows
 * which mode the caller holds. The lookups are inline here, for the read
 * paths; growing and freeing the heap table are rwlock_hold.c's.
 */
#ifndef SLIMPTHREADS_RWLOCK_HOLD_H
#define SLIMPTHREADS_RWLOCK_HOLD_H

#include "thread_record.h"

/* Doubles the heap table (the first one has SLIM_RWLOCK_HOLDS_INLINE
 * entries): 0 or EAGAIN. */
int slim_rwlock_holds_grow(struct slim_thread *self);

/* Entry i of the thread's table: the inline ones first, then the heap ones. */
static inline struct slim_rwlock_hold *hold_at(struct slim_thread *self, unsigned i)
{
    return i < SLIM_RWLOCK_HOLDS_INLINE ? &self->rwlock_holds[i]
                                        : &self->rwlock_holds_more[i - SLIM_RWLOCK_HOLDS_INLINE];
}

/* The entry holding rwlock, else NULL. Used entries form a prefix. */
static inline struct slim_rwlock_hold *hold_find(struct slim_thread *self,
                                                 const pthread_rwlock_t *rwlock)
{
    unsigned i, count = self->rwlock_hold_count;

    for (i = 0; i < count; i++) {
        struct slim_rwlock_hold *entry = hold_at(self, i);

        if (entry->rwlock == rwlock)
            return entry;
    }
    return NULL;
}

/* Makes room for one more hold before the lock is taken, so that running out of
 * memory leaves nothing held: 0 or EAGAIN. */
static inline int hold_reserve(struct slim_thread *self)
{
    if (self->rwlock_hold_count < SLIM_RWLOCK_HOLDS_INLINE + self->rwlock_holds_more_capacity)
        return 0;
    return slim_rwlock_holds_grow(self);
}

/* After hold_reserve; biased: taken through the thread's bias slot. */
static inline void hold_add(struct slim_thread *self, const pthread_rwlock_t *rwlock, int biased)
{
    struct slim_rwlock_hold *entry = hold_at(self, self->rwlock_hold_count++);

    entry->rwlock = rwlock;
    entry->read_count = 1;
    entry->biased = biased;
}

/* The last entry moves into the gap (with unlocks in reverse order of locking,
 * entry usually is the last one, and then nothing moves: a copy of the entry
 * onto itself would load it whole right after the unlock's narrower store to
 * its count, a load the store cannot forward to, which stalls until the store
 * has reached the cache). The heap table stays until the thread exits. */
static inline void hold_forget(struct slim_thread *self, struct slim_rwlock_hold *entry)
{
    struct slim_rwlock_hold *last = hold_at(self, --self->rwlock_hold_count);

    if (entry != last)
        *entry = *last;
}

#endif
