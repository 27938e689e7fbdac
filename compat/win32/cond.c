/*
 * cond.c - condition variables: a FIFO of waiters, each asleep on its own
 * lightweight semaphore (a sem_t on its stack, the same code that serves sem_t):
 * git's 2010 semaphore condvar, optimised, and exact.
 *
 * The cond holds a doubly linked FIFO of waiter nodes living on the waiters'
 * stacks, guarded by the cond's own queue lock (a word: FREE, LOCKED,
 * CONTENDED; held for a few instructions, sleeps with WaitOnAddress when
 * contended). Each node has a semaphore (0 tokens until it is chosen) and a
 * state word:
 *   QUEUED    in the FIFO, asleep or about to be
 *   CLAIMED   a signal chose it (CAS QUEUED -> CLAIMED, under the queue lock)
 *             and unlinked it; the signaller posts its semaphore shortly
 *   WITHDRAWN the waiter gave up first (timeout, cancellation, an error; CAS
 *             QUEUED -> WITHDRAWN, without the lock) and unlinks itself under
 *             the lock unless a signaller already did
 * Who wakes whom: signal unlinks the oldest nodes until it wins the CAS on one
 * (skipping withdrawn nodes), releases the queue lock, then posts that node's
 * semaphore. broadcast does the same for every node queued when it took the
 * lock. No rendezvous: the signaller never waits for the waiter, and the waiter
 * never waits for anything but its own semaphore.
 *
 * Why no wakeup is lost or stolen: a waiter enqueues before it unlocks the
 * mutex, so a signal made under the mutex after that finds the node; the choice
 * is one CAS on a node already in the FIFO, so a thread that starts waiting
 * later is never chosen in its place, and a node is chosen at most once. A
 * waiter timing out races the signal on the same CAS: either the signal wins
 * (the waiter takes the post that is on its way and returns 0; the signal was
 * not lost) or the timeout wins (the signal moves on to the next node, or
 * found nobody waiting). A cancelled waiter that lost the race passes the
 * signal on, as POSIX asks, and relocks the mutex before its cleanup handlers.
 *
 * Why the cond may be destroyed as soon as its waiters are woken, even by a
 * signal made without the mutex: a signaller is done with the cond (the queue
 * lock released) before it posts, and the post's last access to the node is one
 * atomic update (sem.c); a woken waiter never touches the cond again.
 *
 * A process-shared cond (cond_shared.c) keeps other numbers in the same
 * fields; its odd __oldest_waiter is never NULL, so each call's compare with
 * NULL, which the private cond makes anyway, leads it past the fast exits to
 * the one test of the mark (cond_shared.h) that sends it there.
 */
#include "spin.h"
#include "sem_calls.h"
#include "cond_shared.h"
#include "cancel_point.h"
#include "check.h"

enum waiter_state { WAITER_QUEUED, WAITER_CLAIMED, WAITER_WITHDRAWN };

enum queue_lock_state { QUEUE_FREE, QUEUE_LOCKED, QUEUE_CONTENDED };


struct waiter {
    struct waiter *older;  /* toward __oldest_waiter; guarded by the queue lock */
    struct waiter *newer;
    int linked;            /* in the FIFO; guarded by the queue lock */
    volatile long state;   /* enum waiter_state */
    sem_t wakeup;          /* posted once by the signal that claims the node */
};

/* ---- The FIFO, under the queue lock ---- */

/* Held for a few instructions, never across a wait: a waiter looks after
 * every pause, and sleeps only behind a holder that lost its core. */
static void queue_lock(pthread_cond_t *cond)
{
    struct slim_spin spin;

    if (slim_cas(&cond->__queue_lock, QUEUE_FREE, QUEUE_LOCKED))
        return;
    slim_spin_begin(&spin, SLIM_SPIN_WAIT);
    while (slim_spin_again(&spin)) {
        if (slim_load_relaxed(&cond->__queue_lock) == QUEUE_FREE &&
            slim_cas(&cond->__queue_lock, QUEUE_FREE, QUEUE_LOCKED))
            return;
    }
    while (slim_swap(&cond->__queue_lock, QUEUE_CONTENDED) != QUEUE_FREE)
        slim_wait_on(&cond->__queue_lock, QUEUE_CONTENDED, NULL, SLIM_WAIT_PLAIN);
}

