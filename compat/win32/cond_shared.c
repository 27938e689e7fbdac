/*
 * cond_shared.c - process-shared condition variables: a sequence-number cond.
 *
 * A private cond queues waiter nodes on the waiters' stacks (cond.c), which
 * another process cannot follow. A shared cond keeps three numbers instead, in
 * the private cond's own fields (sizeof and the private layout are untouched):
 *   __queue_lock     the ticket: the generation (upper 16 bits), the number
 *                    of sleepers registered in it (15 bits: 32767 at most; one
 *                    more waits with EAGAIN) and ON_DOORBELL (top of the lower
 *                    half: one of them sleeps on the doorbell, so wakes ring)
 *   __oldest_waiter  the look word: (generation << 1) | 1, what sleepers look
 *                    at (its low long); odd, so never a node's address, which
 *                    marks the cond shared (cond_shared.h)
 *   __newest_waiter  the object id (shared.h), which names the doorbells
 * A waiter registers and reads the generation in one atomic step (a CAS on the
 * ticket), before it unlocks the mutex, so a wake made after the unlock counts
 * it. It sleeps on the doorbell of its generation until the look word moves.
 * A wake with sleepers moves the ticket (g, n) -> (g + 1, 0) with one CAS,
 * then the look word to g + 1, then, if a sleeper of g marked ON_DOORBELL,
 * leaves n tokens in the doorbell of generation g: a waiter that arrives later
 * registers in g + 1 and sleeps on another doorbell, so it can never take a
 * token meant for g. A sleeper spins first (the house's wait spin) and marks
 * ON_DOORBELL only when it goes to sleep, so that a hand-off between two
 * running threads costs no system call.
 *
 * So a signal wakes every waiter of the current generation, not one: POSIX
 * asks for at least one, and the others see a spurious wakeup (README.md).
 * The sleepers look at the look word rather than the ticket, so that a new
 * sleeper's registration does not wake the earlier ones.
 *
 * A waiter that gives up (timeout, cancellation, the mutex's error) takes its
 * registration back while the ticket is still at its generation; once the
 * ticket has moved on, a wake counted it: a timed-out wait then returns 0 (the
 * signal is not lost), a cancelled one passes the signal on, as cond.c does.
 * A process that ends while waiting leaves its count behind: the next wake
 * clears it (and rings a token nobody takes, gone with the doorbell's last
 * handle); until then destroy says EBUSY.
 */
#include "cond_shared.h"
#include "shared.h"
#include "atomic.h"
#include "spin.h"
#include "cancel_point.h"
#include "check.h"

/* The ticket word: the generation in the upper half; in the lower, the
 * sleepers registered in it and a mark that one of them has gone (or is going)
 * to the doorbell, without which a wake rings nothing. */
#define GENERATION_SHIFT 16
#define GENERATION_MASK 0xffffUL
#define SLEEPERS_MASK 0x7fffUL
#define ON_DOORBELL 0x8000UL
/* How far apart two wakers' generations can be: less than half the range. */
#define GENERATION_HALF_RANGE 0x8000UL

