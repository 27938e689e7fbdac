/*
 * rwlock.c - POSIX reader-writer locks on one 64-bit word of our own.
 *
 * Why not an SRWLOCK: POSIX lets the thread that takes a lock after us destroy
 * and free it at once, so an unlock may touch the lock only up to its releasing
 * atomic and must decide from that atomic's result whether to wake anyone.
 * ReleaseSRWLock* returns nothing: an SRWLOCK-based unlock has to read its
 * waiter count after the release (the use-after-free this file once had) or
 * pay a second atomic per lock and unlock. The word below is released, and
 * tells who waits, by one compare-exchange.
 *
 * __state, the lock word (all zero: free; PTHREAD_RWLOCK_INITIALIZER, zeroed
 * memory). Its two 32-bit halves are two wait addresses:
 *   high half, the writer gate (writers sleep on it): the number of first-time
 *     read holds (READER_*), WRITER_HELD, READERS_WAITING (a reader is asleep or
 *     about to sleep), DESTROYED (kept with WRITER_HELD: every acquire fails),
 *     WRITER_WOKEN (a releaser woke a writer that has not acted yet: no other
 *     writer is woken meanwhile), READ_BIASED (first-time readers may hold
 *     through a slot of their own instead: "Read bias" below).
 *   low half, the reader gate (readers sleep on it): the number of writers that
 *     wait (WRITERS_WAITING_*: registered, sleeping or about to) and the reader
 *     epoch, bumped whenever sleeping readers are let in.
 * Transitions, each one compare-exchange:
 *   rdlock: +1 reader, only while no writer holds and (for a newcomer) none
 *     waits or the lock is free: a waiting writer makes new readers wait while
 *     readers hold the lock or sleep, so busy readers cannot starve it ("A
 *     free lock" below). A reader that must wait sets READERS_WAITING and
 *     sleeps on the reader gate; once the epoch has moved it is "queued behind
 *     a writer" and enters while no writer holds, even if writers wait.
 *   wrlock: WRITER_HELD when no reader and no writer hold. A writer that must
 *     wait counts itself in WRITERS_WAITING and sleeps on the writer gate; it
 *     uncounts itself in the exchange that takes the lock, or when it times out.
 *   read unlock: -1 reader; the last one wakes one writer if any waits (and
 *     none is woken already: WRITER_WOKEN, set in the same exchange).
 *   write unlock: clears WRITER_HELD; if READERS_WAITING it clears it, bumps
 *     the epoch (every reader asleep now is queued: let in together) and wakes
 *     the first of them, the head of the wake chain below; if writers wait and
 *     none is woken already it wakes one (WakeByAddressSingle, WRITER_WOKEN).
 *   a woken writer spins for about a sleep's cost before it sleeps again, with
 *     WRITER_WOKEN still set, so that a running holder's unlocks meanwhile wake
 *     nobody; every exchange of a registered writer (taking the lock, going
 *     back to sleep, giving up) clears WRITER_WOKEN. A wake lost to a timeout
 *     or to nobody asleep is therefore never lost for good: the bit is gone
 *     as soon as any registered writer acts.
 *   a timed writer that gives up: if it was the last waiting writer and no
 *     writer holds, it lets the sleeping readers in (as a write unlock does);
 *     if writers still wait and the lock is free, it passes a wake on.
 * The wake chain: the queued readers are let in together (the epoch) but woken
 * one after another. Each queued reader that gets in wakes the next sleeper:
 * WakeByAddressSingle wakes the longest sleeper, so the queued ones, asleep
 * before the epoch moved, come first, and the chain ends at a newcomer, who
 * sleeps again, or at nobody. Why not one wake-all: it made every reader
 * runnable at once, and with more readers than cores the next writer then
 * waited for each one preempted inside its hold, while every other thread
 * waited for a core (NaviServer's busy readers, bench/README.md); a chain keeps
 * about one woken reader not yet running, also once another writer waits
 * behind the queued readers: a link that woke all the rest at once then made
 * busy readers under 1% writes do half the operations (bench/README.md). A
 * link that times out passes its wake on, since a wake may come with the
 * timeout. A writer that slips in between two links (the readers inside had
 * all left) leaves the later links asleep behind READERS_WAITING, which they
 * set again, until its unlock.
 * A free lock: a newcomer that finds nobody inside and nobody asleep enters
 * even though writers wait. A waiting writer that is running takes a free lock
 * at once; one that leaves it free is asleep, or woken and waiting for a core,
 * which with more threads than cores lasts a time slice. Newcomers that slept
 * behind it paid a sleep and a wake each (46 000 in NaviServer's 600 000
 * operations at 50% writes, bench/README.md). Readers cannot keep the writer
 * out this way: while one is inside, newcomers wait for the writer again, so
 * they come in one at a time and the lock is free between two of them, when
 * the running writer takes it; the last reader's release wakes the writer
 * unless a wake is on its way already. Once a reader sleeps behind the writer
 * a newcomer sleeps too: entering ahead of the sleepers would only keep them
 * and the writer waiting longer (with busy readers, fewer operations in all).
 * Why no wake is lost: every sleeper sleeps on the half of the word it last
 * read; each transition that can let it in changes that half in the same
 * exchange whose old value told the releaser to wake it, so a sleeper either
 * sees the change before it sleeps or is woken after. The wakes go by address
 * after the exchange: they dereference nothing, and nothing of the lock is
 * read or written after the exchange that releases it. Before sleeping a
 * waiter spins for about what a sleep costs (slim_spin_*), but a reader
 * behind a waiting writer only looks twice more for a free lock, and sleeps at
 * once if a reader sleeps there already.
 *
 * __writer_thread_id: the exclusive holder's Win32 id, written only by the
 * holder, so "equals my id" is never stale (EDEADLK, unlock). Read holds live on
 * the reader's side (its record's hold table: inline, then a heap table that
 * grows): only the first read hold of a thread touches the word; recursive ones
 * just count there, so they never queue behind a waiting writer, and unlock
 * knows which mode the caller holds (EPERM otherwise).
 *
 * Every kind gets this policy (glibc's PREFER_READER_NP would let readers
 * starve writers; we do not); recursive reads are safe in all of them.
 *
 * Inline write paths: include/slimpthreads_rwlock_inline.h (part of pthread.h)
 * holds the write lock of a free lock (no reader, writer, sleeping reader or
 * bias in the word; writers may wait: one exchange to WRITER_HELD, then the
 * id) and the write unlock that wakes nobody (the word is WRITER_HELD, with
 * waiting writers only if one is woken already, and the id is the caller's:
 * the id cleared, one exchange back), inline in the caller, as the mutex's
 * are: the same transitions as the library's first try and release, so a
 * contended lock's running holder keeps its streak inline. A reader's unlock
 * leaves it after the look at the word. What they do not finish goes to
 * __slim_rwlock_wrlock_slow, _trywrlock_slow and _unlock_slow below, the
 * whole calls; the library's own functions use the same helpers. Read locks
 * are never inline: the holds are in the record.
 */