static void queue_unlock(pthread_cond_t *cond)
{
    if (slim_swap(&cond->__queue_lock, QUEUE_FREE) == QUEUE_CONTENDED)
        slim_wake_one(&cond->__queue_lock);
}

/* The signal fast path reads the head without the queue lock. */
static struct waiter *oldest_waiter(const pthread_cond_t *cond)
{
    return slim_pointer_load_acquire((void *volatile *)&cond->__oldest_waiter);
}

static void set_oldest_waiter(pthread_cond_t *cond, struct waiter *node)
{
    slim_pointer_store_relaxed((void *volatile *)&cond->__oldest_waiter, node);
}

static void enqueue(pthread_cond_t *cond, struct waiter *node)
{
    struct waiter *newest = cond->__newest_waiter;

    node->older = newest;
    node->newer = NULL;
    node->linked = 1;
    if (newest != NULL)
        newest->newer = node;
    else
        set_oldest_waiter(cond, node);
    cond->__newest_waiter = node;
}

static void unlink_waiter(pthread_cond_t *cond, struct waiter *node)
{
    if (node->older != NULL)
        node->older->newer = node->newer;
    else
        set_oldest_waiter(cond, node->newer);
    if (node->newer != NULL)
        node->newer->older = node->older;
    else
        cond->__newest_waiter = node->older;
    node->linked = 0;
}

/* ---- Signalling ---- */

/* The signaller's last touch of the node: from here on the waiter may return.
 * One post on a semaphore that starts at 0 cannot overflow. */
static void release_waiter(struct waiter *node)
{
    slim_sem_post(&node->wakeup);
}

/* The work of pthread_cond_signal, which pthread.h's inline path past an
 * empty queue, a waiter passing a signal on and C11's cnd_signal share
 * (__slim_cond_signal_slow). Inlined into both, so that pthread_cond_signal
 * is the work itself, not a jump to it. */
static inline __attribute__((always_inline)) int cond_signal(pthread_cond_t *cond)
{
    struct waiter *node, *chosen = NULL;

    if (cond == NULL)
        return EINVAL;
    if ((node = oldest_waiter(cond)) == NULL)
        return 0;
    if (slim_cond_marked_shared(node))
        return slim_cond_shared_wake(cond);
    queue_lock(cond);
    while (chosen == NULL && (node = cond->__oldest_waiter) != NULL) {
        unlink_waiter(cond, node);
        if (slim_cas(&node->state, WAITER_QUEUED, WAITER_CLAIMED))
            chosen = node;
    }
    queue_unlock(cond);
    if (chosen != NULL)
        release_waiter(chosen);
    return 0;
}

int pthread_cond_signal(pthread_cond_t *cond)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, cond_signal(cond));
}

/* The rest of pthread.h's inline pthread_cond_signal, which found a waiter or
 * a shared cond (include/slimpthreads_once_cond_inline.h); the whole call for
 * the library's own callers. */
int __slim_cond_signal_slow(pthread_cond_t *cond)
{
    return cond_signal(cond);
}

/* The work of pthread_cond_broadcast, which pthread.h's inline path and
 * C11's cnd_broadcast share (__slim_cond_broadcast_slow); inlined into both,
 * as cond_signal. */
static inline __attribute__((always_inline)) int cond_broadcast(pthread_cond_t *cond)
{
    struct waiter *node, *next, *claimed = NULL, *claimed_newest = NULL;

    if (cond == NULL)
        return EINVAL;
    if ((node = oldest_waiter(cond)) == NULL)
        return 0;
    if (slim_cond_marked_shared(node))
        return slim_cond_shared_wake(cond);
    queue_lock(cond);
    node = cond->__oldest_waiter;
    set_oldest_waiter(cond, NULL);
    cond->__newest_waiter = NULL;
    /* Claimed nodes cannot go away before release_waiter, so their own links
     * carry the list of nodes to release once the queue lock is dropped. */
    for (; node != NULL; node = next) {
        next = node->newer;
        node->linked = 0;
        if (!slim_cas(&node->state, WAITER_QUEUED, WAITER_CLAIMED))
            continue; /* withdrawn: its owner finds it unlinked */
        node->newer = NULL;
        if (claimed_newest != NULL)
            claimed_newest->newer = node;
        else
            claimed = node;
        claimed_newest = node;
    }
    queue_unlock(cond);
    for (node = claimed; node != NULL; node = next) {
        next = node->newer;
        release_waiter(node);
    }
    return 0;
}

