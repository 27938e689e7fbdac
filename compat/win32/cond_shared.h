/*
 * cond_shared.h - what cond.c asks of the process-shared cond (cond_shared.c):
 * the mark that tells a shared cond from a private one, and its calls.
 *
 * A private cond's __oldest_waiter is NULL or a waiter node on a stack, an
 * aligned pointer; a shared cond keeps an odd number there (its look word,
 * cond_shared.c), so the private paths' own compare with NULL sends a shared
 * cond past their fast exit, where this mark's one test dispatches it.
 */
#ifndef SLIMPTHREADS_COND_SHARED_H
#define SLIMPTHREADS_COND_SHARED_H

#include "internal.h"
#include "wait.h"

#include <stdint.h>

/* The low bit of a shared cond's __oldest_waiter: never set in a node's address. */
#define SLIM_COND_SHARED_MARK ((uintptr_t)1)

/* Nonzero for the __oldest_waiter of a process-shared cond; expected not,
 * so that the compiler keeps the private path's layout. */
static inline int slim_cond_marked_shared(const void *oldest_waiter)
{
    return __builtin_expect(((uintptr_t)oldest_waiter & SLIM_COND_SHARED_MARK) != 0, 0);
}

/* pthread_cond_init's work for a PTHREAD_PROCESS_SHARED cond: 0, or EAGAIN or
 * ENOMEM when no object id can be had. */
int slim_cond_shared_init(pthread_cond_t *cond, clockid_t clock);

/* Signal and broadcast of a shared cond: both wake every waiter of the current
 * generation (cond_shared.c says why). Always 0. */
int slim_cond_shared_wake(pthread_cond_t *cond);

/* The wait of a shared cond with a shared mutex (EINVAL for a private one),
 * until a wake, the deadline (NULL: none) or a cancellation request; returns
 * as cond.c's private wait does. */
int slim_cond_shared_wait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                          const struct slim_deadline *deadline);

/* 0, or EBUSY while waiters are registered or a wake is under way. */
int slim_cond_shared_destroy(pthread_cond_t *cond);

/* Nonzero when a shared cond's words hold values no init or call writes. */
int slim_cond_shared_unusable(const pthread_cond_t *cond);

#endif /* SLIMPTHREADS_COND_SHARED_H */
