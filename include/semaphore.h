/*
 * semaphore.h - slimpthreads: POSIX semaphores on Windows.
 *
 * An unnamed sem_t (sem_init) is a count in user memory that blocks with
 * WaitOnAddress: no kernel object, no global lock. Named semaphores (sem_open)
 * are Windows kernel semaphores so that they work across processes.
 */
#ifndef SLIMPTHREADS_SEMAPHORE_H
#define SLIMPTHREADS_SEMAPHORE_H

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
    void *__named;           /* the kernel semaphore of a sem_open semaphore, else NULL */
} sem_t;

#define SEM_VALUE_MAX 0x7fffffff
#define SEM_FAILED ((sem_t *)0)

int sem_init(sem_t *sem, int pshared, unsigned int value);
int sem_destroy(sem_t *sem);
int sem_wait(sem_t *sem);
int sem_trywait(sem_t *sem);
int sem_timedwait(sem_t *sem, const struct timespec *abstime);
int sem_clockwait(sem_t *sem, clockid_t clock, const struct timespec *abstime);
int sem_post(sem_t *sem);
int sem_getvalue(sem_t *sem, int *value);

sem_t *sem_open(const char *name, int oflag, ...);
int sem_close(sem_t *sem);
int sem_unlink(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SLIMPTHREADS_SEMAPHORE_H */
