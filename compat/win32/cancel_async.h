/*
 * cancel_async.h - asynchronous cancellation of another thread: what
 * cancel.c asks of cancel_async.c, and what cancel_async.c, its retrier and
 * the files that find a stopped thread's return address (cancel_async_*.c)
 * ask of each other. Apart from cancel_point.h: only these files stop a
 * thread from outside. Private to the library.
 */
#ifndef SLIMPTHREADS_CANCEL_ASYNC_H
#define SLIMPTHREADS_CANCEL_ASYNC_H

#include "thread_record.h"

/* Asynchronous cancellation of another thread (cancel_async.c): stops target
 * and sends it to slim_cancel_act, at once when it runs the program's own code,
 * or when the call it is in returns into that code, whose return address is
 * known exactly. Nonzero once that is arranged; 0 when it is not yet: the
 * request then acts at the target's next cancellation point, or once the
 * retrier (cancel_async_retry.c), which keeps looking, can arrange it. */
int slim_cancel_async(struct slim_thread *target);

/* What one look at a thread found (cancel_async.c). */
enum slim_async_verdict {
    SLIM_ASYNC_ARRANGED,    /* redirected now, or its return into the program replaced */
    SLIM_ASYNC_LOOK_AGAIN,  /* nowhere safe to act yet: it runs on, to be looked at later */
    SLIM_ASYNC_LEFT_PENDING /* no longer asynchronous and enabled, or gone: its own
                             * calls (setcanceltype, setcancelstate, points) see the request */
};

/* One look at target, through handle (a handle of its thread), while life is
 * the record's current life. */
enum slim_async_verdict slim_async_look(struct slim_thread *target, HANDLE handle,
                                        pthread_t life);

/* Whether address lies in the program's own code (the executable's, or the
 * module's that links us, less our own) (cancel_async.c). */
int slim_async_in_program_code(const char *address);

/* The images whose code is the program's: the executable, and the module our
 * code lives in (the same one when we are linked into the executable). */
void slim_async_program_images(const void **executable, const void **library);

/* For a target stopped outside the program's code (cancel_async_return.c):
 * replaces the return address into the program's code of the call it is in,
 * when its slot is known exactly. Nonzero once done. */
int slim_async_replace_return(struct slim_thread *target, const CONTEXT *stopped);

/* The slot that holds that return address, known exactly, or NULL
 * (cancel_async_unwind.c on x86_64 and aarch64, cancel_async_frames.c on
 * i686); *stack_at_return gets the stack pointer that return leaves (where
 * the aarch64 trampoline's stack starts). */
uintptr_t *slim_async_return_slot(const struct slim_thread *target, const CONTEXT *stopped,
                                  const char **stack_at_return);

/* Hands target's request to the retrier (cancel_async_retry.c): nonzero when it
 * took it, 0 when Windows gave neither the memory nor the thread for it. */
int slim_async_retry_later(struct slim_thread *target);

#endif /* SLIMPTHREADS_CANCEL_ASYNC_H */
