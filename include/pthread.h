/*
 * pthread.h - slimpthreads: POSIX threads for Windows (MinGW-w64).
 *
 * The API, grouped by object: threads (their attributes, cleanup handlers,
 * cancellation, scheduling), once, keys, mutexes, spinlocks, barriers,
 * rwlocks, condition variables, then the peers' process-wide extensions.
 * Where a call differs from POSIX, the comment above its declaration says
 * how; README.md, "Deviations from POSIX and from the peers", gives every
 * difference with its reason.
 *
 * Creating an object never allocates, and zero-filled memory is a valid
 * statically initialized mutex, rwlock, cond, spinlock and once. The objects'
 * layouts (slimpthreads_types.h), the link names and attributes
 * (slimpthreads_abi.h) and the inline paths (slimpthreads_mutex_inline.h,
 * slimpthreads_spin_inline.h, slimpthreads_once_cond_inline.h,
 * slimpthreads_rwlock_inline.h) are machinery this header includes: users
 * need not read them.
 */
#ifndef SLIMPTHREADS_PTHREAD_H
#define SLIMPTHREADS_PTHREAD_H

/* MinGW-w64's own (winpthreads') <pthread.h>, <sched.h> or <semaphore.h> came
 * first: its types would clash with ours in a flood of errors, or agree in name
 * but not in size. Say once what to do instead. */
#if defined(WIN_PTHREADS_H)
#error "slimpthreads: a winpthreads header (MinGW-w64's <pthread.h>, <sched.h> or <semaphore.h>) was included before slimpthreads' <pthread.h>. Put slimpthreads' include directory first on the include path (-I<prefix>/include before any other -I, -isystem or vendored copy)."
#else /* the rest of the header: only without winpthreads' */

#include "slimpthreads_abi.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <pthread_time.h>
#include <sched.h>

#ifdef __cplusplus
extern "C" {
#endif

/* winpthreads' own pthread.h must not add a second, conflicting copy. */
#ifndef WIN_PTHREADS_H
#define WIN_PTHREADS_H
#endif

#define SLIMPTHREADS_VERSION_MAJOR 0
#define SLIMPTHREADS_VERSION_MINOR 1

/* pthread_t, pthread_attr_t, pthread_once_t, pthread_key_t, pthread_mutex_t,
 * pthread_mutexattr_t, pthread_spinlock_t, pthread_barrier_t,
 * pthread_barrierattr_t, pthread_rwlock_t, pthread_rwlockattr_t,
 * pthread_cond_t, pthread_condattr_t. */
#include "slimpthreads_types.h"

/* ---- Limits (glibc's values where POSIX leaves them open) ---- */

#define PTHREAD_KEYS_MAX 1024
#define PTHREAD_DESTRUCTOR_ITERATIONS 4
#define PTHREAD_STACK_MIN 16384

/* winpthreads' and pthreads4w's <pthread.h> give these too, with these values,
 * so that programs written for them build and size their tables the same.
 * Neither count is a limit of ours: the thread table holds 65472 threads on
 * i686 and about four million on x86_64, and what ends pthread_create first
 * (EAGAIN) is address space for the stacks; an unnamed semaphore is memory, a
 * named one a kernel object (tests/shell/peer_headers.sh opens that many at once, and
 * runs that many threads at once on x86_64). SEM_VALUE_MAX and SEM_NSEMS_MAX
 * are <semaphore.h>'s too. */
#define PTHREAD_THREADS_MAX 2019
#define SEM_NSEMS_MAX 1024
#define SEM_VALUE_MAX 0x7fffffff
#define PTHREAD_MAX_NAMELEN_NP 16 /* a thread's name, its terminating NUL included */

/* POSIX's minimum acceptable values (POSIX puts them in <limits.h>). */
#define _POSIX_THREAD_DESTRUCTOR_ITERATIONS 4
#define _POSIX_THREAD_KEYS_MAX 128
#define _POSIX_THREAD_THREADS_MAX 64
#define _POSIX_SEM_NSEMS_MAX 256
#define _POSIX_SEM_VALUE_MAX 32767

/* Every object's pshared attribute. PTHREAD_PROCESS_SHARED makes a mutex,
 * rwlock, cond or barrier work in memory several processes map, each at its own
 * address (README.md, Process-shared objects: how, and who can open its names). */
#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED 1
#define PTHREAD_MUTEX_PRIVATE PTHREAD_PROCESS_PRIVATE /* winpthreads' names */
#define PTHREAD_MUTEX_SHARED PTHREAD_PROCESS_SHARED

/* ---- Threads ---- */

/* A pthread_t (slimpthreads_types.h) is a number, a record's index and the
 * generation of its life, not an address: the id of a joined thread, or of a
 * detached one that has ended, gives ESRCH from every call. */

#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_CREATE_DETACHED 1

#define PTHREAD_INHERIT_SCHED 0
#define PTHREAD_EXPLICIT_SCHED 1

#define PTHREAD_SCOPE_SYSTEM 0
#define PTHREAD_SCOPE_PROCESS 1

/* Returns without waiting for the new thread to run (_beginthreadex). */
int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                   void *(*start_routine)(void *), void *argument)
    SLIMPTHREADS_ABI(pthread_create);
