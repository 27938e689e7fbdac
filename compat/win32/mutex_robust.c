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
 * A process-shared robust mutex (mutex_shared.c) keeps the same states in
 * __robustness and is listed the same way (its __robust_next holds addresses
 * of the owner's process, which only that process walks); its exit hook
 * releases the owner word. Its owner's process may end without any hook: a
 * locker that finds the owner's thread dead takes the word over and marks
 * OWNER_DEAD itself (slim_mutex_robust_shared_entered), unless it is
 * NOT_RECOVERABLE (a dead locker that only looked at that).
 */
#include "mutex_state.h"
#include "thread_record.h"

static void robust_list(pthread_mutex_t *mutex)
{
    struct slim_thread *self = slim_self(); /* arms the exit hook of a thread we did not create */

    mutex->__robust_next = self->robust_held;
    self->robust_held = mutex;
}

int slim_mutex_robust_entered(pthread_mutex_t *mutex)
{
    if (section_of(mutex)->RecursionCount > 1)
        return 0; /* a recursive one its owner locks again: listed already */
    if (mutex->__robustness == ROBUST_NOT_RECOVERABLE) {
        leave(mutex); /* waking the next sleeper, who learns the same */
        return ENOTRECOVERABLE;
    }
    robust_list(mutex);
    if (mutex->__robustness == ROBUST_OWNER_DEAD) {
        mutex->__robustness = ROBUST_INCONSISTENT;
        return EOWNERDEAD;
    }
    return 0;
}

int slim_mutex_robust_shared_entered(pthread_mutex_t *mutex, int owner_died)
{
    if (mutex->__robustness == ROBUST_NOT_RECOVERABLE) {
        slim_mutex_shared_release(mutex); /* ringing the next sleeper, who learns the same */
        return ENOTRECOVERABLE;
    }
    if (owner_died)
        mutex->__robustness = ROBUST_OWNER_DEAD;
    robust_list(mutex);
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

void slim_mutex_robust_shared_unlock(pthread_mutex_t *mutex)
{
    if (mutex->__robustness == ROBUST_INCONSISTENT)
        mutex->__robustness = ROBUST_NOT_RECOVERABLE;
    robust_unlist(slim_self(), mutex);
    slim_mutex_shared_release(mutex);
}

/* A listed mutex its exiting owner still holds: marked, then released. */
static void release_for_dead_owner(pthread_mutex_t *mutex)
{
    CRITICAL_SECTION *section = section_of(mutex);

    mutex->__robustness = ROBUST_OWNER_DEAD; /* before it is released */
    if (state_is_shared(slim_load_relaxed(&mutex->__state))) {
        slim_mutex_shared_release(mutex); /* the next owner resets the recursion */
        return;
    }
    while (section->RecursionCount > 1)
        LeaveCriticalSection(section); /* still held: nobody to wake */
    leave(mutex);
}

void slim_mutex_robust_owner_exits(struct slim_thread *self)
{
    pthread_mutex_t *mutex;

    while ((mutex = self->robust_held) != NULL) {
        self->robust_held = mutex->__robust_next;
        mutex->__robust_next = NULL;
        release_for_dead_owner(mutex);
    }
}

/* Only the owner may touch the robust state, so a caller that does not hold the
 * mutex gets EINVAL as well (glibc would let any thread mark it). */
int pthread_mutex_consistent(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);
    int held = state_is_shared(state) ? state >= MUTEX_SHARED_ROBUST_BASE &&
                                            slim_mutex_shared_held_by_caller(mutex)
                                      : state_is_robust(state) && __slim_mutex_held_by_caller(mutex);

    if (!held || mutex->__robustness != ROBUST_INCONSISTENT)
        return EINVAL;
    mutex->__robustness = ROBUST_CONSISTENT;
    return 0;
}

#include "code_end.h"
