/*
 * mutex_state.h - what mutex.c and mutex_robust.c share of a pthread_mutex_t:
 * its states (the READY ones pinned to slimpthreads_mutex_inline.h's), the robust
 * states, the embedded section and leave(), the one way out of it that wakes
 * a sleeper; the process-shared mutex's states and calls (mutex_shared.c).
 * Private to the library; mutex.c's header comment tells the story.
 */
#ifndef SLIMPTHREADS_MUTEX_STATE_H
#define SLIMPTHREADS_MUTEX_STATE_H

#include "atomic.h"
#include "wait.h"

enum {
    MUTEX_UNINITIALIZED = 0,
    MUTEX_INITIALIZING = 1,
    MUTEX_DESTROYED = 2,
    /* A process-shared mutex of kind k (mutex_shared.c): below READY_BASE, so
     * that the paths of a private mutex tell it apart with the compares they
     * make already, and send it on only from their branches that refuse. */
    MUTEX_SHARED_BASE = 4,
    MUTEX_SHARED_ROBUST_BASE = 8,
    MUTEX_READY_BASE = __SLIM_MUTEX_READY_BASE, /* READY for kind k is MUTEX_READY_BASE + k */
    MUTEX_READY_DEFAULT = MUTEX_READY_BASE + PTHREAD_MUTEX_DEFAULT,
    MUTEX_READY_RECURSIVE = MUTEX_READY_BASE + PTHREAD_MUTEX_RECURSIVE,
    MUTEX_READY_ERRORCHECK = MUTEX_READY_BASE + PTHREAD_MUTEX_ERRORCHECK,
    MUTEX_READY_NORMAL = MUTEX_READY_BASE + PTHREAD_MUTEX_NORMAL,
    MUTEX_READY_ROBUST_BASE = 32 /* READY for a robust mutex of kind k */
};

/* A robust mutex's state in __robustness (a stalled one keeps
 * PTHREAD_MUTEX_STALLED there); see the top of the file. */
enum {
    ROBUST_CONSISTENT = PTHREAD_MUTEX_ROBUST,
    ROBUST_OWNER_DEAD,     /* its owner exited holding it; nobody holds it now */
    ROBUST_INCONSISTENT,   /* held by the locker that was told EOWNERDEAD */
    ROBUST_NOT_RECOVERABLE /* unlocked while inconsistent: nobody gets it again */
};

enum { WAKE_FLAG_CLEAR = __SLIM_MUTEX_WAKE_FLAG_CLEAR, WAKE_FLAG_SET = 1 };

/* pthread.h's inline paths (slimpthreads_mutex_inline.h) know the READY states
 * and the clear flag. */
SLIM_STATIC_ASSERT(MUTEX_READY_DEFAULT == __SLIM_MUTEX_READY_DEFAULT, "inline READY state");
SLIM_STATIC_ASSERT(MUTEX_READY_RECURSIVE == __SLIM_MUTEX_READY_RECURSIVE &&
                       MUTEX_READY_ERRORCHECK == __SLIM_MUTEX_READY_ERRORCHECK &&
                       MUTEX_READY_NORMAL == __SLIM_MUTEX_READY_NORMAL,
                   "inline READY states of the checked kinds");
SLIM_STATIC_ASSERT(PTHREAD_MUTEX_DEFAULT == 0 && PTHREAD_MUTEX_RECURSIVE == 1 &&
                       PTHREAD_MUTEX_ERRORCHECK == 2 && PTHREAD_MUTEX_NORMAL == 3 &&
                       MUTEX_READY_ROBUST_BASE > MUTEX_READY_NORMAL,
                   "the inline lock takes READY_BASE to READY_NORMAL as the four plain kinds");
SLIM_STATIC_ASSERT(MUTEX_SHARED_BASE > MUTEX_DESTROYED &&
                       MUTEX_SHARED_ROBUST_BASE >= MUTEX_SHARED_BASE + PTHREAD_MUTEX_NORMAL + 1 &&
                       MUTEX_SHARED_ROBUST_BASE + PTHREAD_MUTEX_NORMAL < MUTEX_READY_BASE,
                   "a shared mutex's states lie between DESTROYED and READY_BASE");
SLIM_STATIC_ASSERT(WAKE_FLAG_SET != __SLIM_MUTEX_WAKE_FLAG_CLEAR, "inline wake flag");

