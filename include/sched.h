/*
 * sched.h - slimpthreads: scheduling for POSIX programs on Windows.
 *
 * Replaces MinGW-w64's winpthreads <sched.h>. Priorities map onto Windows thread
 * priorities (see README.md for the table); cpu_set_t covers the processors of
 * the calling thread's processor group.
 */
#ifndef SLIMPTHREADS_SCHED_H
#define SLIMPTHREADS_SCHED_H

/* MinGW-w64's own (winpthreads') <pthread.h>, <sched.h> or <semaphore.h> came
 * first: its types would clash with ours in a flood of errors, or agree in name
 * but not in size. Say once what to do instead. */
#if defined(WIN_PTHREADS_SCHED_H) || \
    (defined(WIN_PTHREADS_H) && !defined(SLIMPTHREADS_PTHREAD_H))
#error "slimpthreads: a winpthreads header (MinGW-w64's <pthread.h>, <sched.h> or <semaphore.h>) was included before slimpthreads' <sched.h>. Put slimpthreads' include directory first on the include path (-I<prefix>/include before any other -I, -isystem or vendored copy)."
#else /* the rest of the header: only without winpthreads' */

#include "slimpthreads_abi.h"

#include <errno.h> /* the sched_* calls' errors; pthreads4w's header has it too */
#include <stddef.h>
#include <stdint.h>
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

int sched_yield(void) SLIMPTHREADS_ABI(sched_yield);
int sched_get_priority_min(int policy) SLIMPTHREADS_ABI(sched_get_priority_min);
int sched_get_priority_max(int policy) SLIMPTHREADS_ABI(sched_get_priority_max);
/* The calls that take a pid act on the calling thread for pid 0, and give
 * ESRCH for any other pid. */
int sched_getscheduler(pid_t pid) SLIMPTHREADS_ABI(sched_getscheduler);
int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
    SLIMPTHREADS_ABI(sched_setscheduler);
int sched_getparam(pid_t pid, struct sched_param *param) SLIMPTHREADS_ABI(sched_getparam);
int sched_setparam(pid_t pid, const struct sched_param *param) SLIMPTHREADS_ABI(sched_setparam);
int sched_rr_get_interval(pid_t pid, struct timespec *interval)
    SLIMPTHREADS_ABI(sched_rr_get_interval);
int sched_getcpu(void) SLIMPTHREADS_ABI(sched_getcpu);

/* CPU sets, as glibc spells them. Bits are kept in 64-bit words. */
#define CPU_SETSIZE 1024
#define __SLIM_CPU_WORD_BITS 64
typedef struct {
    uint64_t __bits[CPU_SETSIZE / __SLIM_CPU_WORD_BITS];
} cpu_set_t;

#define __SLIM_CPU_WORD(cpu) ((size_t)(cpu) / __SLIM_CPU_WORD_BITS)
#define __SLIM_CPU_BIT(cpu) ((uint64_t)1 << ((size_t)(cpu) % __SLIM_CPU_WORD_BITS))
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

int __slim_cpu_count(const cpu_set_t *set) SLIMPTHREADS_ABI(cpu_count);
void __slim_cpu_combine(cpu_set_t *dst, const cpu_set_t *a, const cpu_set_t *b, int operation)
    SLIMPTHREADS_ABI(cpu_combine);

int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *set)
    SLIMPTHREADS_ABI(sched_setaffinity);
int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *set)
    SLIMPTHREADS_ABI(sched_getaffinity);

#ifdef __cplusplus
}
#endif

#endif /* not after winpthreads' header */
#endif /* SLIMPTHREADS_SCHED_H */
