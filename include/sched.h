/*
 * sched.h - slimpthreads: scheduling for POSIX programs on Windows.
 *
 * Replaces MinGW-w64's winpthreads <sched.h>. Priorities map onto Windows thread
 * priorities (see README.md for the table); cpu_set_t covers the processors of
 * the calling thread's processor group.
 */
#ifndef SLIMPTHREADS_SCHED_H
#define SLIMPTHREADS_SCHED_H

#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <pthread_time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* winpthreads' <sched.h> uses these guards; claiming them keeps a stray include
 * of the system header from redefining what we define here. */
#ifndef WIN_PTHREADS_SCHED_H
#define WIN_PTHREADS_SCHED_H
#endif

struct sched_param {
    int sched_priority;
};

#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_MIN SCHED_OTHER
#define SCHED_MAX SCHED_RR

int sched_yield(void);
int sched_get_priority_min(int policy);
int sched_get_priority_max(int policy);
int sched_getscheduler(pid_t pid);
int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param);
int sched_getparam(pid_t pid, struct sched_param *param);
int sched_setparam(pid_t pid, const struct sched_param *param);
int sched_rr_get_interval(pid_t pid, struct timespec *interval);
int sched_getcpu(void);

/* CPU sets, as glibc spells them. Bits are kept in 64-bit words. */
#define CPU_SETSIZE 1024
#define __SLIM_CPU_WORD_BITS 64
typedef struct {
    unsigned long long __bits[CPU_SETSIZE / __SLIM_CPU_WORD_BITS];
} cpu_set_t;

#define __SLIM_CPU_WORD(cpu) ((size_t)(cpu) / __SLIM_CPU_WORD_BITS)
#define __SLIM_CPU_BIT(cpu) (1ULL << ((size_t)(cpu) % __SLIM_CPU_WORD_BITS))
#define __SLIM_CPU_IN_RANGE(cpu) ((size_t)(cpu) < CPU_SETSIZE)

#define CPU_ZERO(set) memset((set), 0, sizeof(cpu_set_t))
#define CPU_SET(cpu, set) \
    ((void)(__SLIM_CPU_IN_RANGE(cpu) && ((set)->__bits[__SLIM_CPU_WORD(cpu)] |= __SLIM_CPU_BIT(cpu))))
#define CPU_CLR(cpu, set) \
    ((void)(__SLIM_CPU_IN_RANGE(cpu) && ((set)->__bits[__SLIM_CPU_WORD(cpu)] &= ~__SLIM_CPU_BIT(cpu))))
#define CPU_ISSET(cpu, set) \
    (__SLIM_CPU_IN_RANGE(cpu) && ((set)->__bits[__SLIM_CPU_WORD(cpu)] & __SLIM_CPU_BIT(cpu)) != 0)
#define CPU_COUNT(set) __slim_cpu_count(set)
#define CPU_EQUAL(a, b) (memcmp((a), (b), sizeof(cpu_set_t)) == 0)
#define CPU_AND(dst, a, b) __slim_cpu_combine((dst), (a), (b), 0)
#define CPU_OR(dst, a, b) __slim_cpu_combine((dst), (a), (b), 1)
#define CPU_XOR(dst, a, b) __slim_cpu_combine((dst), (a), (b), 2)

int __slim_cpu_count(const cpu_set_t *set);
void __slim_cpu_combine(cpu_set_t *dst, const cpu_set_t *a, const cpu_set_t *b, int operation);

int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *set);
int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *set);

#ifdef __cplusplus
}
#endif

#endif /* SLIMPTHREADS_SCHED_H */
