/*
 * mutex_robust.c - robust mutexes: their states and each owner's list.
 *
 * Robust mutexes (process-private) never take the fast paths: their READY state
 * is MUTEX_READY_ROBUST_BASE + kind, so DEFAULT's one compare sends them to the
 * slow path and the other mutexes pay nothing. __robustness holds their state,
 * read and written only by the thread that holds the section:
 *   CONSISTENT -owner exits holding it-> OWNER_DEAD (nobody holds it)
 *   OWNER_DEAD -next lock, trylock, timed lock-> INCONSISTENT: that locker owns
 *     it and is told EOWNERDEAD; should it exit holding it, OWNER_DEAD again
 *   INCONSISTENT -pthread_mutex_consistent-> CONSISTENT
 *   INCONSISTENT -unlock-> NOT_RECOVERABLE, for good: each later locker enters,
 *     sees it, leaves (waking the next sleeper, who learns the same) and returns
 *     ENOTRECOVERABLE.
 * Each thread lists the robust mutexes it holds (robust_held in its record,
 * linked through __robust_next: nothing is allocated): the first entry pushes,
 * the last unlock unlinks (a walk, short since a thread holds few at once). The
 * exit hook runs on the exiting thread itself, after key destructors, however
 * the thread ends (return, pthread_exit, ExitThread, a thread we did not create);
 * for each listed mutex it writes OWNER_DEAD, drops the recursion to one and
 * leaves through leave(), as unlock does. No locker can miss the mark: it is
 * written while the dying thread still holds the section, and a locker reads it
 * only once it has entered the section, which the interlocked release orders
 * after the write; a sleeper is woken by that release like by any unlock, and
 * the one that enters first gets EOWNERDEAD.
 * Unlock checks the owner of every robust kind, DEFAULT too (as glibc does), and
 * pthread_mutex_consistent is EINVAL for a caller that does not hold the mutex:
 * only the owner touches its list and the state.
 * Limit: a thread killed by TerminateThread runs no exit hook, so a robust mutex
 * it held stays locked by a dead thread, exactly as a non-robust one would.
 */
#include "mutex_state.h"
#include "thread_record.h"

int slim_mutex_robust_entered(pthread_mutex_t *mutex)
{
    struct slim_thread *self;

    if (section_of(mutex)->RecursionCount > 1)
        return 0; /* a recursive one its owner locks again: listed already */
    if (mutex->__robustness == ROBUST_NOT_RECOVERABLE) {
        leave(mutex); /* waking the next sleeper, who learns the same */
        return ENOTRECOVERABLE;
    }
    self = slim_self(); /* also arms the exit hook of a thread we did not create */
    mutex->__robust_next = self->robust_held;
    self->robust_held = mutex;
    if (mutex->__robustness == ROBUST_OWNER_DEAD) {
        mutex->__robustness = ROBUST_INCONSISTENT;
        return EOWNERDEAD;
    }
    return 0;
}

static void robust_unlist(struct slim_thread *self, pthread_mutex_t *mutex)
{
    pthread_mutex_t *previous = NULL, *current = self->robust_held;

    while (current != NULL && current != mutex) {
        previous = current;
        current = current->__robust_next;
    }
    if (current == NULL)
        return;
    if (previous == NULL)
        self->robust_held = mutex->__robust_next;
    else
        previous->__robust_next = mutex->__robust_next;
    mutex->__robust_next = NULL;
}

void slim_mutex_robust_unlock(pthread_mutex_t *mutex)
{
    if (mutex->__robustness == ROBUST_INCONSISTENT)
        mutex->__robustness = ROBUST_NOT_RECOVERABLE;
    robust_unlist(slim_self(), mutex);
    leave(mutex);
}

void slim_mutex_robust_owner_exits(struct slim_thread *self)
{
    pthread_mutex_t *mutex;

    while ((mutex = self->robust_held) != NULL) {
        CRITICAL_SECTION *section = section_of(mutex);

        self->robust_held = mutex->__robust_next;
        mutex->__robust_next = NULL;
        mutex->__robustness = ROBUST_OWNER_DEAD; /* before the section is left */
        while (section->RecursionCount > 1)
            LeaveCriticalSection(section); /* still held: nobody to wake */
        leave(mutex);
    }
}

/* Only the owner may touch the robust state, so a caller that does not hold the
 * mutex gets EINVAL as well (glibc would let any thread mark it). */
int pthread_mutex_consistent(pthread_mutex_t *mutex)
{
    if (!state_is_robust(slim_load_acquire(&mutex->__state)) ||
        !__slim_mutex_held_by_caller(mutex) || mutex->__robustness != ROBUST_INCONSISTENT)
        return EINVAL;
    mutex->__robustness = ROBUST_CONSISTENT;
    return 0;
}

#include "code_end.h"