/* Threads the library did not create (main among them) are born detached:
 * joining or detaching them gives EINVAL. */
int pthread_join(pthread_t thread, void **result) SLIMPTHREADS_ABI(pthread_join);
int pthread_tryjoin_np(pthread_t thread, void **result) SLIMPTHREADS_ABI(pthread_tryjoin_np);
int pthread_timedjoin_np(pthread_t thread, void **result, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_timedjoin_np);
int pthread_detach(pthread_t thread) SLIMPTHREADS_ABI(pthread_detach);
/* Runs the cleanup handlers and key destructors; does not unwind C++ frames. */
void pthread_exit(void *result) SLIMPTHREADS_ABI(pthread_exit) __SLIM_NORETURN;
pthread_t pthread_self(void) SLIMPTHREADS_ABI(pthread_self) __SLIM_CONST;
int pthread_equal(pthread_t a, pthread_t b) SLIMPTHREADS_ABI(pthread_equal) __SLIM_CONST;
/* SetThreadDescription (Windows 10 1607, else ENOTSUP); names of 16 bytes or
 * more give ERANGE, as in glibc. */
int pthread_setname_np(pthread_t thread, const char *name) SLIMPTHREADS_ABI(pthread_setname_np);
int pthread_getname_np(pthread_t thread, char *name, size_t size)
    SLIMPTHREADS_ABI(pthread_getname_np);
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
    SLIMPTHREADS_ABI(pthread_getattr_np);
/* pthread_setconcurrency stores its level only. */
int pthread_getconcurrency(void) SLIMPTHREADS_ABI(pthread_getconcurrency);
int pthread_setconcurrency(int level) SLIMPTHREADS_ABI(pthread_setconcurrency);
/* The clock id encodes the Win32 thread id (-2 - id); valid while the thread lives. */
int pthread_getcpuclockid(pthread_t thread, clockid_t *clock)
    SLIMPTHREADS_ABI(pthread_getcpuclockid);
/* Succeeds and registers nothing: there is no fork on Windows. */
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
    SLIMPTHREADS_ABI(pthread_atfork);

/* Thread attributes. */
int pthread_attr_init(pthread_attr_t *attr) SLIMPTHREADS_ABI(pthread_attr_init);
int pthread_attr_destroy(pthread_attr_t *attr) SLIMPTHREADS_ABI(pthread_attr_destroy);
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state)
    SLIMPTHREADS_ABI(pthread_attr_setdetachstate);
int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state)
    SLIMPTHREADS_ABI(pthread_attr_getdetachstate);
int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size)
    SLIMPTHREADS_ABI(pthread_attr_setstacksize);
int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size)
    SLIMPTHREADS_ABI(pthread_attr_getstacksize);
/* Stored and reported only: Windows places its own guard page. */
int pthread_attr_setguardsize(pthread_attr_t *attr, size_t size)
    SLIMPTHREADS_ABI(pthread_attr_setguardsize);