#include "rwlock_word.h"
#include "rwlock_hold.h"
#include "rwlock_bias.h"
#include "shared.h"
#include "spin.h"
#include "check.h"

/* The inline paths' copies of the word's bits (slimpthreads_rwlock_inline.h),
 * and the exchange they need: the helpers exist only with it. */
SLIM_STATIC_ASSERT(__SLIM_RWLOCK_WRITER_HELD == WRITER_HELD, "the inline paths' WRITER_HELD");
SLIM_STATIC_ASSERT(__SLIM_RWLOCK_WRITER_WOKEN == WRITER_WOKEN, "the inline paths' WRITER_WOKEN");
SLIM_STATIC_ASSERT(__SLIM_RWLOCK_EPOCH_MASK == READER_EPOCH_MASK, "the inline paths' epoch");
SLIM_STATIC_ASSERT(__SLIM_RWLOCK_WRITERS_WAITING_MASK == WRITERS_WAITING_MASK,
                   "the inline paths' count of waiting writers");
#if !defined(__GCC_HAVE_SYNC_COMPARE_AND_SWAP_8)
#error "slimpthreads: the rwlock needs an 8-byte compare-exchange (i686: -march=i586 or later)"
#endif

/* ---- Process-shared locks: doorbells instead of addresses ----
 * A lock initialized PTHREAD_PROCESS_SHARED carries PSHARED in its word and its
 * id in __read_bias_after (rwlock_word.h). Its transitions are the private
 * ones; only the sleeps and wakes differ, since WakeByAddress reaches one
 * process only: a sleeper sleeps on a doorbell (shared.h) and looks at its
 * half of the word after every token, and a waker rings the doorbell where a
 * private lock wakes the address, with the id read before its releasing
 * exchange (after it the lock may be gone). Writers share one doorbell, woken
 * one at a time as on the address: a token taken by another registered writer
 * is not lost, since every registered writer's exchange clears WRITER_WOKEN and
 * so lets the next release wake again. Readers sleep on the doorbell of the
 * epoch they slept in; the exchange that moves the epoch rings it for all of
 * them at once, instead of the private wake chain: a chain's token taken by a
 * newcomer, or a link that went back to sleep in a later epoch, would leave
 * the rest of the chain asleep. Read holds are never biased (the bias slots
 * are one process's). __writer_thread_id needs nothing: Win32 thread ids are
 * unique in the system, so EDEADLK and EPERM are told across processes too.
 * Holds and waits of a process that ends stay in the word, as POSIX's
 * non-robust locks leave them (README.md). */

