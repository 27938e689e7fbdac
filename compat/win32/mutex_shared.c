/*
 * mutex_shared.c - process-shared mutexes (PTHREAD_PROCESS_SHARED), of every
 * kind, robust ones too, in memory that processes map at different addresses.
 *
 * A CRITICAL_SECTION lives in one process, so a shared mutex reads its
 * __section as struct shared_mutex below (the overlay; a static assert keeps
 * it inside the 24 bytes of i686's section) and holds no pointer another
 * process would follow. Its __state is a value of its own (MUTEX_SHARED_BASE
 * or MUTEX_SHARED_ROBUST_BASE + kind, below READY_BASE), which pthread.h's
 * inline paths and mutex.c's slow paths already tell apart from a usable
 * private mutex, so private mutexes make no new test: the shared ones arrive
 * here from the branches that used to refuse a state below READY_BASE.
 *
 * The owner word (64 bits): the owner's Win32 thread id (low half: thread ids
 * are unique among the live threads of the whole system) and a stamp of that
 * thread's creation time (high half but its top bit), so that a dead owner's
 * id, reused by a new thread, is not taken for the owner; the top bit, FLAGGED,
 * says that a sleeper may wait for this owner's release. 0 is a free mutex.
 * Lock: a CAS 0 -> mine. Unlock: an exchange with 0, whose old value alone
 * decides the ring (the rule of release: the object id is read before it).
 * A sleeper counts itself in sleepers, flags the owner word it waits behind
 * (a CAS, so the flag lands on that owner's word or the sleeper looks again),
 * then sleeps on the object's doorbell (shared.h) while the low half reads
 * that owner. A locker that takes the word while sleepers are counted flags
 * its own word, so that a sleeper whose flag went with an earlier owner's
 * release is rung by the next one: the count and the word form a Dekker pair
 * (the sleeper increments the count, a sequentially consistent RMW, then
 * reads the word by a CAS, whose acquire load stays after it; the locker
 * CASes the word, then loads the count sequentially consistent).
 *
 * Robust (mutex_robust.c keeps the states): an owner thread that ends inside a
 * live process is on its record's robust list and its exit hook releases the
 * mutex marked OWNER_DEAD, as for a private one. An owner whose process ends
 * (ExitProcess, TerminateProcess, a crash) runs no hook: its thread's handle
 * is signalled. A sleeper on a robust mutex watches the owner's thread handle
 * (slim_wait's watched handle), so it wakes the moment the owner dies; a
 * locker finds the owner dead when its id opens no thread, a thread that has
 * ended, or one of another stamp, and CASes the dead owner's word to its own:
 * exactly one locker wins, and is told EOWNERDEAD.
 * A non-robust shared mutex whose owner died stays locked (POSIX): its timed
 * lock times out.
 *
 * Bad use: destroy takes the word itself, so it gives EBUSY while any process
 * holds the mutex (a dead owner's too) or sleeps on it; a second init of a
 * shared mutex that a thread sleeps on gives EBUSY (slim_mutex_shared_in_use);
 * a sleeper whose process ends leaves its count in sleepers, which only makes
 * later unlocks ring a doorbell nobody has open (a failed open, no wake lost).
 */
#include "mutex_state.h"
#include "thread_record.h"
#include "shared.h"
#include "spin.h"

#include <string.h>

/* What a shared mutex keeps in its __section. */
struct shared_mutex {
    volatile int64_t owner;  /* thread id | stamp << 32 | FLAGGED; 0: free */
    volatile long sleepers;  /* threads counted in the contended path */
    unsigned long object_id; /* slim_shared_id_new's, names the doorbell */
    long recursion;          /* extra holds of a RECURSIVE owner, written by it */
};

SLIM_STATIC_ASSERT(sizeof(struct shared_mutex) <= sizeof(struct __slim_critical_section),
                   "the shared overlay fits in the section on every target");

#define OWNER_ID_BITS 32
#define OWNER_ID_MASK 0xffffffffull
#define OWNER_FLAGGED ((int64_t)1 << 63)     /* a sleeper waits for this owner's release */
#define STAMP_MASK 0x7fffffffu               /* the stamp: the high half but FLAGGED */
#define STAMP_KNOWN 0x80000000u              /* the record's shared_stamp is read */

static inline struct shared_mutex *shared_of(pthread_mutex_t *mutex)
{
    return (struct shared_mutex *)(void *)&mutex->__section;
}

static inline int shared_is_robust(long state)
{
    return state >= MUTEX_SHARED_ROBUST_BASE;
}

