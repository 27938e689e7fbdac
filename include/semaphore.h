/*
 * semaphore.h - slimpthreads: POSIX semaphores on Windows.
 *
 * An unnamed sem_t (sem_init) is a count in user memory that blocks with
 * WaitOnAddress: no kernel object, no global lock; a process-shared one blocks
 * on a named kernel semaphore only while someone waits. Named semaphores (sem_open)
 * are Windows kernel semaphores so that they work across processes.
 */
#ifndef SLIMPTHREADS_SEMAPHORE_H
#define SLIMPTHREADS_SEMAPHORE_H

/* MinGW-w64's own (winpthreads') <pthread.h>, <sched.h> or <semaphore.h> came
 * first: its types would clash with ours in a flood of errors, or agree in name
 * but not in size. Say once what to do instead. */
#if defined(WIN_PTHREADS_SEMAPHORE_H) || \
    (defined(WIN_PTHREADS_H) && !defined(SLIMPTHREADS_PTHREAD_H))
#error "slimpthreads: a winpthreads header (MinGW-w64's <pthread.h>, <sched.h> or <semaphore.h>) was included before slimpthreads' <semaphore.h>. Put slimpthreads' include directory first on the include path (-I<prefix>/include before any other -I, -isystem or vendored copy)."
#else /* the rest of the header: only without winpthreads' */

#include "slimpthreads_abi.h"

#include <errno.h> /* the semaphores' errors; pthreads4w's header has it too */
#include <time.h>
#include <pthread_time.h>
#include <sys/types.h>
#include <fcntl.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef WIN_PTHREADS_SEMAPHORE_H
#define WIN_PTHREADS_SEMAPHORE_H
#endif

typedef struct {
    volatile long __value;   /* tokens (low 31 bits) and a "sleepers: wake" flag (top bit) */
    volatile long __waiters; /* threads in a sleeping wait: a hint sem_post reads first */
    void *__named; /* sem_open's: its kernel semaphore; process-shared: id << 1 | 1; else NULL */
} sem_t;

#define SEM_VALUE_MAX 0x7fffffff
#define SEM_NSEMS_MAX 1024 /* as <pthread.h>, where the peers have it */
#define SEM_FAILED ((sem_t *)0)

/* As pthreads4w's <semaphore.h> (and <unistd.h> through pthread_unistd.h). */
#undef _POSIX_SEMAPHORES
#define _POSIX_SEMAPHORES 200809L

/* pshared != 0: a semaphore for memory several processes map (README.md,
 * Process-shared rwlocks and semaphores); ENOSPC or EPERM when the system
 * refuses its id. */
int sem_init(sem_t *sem, int pshared, unsigned int value) SLIMPTHREADS_ABI(sem_init);
/* EBUSY while threads sleep on it, of any process for a shared one (glibc
 * returns 0). */
int sem_destroy(sem_t *sem) SLIMPTHREADS_ABI(sem_destroy);
int sem_wait(sem_t *sem) SLIMPTHREADS_ABI(sem_wait);
int sem_trywait(sem_t *sem) SLIMPTHREADS_ABI(sem_trywait);
int sem_timedwait(sem_t *sem, const struct timespec *abstime) SLIMPTHREADS_ABI(sem_timedwait);
int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(sem_clockwait);
int sem_post(sem_t *sem) SLIMPTHREADS_ABI(sem_post);
int sem_getvalue(sem_t *sem, int *value) SLIMPTHREADS_ABI(sem_getvalue);
/* pthreads4w's: count posts at once (EINVAL for count <= 0, ERANGE past SEM_VALUE_MAX). */
int sem_post_multiple(sem_t *sem, int count) SLIMPTHREADS_ABI(sem_post_multiple);

/* mode is ignored; names live in the logon session's Local\ namespace. Once
 * every process that opened a semaphore has exited it is gone, unlinked or
 * not (Windows frees a kernel object with its last handle). */
sem_t *sem_open(const char *name, int oflag, ...) SLIMPTHREADS_ABI(sem_open);
int sem_close(sem_t *sem) SLIMPTHREADS_ABI(sem_close);
int sem_unlink(const char *name) SLIMPTHREADS_ABI(sem_unlink);

#ifdef __cplusplus
}
#endif

#endif /* not after winpthreads' header */
#endif /* SLIMPTHREADS_SEMAPHORE_H */