static unsigned long shared_id(const pthread_rwlock_t *rwlock)
{
    return (unsigned long)(slim_word64_load_relaxed((volatile int64_t *)&rwlock->__read_bias_after) &
                           SHARED_ID_MASK);
}

static unsigned long readers_bell_of(int64_t word)
{
    return READERS_BELL_ROUND | (unsigned long)((word & READER_EPOCH_MASK) >> READER_EPOCH_SHIFT);
}

/* Wakes the readers asleep in replaced's epoch: the private chain's head by
 * address, or, for a shared lock (id read before the exchange), all of them. */
static void wake_readers(volatile long *address, int64_t replaced, unsigned long id)
{
    struct slim_doorbell bell = {id, readers_bell_of(replaced)};

    if ((replaced & PSHARED) == 0)
        slim_wake_one(address);
    else
        slim_doorbell_ring(&bell, READERS_BELL_WAKES);
}

/* Wakes one writer. */
static void wake_writer_of(volatile long *address, int64_t replaced, unsigned long id)
{
    struct slim_doorbell bell = {id, WRITERS_BELL};

    if ((replaced & PSHARED) == 0)
        slim_wake_one(address);
    else
        slim_doorbell_ring(&bell, 1);
}

/* Sleeps while the reader's (reader nonzero) or the writer's half of the word
 * reads as in seen: on the address, or on a shared lock's doorbell. */
static int sleep_on_gate(pthread_rwlock_t *rwlock, int reader, int64_t seen,
                         const struct slim_deadline *deadline)
{
    volatile long *gate = reader ? reader_gate(rwlock) : writer_gate(rwlock);
    long expected = reader ? low_half(seen) : high_half(seen);
    struct slim_doorbell bell = {0, reader ? readers_bell_of(seen) : WRITERS_BELL};
    struct slim_wait_target target = {gate, expected, NULL, &bell};

    if ((seen & PSHARED) == 0)
        return slim_wait_on(gate, expected, deadline, SLIM_WAIT_PLAIN);
    bell.object_id = shared_id(rwlock);
    return slim_wait(&target, deadline, SLIM_WAIT_PLAIN);
}

/* ---- Taking the word ---- */

/* Whether a first-time reader may enter the word: never while a writer holds
 * it. A reader queued behind a writer (queued) ignores writers that wait; a
 * newcomer waits for them while readers are inside or asleep, but not at a
 * free lock ("A free lock" at the top). */
static inline int open_to_reader(int64_t word, int queued)
{
    if ((word & WRITER_HELD) != 0)
        return 0;
    if (queued || waiting_writers_of(word) == 0)
        return 1;
    return readers_of(word) == 0 && (word & READERS_WAITING) == 0;
}

/* One attempt at a first-time read hold; *seen is the word's value, refreshed.
 * A reader that finds the bias due sets it in its exchange (see "Read bias"). */
static inline int try_read(pthread_rwlock_t *rwlock, int64_t *seen, int queued)
{
    while (open_to_reader(*seen, queued) && readers_of(*seen) != READERS_MASK)
        if (exchange_word(rwlock, seen,
                          (*seen + READER_ONE) | (bias_due(rwlock, *seen) ? READ_BIASED : 0)))
            return 1;
    return 0;
}

/* One attempt at the write hold; a registered waiter uncounts itself and
 * clears WRITER_WOKEN (see the top). */