static inline int shared_kind(long state)
{
    return (int)(state - (shared_is_robust(state) ? MUTEX_SHARED_ROBUST_BASE : MUTEX_SHARED_BASE));
}

/* The owner word without its flag: who holds it. */
static inline int64_t holder(int64_t word)
{
    return word & ~OWNER_FLAGGED;
}

/* The owner word, read whole. On a 32-bit target the mutex may be only 4-byte
 * aligned, where a plain 64-bit load may tear: a CAS that expects 0 and
 * writes 0 reads it atomically (cmpxchg8b, atomic at any alignment). */
static int64_t owner_load(struct shared_mutex *shared)
{
#if defined(_WIN64)
    return slim_word64_load_acquire(&shared->owner);
#else
    int64_t seen = 0;

    slim_word64_cas_acq_rel_seen(&shared->owner, &seen, 0);
    return seen;
#endif
}

/* ---- Who a thread is: its id and a stamp of its creation time ---- */

/* The stamp of a thread's creation time, as every process computes it from
 * GetThreadTimes: nonzero once *stamp is set. */
static int stamp_of_thread(HANDLE thread, unsigned long *stamp)
{
    FILETIME created, exited, kernel, user;

    if (!GetThreadTimes(thread, &created, &exited, &kernel, &user))
        return 0;
    *stamp = (created.dwLowDateTime ^ created.dwHighDateTime) & STAMP_MASK;
    return 1;
}

/* The caller's stamp, kept in its record (GetThreadTimes asks the kernel, a
 * wineserver round trip under Wine: once per thread, not per lock). */
static unsigned long own_stamp(void)
{
    struct slim_thread *self = slim_self();
    unsigned long stamp = 0; /* a thread that cannot ask: others then cannot either */

    if (self->shared_stamp & STAMP_KNOWN)
        return self->shared_stamp & STAMP_MASK;
    stamp_of_thread(GetCurrentThread(), &stamp);
    self->shared_stamp = stamp | STAMP_KNOWN;
    return stamp;
}

/* The owner word the calling thread writes. */
static int64_t own_word(void)
{
    return (int64_t)((uint64_t)own_stamp() << OWNER_ID_BITS | __slim_current_thread_id());
}

/* ---- Dead owners (robust mutexes) ---- */

/* Nonzero when the thread an owner word names has ended: its id opens no
 * thread, or a thread that has ended, or one of another stamp (a new thread
 * that got the id; a thread whose times cannot be read is judged by its id).
 * Else *watch is its handle (the caller closes it), signalled when it ends. */
static int owner_died(int64_t word, HANDLE *watch)
{
    DWORD id = (DWORD)(word & OWNER_ID_MASK);
    HANDLE thread = OpenThread(SYNCHRONIZE | THREAD_QUERY_LIMITED_INFORMATION, FALSE, id);
    unsigned long stamp;

    *watch = NULL;
    if (thread == NULL)
        return 1;
    if (WaitForSingleObject(thread, 0) == WAIT_OBJECT_0 ||
        (stamp_of_thread(thread, &stamp) &&
         stamp != (unsigned long)((uint64_t)holder(word) >> OWNER_ID_BITS))) {
        CloseHandle(thread);
        return 1;
    }
    *watch = thread;
    return 0;
}

/* ---- Taking and releasing the word ---- */

/* After the caller took the word: flags it if anybody sleeps (see the top). */
static void flag_if_sleepers(struct shared_mutex *shared)
{
    if (slim_load_seq_cst(&shared->sleepers) != 0)
        slim_word64_or(&shared->owner, OWNER_FLAGGED);
}

/* The caller has taken the word (from a dead owner if owner_died): sets its
 * holds, and for a robust mutex goes through its states. */
static int entered(pthread_mutex_t *mutex, long state, int owner_died)
{
    flag_if_sleepers(shared_of(mutex));
    shared_of(mutex)->recursion = 0;
    if (!shared_is_robust(state))
        return 0;
    return slim_mutex_robust_shared_entered(mutex, owner_died);
}

void slim_mutex_shared_release(pthread_mutex_t *mutex)
{
    struct shared_mutex *shared = shared_of(mutex);
    struct slim_doorbell bell = {shared->object_id, 0}; /* read while we hold it */

    if (slim_word64_and(&shared->owner, 0) & OWNER_FLAGGED)
        slim_doorbell_ring(&bell, 1);
}

/* Sleeps until the deadline (forever without one): a NORMAL or DEFAULT mutex
 * relocked by its owner deadlocks, as POSIX says, without burning a core. */