int pthread_attr_getguardsize(const pthread_attr_t *attr, size_t *size)
    SLIMPTHREADS_ABI(pthread_attr_getguardsize);
/* ENOTSUP: Windows cannot run a thread on a caller's stack. */
int pthread_attr_setstack(pthread_attr_t *attr, void *address, size_t size)
    SLIMPTHREADS_ABI(pthread_attr_setstack);
int pthread_attr_getstack(const pthread_attr_t *attr, void **address, size_t *size)
    SLIMPTHREADS_ABI(pthread_attr_getstack);
/* PTHREAD_SCOPE_PROCESS gives ENOTSUP. */
int pthread_attr_setscope(pthread_attr_t *attr, int scope) SLIMPTHREADS_ABI(pthread_attr_setscope);
int pthread_attr_getscope(const pthread_attr_t *attr, int *scope)
    SLIMPTHREADS_ABI(pthread_attr_getscope);
int pthread_attr_setinheritsched(pthread_attr_t *attr, int inherit)
    SLIMPTHREADS_ABI(pthread_attr_setinheritsched);
int pthread_attr_getinheritsched(const pthread_attr_t *attr, int *inherit)
    SLIMPTHREADS_ABI(pthread_attr_getinheritsched);
int pthread_attr_setschedpolicy(pthread_attr_t *attr, int policy)
    SLIMPTHREADS_ABI(pthread_attr_setschedpolicy);
int pthread_attr_getschedpolicy(const pthread_attr_t *attr, int *policy)
    SLIMPTHREADS_ABI(pthread_attr_getschedpolicy);
int pthread_attr_setschedparam(pthread_attr_t *attr, const struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_attr_setschedparam);
int pthread_attr_getschedparam(const pthread_attr_t *attr, struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_attr_getschedparam);
/* The peers' (compat/win32/np.c). setstackaddr gives ENOTSUP, as setstack. */
int pthread_attr_setstackaddr(pthread_attr_t *attr, void *address)
    SLIMPTHREADS_ABI(pthread_attr_setstackaddr);
int pthread_attr_getstackaddr(const pthread_attr_t *attr, void **address)
    SLIMPTHREADS_ABI(pthread_attr_getstackaddr);
int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t cpusetsize, const cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_attr_setaffinity_np);
int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t cpusetsize, cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_attr_getaffinity_np);
/* pthreads4w's (NetBSD's) form: name may hold one %s, replaced by arg. */
int pthread_attr_setname_np(pthread_attr_t *attr, const char *name, void *arg)
    SLIMPTHREADS_ABI(pthread_attr_setname_np);
int pthread_attr_getname_np(pthread_attr_t *attr, char *name, int size)
    SLIMPTHREADS_ABI(pthread_attr_getname_np);

/* Cleanup handlers: a frame on the caller's stack, linked into the thread. */
#define pthread_cleanup_push(routine, argument)                 \
    {                                                           \
        struct __slim_cleanup_frame __slim_frame;               \
        __slim_cleanup_push(&__slim_frame, (routine), (argument));
#define pthread_cleanup_pop(execute)                            \
        __slim_cleanup_pop(&__slim_frame, (execute));           \
    }

/* ---- Cancellation ---- */

#define PTHREAD_CANCEL_ENABLE 0
#define PTHREAD_CANCEL_DISABLE 1
#define PTHREAD_CANCEL_DEFERRED 0
#define PTHREAD_CANCEL_ASYNCHRONOUS 1
#define PTHREAD_CANCELED ((void *)(intptr_t)-1)

/* An asynchronous request acts only where the target is in the program's own
 * code (else when the call it is in returns there); a deferred one at our
 * cancellation points only, never inside the C runtime's or Winsock's calls. */
int pthread_cancel(pthread_t thread) SLIMPTHREADS_ABI(pthread_cancel);
int pthread_setcancelstate(int state, int *old_state) SLIMPTHREADS_ABI(pthread_setcancelstate);
int pthread_setcanceltype(int type, int *old_type) SLIMPTHREADS_ABI(pthread_setcanceltype);
void pthread_testcancel(void) SLIMPTHREADS_ABI(pthread_testcancel);