static inline int try_write(pthread_rwlock_t *rwlock, int64_t *seen, int registered)
{
    int64_t registered_bits = registered ? WRITERS_WAITING_ONE : 0;
    int64_t cleared_bits = registered ? WRITER_WOKEN : 0;

    while ((*seen & (READERS_MASK | WRITER_HELD)) == 0)
        if (exchange_word(rwlock, seen, ((*seen | WRITER_HELD) - registered_bits) & ~cleared_bits))
            return 1;
    return 0;
}

/* registered: a writer counted among the waiting ones, which spins when it
 * found readers inside (new ones no longer come in: they leave) or has just
 * been woken; not when it registers behind another writer, as it spun here
 * already. */
static int spin_for(pthread_rwlock_t *rwlock, enum hold_mode mode, int registered)
{
    struct slim_spin spin;
    unsigned paused_behind_writer = 0;
    int64_t seen;

    slim_spin_begin(&spin, SLIM_SPIN_LOCK); /* a running holder keeps it for a streak */
    do {
        seen = load_word(rwlock);
        if (not_usable(seen))
            return 0;
        if (mode == HOLD_SHARED ? try_read(rwlock, &seen, 0) : try_write(rwlock, &seen, registered))
            return 1;
        /* Behind a waiting writer a reader gets in at a free lock ("A free
         * lock" at the top), which a running writer leaves free for a
         * microsecond at most: it looks twice more, within
         * SLIM_RWLOCK_BEHIND_WRITER_PAUSES, and sleeps. Not longer: it would
         * wait for every reader inside and for the writer, and with more
         * threads than cores its spinning would keep them from running. Not
         * at all once a reader sleeps there: that closes the free lock to
         * newcomers. */
        if (mode == HOLD_SHARED && waiting_writers_of(seen) != 0 &&
            ((seen & READERS_WAITING) != 0 ||
             (paused_behind_writer += spin.gap) > SLIM_RWLOCK_BEHIND_WRITER_PAUSES))
            return 0;
        /* A writer facing readers counts itself waiting first, so that new
         * readers stop coming in; it spins then in write_wait. */
        if (mode == HOLD_EXCLUSIVE && !registered && readers_of(seen) != 0)
            return 0;
    } while (slim_spin_again(&spin));
    return 0;
}

/* Sleeps on the reader gate until a first-time read hold is ours: 0, EINVAL,
 * ETIMEDOUT. */
static int read_wait(pthread_rwlock_t *rwlock, const struct slim_deadline *deadline)
{
    int64_t seen = load_word(rwlock), slept_on;
    int queued = 0;

    for (;;) {
        if (not_usable(seen))
            return EINVAL;
        if (try_read(rwlock, &seen, queued)) {
            /* It holds the lock: wakes the next link (see the top); a shared
             * lock's readers were all woken at once. */
            if (queued && (seen & PSHARED) == 0)
                slim_wake_one(reader_gate(rwlock));
            return 0;
        }
        /* try_read stops at a blocked word, or at a full reader count. */
        if (readers_of(seen) == READERS_MASK)
            return EAGAIN;
        if (not_usable(seen))
            continue;
        if ((seen & READERS_WAITING) == 0 &&
            !exchange_word(rwlock, &seen, seen | READERS_WAITING))
            continue;
        slept_on = seen | READERS_WAITING;
        if (sleep_on_gate(rwlock, 1, slept_on, deadline) == ETIMEDOUT) {
            /* The chain's wake may have come with the timeout: hand it on.
             * A READERS_WAITING left behind costs one idle wake. */
            if ((slept_on & PSHARED) == 0)
                slim_wake_one(reader_gate(rwlock));
            return ETIMEDOUT;
        }
        seen = load_word(rwlock);
        if ((seen & READER_EPOCH_MASK) != (slept_on & READER_EPOCH_MASK))
            queued = 1; /* a writer let the sleeping readers in */
    }
}

/* A registered writer gives up: it uncounts itself and hands on what a
 * releaser may have meant for it (see the top). A waiter may still touch the
 * lock; the wakes after the exchange go by address only. */
