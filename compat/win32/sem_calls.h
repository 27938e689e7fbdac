/*
 * sem_calls.h - what the semaphore files offer the rest of the library: the
 * lightweight semaphore (sem.c), a word on the wait road under sem_t and
 * under each condvar waiter, and the named semaphores' calls (sem_named.c),
 * to which sem.c hands a sem_t that holds a kernel handle. Apart from wait.h,
 * which they sleep through: most files wait without a semaphore.
 * Private to the library.
 */
#ifndef SLIMPTHREADS_SEM_CALLS_H
#define SLIMPTHREADS_SEM_CALLS_H

#include "wait.h"

/* ---- The lightweight semaphore (sem.c) ---- */

/* Under sem_t and under each condvar waiter: a word that sleeps on the wait road.
 * Takes a token, sleeping until one comes: 0, ETIMEDOUT once the deadline (NULL:
 * none) has passed, or ECANCELED for a cancellable wait. Process-private unnamed
 * semaphores only: a process-shared one sleeps on its doorbell (sem.c). */
int slim_sem_wait(sem_t *sem, const struct slim_deadline *deadline, enum slim_wait_kind kind);

/* Adds a token and wakes a sleeper: 0 or EOVERFLOW. Its last access to *sem is
 * one atomic update, so a woken waiter may free the semaphore at once. */
int slim_sem_post(sem_t *sem);

/* ---- Named semaphores (sem_named.c): sem->__named holds the kernel handle ---- */

/* sem_trywait / sem_wait / the timed waits: deadline NULL waits forever; the
 * wait is a cancellation point unless try_only. 0 or the errno. */
int slim_sem_named_wait(sem_t *sem, const struct slim_deadline *deadline, int try_only);
int slim_sem_named_post(sem_t *sem);
int slim_sem_named_getvalue(sem_t *sem, int *value);

#endif /* SLIMPTHREADS_SEM_CALLS_H */