/* ---- Scheduling ---- */

/* Policies and priorities map onto Windows thread priorities (README.md,
 * Priorities): FIFO behaves like RR. */
int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_setschedparam);
int pthread_getschedparam(pthread_t thread, int *policy, struct sched_param *param)
    SLIMPTHREADS_ABI(pthread_getschedparam);
int pthread_setschedprio(pthread_t thread, int priority) SLIMPTHREADS_ABI(pthread_setschedprio);
/* The processors of the thread's processor group (at most 64). */
int pthread_setaffinity_np(pthread_t thread, size_t cpusetsize, const cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_setaffinity_np);
int pthread_getaffinity_np(pthread_t thread, size_t cpusetsize, cpu_set_t *set)
    SLIMPTHREADS_ABI(pthread_getaffinity_np);
int pthread_yield(void) SLIMPTHREADS_ABI(pthread_yield);

/* ---- Once ---- */

#define PTHREAD_ONCE_INIT 0

/* Inline on a done once (slimpthreads_once_cond_inline.h). */
int pthread_once(pthread_once_t *once, void (*init_routine)(void)) SLIMPTHREADS_ABI(pthread_once);

/* ---- Keys ---- */

/* Destructors run at the exit of every thread, also threads we did not create. */
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
    SLIMPTHREADS_ABI(pthread_key_create);
int pthread_key_delete(pthread_key_t key) SLIMPTHREADS_ABI(pthread_key_delete);
void *pthread_getspecific(pthread_key_t key) SLIMPTHREADS_ABI(pthread_getspecific);
int pthread_setspecific(pthread_key_t key, const void *value)
    SLIMPTHREADS_ABI(pthread_setspecific);

/* ---- Mutexes ---- */

/* DEFAULT is its own kind: the fastest correct mutex (relocking it is undefined
 * behaviour), while NORMAL promises the self-deadlock POSIX describes. */
#define PTHREAD_MUTEX_DEFAULT 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_NORMAL 3
#define PTHREAD_MUTEX_TIMED_NP PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_ADAPTIVE_NP PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_FAST_NP PTHREAD_MUTEX_DEFAULT
#define PTHREAD_MUTEX_RECURSIVE_NP PTHREAD_MUTEX_RECURSIVE
#define PTHREAD_MUTEX_ERRORCHECK_NP PTHREAD_MUTEX_ERRORCHECK

#define PTHREAD_MUTEX_STALLED 0
#define PTHREAD_MUTEX_ROBUST 1
#define PTHREAD_MUTEX_STALLED_NP PTHREAD_MUTEX_STALLED
#define PTHREAD_MUTEX_ROBUST_NP PTHREAD_MUTEX_ROBUST

/* PTHREAD_PRIO_INHERIT and PTHREAD_PRIO_PROTECT give ENOTSUP. */
#define PTHREAD_PRIO_NONE 0
#define PTHREAD_PRIO_INHERIT 1
#define PTHREAD_PRIO_PROTECT 2

#define PTHREAD_MUTEX_INITIALIZER __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_DEFAULT)
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_RECURSIVE)
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_ERRORCHECK)
#define PTHREAD_NORMAL_MUTEX_INITIALIZER_NP __SLIM_MUTEX_INITIALIZER(PTHREAD_MUTEX_NORMAL)
#define PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP PTHREAD_MUTEX_INITIALIZER
/* The peers' names without _NP. NORMAL is its own kind here, as above (in
 * winpthreads it is DEFAULT's). */
#define PTHREAD_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define PTHREAD_ERRORCHECK_MUTEX_INITIALIZER PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP
#define PTHREAD_NORMAL_MUTEX_INITIALIZER PTHREAD_NORMAL_MUTEX_INITIALIZER_NP
#define PTHREAD_DEFAULT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
    SLIMPTHREADS_ABI(pthread_mutex_init);