static int sleep_until(const struct slim_deadline *deadline)
{
    const struct slim_wait_target nothing = {NULL, 0, NULL, NULL};

    return slim_wait(&nothing, deadline, SLIM_WAIT_PLAIN);
}

/* The owner locks again: RECURSIVE counts (EAGAIN past LONG_MAX holds), and
 * so does a lock of a DEFAULT one, not robust (as a private one's section
 * does: its relock is undefined); a trylock of the others is EBUSY,
 * ERRORCHECK is EDEADLK, the rest deadlock, as private ones do. */
static int relocked(pthread_mutex_t *mutex, long state, const struct slim_deadline *deadline,
                    int trying)
{
    struct shared_mutex *shared = shared_of(mutex);
    int kind = shared_kind(state);

    if (kind == PTHREAD_MUTEX_RECURSIVE ||
        (state == MUTEX_SHARED_BASE + PTHREAD_MUTEX_DEFAULT && !trying)) {
        if (shared->recursion == LONG_MAX - 1)
            return EAGAIN;
        shared->recursion++;
        return 0;
    }
    if (trying)
        return EBUSY;
    if (kind == PTHREAD_MUTEX_ERRORCHECK)
        return EDEADLK;
    return sleep_until(deadline);
}

/* A robust mutex whose owner word names a dead thread: the CAS from that word
 * to ours decides who takes it over. 0 when we did, EAGAIN to look again;
 * *watch as owner_died. */
static int take_from_dead(struct shared_mutex *shared, int64_t seen, int64_t me, HANDLE *watch)
{
    if (!owner_died(seen, watch))
        return EAGAIN;
    return slim_word64_cas_acq_rel_seen(&shared->owner, &seen, me) ? 0 : EAGAIN;
}

/* Spins a window for a holder running on another core to let go: nonzero once
 * the word is ours. */
static int spin_for_word(struct shared_mutex *shared, int64_t me)
{
    struct slim_spin spin;
    int64_t seen;

    slim_spin_begin(&spin, SLIM_SPIN_LOCK);
    do {
        seen = 0;
        if (slim_load_relaxed((volatile long *)&shared->owner) == 0 &&
            slim_word64_cas_acq_rel_seen(&shared->owner, &seen, me))
            return 1;
    } while (slim_spin_again(&spin));
    return 0;
}

/* One round of a counted sleeper behind the owner word seen: flags it, then
 * sleeps on the doorbell while the low half reads that owner (for a robust
 * mutex, also until the owner's thread ends). 0 to look again, or the road's
 * ETIMEDOUT or EINVAL. */
static int sleep_behind(struct shared_mutex *shared, int64_t seen, HANDLE watch,
                        const struct slim_deadline *deadline)
{
    const struct slim_doorbell bell = {shared->object_id, 0};
    const struct slim_wait_target target = {(volatile long *)&shared->owner,
                                            (long)(seen & OWNER_ID_MASK), watch, &bell};
    int64_t expected = seen;

    if (!(seen & OWNER_FLAGGED) &&
        !slim_word64_cas_acq_rel_seen(&shared->owner, &expected, seen | OWNER_FLAGGED))
        return 0; /* the word moved: look again */
    return slim_wait(&target, deadline, SLIM_WAIT_PLAIN);
}

/* The word is held by another thread: spin, then sleep counted until it is
 * ours (or a dead owner's, taken over), the deadline passes, or the mutex is
 * destroyed (EINVAL). Returns 0, EOWNERDEAD-to-be (*from_dead) or an error. */
static int lock_contended(pthread_mutex_t *mutex, long state, int64_t me,
                          const struct slim_deadline *deadline, int *from_dead)
{
    struct shared_mutex *shared = shared_of(mutex);
    int error = EAGAIN;

    if (spin_for_word(shared, me))
        return 0;
    slim_increment(&shared->sleepers);
    while (error == EAGAIN) {
        int64_t seen = 0;
        HANDLE watch = NULL;

        if (slim_load_acquire(&mutex->__state) != state)
            error = EINVAL; /* destroyed while we slept */
        else if (slim_word64_cas_acq_rel_seen(&shared->owner, &seen, me))
            error = 0;
        else if (shared_is_robust(state) && take_from_dead(shared, seen, me, &watch) == 0)
            *from_dead = 1, error = 0;
        else if ((error = sleep_behind(shared, seen, watch, deadline)) == 0)
            error = EAGAIN;
        if (watch != NULL)
            CloseHandle(watch);
    }
    slim_decrement(&shared->sleepers);
    return error;
}

