/*
 * cancel.c - deferred cancellation.
 *
 * pthread_cancel sets the target's cancel_pending word; the target acts on it
 * (pthread_exit(PTHREAD_CANCELED): cleanup handlers, key destructors, joiners
 * see PTHREAD_CANCELED) at the next cancellation point while cancellation is
 * enabled. The cancellation points among our functions are pthread_testcancel,
 * pthread_join and timedjoin, pthread_cond_wait/timedwait/clockwait,
 * sem_wait/timedwait/clockwait, nanosleep and clock_nanosleep (and sleep,
 * usleep, pause on nanosleep); not the mutex calls, sem_trywait nor
 * pthread_barrier_wait, which POSIX excludes. Each acts on a request pending
 * when it is called, in slim_cancel_point_entry (cancel_point.h), before any fast
 * path of its own; one that arrives while it waits, through the wait entry.
 *
 * Waking a target that is already asleep at a cancellation point:
 *  - sleeps (nanosleep) wait alertably, and an APC queued before or during the
 *    wait ends it;
 *  - WaitOnAddress waits are not alertable. The target publishes the word it
 *    sleeps on in cancel_wake_word, then re-checks cancel_pending, then sleeps;
 *    the canceller sets cancel_pending, then wakes that word. A wake can still
 *    land in the instant between the target's re-check and its sleep, where
 *    WaitOnAddress cannot see it, so the canceller repeats the wake (yielding
 *    in between) until the target has left that wait, for a bounded time. The
 *    target itself never polls: it sleeps until a wake.
 * Asynchronous cancellation (cancel_async.c): a request to a thread whose
 * cancellation is enabled and asynchronous stops it and, when it stands in the
 * program's own code, sends it to slim_cancel_act at once; found elsewhere (in
 * our code, the C runtime, a system DLL) it acts when that call returns into
 * the program's code; where that return cannot be found it is looked at again,
 * after three looks by the library's retrier (cancel_async_retry.c), until it
 * acts, turns deferred or disabled, or ends; pthread_cancel also wakes its next
 * cancellation point, as for a deferred request.
 * The request is always set first, so a target that turns asynchronous or
 * enabled later acts on it as it does (setcanceltype/setcancelstate), and a
 * thread that cancels itself while asynchronous acts at once. The type and
 * state are stored, and then the request read, sequentially consistent, as the
 * canceller sets the request before it reads them: one of the two sees the
 * other (README.md says what remains unsafe in that mode). The same holds for
 * the word a target sleeps on and its re-check of the request. An acquire
 * load of the request would not do: on ARM64 it may be satisfied before the
 * target's own store is visible, and both sides would miss each other.
 */
#include "wait.h"
#include "cancel_point.h"
#include "cancel_async.h"

/* How often the canceller repeats its wake, and how long it yields between
 * repeats, while the target stays in the same wait (about 0.2 s at most). */
#define WAKE_REPEATS_MAX 200
#define WAKE_REPEAT_PAUSE_MS 1

/* Read after the caller's own store of its state, type or wake word: the
 * second half of the Dekker pattern at the top, hence sequentially consistent. */
int slim_cancel_requested(void)
{
    struct slim_thread *self = slim_self_if_known();

    return self != NULL && self->cancel_state == PTHREAD_CANCEL_ENABLE &&
           slim_load_seq_cst(&self->cancel_pending) == SLIM_CANCEL_REQUESTED;
}

void slim_cancel_act(void)
{
    struct slim_thread *self = slim_self();

    /* A cleanup handler that reaches another cancellation point must not act
     * again, as POSIX has the thread's cancellation disabled from here on. */
    slim_cancel_exiting(self);
    pthread_exit(PTHREAD_CANCELED);
}

void slim_cancel_exiting(struct slim_thread *self)
{
    slim_int_store_seq_cst(&self->cancel_state, PTHREAD_CANCEL_DISABLE);
}

/* Called by the wait entry (wait.c) around a cancellable wait on word (NULL
 * for an alertable wait, which the canceller's APC ends). */
int slim_cancel_wait_begin(volatile long *word)
{
    struct slim_thread *self = slim_self();

    slim_pointer_store_seq_cst((void *volatile *)&self->cancel_wake_word, (void *)word);
    return slim_cancel_requested();
}

int slim_cancel_wait_end(void)
{
    struct slim_thread *self = slim_self();

    slim_pointer_store_seq_cst((void *volatile *)&self->cancel_wake_word, NULL);
    return slim_cancel_requested();
}

static void CALLBACK end_alertable_wait(ULONG_PTR unused)
{
    (void)unused;
}

static void wake_at_cancellation_point(struct slim_thread *target)
{
    volatile long *word;

    if (target->handle != NULL)
        QueueUserAPC(end_alertable_wait, target->handle, 0);
    for (int repeat = 0; repeat < WAKE_REPEATS_MAX; repeat++) {
        word = slim_pointer_load_seq_cst((void *volatile *)&target->cancel_wake_word);
        if (word == NULL)
            return;
        WakeByAddressAll((PVOID)word);
        slim_nap_ms(repeat == 0 ? 0 : WAKE_REPEAT_PAUSE_MS);
        if (slim_pointer_load_seq_cst((void *volatile *)&target->cancel_wake_word) != word)
            return;
    }
}

int pthread_cancel(pthread_t thread)
{
    struct slim_thread *target = slim_thread_checked(thread);

    if (target == NULL)
        return ESRCH;
    if (slim_swap(&target->cancel_pending, SLIM_CANCEL_REQUESTED) == SLIM_CANCEL_REQUESTED)
        return 0;
    if (target == slim_self_if_known()) {
        if (target->cancel_type == PTHREAD_CANCEL_ASYNCHRONOUS && slim_cancel_requested())
            slim_cancel_act();
        return 0;
    }
    if (slim_int_load_seq_cst(&target->cancel_state) != PTHREAD_CANCEL_ENABLE)
        return 0;
    /* Stopped and sent on its way out, or not: either way a thread asleep at
     * one of our cancellation points (or redirected in an alertable SleepEx)
     * is woken, and acts there. */
    if (slim_int_load_seq_cst(&target->cancel_type) == PTHREAD_CANCEL_ASYNCHRONOUS)
        slim_cancel_async(target);
    wake_at_cancellation_point(target);
    return 0;
}

int pthread_setcancelstate(int state, int *old_state)
{
    struct slim_thread *self;

    if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
        return EINVAL;
    self = slim_self();
    if (old_state != NULL)
        *old_state = self->cancel_state;
    slim_int_store_seq_cst(&self->cancel_state, state);
    if (self->cancel_type == PTHREAD_CANCEL_ASYNCHRONOUS && slim_cancel_requested())
        slim_cancel_act();
    return 0;
}

int pthread_setcanceltype(int type, int *old_type)
{
    struct slim_thread *self;

    if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS)
        return EINVAL;
    self = slim_self();
    if (old_type != NULL)
        *old_type = self->cancel_type;
    slim_int_store_seq_cst(&self->cancel_type, type);
    if (type == PTHREAD_CANCEL_ASYNCHRONOUS && slim_cancel_requested())
        slim_cancel_act();
    return 0;
}

void slim_cancel_point_pending(void)
{
    if (slim_cancel_requested())
        slim_cancel_act();
}

void pthread_testcancel(void)
{
    slim_cancel_point_entry();
}

#include "code_end.h"