int pthread_mutex_destroy(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_destroy);
/* A DEFAULT mutex relocked by its owner recurses (POSIX: undefined); one that
 * nobody holds gives EPERM at unlock. A sleeping locker can be overtaken by a
 * running one (no hand-off). trylock by the owner gives EBUSY for every kind
 * but RECURSIVE. Lock, trylock and unlock are inline when uncontended
 * (slimpthreads_mutex_inline.h; SLIMPTHREADS_NO_INLINE turns that off). */
int pthread_mutex_lock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_lock);
int pthread_mutex_trylock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_trylock);
int pthread_mutex_timedlock(pthread_mutex_t *mutex, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_mutex_timedlock);
int pthread_mutex_clocklock(pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_mutex_clocklock);
int pthread_mutex_unlock(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_unlock);
/* Only the thread that got EOWNERDEAD may call it (EINVAL otherwise). */
int pthread_mutex_consistent(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(pthread_mutex_consistent);
/* EINVAL: no mutex has PTHREAD_PRIO_PROTECT (as glibc for one without it). */
int pthread_mutex_getprioceiling(const pthread_mutex_t *mutex, int *prioceiling)
    SLIMPTHREADS_ABI(pthread_mutex_getprioceiling);
int pthread_mutex_setprioceiling(pthread_mutex_t *mutex, int prioceiling, int *old_ceiling)
    SLIMPTHREADS_ABI(pthread_mutex_setprioceiling);

/* Mutex attributes. */
int pthread_mutexattr_init(pthread_mutexattr_t *attr) SLIMPTHREADS_ABI(pthread_mutexattr_init);
int pthread_mutexattr_destroy(pthread_mutexattr_t *attr)
    SLIMPTHREADS_ABI(pthread_mutexattr_destroy);
int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_settype);
int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_gettype);
int pthread_mutexattr_setpshared(pthread_mutexattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_mutexattr_setpshared);
int pthread_mutexattr_getpshared(const pthread_mutexattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_mutexattr_getpshared);
int pthread_mutexattr_setprotocol(pthread_mutexattr_t *attr, int protocol)
    SLIMPTHREADS_ABI(pthread_mutexattr_setprotocol);
int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *attr, int *protocol)
    SLIMPTHREADS_ABI(pthread_mutexattr_getprotocol);
int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *attr, int prioceiling)
    SLIMPTHREADS_ABI(pthread_mutexattr_setprioceiling);
int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *attr, int *prioceiling)
    SLIMPTHREADS_ABI(pthread_mutexattr_getprioceiling);
int pthread_mutexattr_setrobust(pthread_mutexattr_t *attr, int robustness)
    SLIMPTHREADS_ABI(pthread_mutexattr_setrobust);
int pthread_mutexattr_getrobust(const pthread_mutexattr_t *attr, int *robustness)
    SLIMPTHREADS_ABI(pthread_mutexattr_getrobust);
/* The peers' (compat/win32/np.c): settype and gettype by their old names. */
int pthread_mutexattr_setkind_np(pthread_mutexattr_t *attr, int kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_setkind_np);
int pthread_mutexattr_getkind_np(const pthread_mutexattr_t *attr, int *kind)
    SLIMPTHREADS_ABI(pthread_mutexattr_getkind_np);

/* ---- Spinlocks ---- */

#define PTHREAD_SPINLOCK_INITIALIZER __SLIM_SPIN_UNLOCKED /* as zero-filled memory */

/* Lock, trylock and unlock are inline (slimpthreads_spin_inline.h). Unlocking
 * a lock that is not locked gives EPERM; the owner is not recorded. */
int pthread_spin_init(pthread_spinlock_t *lock, int pshared) SLIMPTHREADS_ABI(pthread_spin_init);
int pthread_spin_destroy(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_destroy);
int pthread_spin_lock(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_lock);
int pthread_spin_trylock(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_trylock);
int pthread_spin_unlock(pthread_spinlock_t *lock) SLIMPTHREADS_ABI(pthread_spin_unlock);

/* ---- Barriers ---- */

#define PTHREAD_BARRIER_SERIAL_THREAD (-1)

int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr,
                         unsigned count) SLIMPTHREADS_ABI(pthread_barrier_init);