static void write_wait_abandon(pthread_rwlock_t *rwlock)
{
    volatile long *readers_address = reader_gate(rwlock), *writers_address = writer_gate(rwlock);
    int64_t seen = load_word(rwlock), desired;
    unsigned long id = (seen & PSHARED) != 0 ? shared_id(rwlock) : 0;
    int release_readers, pass_wake;

    do {
        desired = (seen - WRITERS_WAITING_ONE) & ~WRITER_WOKEN;
        release_readers = waiting_writers_of(desired) == 0 && (desired & WRITER_HELD) == 0 &&
                          (desired & READERS_WAITING) != 0;
        if (release_readers)
            desired = with_next_epoch(desired & ~READERS_WAITING);
        desired = marking_writer_wake(desired, &pass_wake);
    } while (!exchange_word(rwlock, &seen, desired));
    if (release_readers)
        wake_readers(readers_address, seen, id); /* the head of the wake chain */
    if (pass_wake)
        wake_writer_of(writers_address, seen, id);
}

/* Counts itself among the waiting writers and sleeps on the writer gate until
 * the lock is its, spinning first when readers hold it and after each wake:
 * 0, EINVAL, ETIMEDOUT. */
static int write_wait(pthread_rwlock_t *rwlock, const struct slim_deadline *deadline)
{
    int64_t seen = load_word(rwlock);
    int registered = 0, spin_first = 0;

    for (;;) {
        if (not_usable(seen)) {
            if (registered)
                write_wait_abandon(rwlock);
            return EINVAL;
        }
        if (try_write(rwlock, &seen, registered))
            return 0;
        if (!registered) {
            if (waiting_writers_of(seen) == WRITERS_WAITING_MASK) {
                /* 65535 writers wait already: this one cannot be counted, so
                 * nobody would wake it. It yields and looks again. The loop
                 * ends: every counted writer gets the lock in turn and leaves
                 * the count, which frees a place (or the lock is destroyed,
                 * and not_usable ends it). */
                slim_yield();
                seen = load_word(rwlock);
                continue;
            }
            if (!exchange_word(rwlock, &seen, seen + WRITERS_WAITING_ONE))
                continue;
            seen += WRITERS_WAITING_ONE;
            registered = 1;
            spin_first = readers_of(seen) != 0;
        }
        if (spin_first) {
            spin_first = 0;
            if (spin_for(rwlock, HOLD_EXCLUSIVE, 1))
                return 0;
            seen = load_word(rwlock);
            continue;
        }
        if ((seen & WRITER_WOKEN) != 0) { /* the next unlock may wake a writer again */
            if (!exchange_word(rwlock, &seen, seen & ~WRITER_WOKEN))
                continue;
            seen &= ~WRITER_WOKEN;
        }
        if (sleep_on_gate(rwlock, 0, seen, deadline) == ETIMEDOUT) {
            write_wait_abandon(rwlock);
            return ETIMEDOUT;
        }
        seen = load_word(rwlock);
        spin_first = 1; /* woken (or the word moved): the running holder may let go soon */
    }
}

/* The slow path of every acquire, entered once a first try has failed. self
 * may be NULL for a thread without a record (it holds no read lock). */
static int acquire_slowly(pthread_rwlock_t *rwlock, enum hold_mode mode, struct slim_thread *self,
                          enum acquire_way way, const struct slim_deadline *deadline)
{
    if (not_usable(load_word(rwlock)))
        return EINVAL;
    if (way == ACQUIRE_TRY)
        return EBUSY;
    if (writer_of(rwlock) == __slim_current_thread_id())
        return EDEADLK;
    /* A reader asking for the write lock would wait for itself. */
    if (mode == HOLD_EXCLUSIVE && self != NULL && hold_find(self, rwlock) != NULL)
        return EDEADLK;
    if (spin_for(rwlock, mode, 0))
        return 0;
    return mode == HOLD_SHARED ? read_wait(rwlock, deadline) : write_wait(rwlock, deadline);
}

/* ---- Acquiring ---- */

static void release_write(pthread_rwlock_t *rwlock); /* with the releases below */

static inline int read_lock(pthread_rwlock_t *rwlock, enum acquire_way way,
                            const struct slim_deadline *deadline)
{
    struct slim_thread *self;
    struct slim_rwlock_hold *entry;
    int64_t seen;
    int error;

    if (rwlock == NULL)
        return EINVAL;
    self = slim_self();
    entry = hold_find(self, rwlock);
    if (entry != NULL) {
        if (entry->read_count == LONG_MAX)
            return EAGAIN;
        entry->read_count++;
        return 0;
    }
    error = hold_reserve(self);
    if (error != 0)
        return error;
    seen = load_word(rwlock);
    if (bias_try_read(rwlock, self, seen)) {
        hold_add(self, rwlock, 1);
        return 0;
    }
    if (!try_read(rwlock, &seen, 0)) {
        error = acquire_slowly(rwlock, HOLD_SHARED, self, way, deadline);
        if (error != 0)
            return error;
    }
    hold_add(self, rwlock, 0);
    return 0;
}

