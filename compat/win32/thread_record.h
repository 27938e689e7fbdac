/*
 * thread_record.h - the per-thread record (struct slim_thread), the pthread_t
 * and lifecycle words that name its lives, the table that keeps the records
 * (thread_table.c), the lookup of the caller's own record, and what the
 * thread-exit path asks of the files whose state a record holds. Apart from
 * atomic.h and wait.h: a file that only changes or waits on a word has no
 * business with a thread's record. Private to the library.
 */
#ifndef SLIMPTHREADS_THREAD_RECORD_H
#define SLIMPTHREADS_THREAD_RECORD_H

#include "atomic.h"

/* ---- The per-thread record ---- */

/* A read hold on one rwlock, kept on the holding thread's side so that the lock's
 * cache line stays quiet and a recursive rdlock never queues behind a writer.
 * A thread's holds fill the inline table first, then a heap table that
 * slim_rwlock_holds_grow (rwlock_hold.c) doubles without limit;
 * slim_rwlock_holds_free (rwlock_hold.c) frees it with the record. */
struct slim_rwlock_hold {
    const pthread_rwlock_t *rwlock;
    long read_count;
    int biased; /* taken through the thread's read-bias slot, not the lock word */
};
#define SLIM_RWLOCK_HOLDS_INLINE 8

/* A record's life, in one word (lifecycle) that also carries the generation of
 * the life: generation << SLIM_JOIN_STATE_BITS | enum slim_join_state. Every
 * transition is a CAS on the whole word, so that a stale pthread_t (whose
 * generation is older) can never move a record that lives a later life.
 * The transitions are described in thread.c; thread_table.c keeps the records. */
enum slim_join_state {
    SLIM_THREAD_FREE = 0,     /* no life: in the table's free list, or never used */
    SLIM_THREAD_JOINABLE = 1,
    SLIM_THREAD_DETACHED = 2,
    SLIM_THREAD_JOINED = 3,   /* a joiner waits for it */
    SLIM_THREAD_EXITED = 4,   /* finished, not yet joined: a zombie */
    SLIM_THREAD_REAPED = 5    /* finished and claimed: the claimer ends the life */
};
#define SLIM_JOIN_STATE_BITS 3
#define SLIM_JOIN_STATE_MASK ((1L << SLIM_JOIN_STATE_BITS) - 1)

/* A pthread_t is generation << SLIM_ID_INDEX_BITS | the record's index in the
 * table: a scalar compared with ==, never 0 (generations start at 1), and never
 * the id of a later life of the same record. The generation is as wide as the
 * lifecycle word (a 32-bit long) leaves room for beside the state, or as the
 * 32-bit pthread_t of i686 leaves beside the index; it wraps from its maximum
 * back to 1, so an id comes back only after that many lives of its record. */
#if UINTPTR_MAX > 0xffffffffUL
#define SLIM_ID_INDEX_BITS 32
#define SLIM_ID_GENERATION_BITS 28
#else
#define SLIM_ID_INDEX_BITS 16
#define SLIM_ID_GENERATION_BITS 16
#endif
#define SLIM_ID_INDEX_MASK (((uintptr_t)1 << SLIM_ID_INDEX_BITS) - 1)
#define SLIM_ID_GENERATION_MAX ((1UL << SLIM_ID_GENERATION_BITS) - 1)

/* A thread's value for one key, with the sequence number the key had when it was
 * stored: a deleted (or deleted and re-created) key no longer matches. */
struct slim_key_value {
    void *value;
    unsigned long sequence;
};

/* A return address cancel_async_return.c replaced on the thread's stack:
 * where it was, where it went, and the stack pointer that return leaves
 * (aarch64's trampoline knows its return by it: the slot lay in the callee's
 * frame, gone by then). */
struct slim_patched_return {
    void **slot;
    void *original;
    const char *stack_at_return;
};
#define SLIM_PATCHED_RETURNS_MAX 16

struct slim_thread {
    /* Kept by the table across lives (thread_table.c): the memory of a record
     * is never returned to the heap while its module is loaded, so reading these
     * through a stale pthread_t is always safe. */
    volatile long lifecycle;   /* generation and enum slim_join_state, see above */
    unsigned long table_index; /* where the record sits in the table */
    volatile unsigned long next_free; /* index + 1 of the next free record; 0: none */

    /* One life (zero when it begins): */
    pthread_t pthread_id;      /* the pthread_t naming this life */
    HANDLE handle;             /* a real handle (ours to close); NULL if none could be had */
    DWORD id;                  /* Win32 thread id */
    int adopted;               /* created outside slimpthreads, record made on first need */
    void *(*start_routine)(void *);
    void *start_argument;
    volatile long *start_report; /* pthread_create's word for the outcome of the binding */
    void *result;

    struct __slim_cleanup_frame *cleanup_top;

    struct slim_key_value *key_values; /* indexed by pthread_key_t; grown on setspecific */
    unsigned key_capacity;

    struct slim_rwlock_hold rwlock_holds[SLIM_RWLOCK_HOLDS_INLINE];
    struct slim_rwlock_hold *rwlock_holds_more; /* holds beyond the inline ones, or NULL */
    unsigned rwlock_holds_more_capacity;
    unsigned rwlock_hold_count;    /* used entries: inline first, then rwlock_holds_more */
    pthread_mutex_t *robust_held; /* robust mutexes it holds, linked by __robust_next */
    unsigned long shared_stamp;   /* mutex_shared.c: its creation stamp once read, else 0 */

    int cancel_state;          /* PTHREAD_CANCEL_ENABLE / DISABLE */
    int cancel_type;           /* PTHREAD_CANCEL_DEFERRED / ASYNCHRONOUS */
    volatile long cancel_pending;
    volatile long *cancel_wake_word; /* the word it sleeps on at a cancellation point */
    struct slim_patched_return async_returns[SLIM_PATCHED_RETURNS_MAX]; /* cancel_async_return.c */