int pthread_barrier_destroy(pthread_barrier_t *barrier) SLIMPTHREADS_ABI(pthread_barrier_destroy);
int pthread_barrier_wait(pthread_barrier_t *barrier) SLIMPTHREADS_ABI(pthread_barrier_wait);

/* Barrier attributes. */
int pthread_barrierattr_init(pthread_barrierattr_t *attr)
    SLIMPTHREADS_ABI(pthread_barrierattr_init);
int pthread_barrierattr_destroy(pthread_barrierattr_t *attr)
    SLIMPTHREADS_ABI(pthread_barrierattr_destroy);
int pthread_barrierattr_setpshared(pthread_barrierattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_barrierattr_setpshared);
int pthread_barrierattr_getpshared(const pthread_barrierattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_barrierattr_getpshared);

/* ---- Reader-writer locks ---- */

/* Every kind gets the same policy: a waiting writer makes new readers wait, so
 * busy readers never starve writers, and recursive read locks are safe in
 * every kind (PREFER_WRITER_NONRECURSIVE_NP deadlocks in glibc). The
 * uncontended write lock, write trylock and write unlock are inline
 * (slimpthreads_rwlock_inline.h; SLIMPTHREADS_NO_INLINE turns that off). */
#define PTHREAD_RWLOCK_PREFER_READER_NP 0
#define PTHREAD_RWLOCK_PREFER_WRITER_NP 1
#define PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP 2
#define PTHREAD_RWLOCK_DEFAULT_NP PTHREAD_RWLOCK_PREFER_READER_NP

#define PTHREAD_RWLOCK_INITIALIZER __SLIM_RWLOCK_INITIALIZER(PTHREAD_RWLOCK_DEFAULT_NP)
#define PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP \
    __SLIM_RWLOCK_INITIALIZER(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
    SLIMPTHREADS_ABI(pthread_rwlock_init);
int pthread_rwlock_destroy(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_destroy);
/* EAGAIN only when the thread's table of read holds cannot grow (no memory). */
int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_rdlock);
/* The write holder's tryrdlock and trywrlock give EBUSY, as glibc. */
int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_tryrdlock);
int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_timedrdlock);
int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_clockrdlock);
int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_wrlock);
int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_trywrlock);
int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_timedwrlock);
int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_rwlock_clockwrlock);
int pthread_rwlock_unlock(pthread_rwlock_t *rwlock) SLIMPTHREADS_ABI(pthread_rwlock_unlock);

/* Rwlock attributes. */
int pthread_rwlockattr_init(pthread_rwlockattr_t *attr) SLIMPTHREADS_ABI(pthread_rwlockattr_init);
int pthread_rwlockattr_destroy(pthread_rwlockattr_t *attr)
    SLIMPTHREADS_ABI(pthread_rwlockattr_destroy);
int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_rwlockattr_setpshared);
int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_rwlockattr_getpshared);
int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *attr, int kind)
    SLIMPTHREADS_ABI(pthread_rwlockattr_setkind_np);
int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *attr, int *kind)
    SLIMPTHREADS_ABI(pthread_rwlockattr_getkind_np);

/* ---- Condition variables ---- */

#define PTHREAD_COND_INITIALIZER __SLIM_COND_INITIALIZER(CLOCK_REALTIME)

int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr)
    SLIMPTHREADS_ABI(pthread_cond_init);
/* EBUSY while threads sleep on it (glibc returns 0). */
int pthread_cond_destroy(pthread_cond_t *cond) SLIMPTHREADS_ABI(pthread_cond_destroy);
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
    SLIMPTHREADS_ABI(pthread_cond_wait);
int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                           const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_cond_timedwait);
int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime)
    SLIMPTHREADS_ABI(pthread_cond_clockwait);
/* The peers' (compat/win32/np.c): a wait of at most the interval given. */
int pthread_cond_timedwait_relative_np(pthread_cond_t *cond, pthread_mutex_t *mutex,
                                       const struct timespec *relative)
    SLIMPTHREADS_ABI(pthread_cond_timedwait_relative_np);
