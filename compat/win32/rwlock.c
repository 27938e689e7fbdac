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
 */
#include "internal.h"

#include <stddef.h>

SLIM_STATIC_ASSERT(sizeof(int64_t) == 8 && _Alignof(pthread_rwlock_t) >= 8,
                   "the rwlock word is one aligned 64-bit word");
SLIM_STATIC_ASSERT(offsetof(pthread_rwlock_t, __state) == 0, "the word leads the rwlock");
SLIM_STATIC_ASSERT(sizeof(long) == 4, "each half of the word is one long for WaitOnAddress");
SLIM_STATIC_ASSERT(sizeof(unsigned long) == sizeof(DWORD), "a thread id fits __writer_thread_id");

/* The low half: the reader gate. */
#define WRITERS_WAITING_ONE 0x1LL
#define WRITERS_WAITING_MASK 0xFFFFLL
#define READER_EPOCH_ONE 0x10000LL
#define READER_EPOCH_MASK 0xFFFF0000LL
/* The high half: the writer gate. */
#define READER_ONE 0x100000000LL
#define READERS_MASK 0xFFFFFF00000000LL
#define WRITER_HELD (1LL << 56)
#define READERS_WAITING (1LL << 57)
#define DESTROYED (1LL << 58)
#define WRITER_WOKEN (1LL << 59) /* a writer was woken and has not yet acted */
#define READ_BIASED (1LL << 60)  /* first-time readers may hold through their bias slot */
#define UNKNOWN_BITS (~((1LL << 61) - 1)) /* set only in memory that is not an rwlock */
#define HALF_BITS 32

enum hold_mode { HOLD_SHARED, HOLD_EXCLUSIVE };

/* How an acquire that cannot take the lock at once goes on. */
enum acquire_way {
    ACQUIRE_TRY,     /* give up: EBUSY */
    ACQUIRE_BLOCK,   /* wait as long as it takes */
    ACQUIRE_BY_TIME  /* wait until a deadline */
};

static inline int64_t load_word(pthread_rwlock_t *rwlock)
{
    return __atomic_load_n(&rwlock->__state, __ATOMIC_ACQUIRE);
}

/* On failure *seen gets the word's value. Acquire and release together: the
 * same exchange takes or gives the lock. */
