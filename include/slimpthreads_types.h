/*
 * slimpthreads_types.h - slimpthreads: the layouts of pthread.h's objects.
 *
 * Users need not read this file: <pthread.h> is the API, and says what each
 * object is. This is the machinery behind it, part of <pthread.h> (which
 * includes it), installed, never included by itself: the fields of each
 * object type, the CRITICAL_SECTION mirror a mutex embeds, the initializers'
 * brace lists, and the frame the cleanup macros build.
 *
 * Creating an object never allocates, and zero-filled memory is a valid
 * statically initialized mutex, rwlock, cond, spinlock and once:
 *   pthread_mutex_t   a CRITICAL_SECTION (mirrored below), initialized on first use
 *   pthread_rwlock_t  one 64-bit word of our own (readers, writer, waiters)
 *   pthread_cond_t    a queue of waiters, each asleep on its own lightweight semaphore
 *                     (process-shared: a generation and its sleepers, on named doorbells)
 *   barriers, sem_t   words waited on with WaitOnAddress
 * Each object type is preceded by its attribute type. The fields' names begin
 * with __: their meaning is the library's (compat/win32); compat/win32/mutex.c
 * pins the mirror to the real type with static asserts.
 */
#ifndef SLIMPTHREADS_TYPES_H
#define SLIMPTHREADS_TYPES_H

#ifndef SLIMPTHREADS_PTHREAD_H
#error "slimpthreads: slimpthreads_types.h is part of <pthread.h>: include <pthread.h> instead"
#endif

/* ---- The mirror of the Win32 object a mutex embeds ---- */

/* RTL_CRITICAL_SECTION's size and alignment, without <windows.h>. */
struct __slim_critical_section {
    void *__debug_info;
    long __lock_count;
    long __recursion_count;
    void *__owning_thread;
    void *__lock_semaphore;
    uintptr_t __spin_count;
};

/* ---- Threads ---- */

/* A scalar, as real programs expect: compared with ==, zeroed, printed. It
 * holds the index of the thread's record in the library's table and the
 * generation of that record's life (compat/win32/thread_table.c), never an
 * address: a stale id is recognised, not dereferenced. */
typedef uintptr_t pthread_t;

typedef struct {
    int __detach_state;
    int __inherit_sched;
    int __sched_policy;
    int __scope;
    struct sched_param __sched_param;
    size_t __stack_size; /* 0: the executable's default */
    size_t __guard_size;
    void *__stack_address; /* recorded for getstack; Windows cannot run on it */
    char __name[16];       /* pthread_attr_setname_np; "" for none */
    int __affinity_set;    /* nonzero: __affinity applies to the new thread */
    cpu_set_t __affinity;  /* pthread_attr_setaffinity_np */
} pthread_attr_t;

/* ---- Once and keys ---- */

typedef volatile long pthread_once_t;

typedef unsigned pthread_key_t;

/* ---- Mutexes ---- */

typedef struct {
    int __kind;       /* PTHREAD_MUTEX_* type */
    int __pshared;
    int __protocol;
    int __prioceiling;
    int __robustness;
} pthread_mutexattr_t;

/* A process-shared mutex (compat/win32/mutex_shared.c) reads __section as its
 * owner word, sleepers count and object id, and leaves __waiters and
 * __wake_flag unused; the other fields mean the same for it. */
typedef struct {
    struct __slim_critical_section __section; /* valid once __state says ready */
    volatile long __state;           /* 0: not yet initialized (static or zero-filled) */
    int __kind;                      /* PTHREAD_MUTEX_* type */
    int __robustness;                /* PTHREAD_MUTEX_STALLED, or a robust mutex's state */
    volatile long __waiters;         /* threads in the contended path of a lock */
    volatile long __wake_flag;       /* sleepers wait on it; unlock wakes by its address (mutex.c) */
    volatile long __cond_waited;     /* a condvar has waited with it: its waiters take over eagerly */
    void *__robust_next;             /* next robust mutex its owner holds (in the owner's process) */
} pthread_mutex_t;

#define __SLIM_MUTEX_INITIALIZER(kind) \
    { { 0, 0, 0, 0, 0, 0 }, 0, (kind), PTHREAD_MUTEX_STALLED, 0, 0, 0, 0 }

/* ---- Spinlocks ---- */

/* Its states are slimpthreads_spin_inline.h's. */
typedef volatile long pthread_spinlock_t;

/* ---- Barriers ---- */

typedef struct {
    int __pshared;
} pthread_barrierattr_t;

typedef struct {
    unsigned __threads_per_round; /* + top bit: process-shared */
    volatile long __arrived;  /* tickets taken (wraps at a multiple of the count); waiters sleep on it */
    volatile long __round;    /* rounds completed, for debuggers; process-shared: the object id */
    volatile long __inside;   /* threads inside pthread_barrier_wait, + top bit: destroy waits */
} pthread_barrier_t;

/* ---- Reader-writer locks ---- */

typedef struct {
    int __kind; /* PTHREAD_RWLOCK_*_NP */
    int __pshared;
} pthread_rwlockattr_t;

/* One 64-bit lock word (readers, writer, waiters; see compat/win32/rwlock.c):
 * all zero is a free lock, so PTHREAD_RWLOCK_INITIALIZER and zero-filled memory
 * need no init call. */
typedef struct {
    volatile int64_t __state __SLIM_ALIGNED(8);
    volatile unsigned long __writer_thread_id; /* Win32 id of the exclusive holder, 0 if none */
    int __kind;
    /* when readers may bypass the word again; a process-shared lock's object id */
    volatile int64_t __read_bias_after;
} pthread_rwlock_t;

#define __SLIM_RWLOCK_INITIALIZER(kind) { 0, 0, (kind), 0 }

/* ---- Condition variables ---- */

typedef struct {
    clockid_t __clock;
    int __pshared;
} pthread_condattr_t;

/* A process-shared cond keeps numbers, not pointers, in the first three
 * fields (compat/win32/cond_shared.c): an odd look word, its object id and
 * its ticket (generation and sleepers). */
typedef struct {
    void *__oldest_waiter;         /* FIFO of waiter nodes living on the waiters' stacks */
    void *__newest_waiter;
    volatile long __queue_lock;    /* guards the FIFO for a few instructions */
    clockid_t __clock;             /* clock of timedwait deadlines */
} pthread_cond_t;

#define __SLIM_COND_INITIALIZER(clock) { 0, 0, 0, (clock) }

/* ---- Cleanup handlers: a frame on the caller's stack, linked into the thread ---- */

struct __slim_cleanup_frame {
    void (*__routine)(void *);
    void *__argument;
    struct __slim_cleanup_frame *__previous;
};

void __slim_cleanup_push(struct __slim_cleanup_frame *frame, void (*routine)(void *),
                         void *argument) SLIMPTHREADS_ABI(cleanup_push);
void __slim_cleanup_pop(struct __slim_cleanup_frame *frame, int execute)
    SLIMPTHREADS_ABI(cleanup_pop);

#endif /* SLIMPTHREADS_TYPES_H */
