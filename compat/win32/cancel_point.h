/*
 * cancel_point.h - deferred cancellation (cancel.c): the entry of every
 * cancellation point, the bookkeeping the wait entry does around a
 * cancellable sleep, acting on a request, and the leaving thread's end of
 * it. Apart from thread_record.h, whose record the entry reads (the caller's
 * cancel_pending word): most files that use a record are no cancellation
 * point. Private to the library.
 */
#ifndef SLIMPTHREADS_CANCEL_POINT_H
#define SLIMPTHREADS_CANCEL_POINT_H

#include "thread_record.h"

/* ---- Cancellation points (cancel.c) ---- */

/* The bookkeeping of a CANCELLABLE wait, called by the wait entry only: before
 * it sleeps, the thread publishes what a canceller must wake (the word, or NULL
 * for an alertable handle wait, which an APC ends); both return nonzero when a
 * request must be acted on. */
int slim_cancel_wait_begin(volatile long *word);
int slim_cancel_wait_end(void);

/* Nonzero when the calling thread must act on a cancellation request now. */
int slim_cancel_requested(void);

/* A thread's cancel_pending word: pthread_cancel moves it NO_REQUEST ->
 * REQUESTED, once per life. */
enum { SLIM_CANCEL_NO_REQUEST = 0, SLIM_CANCEL_REQUESTED = 1 };

/* The slow half of slim_cancel_point_entry (below): a request is pending; acts
 * on it if cancellation is enabled, else returns. */
void slim_cancel_point_pending(void) __attribute__((__cold__));

/* Acts on the calling thread's cancellation request: pthread_exit(PTHREAD_CANCELED). */
void slim_cancel_act(void) __attribute__((__noreturn__));

/* The calling thread is leaving (pthread_exit, return from its start routine,
 * the exit hook): from here on no request acts on it, and no other thread
 * stops it to redirect it while cleanup handlers and key destructors run. */
void slim_cancel_exiting(struct slim_thread *self);

/* The entry of every cancellation point that POSIX says "shall occur" in
 * (XSH 2.9.5.2): a request pending when the call begins is acted on there,
 * before the arguments are looked at, whether or not the call would go on to
 * block (a semaphore with a token, a deadline already past, a thread already
 * ended), as glibc and musl test at entry. A request that arrives later is the
 * wait entry's (wait.c). The fast path is one load of the caller's own
 * cancel_pending word. A thread without a record has no request to act on: only
 * pthread_cancel sets the word, naming the thread by a pthread_t, and every
 * record that has one is bound to its thread (pthread_create's thread binds its
 * record before it runs the program's code; pthread_self binds a record to a
 * thread we did not create), so the word is read once it is bound. */
static inline void slim_cancel_point_entry(void)
{
    struct slim_thread *self = slim_self_if_known();

    if (__builtin_expect(self != NULL && slim_load_acquire(&self->cancel_pending) !=
                                             SLIM_CANCEL_NO_REQUEST, 0))
        slim_cancel_point_pending();
}

#endif /* SLIMPTHREADS_CANCEL_POINT_H */