/* Needs no thread record: a thread that finds the word free holds no read lock
 * on it, so only the slow path looks at the caller's read holds. */
static inline int write_lock(pthread_rwlock_t *rwlock, enum acquire_way way,
                             const struct slim_deadline *deadline)
{
    int64_t seen;
    int error;

    if (rwlock == NULL)
        return EINVAL;
    seen = load_word(rwlock);
    if (!try_write(rwlock, &seen, 0)) {
        error = acquire_slowly(rwlock, HOLD_EXCLUSIVE, slim_self_if_known(), way, deadline);
        if (error != 0)
            return error;
        seen = load_word(rwlock);
    }
    /* No reader sets the bias while a writer holds: seen tells. */
    if ((seen & READ_BIASED) != 0) {
        error = slim_rwlock_bias_revoke(rwlock, slim_self_if_known(), way != ACQUIRE_TRY, deadline);
        if (error != 0) {
            release_write(rwlock); /* the word back, to whoever waits */
            return error;
        }
    }
    set_writer(rwlock, __slim_current_thread_id());
    return 0;
}

int pthread_rwlock_rdlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                                SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, read_lock(rwlock, ACQUIRE_BLOCK, NULL));
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                                SLIM_CHECK_TRY);
    return slim_hook_locked(&call, read_lock(rwlock, ACQUIRE_TRY, NULL));
}

static int clock_read_lock(pthread_rwlock_t *rwlock, clockid_t clock,
                           const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error != 0 ? error : read_lock(rwlock, ACQUIRE_BY_TIME, &deadline);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                                SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, clock_read_lock(rwlock, clock, abstime));
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_READ,
                                SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, clock_read_lock(rwlock, CLOCK_REALTIME, abstime));
}

/* The paths past the inline ones ("Inline write paths" above): the whole
 * call, free lock included (a caller compiled without the inline path). */
int __slim_rwlock_wrlock_slow(pthread_rwlock_t *rwlock)
{
    return write_lock(rwlock, ACQUIRE_BLOCK, NULL);
}

int __slim_rwlock_trywrlock_slow(pthread_rwlock_t *rwlock)
{
    return write_lock(rwlock, ACQUIRE_TRY, NULL);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                                SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, __slim_rwlock_wrlock(rwlock));
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                                SLIM_CHECK_TRY);
    return slim_hook_locked(&call, __slim_rwlock_trywrlock(rwlock));
}

static int clock_write_lock(pthread_rwlock_t *rwlock, clockid_t clock,
                            const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error != 0 ? error : write_lock(rwlock, ACQUIRE_BY_TIME, &deadline);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                                SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, clock_write_lock(rwlock, clock, abstime));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_rwlock_lock_begin(&call, SLIM_CHECK_SITE(), rwlock, SLIM_CHECK_RWLOCK_WRITE,
                                SLIM_CHECK_BLOCKING);
    return slim_hook_locked(&call, clock_write_lock(rwlock, CLOCK_REALTIME, abstime));
}

/* ---- Releasing: one exchange, then wakes by address only ---- */

/* A read release's exchange: one reader fewer, a waiting writer marked woken;
 * *seen gets the word replaced. */
static inline void release_read_word(pthread_rwlock_t *rwlock, int64_t *seen, int *wake_writer)
{
    int64_t desired;

    do
        desired = marking_writer_wake(*seen - READER_ONE, wake_writer);
    while (!exchange_word(rwlock, seen, desired));
}

/* A shared lock's releases: the private ones with doorbells. Out of line, so
 * that the private unlock keeps its frame. */
static void __attribute__((noinline, cold)) release_read_shared(pthread_rwlock_t *rwlock, int64_t seen)
{
    unsigned long id = shared_id(rwlock);
    int wake_writer;

    release_read_word(rwlock, &seen, &wake_writer);
    if (wake_writer)
        wake_writer_of(NULL, seen, id);
}