/* Inline on a cond nobody waits on (slimpthreads_once_cond_inline.h). */
int pthread_cond_signal(pthread_cond_t *cond) SLIMPTHREADS_ABI(pthread_cond_signal);
int pthread_cond_broadcast(pthread_cond_t *cond) SLIMPTHREADS_ABI(pthread_cond_broadcast);

/* Condvar attributes. */
int pthread_condattr_init(pthread_condattr_t *attr) SLIMPTHREADS_ABI(pthread_condattr_init);
int pthread_condattr_destroy(pthread_condattr_t *attr) SLIMPTHREADS_ABI(pthread_condattr_destroy);
int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock)
    SLIMPTHREADS_ABI(pthread_condattr_setclock);
int pthread_condattr_getclock(const pthread_condattr_t *attr, clockid_t *clock)
    SLIMPTHREADS_ABI(pthread_condattr_getclock);
int pthread_condattr_setpshared(pthread_condattr_t *attr, int pshared)
    SLIMPTHREADS_ABI(pthread_condattr_setpshared);
int pthread_condattr_getpshared(const pthread_condattr_t *attr, int *pshared)
    SLIMPTHREADS_ABI(pthread_condattr_getpshared);

/* ---- Extensions of winpthreads and pthreads4w (compat/win32/np.c) ---- */

/* Those on one object are declared with it above; these are process-wide. */
int pthread_num_processors_np(void) SLIMPTHREADS_ABI(pthread_num_processors_np);
int pthread_set_num_processors_np(int count) SLIMPTHREADS_ABI(pthread_set_num_processors_np);
int pthread_delay_np(const struct timespec *interval) SLIMPTHREADS_ABI(pthread_delay_np);
struct timespec *pthread_win32_getabstime_np(struct timespec *abstime,
                                             const struct timespec *relative)
    SLIMPTHREADS_ABI(pthread_win32_getabstime_np);
/* The thread's Win32 HANDLE (void *: no <windows.h> here) and thread id. */
void *pthread_getw32threadhandle_np(pthread_t thread)
    SLIMPTHREADS_ABI(pthread_getw32threadhandle_np);
void *pthread_gethandle(pthread_t thread) SLIMPTHREADS_ABI(pthread_gethandle);
unsigned long pthread_getw32threadid_np(pthread_t thread)
    SLIMPTHREADS_ABI(pthread_getw32threadid_np);
uint64_t pthread_getunique_np(pthread_t thread) SLIMPTHREADS_ABI(pthread_getunique_np);
int pthread_win32_process_attach_np(void) SLIMPTHREADS_ABI(pthread_win32_process_attach_np);
int pthread_win32_process_detach_np(void) SLIMPTHREADS_ABI(pthread_win32_process_detach_np);
int pthread_win32_thread_attach_np(void) SLIMPTHREADS_ABI(pthread_win32_thread_attach_np);
int pthread_win32_thread_detach_np(void) SLIMPTHREADS_ABI(pthread_win32_thread_detach_np);
int pthread_get_concurrency(int *level) SLIMPTHREADS_ABI(pthread_get_concurrency);
int pthread_set_concurrency(int level) SLIMPTHREADS_ABI(pthread_set_concurrency);

/* The inline paths, after every declaration they define. */
#include "slimpthreads_mutex_inline.h"
#include "slimpthreads_spin_inline.h"
#include "slimpthreads_once_cond_inline.h"
#include "slimpthreads_rwlock_inline.h"

#ifdef __cplusplus
}
#endif

/* winpthreads' <pthread.h> includes <signal.h> and <pthread_unistd.h>, and
 * pthreads4w's declares pthread_kill: so ours gives pthread_kill,
 * pthread_sigmask, sigset_t, SIG_BLOCK/UNBLOCK/SETMASK and the _POSIX_* options.
 * Last, after every type they use (each includes <pthread.h> and finds it
 * done); ours by their path next to this file, whatever the include path holds. */
#include "pthread_signal.h"
#include <signal.h>
#include "pthread_unistd.h"

#endif /* not after winpthreads' header */
#endif /* SLIMPTHREADS_PTHREAD_H */