int pthread_cond_broadcast(pthread_cond_t *cond)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, cond_broadcast(cond));
}

int __slim_cond_broadcast_slow(pthread_cond_t *cond)
{
    return cond_broadcast(cond);
}

/* ---- Waiting ---- */

/* Takes the node out of the running after a timeout, a cancellation or an
 * error: nonzero when that worked, 0 when a signal had already chosen it. */
static int withdraw(pthread_cond_t *cond, struct waiter *self)
{
    if (!slim_cas(&self->state, WAITER_QUEUED, WAITER_WITHDRAWN))
        return 0;
    queue_lock(cond);
    if (self->linked)
        unlink_waiter(cond, self);
    queue_unlock(cond);
    return 1;
}

/* Ends a wait that gave up (error: ETIMEDOUT, ECANCELED or the mutex's error):
 * returns error once the node is out, or 0 when a signal chose it first and was
 * taken instead. A caller that cannot take it (pass_on) hands it to the next
 * waiter rather than swallow it. */
static int give_up(pthread_cond_t *cond, struct waiter *self, int error, int pass_on)
{
    if (withdraw(cond, self))
        return error;
    slim_sem_wait(&self->wakeup, NULL, SLIM_WAIT_PLAIN); /* the post is on its way */
    if (pass_on) {
        __slim_cond_signal_slow(cond);
        return error;
    }
    return 0;
}

/* 0 once signaled; ETIMEDOUT or ECANCELED once the node withdrew. */
static int sleep_until_signaled(pthread_cond_t *cond, struct waiter *self,
                                const struct slim_deadline *deadline)
{
    int error = slim_sem_wait(&self->wakeup, deadline, SLIM_WAIT_CANCELLABLE);

    return error == 0 ? 0 : give_up(cond, self, error, error == ECANCELED);
}

static int cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                     const struct slim_deadline *deadline)
{
    struct waiter self;
    int error, lock_error;

    if (slim_cond_marked_shared(
            slim_pointer_load_relaxed((void *volatile *)&cond->__oldest_waiter)))
        return slim_cond_shared_wait(cond, mutex, deadline);
    slim_hook_cond_wait_begin(cond, mutex);
    self.state = WAITER_QUEUED;
    self.wakeup.__value = 0;
    self.wakeup.__waiters = 0;
    self.wakeup.__named = NULL;
    queue_lock(cond);
    enqueue(cond, &self);
    queue_unlock(cond);

    /* Marked while we still hold it (POSIX asks the caller to), so whoever
     * locks it after our release sees the mark, and every relock, the first
     * one too, spins as a condvar's waiters do (mutex.c). A caller that does
     * not hold it is told so below; the mark, 0 -> 1 only, harms nothing. */
    slim_mutex_cond_waited(mutex);
    /* Queued first, so that a signal made once the mutex is free finds us. */
    error = slim_mutex_unlock(mutex);
    if (error != 0) { /* not ours to release (EPERM for an errorcheck mutex) */
        slim_hook_cond_wait_end(cond, mutex, 0);
        return give_up(cond, &self, error, 1);
    }

    error = sleep_until_signaled(cond, &self, deadline);
    lock_error = slim_mutex_lock(mutex);
    slim_hook_cond_wait_end(cond, mutex, lock_error == 0 || lock_error == EOWNERDEAD);
    if (error == ECANCELED)
        slim_cancel_act(); /* with the mutex held again, as POSIX asks */
    return lock_error != 0 ? lock_error : error; /* EOWNERDEAD outranks a timeout */
}

/* The three waits are cancellation points: a request pending at entry acts
 * there, with the caller's mutex held as POSIX has it in cleanup handlers,
 * before the wait queues anything (slim_cancel_point_entry). */
int slim_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    slim_cancel_point_entry();
    if (cond == NULL || mutex == NULL)
        return EINVAL;
    return cond_wait(cond, mutex, NULL);
}

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, slim_cond_wait(cond, mutex));
}

static int cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                          const struct timespec *abstime)
{
    struct slim_deadline deadline;
    int error;

    if (mutex == NULL)
        return EINVAL;
    error = slim_deadline_absolute(&deadline, clock, abstime);
    if (error != 0)
        return error;
    return cond_wait(cond, mutex, &deadline);
}