static inline CRITICAL_SECTION *section_of(pthread_mutex_t *mutex)
{
    return (CRITICAL_SECTION *)&mutex->__section;
}

static inline int state_is_robust(long state)
{
    return state >= MUTEX_READY_ROBUST_BASE;
}

static inline int state_is_shared(long state)
{
    return state >= MUTEX_SHARED_BASE && state <= MUTEX_SHARED_ROBUST_BASE + PTHREAD_MUTEX_NORMAL;
}

static inline int kind_is_valid(int kind)
{
    return kind == PTHREAD_MUTEX_DEFAULT || kind == PTHREAD_MUTEX_NORMAL ||
           kind == PTHREAD_MUTEX_ERRORCHECK || kind == PTHREAD_MUTEX_RECURSIVE;
}

/* Leaves the section and wakes a sleeper if one may be waiting for it. The
 * flag is read and cleared while the section is still ours: once it is left,
 * another thread may lock, unlock, destroy and free the mutex, so after Leave
 * only the flag's address is used (WakeByAddressSingle dereferences nothing).
 * The price: a sleeper that sets the flag between our read and our Leave has
 * its try fail and sleeps unseen. It is not lost: it looks at the section
 * again after SLIM_MUTEX_RECHECK_FIRST_MS, and a sleeper that keeps missing
 * looks at doubling gaps up to SLIM_MUTEX_RECHECK_MOST_MS, a few wakes a
 * second for a mutex held for long. The window is the few instructions
 * between the read and the Leave, so that delay is rare; a correct wake costs
 * what it did before.
 * A flag set with nobody counted in __waiters any more wakes nobody: its
 * setter got in (its try after flagging succeeded) and has left the contended
 * path. A sleeper counts itself before it flags, so a flag that one sleeper
 * set is always seen together with its count. */
static inline void leave(pthread_mutex_t *mutex)
{
    volatile long *wake_flag = &mutex->__wake_flag;
    long woken = slim_load_relaxed(wake_flag) != WAKE_FLAG_CLEAR &&
                 slim_swap(wake_flag, WAKE_FLAG_CLEAR) != WAKE_FLAG_CLEAR &&
                 slim_load_relaxed(&mutex->__waiters) != 0;

    LeaveCriticalSection(section_of(mutex));
    if (woken)
        slim_wake_one(wake_flag);
}

/* ---- Robust mutexes (mutex_robust.c) ---- */

/* The caller has just entered a robust mutex's section: 0 once it owns the
 * mutex (listed), EOWNERDEAD if its last owner died, ENOTRECOVERABLE (the
 * section left again) if nobody may own it any more. */
int slim_mutex_robust_entered(pthread_mutex_t *mutex);

/* The owner's last unlock of a robust mutex: unlisted and left. */
void slim_mutex_robust_unlock(pthread_mutex_t *mutex);

/* The shared mutex's part of a robust one's life: the caller took the owner
 * word (from a dead owner if owner_died); 0, EOWNERDEAD or ENOTRECOVERABLE
 * (released again), as slim_mutex_robust_entered. */
int slim_mutex_robust_shared_entered(pthread_mutex_t *mutex, int owner_died);

/* The owner's last unlock of a robust shared mutex: unlisted and released. */
void slim_mutex_robust_shared_unlock(pthread_mutex_t *mutex);

/* ---- Process-shared mutexes (mutex_shared.c) ---- */

/* Nonzero for a shared mutex some process holds or sleeps on. */
int slim_mutex_shared_in_use(pthread_mutex_t *mutex);

/* Makes mutex a shared one of kind: 0, or slim_shared_id_new's error (a
 * shared mutex in use was refused by slim_mutex_init already). */
int slim_mutex_shared_init(pthread_mutex_t *mutex, int kind, int robust);

/* Lock (trying: trylock) of a shared mutex in state: POSIX's results. */
int slim_mutex_shared_lock(pthread_mutex_t *mutex, long state,
                           const struct slim_deadline *deadline, int trying);

/* Unlock of a shared mutex in state: 0 or EPERM. */
int slim_mutex_shared_unlock(pthread_mutex_t *mutex, long state);

/* Clears the owner word and rings a sleeper if it was flagged. */
void slim_mutex_shared_release(pthread_mutex_t *mutex);

/* destroy of a shared mutex: 0 or EBUSY. */
int slim_mutex_shared_destroy(pthread_mutex_t *mutex);

int slim_mutex_shared_held_by_caller(pthread_mutex_t *mutex);

#endif