static inline int exchange_word(pthread_rwlock_t *rwlock, int64_t *seen, int64_t desired)
{
    return __atomic_compare_exchange_n(&rwlock->__state, seen, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* The two halves as wait addresses (little-endian: the low half comes first). */
static inline volatile long *reader_gate(pthread_rwlock_t *rwlock)
{
    return (volatile long *)(void *)&rwlock->__state;
}

static inline volatile long *writer_gate(pthread_rwlock_t *rwlock)
{
    return (volatile long *)(void *)&rwlock->__state + 1;
}

static inline long low_half(int64_t word)
{
    return (long)(uint32_t)word;
}

static inline long high_half(int64_t word)
{
    return (long)(uint32_t)((uint64_t)word >> HALF_BITS);
}

static inline int64_t readers_of(int64_t word)
{
    return word & READERS_MASK;
}

static inline int64_t waiting_writers_of(int64_t word)
{
    return word & WRITERS_WAITING_MASK;
}

/* The epoch wraps inside its own bits. */
static inline int64_t with_next_epoch(int64_t word)
{
    return (word & ~READER_EPOCH_MASK) | ((word + READER_EPOCH_ONE) & READER_EPOCH_MASK);
}

static inline DWORD writer_of(const pthread_rwlock_t *rwlock)
{
    return __atomic_load_n(&rwlock->__writer_thread_id, __ATOMIC_RELAXED);
}

static inline void set_writer(pthread_rwlock_t *rwlock, DWORD thread_id)
{
    __atomic_store_n(&rwlock->__writer_thread_id, thread_id, __ATOMIC_RELAXED);
}

/* A releaser whose exchange leaves this value wakes a writer (and sets
 * WRITER_WOKEN in it): writers wait, the lock is free for one, and no woken
 * writer is on its way already. */
static inline int writer_to_wake(int64_t word)
{
    return waiting_writers_of(word) != 0 &&
           (word & (WRITER_WOKEN | WRITER_HELD | READERS_MASK)) == 0;
}

/* A releaser's desired value, with WRITER_WOKEN set when it is to wake a
 * writer (*wake_writer says so). */
static inline int64_t marking_writer_wake(int64_t desired, int *wake_writer)
{
    *wake_writer = writer_to_wake(desired);
    return *wake_writer ? desired | WRITER_WOKEN : desired;
}

static int not_usable(int64_t word)
{
    return (word & (DESTROYED | UNKNOWN_BITS)) != 0;
}

/* ---- The calling thread's read holds ---- */

/* Entry i of the thread's table: the inline ones first, then the heap ones. */
static inline struct slim_rwlock_hold *hold_at(struct slim_thread *self, unsigned i)
{
    return i < SLIM_RWLOCK_HOLDS_INLINE ? &self->rwlock_holds[i]
                                        : &self->rwlock_holds_more[i - SLIM_RWLOCK_HOLDS_INLINE];
}

/* The entry holding rwlock, else NULL. Used entries form a prefix. */
static inline struct slim_rwlock_hold *hold_find(struct slim_thread *self,
                                                 const pthread_rwlock_t *rwlock)
{
    unsigned i, count = self->rwlock_hold_count;

    for (i = 0; i < count; i++) {
        struct slim_rwlock_hold *entry = hold_at(self, i);

        if (entry->rwlock == rwlock)
            return entry;
    }
    return NULL;
}

/* Makes room for one more hold before the lock is taken, so that running out of
 * memory leaves nothing held: 0 or EAGAIN. */
static int hold_reserve(struct slim_thread *self)
{
    struct slim_rwlock_hold *grown;
    unsigned capacity;

    if (self->rwlock_hold_count < SLIM_RWLOCK_HOLDS_INLINE + self->rwlock_holds_more_capacity)
        return 0;
    capacity = self->rwlock_holds_more_capacity ? 2 * self->rwlock_holds_more_capacity
                                                : SLIM_RWLOCK_HOLDS_INLINE;
    if (capacity > (UINT_MAX - SLIM_RWLOCK_HOLDS_INLINE) / 2)
        return EAGAIN;
    grown = realloc(self->rwlock_holds_more, capacity * sizeof *grown);
    if (grown == NULL)
        return EAGAIN;
    self->rwlock_holds_more = grown;
    self->rwlock_holds_more_capacity = capacity;
    return 0;
}

/* After hold_reserve; biased: taken through the thread's bias slot. */
static void hold_add(struct slim_thread *self, const pthread_rwlock_t *rwlock, int biased)
{
    struct slim_rwlock_hold *entry = hold_at(self, self->rwlock_hold_count++);

    entry->rwlock = rwlock;
    entry->read_count = 1;
    entry->biased = biased;
}

/* The last entry moves into the gap (with unlocks in reverse order of locking,
 * entry usually is the last one). The heap table stays until the thread exits. */
static void hold_forget(struct slim_thread *self, struct slim_rwlock_hold *entry)
{
    *entry = *hold_at(self, --self->rwlock_hold_count);
}

/* ---- Read bias: readers that leave the word alone ----
 *
 * Every first-time read hold and its release change the word, so readers on
 * two cores pull its cache line back and forth even though they never wait
 * for each other. A lock that is read much and written little is biased
 * (READ_BIASED, after BRAVO: Dice and Kogan, USENIX ATC 2019): a first-time
 * reader then publishes the lock in its own slot, one per thread record, and
 * re-reads the word; while the bias holds, that is its whole acquire, and its
 * release is one exchange on its own slot.
 * A writer that takes the word and finds the bias clears it (a full barrier),
 * then revokes: it waits for every slot that names the lock. A reader that
 * published before the clear is seen by the scan; one that published after it
 * sees the bias gone and withdraws to the word, where the writer holds. So the
 * writer holds the lock once the scan is through. It sleeps on a slot it finds
 * taken after tagging it (low bit), and the reader's release, seeing the tag,
 * wakes it by address: its own slot, never the lock. After a revocation the
 * bias stays off for BIAS_INHIBIT_FACTOR times what the revocation took, and
 * for BIAS_INHIBIT_LEAST at least (__read_bias_after, in time stamp units of
 * BIAS_TICK_SHIFT), so that locks written often stay on the word; the next
 * first-time reader on the word after that sets it again, provided no writer
 * waits. */

#if defined(__x86_64__) || defined(__i386__)
#define BIAS_ENABLED 1
#else
#define BIAS_ENABLED 0 /* no cheap clock for the inhibition: readers stay on the word */
#endif
#define BIAS_SLOTS 256          /* threads whose record index is below this can bias */
#define BIAS_TICK_SHIFT 10      /* __read_bias_after counts 1024 time stamp ticks */
#define BIAS_INHIBIT_FACTOR 9   /* BRAVO's N: a revocation costs readers at most 1/N */
/* The inhibition lasts at least this (about 0.2 ms at 2-3 GHz): a writer scans
 * the slots while it holds the word, so everyone waits for a revocation, not
 * only the writer whose time BRAVO's N weighs; and with no reader in its slot
 * a scan takes a microsecond or less. A lock written half the time then
 * revoked every few microseconds (70 000 revocations in NaviServer's 600 000
 * operations at 50% writes, bench/README.md); the floor allows a few thousand
 * a second at most. */
#define BIAS_INHIBIT_LEAST 512
#define BIAS_TAG ((uintptr_t)1) /* a slot whose writer sleeps until it is released */
#define BIAS_SLOT_BYTES 64      /* a cache line of x86 */

/* One cache line a slot: two readers' releases must not pull one line back
 * and forth, which is what the bias is for. */
struct bias_slot {
    const pthread_rwlock_t *volatile lock; /* the lock held through it, tagged; or NULL */
} __attribute__((aligned(BIAS_SLOT_BYTES)));

static struct bias_slot bias_slots[BIAS_SLOTS];

SLIM_STATIC_ASSERT(_Alignof(pthread_rwlock_t) > 1, "a lock's address leaves the tag bit free");

static inline int64_t bias_clock(void)
{
#if BIAS_ENABLED
    return (int64_t)(__builtin_ia32_rdtsc() >> BIAS_TICK_SHIFT);
#else
    return 0;
#endif
}

static inline const pthread_rwlock_t *untagged(const pthread_rwlock_t *slot_value)
{
    return (const pthread_rwlock_t *)((uintptr_t)slot_value & ~BIAS_TAG);
}

/* Whether a first-time reader on the word should set the bias in its exchange:
 * no writer waits and the inhibition is over. */
static inline int bias_due(pthread_rwlock_t *rwlock, int64_t word)
{
    if (!BIAS_ENABLED || (word & (READ_BIASED | WRITERS_WAITING_MASK)) != 0)
        return 0;
    return bias_clock() >= __atomic_load_n(&rwlock->__read_bias_after, __ATOMIC_RELAXED);
}

/* Empties the caller's slot; wakes a writer that sleeps on it. After this the
 * reader touches nothing of the lock. */
static void bias_slot_release(unsigned long index)
{
    const pthread_rwlock_t *was = __atomic_exchange_n(&bias_slots[index].lock, NULL, __ATOMIC_SEQ_CST);

    if ((uintptr_t)was & BIAS_TAG)
        slim_wake_all((volatile long *)(void *)&bias_slots[index].lock);
}

/* A first-time read hold through the caller's slot: nonzero when it is held. */
static int bias_try_read(pthread_rwlock_t *rwlock, struct slim_thread *self, int64_t word)
{
    unsigned long index = self->table_index;
    const pthread_rwlock_t *expected = NULL;

    if ((word & (READ_BIASED | WRITERS_WAITING_MASK | WRITER_HELD | DESTROYED |
                              UNKNOWN_BITS)) != READ_BIASED ||
        index >= BIAS_SLOTS)
        return 0;
    if (!__atomic_compare_exchange_n(&bias_slots[index].lock, &expected, rwlock, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_RELAXED))
        return 0; /* the slot holds another lock (or a dead thread's) */
    if ((__atomic_load_n(&rwlock->__state, __ATOMIC_SEQ_CST) & READ_BIASED) != 0)
        return 1;
    bias_slot_release(index); /* a writer revoked the bias meanwhile */
    return 0;
}

/* A thread that ends with a biased read hold (a program bug: POSIX leaves the
 * lock read-held) would leave its slot naming that address for good, and a
 * later lock there would wait for a reader that is gone; the hold is dropped
 * instead. The slot is the record's, so the thread's next life starts clean. */
void slim_rwlock_owner_exits(struct slim_thread *self)
{
    unsigned long index = self->table_index;

    if (index < BIAS_SLOTS && __atomic_load_n(&bias_slots[index].lock, __ATOMIC_RELAXED) != NULL)
        bias_slot_release(index);
}

/* Waits until the slot no longer names rwlock: 0, or ETIMEDOUT. */
static int bias_wait_slot(unsigned long index, pthread_rwlock_t *rwlock,
                          const struct slim_deadline *deadline)
{
    const pthread_rwlock_t *volatile *slot = &bias_slots[index].lock;
    const pthread_rwlock_t *seen, *tagged;
    struct slim_spin spin;

    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (slim_spin_again(&spin))
        if (untagged(__atomic_load_n(slot, __ATOMIC_ACQUIRE)) != rwlock)
            return 0;
    for (;;) {
        seen = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (untagged(seen) != rwlock)
            return 0;
        tagged = (const pthread_rwlock_t *)((uintptr_t)seen | BIAS_TAG);
        if (seen != tagged && !__atomic_compare_exchange_n(slot, &seen, tagged, 0,
                                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
            continue;
        /* The slot's low half holds the tag: any release changes it. */
        if (slim_wait_on((volatile long *)(void *)slot, (long)(uintptr_t)tagged, deadline,
                         SLIM_WAIT_PLAIN) == ETIMEDOUT)
            return ETIMEDOUT; /* a tag left behind costs its reader one idle wake */
    }
}

/* When the bias may come back after a revocation that began at began (see
 * BIAS_INHIBIT_LEAST). */
static int64_t bias_inhibition_end(int64_t began)
{
    int64_t now = bias_clock(), inhibition = BIAS_INHIBIT_FACTOR * (now - began);

    return now + (inhibition > BIAS_INHIBIT_LEAST ? inhibition : BIAS_INHIBIT_LEAST);
}

/* The caller holds the word as a writer and found READ_BIASED: it clears it
 * and waits for the biased readers. 0; EBUSY (for a try: wait 0) when biased
 * readers remain; EDEADLK when the caller itself holds a biased read; or
 * ETIMEDOUT. On failure
 * the bias is set again before the caller gives the word back: biased readers
 * still hold the lock, and the next writer must find the bias to wait for
 * them. */
static int bias_revoke(pthread_rwlock_t *rwlock, struct slim_thread *self, int wait,
                       const struct slim_deadline *deadline)
{
    unsigned long index, count = slim_records_handed_out();
    int64_t began = bias_clock();
    int error = 0;

    __atomic_fetch_and(&rwlock->__state, ~READ_BIASED, __ATOMIC_SEQ_CST);
    if (count > BIAS_SLOTS)
        count = BIAS_SLOTS;
    for (index = 0; index < count && error == 0; index++) {
        if (untagged(__atomic_load_n(&bias_slots[index].lock, __ATOMIC_ACQUIRE)) != rwlock)
            continue;
        if (!wait)
            error = EBUSY;
        else if (self != NULL && index == self->table_index)
            error = EDEADLK; /* it would wait for itself */
        else
            error = bias_wait_slot(index, rwlock, deadline);
    }
    __atomic_store_n(&rwlock->__read_bias_after, bias_inhibition_end(began), __ATOMIC_RELAXED);
    if (error != 0)
        __atomic_fetch_or(&rwlock->__state, READ_BIASED, __ATOMIC_SEQ_CST);
    return error;
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
            if (queued) /* it holds the lock: wakes the next link (see the top) */
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
        if (slim_wait_on(reader_gate(rwlock), low_half(slept_on), deadline, SLIM_WAIT_PLAIN) == ETIMEDOUT) {
            /* The chain's wake may have come with the timeout: hand it on.
             * A READERS_WAITING left behind costs one idle wake. */
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
        slim_wake_one(readers_address); /* the head of the wake chain */
    if (pass_wake)
        slim_wake_one(writers_address);
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
        if (slim_wait_on(writer_gate(rwlock), high_half(seen), deadline, SLIM_WAIT_PLAIN) == ETIMEDOUT) {
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
        error = bias_revoke(rwlock, slim_self_if_known(), way != ACQUIRE_TRY, deadline);
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
    return read_lock(rwlock, ACQUIRE_BLOCK, NULL);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *rwlock)
{
    return read_lock(rwlock, ACQUIRE_TRY, NULL);
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error != 0 ? error : read_lock(rwlock, ACQUIRE_BY_TIME, &deadline);
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    return pthread_rwlock_clockrdlock(rwlock, CLOCK_REALTIME, abstime);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *rwlock)
{
    return write_lock(rwlock, ACQUIRE_BLOCK, NULL);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *rwlock)
{
    return write_lock(rwlock, ACQUIRE_TRY, NULL);
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *rwlock, clockid_t clock,
                               const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error = slim_deadline_absolute(&deadline, clock, abstime);

    return error != 0 ? error : write_lock(rwlock, ACQUIRE_BY_TIME, &deadline);
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *rwlock, const struct timespec *abstime)
{
    return pthread_rwlock_clockwrlock(rwlock, CLOCK_REALTIME, abstime);
}

/* ---- Releasing: one exchange, then wakes by address only ---- */

static void release_read(pthread_rwlock_t *rwlock)
{
    volatile long *writers_address = writer_gate(rwlock);
    int64_t seen = load_word(rwlock), desired;
    int wake_writer;

    do
        desired = marking_writer_wake(seen - READER_ONE, &wake_writer);
    while (!exchange_word(rwlock, &seen, desired));
    /* From here on the lock may be gone. */
    if (wake_writer)
        slim_wake_one(writers_address);
}

static void release_write(pthread_rwlock_t *rwlock)
{
    volatile long *readers_address = reader_gate(rwlock), *writers_address = writer_gate(rwlock);
    int64_t seen = load_word(rwlock), desired;
    int wake_writer;

    set_writer(rwlock, 0);
    do {
        desired = seen & ~(WRITER_HELD | READERS_WAITING);
        if (seen & READERS_WAITING)
            desired = with_next_epoch(desired);
        desired = marking_writer_wake(desired, &wake_writer);
    } while (!exchange_word(rwlock, &seen, desired));
    /* From here on the lock may be gone: seen is the value we replaced. */
    if (seen & READERS_WAITING)
        slim_wake_one(readers_address); /* the head of the wake chain */
    if (wake_writer)
        slim_wake_one(writers_address);
}

/* The caller's read holds first: they are thread-local. */
int pthread_rwlock_unlock(pthread_rwlock_t *rwlock)
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

/* ---- Life cycle ---- */

static int kind_valid(int kind)
{
    return kind == PTHREAD_RWLOCK_PREFER_READER_NP || kind == PTHREAD_RWLOCK_PREFER_WRITER_NP ||
           kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}

int pthread_rwlock_init(pthread_rwlock_t *rwlock, const pthread_rwlockattr_t *attr)
{
    int kind = PTHREAD_RWLOCK_DEFAULT_NP;

    if (rwlock == NULL)
        return EINVAL;
    if (attr != NULL) {
        if (!kind_valid(attr->__kind) || attr->__pshared != PTHREAD_PROCESS_PRIVATE)
            return EINVAL;
        kind = attr->__kind;
    }
    set_writer(rwlock, 0);
    rwlock->__kind = kind;
    rwlock->__read_bias_after = 0;
    __atomic_store_n(&rwlock->__state, 0, __ATOMIC_RELEASE);
    return 0;
}

/* Holding the word as a writer, for good, is how destroy proves nobody holds
 * or waits for it and what turns every later use into EINVAL. A reader's
 * READERS_WAITING may be left behind by a timed reader that gave up; writers
 * that wait are counted exactly, so they make destroy EBUSY. */
int pthread_rwlock_destroy(pthread_rwlock_t *rwlock)
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
    if ((seen & READ_BIASED) != 0 && bias_revoke(rwlock, slim_self_if_known(), 0, NULL) != 0) {
        __atomic_store_n(&rwlock->__state, seen, __ATOMIC_RELEASE);
        return EBUSY;
    }
    return 0;
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

/* PTHREAD_PROCESS_SHARED is a valid value this implementation cannot honour:
 * WaitOnAddress and the per-thread hold tables live in one process. ENOTSUP
 * says so; EINVAL stays for values that are not attributes at all. */
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