int slim_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                        const struct timespec *abstime)
{
    slim_cancel_point_entry();
    if (cond == NULL)
        return EINVAL;
    return cond_clockwait(cond, mutex, clock, abstime);
}

int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, slim_cond_clockwait(cond, mutex, clock, abstime));
}

static int cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                          const struct timespec *abstime)
{
    slim_cancel_point_entry();
    if (cond == NULL)
        return EINVAL;
    return cond_clockwait(cond, mutex, cond->__clock, abstime);
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
                           const struct timespec *abstime)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_end(&call, cond_timedwait(cond, mutex, abstime));
}

/* ---- Life cycle and attributes ---- */

int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr)
{
    if (cond == NULL)
        return EINVAL;
    if (attr != NULL && attr->__pshared == PTHREAD_PROCESS_SHARED)
        return slim_cond_shared_init(cond, attr->__clock);
    cond->__oldest_waiter = NULL;
    cond->__newest_waiter = NULL;
    cond->__queue_lock = QUEUE_FREE;
    cond->__clock = attr != NULL ? attr->__clock : CLOCK_REALTIME;
    return 0;
}

/* The work of pthread_cond_destroy, which C11's cnd_destroy shares. */
int slim_cond_destroy(pthread_cond_t *cond)
{
    if (cond == NULL)
        return EINVAL;
    /* Queued waiters, or a signal or wait inside its queue step right now. */
    if (oldest_waiter(cond) != NULL || slim_load_acquire(&cond->__queue_lock) != QUEUE_FREE) {
        if (slim_cond_marked_shared(oldest_waiter(cond)))
            return slim_cond_shared_destroy(cond);
        return EBUSY;
    }
    /* Nothing here marks a cond destroyed; the checked build does, so that
     * a later use is reported. */
    slim_hook_cond_destroyed(cond);
    return 0;
}

int pthread_cond_destroy(pthread_cond_t *cond)
{
    struct slim_check_call call;

    slim_hook_cond_begin(&call, SLIM_CHECK_SITE(), cond);
    return slim_hook_waited_destroyed(&call, slim_cond_destroy(cond));
}

/* A cond is unusable once destroyed (the checked build's mark), or when its
 * queue lock or clock holds a value no init writes (never initialized). */
int slim_cond_check_kind(const pthread_cond_t *cond)
{
    long queue_lock;

    if (cond == NULL)
        return SLIM_CHECK_COND;
    if (slim_cond_marked_shared(cond->__oldest_waiter))
        return SLIM_CHECK_COND | (slim_cond_shared_unusable(cond) ? SLIM_CHECK_UNUSABLE : 0);
    queue_lock = slim_load_relaxed((volatile long *)&cond->__queue_lock);
    if ((queue_lock != QUEUE_FREE && queue_lock != QUEUE_LOCKED && queue_lock != QUEUE_CONTENDED) ||
        (cond->__clock != CLOCK_REALTIME && cond->__clock != CLOCK_MONOTONIC))
        return SLIM_CHECK_COND | SLIM_CHECK_UNUSABLE;
    return SLIM_CHECK_COND;
}

int pthread_condattr_init(pthread_condattr_t *attr)
{
    if (attr == NULL)
        return EINVAL;
    attr->__clock = CLOCK_REALTIME;
    attr->__pshared = PTHREAD_PROCESS_PRIVATE;
    return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *attr)
{
    return attr == NULL ? EINVAL : 0;
}

int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock)
{
    if (attr == NULL || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
        return EINVAL;
    attr->__clock = clock;
    return 0;
}

int pthread_condattr_getclock(const pthread_condattr_t *attr, clockid_t *clock)
{
    if (attr == NULL || clock == NULL)
        return EINVAL;
    *clock = attr->__clock;
    return 0;
}

int pthread_condattr_setpshared(pthread_condattr_t *attr, int pshared)
{
    int error = attr == NULL ? EINVAL : slim_pshared_error(pshared);

    if (error == 0)
        attr->__pshared = pshared;
    return error;
}

int pthread_condattr_getpshared(const pthread_condattr_t *attr, int *pshared)
{
    if (attr == NULL || pshared == NULL)
        return EINVAL;
    *pshared = attr->__pshared;
    return 0;
}

#include "code_end.h"
