/*
 * rwlock_hold.c - the heap part of a thread's read-hold table (rwlock_hold.h):
 * grown by doubling when the inline entries and the table are full, freed with
 * the record's life (thread.c).
 */
#include "rwlock_hold.h"

int slim_rwlock_holds_grow(struct slim_thread *self)
{
    struct slim_rwlock_hold *grown;
    unsigned capacity;

    capacity = self->rwlock_holds_more_capacity ? 2 * self->rwlock_holds_more_capacity
                                                : SLIM_RWLOCK_HOLDS_INLINE;
    if (capacity > (UINT_MAX - SLIM_RWLOCK_HOLDS_INLINE) / 2)
        return EAGAIN;
    grown = realloc(self->rwlock_holds_more, capacity * sizeof *grown);
    if (grown == NULL)
        return EAGAIN;
    self->rwlock_holds_more = grown;
    self->rwlock_holds_more_capacity = capacity;
    return 0;
}

void slim_rwlock_holds_free(struct slim_thread *record)
{
    free(record->rwlock_holds_more);
    record->rwlock_holds_more = NULL;
    record->rwlock_holds_more_capacity = 0;
}

#include "code_end.h"