/* The look word is the low long of a pointer field, and the id is kept in one. */
SLIM_STATIC_ASSERT(sizeof(void *) >= sizeof(long), "a pointer field holds a long");
SLIM_STATIC_ASSERT(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a pointer's low long comes first");

static volatile long *ticket_word(pthread_cond_t *cond)
{
    return &cond->__queue_lock;
}

static volatile long *look_word(pthread_cond_t *cond)
{
    return (volatile long *)(void *)&cond->__oldest_waiter;
}

static unsigned long generation_of(long ticket)
{
    return ((unsigned long)ticket >> GENERATION_SHIFT) & GENERATION_MASK;
}

static unsigned long sleepers_of(long ticket)
{
    return (unsigned long)ticket & SLEEPERS_MASK;
}

static long look_value(unsigned long generation)
{
    return (long)((generation << 1) | SLIM_COND_SHARED_MARK);
}

static unsigned long generation_looked(long look)
{
    return ((unsigned long)look >> 1) & GENERATION_MASK;
}

/* Written at init, before the cond is published, and never again. */
static unsigned long object_id(const pthread_cond_t *cond)
{
    return (unsigned long)(uintptr_t)cond->__newest_waiter;
}

int slim_cond_shared_init(pthread_cond_t *cond, clockid_t clock)
{
    unsigned long id;
    int error = slim_shared_id_new(&id);

    if (error != 0)
        return error == ENOMEM ? ENOMEM : EAGAIN; /* pthread_cond_init's words */
    cond->__newest_waiter = (void *)(uintptr_t)id;
    cond->__queue_lock = 0;
    cond->__clock = clock;
    /* The whole pointer, so that its upper half (x86_64) reads 0 for good. */
    slim_pointer_store_release((void *volatile *)&cond->__oldest_waiter,
                               (void *)(uintptr_t)look_value(0));
    return 0;
}

/* ---- Waking ---- */

/* Moves the look word forward to generation, never back: two wakers may store
 * in either order, and a look word moved back would put the later one's
 * sleepers to sleep again. */
static void publish_generation(pthread_cond_t *cond, unsigned long generation)
{
    long seen = slim_load_relaxed(look_word(cond));

    while (((generation - generation_looked(seen)) & GENERATION_MASK) - 1 <
           GENERATION_HALF_RANGE - 1) {
        if (slim_cas_seen(look_word(cond), &seen, look_value(generation)))
            return;
    }
}

int slim_cond_shared_wake(pthread_cond_t *cond)
{
    struct slim_doorbell bell;
    long ticket = slim_load_acquire(ticket_word(cond));
    unsigned long next;

    /* Read before the look word moves: from then on a woken waiter may
     * destroy the cond and unmap it. */
    bell.object_id = object_id(cond);
    do {
        if (sleepers_of(ticket) == 0)
            return 0; /* nobody to wake: no doorbell is touched */
        next = (generation_of(ticket) + 1) & GENERATION_MASK;
    } while (!slim_cas_seen(ticket_word(cond), &ticket, (long)(next << GENERATION_SHIFT)));
    publish_generation(cond, next);
    if (((unsigned long)ticket & ON_DOORBELL) == 0)
        return 0; /* every sleeper still spins, and sees the look word move */
    bell.generation = generation_of(ticket);
    slim_doorbell_ring(&bell, (long)sleepers_of(ticket));
    return 0;
}

/* ---- Waiting ---- */

/* Counts the caller a sleeper of the current generation, which it returns in
 * *generation: 0, or EAGAIN when 32767 are registered already. */
static int register_sleeper(pthread_cond_t *cond, unsigned long *generation)
{
    long ticket = slim_load_relaxed(ticket_word(cond));

    do {
        if (sleepers_of(ticket) == SLEEPERS_MASK)
            return EAGAIN;
    } while (!slim_cas_seen(ticket_word(cond), &ticket, ticket + 1));
    *generation = generation_of(ticket);
    return 0;
}

/* Takes the registration back while the ticket is still at generation:
 * nonzero when that worked, 0 when a wake has counted the caller. */
static int unregister_sleeper(pthread_cond_t *cond, unsigned long generation)
{
    long ticket = slim_load_relaxed(ticket_word(cond));

    while (generation_of(ticket) == generation) {
        if (slim_cas_seen(ticket_word(cond), &ticket, ticket - 1))
            return 1;
    }
    return 0;
}

/* Ends a wait that gave up with error: error once the registration is back,
 * or, when a wake counted the caller first, 0; a caller that cannot take
 * the wake (pass_on) hands it on to the next generation. */
static int give_up(pthread_cond_t *cond, unsigned long generation, int error, int pass_on)
{
    if (unregister_sleeper(cond, generation))
        return error;
    if (pass_on) {
        slim_cond_shared_wake(cond);
        return error;
    }
    return 0;
}

/* The house's wait spin (spin.h), as a private cond's waiter spins on its
 * semaphore: nonzero when the look word moved meanwhile, so that a waker on
 * another core is caught without the doorbell's system calls. */
static int spin_while_unmoved(const struct slim_wait_target *target)
{
    struct slim_spin spin;

    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (slim_load_relaxed(target->word) == target->expected && slim_spin_again(&spin))
        continue;
    return slim_load_acquire(target->word) != target->expected;
}

/* Marks the ticket before the caller goes to the doorbell of generation, so
 * that the wake rings it: nonzero, or 0 when the ticket has moved on already
 * (a wake counted the caller). The mark and the wake's exchange meet on the
 * ticket: a wake after the mark rings, after the look word it published, and
 * the sleeper opens the doorbell before it looks (shared.h), so either its
 * token stays in the doorbell or the look sees the word moved. */
static int mark_on_doorbell(pthread_cond_t *cond, unsigned long generation)
{
    long ticket = slim_load_relaxed(ticket_word(cond));

    while (generation_of(ticket) == generation) {
        if (((unsigned long)ticket & ON_DOORBELL) != 0 ||
            slim_cas_seen(ticket_word(cond), &ticket, (long)((unsigned long)ticket | ON_DOORBELL)))
            return 1;
    }
    return 0;
}

/* 0 once the look word has left generation, no longer registered; ETIMEDOUT
 * or ECANCELED once the registration is back (or 0, the wake taken: give_up). */
static int sleep_until_woken(pthread_cond_t *cond, unsigned long generation,
                             const struct slim_deadline *deadline)
{
    struct slim_doorbell bell;
    struct slim_wait_target target;
    int error;

    bell.object_id = object_id(cond);
    bell.generation = generation;
    target.word = look_word(cond);
    target.expected = look_value(generation);
    target.handle = NULL;
    target.doorbell = &bell;
    if (spin_while_unmoved(&target) || !mark_on_doorbell(cond, generation))
        error = 0;
    else
        error = slim_wait(&target, deadline, SLIM_WAIT_CANCELLABLE);
    if (error != 0)
        return give_up(cond, generation, error, error == ECANCELED);
    /* The look word may have moved for the generation before ours while its
     * waker had not yet published: a spurious wakeup, which must not leave its
     * registration behind (destroy would see a sleeper). */
    unregister_sleeper(cond, generation);
    return 0;
}

int slim_cond_shared_wait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                          const struct slim_deadline *deadline)
{
    unsigned long generation;
    int error, lock_error;

    /* A private mutex means one thing per process: no waiter of another
     * process could be told the state it guards. */
    if (!slim_mutex_is_shared(mutex))
        return EINVAL;
    error = register_sleeper(cond, &generation);
    if (error != 0)
        return error;
    slim_hook_cond_wait_begin(cond, mutex);
    /* Registered first, so that a wake made once the mutex is free counts us.
     * No __cond_waited mark: that is the private mutex's spin hint. */
    error = slim_mutex_unlock(mutex);
    if (error != 0) { /* not ours to release (EPERM for an errorcheck mutex) */
        slim_hook_cond_wait_end(cond, mutex, 0);
        return give_up(cond, generation, error, 1);
    }
    error = sleep_until_woken(cond, generation, deadline);
    lock_error = slim_mutex_lock(mutex);
    slim_hook_cond_wait_end(cond, mutex, lock_error == 0 || lock_error == EOWNERDEAD);
    if (error == ECANCELED)
        slim_cancel_act(); /* with the mutex held again, as POSIX asks */
    return lock_error != 0 ? lock_error : error; /* EOWNERDEAD outranks a timeout */
}

/* ---- Life cycle ---- */

int slim_cond_shared_destroy(pthread_cond_t *cond)
{
    long ticket = slim_load_acquire(ticket_word(cond));

    /* Registered sleepers, or a wake between its CAS and its look word. */
    if (sleepers_of(ticket) != 0 ||
        slim_load_acquire(look_word(cond)) != look_value(generation_of(ticket)))
        return EBUSY;
    return 0;
}

int slim_cond_shared_unusable(const pthread_cond_t *cond)
{
    unsigned long look = (unsigned long)(uintptr_t)cond->__oldest_waiter;

    return look > (unsigned long)look_value(GENERATION_MASK) || object_id(cond) == 0 ||
           (cond->__clock != CLOCK_REALTIME && cond->__clock != CLOCK_MONOTONIC);
}

#include "code_end.h"