/* A write release's exchange: the writer gone, waiting readers let in (the
 * next epoch), a waiting writer marked woken; *seen gets the word replaced. */
static inline void release_write_word(pthread_rwlock_t *rwlock, int64_t *seen, int *wake_writer)
{
    int64_t desired;

    do {
        desired = *seen & ~(WRITER_HELD | READERS_WAITING);
        if (*seen & READERS_WAITING)
            desired = with_next_epoch(desired);
        desired = marking_writer_wake(desired, wake_writer);
    } while (!exchange_word(rwlock, seen, desired));
}

static void __attribute__((noinline, cold)) release_write_shared(pthread_rwlock_t *rwlock, int64_t seen)
{
    unsigned long id = shared_id(rwlock);
    int wake_writer;

    release_write_word(rwlock, &seen, &wake_writer);
    if (seen & READERS_WAITING)
        wake_readers(NULL, seen, id);
    if (wake_writer)
        wake_writer_of(NULL, seen, id);
}

/* A shared lock is told by the word the release loads anyway: one test and a
 * branch not taken on the private path. */
static void release_read(pthread_rwlock_t *rwlock)
{
    volatile long *writers_address = writer_gate(rwlock);
    int64_t seen = load_word(rwlock);
    int wake_writer;

    if ((seen & PSHARED) != 0) {
        release_read_shared(rwlock, seen);
        return;
    }
    release_read_word(rwlock, &seen, &wake_writer);
    /* From here on the lock may be gone. */
    if (wake_writer)
        slim_wake_one(writers_address);
}

static void release_write(pthread_rwlock_t *rwlock)
{
    volatile long *readers_address = reader_gate(rwlock), *writers_address = writer_gate(rwlock);
    int64_t seen = load_word(rwlock);
    int wake_writer;

    set_writer(rwlock, 0);
    if ((seen & PSHARED) != 0) {
        release_write_shared(rwlock, seen);
        return;
    }
    release_write_word(rwlock, &seen, &wake_writer);
    /* From here on the lock may be gone: seen is the value we replaced. */
    if (seen & READERS_WAITING)
        slim_wake_one(readers_address); /* the head of the wake chain */
    if (wake_writer)
        slim_wake_one(writers_address);
}

/* The caller's read holds first: they are thread-local. Inlined into
 * __slim_rwlock_unlock_slow, where every reader's unlock ends: GCC left it a
 * function of its own behind a jump there, which the uncontended read pair
 * paid for (bench/README.md, "The rwlock"). */
static inline __attribute__((always_inline)) int do_unlock(pthread_rwlock_t *rwlock)
{
    struct slim_thread *self;
    struct slim_rwlock_hold *entry = NULL;

    if (rwlock == NULL)
        return EINVAL;
    self = slim_self_if_known();
    if (self != NULL)
        entry = hold_find(self, rwlock);
    if (entry != NULL) {
        if (--entry->read_count == 0) {
            int biased = entry->biased;

            hold_forget(self, entry);
            if (biased)
                bias_slot_release(self->table_index);
            else
                release_read(rwlock);
        }
        return 0;
    }
    if (writer_of(rwlock) == __slim_current_thread_id() && (load_word(rwlock) & WRITER_HELD)) {
        release_write(rwlock);
        return 0;
    }
    return not_usable(load_word(rwlock)) ? EINVAL : EPERM;
}

int __slim_rwlock_unlock_slow(pthread_rwlock_t *rwlock)
{
    return do_unlock(rwlock);
}

int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_hook_rwlock_unlock_begin(&call, SLIM_CHECK_SITE(), rwlock);
    return slim_hook_unlocked(&call, __slim_rwlock_unlock(rwlock));
}

/* For check.h's hooks; the normal build never calls it. */
int slim_rwlock_check_kind(const pthread_rwlock_t *rwlock, int kind)
{
    if (rwlock == NULL)
        return kind;
    return not_usable(load_word((pthread_rwlock_t *)rwlock)) ? kind | SLIM_CHECK_UNUSABLE : kind;
}

/* ---- Life cycle ---- */

