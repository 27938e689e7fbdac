/*
 * rwlock_bias.c - the read bias's slots, and its writer's side: a writer that
 * finds the bias revokes it and waits for every slot that names its lock
 * (rwlock_bias.h tells the story).
 */
#include "rwlock_bias.h"
#include "spin.h"

struct bias_slot slim_bias_slots[BIAS_SLOTS] = {{NULL}};

/* A thread that ends with a biased read hold (a program bug: POSIX leaves the
 * lock read-held) would leave its slot naming that address for good, and a
 * later lock there would wait for a reader that is gone; the hold is dropped
 * instead. The slot is the record's, so the thread's next life starts clean. */
void slim_rwlock_owner_exits(struct slim_thread *self)
{
    unsigned long index = self->table_index;

    if (index < BIAS_SLOTS && slim_pointer_load_relaxed(bias_slot_word(index)) != NULL)
        bias_slot_release(index);
}

/* Waits until the slot no longer names rwlock: 0, or ETIMEDOUT. */
static int bias_wait_slot(unsigned long index, pthread_rwlock_t *rwlock,
                          const struct slim_deadline *deadline)
{
    void *volatile *slot = bias_slot_word(index);
    void *seen, *tagged;
    struct slim_spin spin;

    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (slim_spin_again(&spin))
        if (untagged(slim_pointer_load_acquire(slot)) != rwlock)
            return 0;
    for (;;) {
        seen = slim_pointer_load_acquire(slot);
        if (untagged(seen) != rwlock)
            return 0;
        tagged = (void *)((uintptr_t)seen | BIAS_TAG);
        if (seen != tagged && !slim_pointer_cas_seen(slot, &seen, tagged))
            continue;
        /* The slot's low half holds the tag: any release changes it. */
        if (slim_wait_on((volatile long *)(void *)slot, (long)(uintptr_t)tagged, deadline,
                         SLIM_WAIT_PLAIN) == ETIMEDOUT)
            return ETIMEDOUT; /* a tag left behind costs its reader one idle wake */
    }
}

/* When the bias may come back after a revocation that began at began (see
 * BIAS_INHIBIT_LEAST). */
static int64_t bias_inhibition_end(int64_t began)
{
    int64_t now = bias_clock(), inhibition = BIAS_INHIBIT_FACTOR * (now - began);

    return now + (inhibition > BIAS_INHIBIT_LEAST ? inhibition : BIAS_INHIBIT_LEAST);
}

/* The clear and the scan are the writer's half of a Dekker pattern with a
 * reader's bias_try_read (which stores its slot, then loads the word): the
 * loads after the clear are sequentially consistent, as the reader's are, so
 * that a reader which still saw the bias is seen in its slot (an acquire load
 * may be satisfied before the clear is visible, ARM64's LDAPR). The count of
 * records is read after the clear too: a thread whose record is newer than
 * a count read before it could take its slot and still see the bias. */
int slim_rwlock_bias_revoke(pthread_rwlock_t *rwlock, struct slim_thread *self, int wait,
                       const struct slim_deadline *deadline)
{
    unsigned long index, count;
    int64_t began = bias_clock();
    int error = 0;

    slim_word64_and(&rwlock->__state, ~READ_BIASED);
    count = slim_records_handed_out();
    if (count > BIAS_SLOTS)
        count = BIAS_SLOTS;
    for (index = 0; index < count && error == 0; index++) {
        if (untagged(slim_pointer_load_seq_cst(bias_slot_word(index))) != rwlock)
            continue;
        if (!wait)
            error = EBUSY;
        else if (self != NULL && index == self->table_index)
            error = EDEADLK; /* it would wait for itself */
        else
            error = bias_wait_slot(index, rwlock, deadline);
    }
    slim_word64_store_relaxed(&rwlock->__read_bias_after, bias_inhibition_end(began));
    if (error != 0)
        slim_word64_or(&rwlock->__state, READ_BIASED);
    return error;
}

#include "code_end.h"