/* lock, trylock (trying), timed lock of a shared mutex in state. */
int slim_mutex_shared_lock(pthread_mutex_t *mutex, long state,
                           const struct slim_deadline *deadline, int trying)
{
    struct shared_mutex *shared = shared_of(mutex);
    int64_t me = own_word(), seen = 0;
    HANDLE watch = NULL;
    int from_dead = 0, error;

    if (slim_word64_cas_acq_rel_seen(&shared->owner, &seen, me))
        return entered(mutex, state, 0);
    if (holder(seen) == me)
        return relocked(mutex, state, deadline, trying);
    if (!trying)
        error = lock_contended(mutex, state, me, deadline, &from_dead);
    else if (shared_is_robust(state) && take_from_dead(shared, seen, me, &watch) == 0)
        error = 0, from_dead = 1;
    else
        error = EBUSY;
    if (watch != NULL)
        CloseHandle(watch);
    return error != 0 ? error : entered(mutex, state, from_dead);
}

/* Nonzero when the calling thread holds the shared mutex. */
int slim_mutex_shared_held_by_caller(pthread_mutex_t *mutex)
{
    return holder(owner_load(shared_of(mutex))) == own_word();
}

/* unlock: EPERM for a caller that does not hold it, but for a DEFAULT one,
 * which like a private DEFAULT mutex anybody may unlock once it is locked. */
int slim_mutex_shared_unlock(pthread_mutex_t *mutex, long state)
{
    struct shared_mutex *shared = shared_of(mutex);
    int64_t seen = owner_load(shared);

    if (holder(seen) != own_word() &&
        (seen == 0 || state != MUTEX_SHARED_BASE + PTHREAD_MUTEX_DEFAULT))
        return EPERM;
    if (shared->recursion > 0) {
        shared->recursion--;
        return 0;
    }
    if (shared_is_robust(state))
        slim_mutex_robust_shared_unlock(mutex);
    else
        slim_mutex_shared_release(mutex);
    return 0;
}

/* ---- Life cycle ---- */

/* A second init, shared or not, of a shared mutex that some process sleeps on
 * would leave that sleeper asleep for ever: EBUSY, as POSIX allows. Only the
 * sleeper's open doorbell says so for certain; memory never initialized can
 * read as a shared mutex with sleepers (stack garbage holds small numbers), but
 * has no doorbell in the system, and init must take it. A held mutex with no
 * sleeper is not seen: init makes it new, and its holder's unlock gets EPERM. */
int slim_mutex_shared_in_use(pthread_mutex_t *mutex)
{
    struct shared_mutex *shared = shared_of(mutex);
    long state = slim_load_acquire(&mutex->__state);
    struct slim_doorbell bell;

    if (!state_is_shared(state) || slim_load_acquire(&shared->sleepers) == 0)
        return 0;
    bell.object_id = shared->object_id;
    bell.generation = 0;
    return slim_doorbell_is_open(&bell);
}

int slim_mutex_shared_init(pthread_mutex_t *mutex, int kind, int robust)
{
    struct shared_mutex *shared = shared_of(mutex);
    unsigned long id;
    int error;

    if ((error = slim_shared_id_new(&id)) != 0)
        return error;
    memset(&mutex->__section, 0, sizeof mutex->__section);
    shared->object_id = id;
    mutex->__kind = kind;
    mutex->__robustness = robust ? ROBUST_CONSISTENT : PTHREAD_MUTEX_STALLED;
    mutex->__robust_next = NULL;
    mutex->__waiters = 0;
    mutex->__wake_flag = WAKE_FLAG_CLEAR;
    mutex->__cond_waited = 0;
    slim_store_release(&mutex->__state,
                       (robust ? MUTEX_SHARED_ROBUST_BASE : MUTEX_SHARED_BASE) + kind);
    return 0;
}

/* destroy takes the word, so that nobody can be holding it: EBUSY while any
 * process holds it (the caller too, or a dead owner) or sleeps on it. */
int slim_mutex_shared_destroy(pthread_mutex_t *mutex)
{
    struct shared_mutex *shared = shared_of(mutex);
    int64_t seen = 0;

    if (!slim_word64_cas_acq_rel_seen(&shared->owner, &seen, own_word()))
        return EBUSY;
    if (slim_load_seq_cst(&shared->sleepers) != 0) {
        slim_mutex_shared_release(mutex);
        return EBUSY;
    }
    slim_store_release(&mutex->__state, MUTEX_DESTROYED);
    slim_mutex_shared_release(mutex); /* a late sleeper wakes to EINVAL */
    return 0;
}

#include "code_end.h"