static int kind_valid(int kind)
{
    return kind == PTHREAD_RWLOCK_PREFER_READER_NP || kind == PTHREAD_RWLOCK_PREFER_WRITER_NP ||
           kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

/* A shared lock gets its id here (EAGAIN, ENOMEM or EPERM when the system
 * refuses the id counter); its word says PSHARED from the start. */
static int do_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    int kind = PTHREAD_RWLOCK_DEFAULT_NP, shared = 0, error;
    unsigned long id = 0;

    if (rwlock == NULL)
        return EINVAL;
    if (attr != NULL) {
        if (!kind_valid(attr->__kind) || slim_pshared_error(attr->__pshared) != 0)
            return EINVAL;
        kind = attr->__kind;
        shared = attr->__pshared == PTHREAD_PROCESS_SHARED;
    }
    if (shared && (error = slim_shared_id_new(&id)) != 0)
        return error;
    set_writer(rwlock, 0);
    rwlock->__kind = kind;
    rwlock->__read_bias_after = shared ? SHARED_NEVER_BIASED | (int64_t)id : 0;
    slim_word64_store_release(&rwlock->__state, shared ? PSHARED : 0);
    return 0;
}

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    struct slim_check_call call;

    slim_hook_rwlock_init_begin(&call, SLIM_CHECK_SITE(), rwlock);
    return slim_hook_initialized(&call, do_init(rwlock, attr));
}

/* Holding the word as a writer, for good, is how destroy proves nobody holds
 * or waits for it and what turns every later use into EINVAL. A reader's
 * READERS_WAITING may be left behind by a timed reader that gave up; writers
 * that wait are counted exactly, so they make destroy EBUSY. */
static int do_destroy(pthread_rwlock_t *rwlock)
{
    int64_t seen;

    if (rwlock == NULL)
        return EINVAL;
    seen = load_word(rwlock);
    do {
        if (not_usable(seen))
            return EINVAL;
        if ((seen & (READERS_MASK | WRITER_HELD | WRITERS_WAITING_MASK)) != 0)
            return EBUSY;
    } while (!exchange_word(rwlock, &seen,
                            (seen & ~(READERS_WAITING | READ_BIASED)) | WRITER_HELD | DESTROYED));
    /* Biased readers are not in the word: a slot that names the lock makes
     * destroy EBUSY, and the word goes back as it was. */
    if ((seen & READ_BIASED) != 0 && slim_rwlock_bias_revoke(rwlock, slim_self_if_known(), 0, NULL) != 0) {
        slim_word64_store_release(&rwlock->__state, seen);
        return EBUSY;
    }
    return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *rwlock)
{
    struct slim_check_call call;

    slim_hook_rwlock_begin(&call, SLIM_CHECK_SITE(), rwlock);
    return slim_hook_destroyed(&call, do_destroy(rwlock));
}

/* ---- Attributes ---- */

int pthread_rwlockattr_init(pthread_rwlockattr_t *attr)
{
    if (attr == NULL)
        return EINVAL;
    attr->__kind = PTHREAD_RWLOCK_DEFAULT_NP;
    attr->__pshared = PTHREAD_PROCESS_PRIVATE;
    return 0;
}

int pthread_rwlockattr_destroy(pthread_rwlockattr_t *attr)
{
    return attr == NULL ? EINVAL : 0;
}

/* PRIVATE or SHARED (a shared lock sleeps on doorbells: see the top); EINVAL
 * for values that are not attributes at all. */
int pthread_rwlockattr_setpshared(pthread_rwlockattr_t *attr, int pshared)
{
    int error = attr == NULL ? EINVAL : slim_pshared_error(pshared);

    if (error == 0)
        attr->__pshared = pshared;
    return error;
}

int pthread_rwlockattr_getpshared(const pthread_rwlockattr_t *attr, int *pshared)
{
    if (attr == NULL || pshared == NULL)
        return EINVAL;
    *pshared = attr->__pshared;
    return 0;
}

/* glibc's three kinds are accepted and remembered, but every kind gets the
 * policy at the top (writers first, readers queued behind a writer together),
 * and recursive reads are safe in all of them, PREFER_WRITER_NONRECURSIVE
 * included, thanks to the hold tables. */
int pthread_rwlockattr_setkind_np(pthread_rwlockattr_t *attr, int kind)
{
    if (attr == NULL || !kind_valid(kind))
        return EINVAL;
    attr->__kind = kind;
    return 0;
}

int pthread_rwlockattr_getkind_np(const pthread_rwlockattr_t *attr, int *kind)
{
    if (attr == NULL || kind == NULL)
        return EINVAL;
    *kind = attr->__kind;
    return 0;
}

#include "code_end.h"