    sigset_t signal_mask;      /* reported back by pthread_sigmask; inherited by new threads */
    int sched_policy;          /* SCHED_*: Windows cannot report it back */
    int sched_priority;        /* last priority set through sched.c, within sched_policy */

    void *stack_low;           /* the stack as the thread found it, for getattr_np */
    size_t stack_size;
    size_t guard_size;         /* as asked at creation: Windows keeps its own guard page */
    int inherit_sched;         /* PTHREAD_INHERIT_SCHED / EXPLICIT_SCHED, as created */
    HANDLE sleep_timer;        /* wait.c: high-resolution timer for sleeps, closed at exit */
    volatile LONGLONG unique_number; /* np.c: 0 until pthread_getunique_np first asks */
};

/* The lifecycle word of the life thread names, in join_state. */
static inline long slim_lifecycle(pthread_t thread, long join_state)
{
    return (long)((thread >> SLIM_ID_INDEX_BITS) << SLIM_JOIN_STATE_BITS) | join_state;
}

/* The join state of record's current life. */
static inline long slim_join_state(struct slim_thread *record)
{
    return slim_load_acquire(&record->lifecycle) & SLIM_JOIN_STATE_MASK;
}

/* ---- The table of records (thread_table.c) ---- */

/* A record for a new life in join_state, with a new generation, every per-life
 * field zero; NULL when memory or the table runs out. */
struct slim_thread *slim_record_acquire(long join_state);

/* Ends record's life: its pthread_t stops naming anything at once; the memory
 * stays a record, for the next life. */
void slim_record_release(struct slim_thread *record);

/* The record behind thread, or NULL (ESRCH) when thread names no life that has
 * begun and not been joined or ended: never reads freed memory. A caller that
 * races the join of thread itself may still meet the record's next life (the
 * program uses an id after its end, which POSIX leaves undefined). */
struct slim_thread *slim_thread_checked(pthread_t thread);

/* How many indexes the table has handed out: every record ever used sits below. */
unsigned long slim_records_handed_out(void);

/* At the unload of the module: calls release for each record that has a life,
 * then returns all of the table's memory to the heap. */
void slim_records_release_all(void (*release)(struct slim_thread *record));

/* The TLS slot that holds each thread's record (thread.c: allocated before
 * main, or before DllMain returns, so that no lookup checks for it). */
extern DWORD slim_record_slot;

/* NtCurrentTeb, whose MinGW version trips GCC 12's -Warray-bounds; volatile
 * as __slim_current_thread_id (slimpthreads_mutex_inline.h) is. */
static inline TEB *slim_current_teb(void)
{
    TEB *teb;

#if defined(__x86_64__)
    __asm__ __volatile__("movq %%gs:%c1, %0" : "=r"(teb) : "i"(offsetof(NT_TIB, Self)));
#elif defined(__i386__)
    __asm__ __volatile__("movl %%fs:%c1, %0" : "=r"(teb) : "i"(offsetof(NT_TIB, Self)));
#elif defined(__aarch64__)
    __asm__ __volatile__("mov %0, x18" : "=r"(teb)); /* the ABI keeps the TEB in x18 */
#else
    teb = NtCurrentTeb();
#endif
    return teb;
}

/* A record slot past the TEB's own 64: TlsGetValue, keeping the caller's last
 * error (thread.c). */
struct slim_thread *slim_self_in_expansion_slot(void);

/* The calling thread's record if it has one, else NULL; never allocates. Inline:
 * the load TlsGetValue makes, without its call and without clearing the
 * caller's last error, which a pthread call must leave alone;
 * pthread_getspecific and the rwlock's unlock start here. */
static inline struct slim_thread *slim_self_if_known(void)
{
    if (__builtin_expect(slim_record_slot < TLS_MINIMUM_AVAILABLE, 1))
        return (struct slim_thread *)slim_current_teb()->TlsSlots[slim_record_slot];
    return slim_self_in_expansion_slot();
}

/* Makes and binds the record of a thread slimpthreads did not create (thread.c). */
struct slim_thread *slim_adopt_current_thread(void);

/* The calling thread's record, made (and registered for the exit hook) on first
 * use by threads that slimpthreads did not create. Never NULL: aborts the process
 * if not even a record can be allocated, since no pthread function could go on. */
static inline struct slim_thread *slim_self(void)
{
    struct slim_thread *self = slim_self_if_known();

    return __builtin_expect(self != NULL, 1) ? self : slim_adopt_current_thread();
}

/* Runs the calling thread's key destructors (PTHREAD_DESTRUCTOR_ITERATIONS rounds)
 * and frees its key values; called from the thread-exit path. */
void slim_keys_run_destructors(struct slim_thread *self);

/* slim_mutex_robust_owner_exits (mutex_robust.c), called from the thread-exit
 * path after the key destructors: each robust mutex the thread still holds
 * becomes owner-dead and is released. */
void slim_mutex_robust_owner_exits(struct slim_thread *self);

/* slim_rwlock_owner_exits (rwlock_bias.c), called from the thread-exit path: a
 * read hold the thread still has through its rwlock bias slot is dropped, so
 * that the slot does not name that address for good. Holds in a lock's word
 * stay, as in glibc. */
void slim_rwlock_owner_exits(struct slim_thread *self);

/* slim_rwlock_holds_free (rwlock_hold.c): frees a record's heap table of read holds. */
void slim_rwlock_holds_free(struct slim_thread *record);

#endif /* SLIMPTHREADS_THREAD_RECORD_H */
