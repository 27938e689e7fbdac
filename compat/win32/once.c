/*
 * once.c - pthread_once on one word: INIT -> RUNNING [-> WAITED] -> DONE.
 *
 * The first caller to move the word from INIT to RUNNING runs the routine, then
 * stores DONE with release order; a caller that finds DONE needs nothing more
 * than that one acquire load. Callers that arrive while the routine runs mark
 * the word WAITED and sleep on it through the wait road; the runner wakes them
 * only if someone marked it, so an uncontended once never makes a wake call.
 * PTHREAD_ONCE_INIT is 0, so zero-filled memory is a fresh once. A routine that
 * is cancelled (or calls pthread_exit) leaves the word as if pthread_once had
 * never been called, as POSIX asks: a cleanup frame resets it to INIT and wakes
 * the sleepers, one of which then runs the routine.
 */
#include "atomic.h"
#include "wait.h"

enum once_state {
    ONCE_INIT = PTHREAD_ONCE_INIT,
    ONCE_RUNNING = 1,
    ONCE_WAITED = 2, /* running, and somebody sleeps on the word */
    ONCE_DONE = __SLIM_ONCE_DONE /* pthread.h's inline path knows it */
};

static void reset_after_cancel(void *once)
{
    if (slim_swap(once, ONCE_INIT) == ONCE_WAITED)
        slim_wake_all(once);
}

static void run_routine(volatile long *once, void (*init_routine)(void))
{
    pthread_cleanup_push(reset_after_cancel, (void *)once);
    init_routine();
    pthread_cleanup_pop(0);
    if (slim_swap(once, ONCE_DONE) == ONCE_WAITED)
        slim_wake_all(once);
}

/* Out of line, with the argument checks: pthread_once's path for a done word
 * (inline in the caller, include/slimpthreads_once_cond_inline.h, and the
 * library's pthread_once below alike) then needs no frame of its own and ends
 * in this call as a jump. */
int __attribute__((noinline)) __slim_once_slow(pthread_once_t *once, void (*init_routine)(void))
{
    long state;

    if (once == NULL || init_routine == NULL)
        return EINVAL;
    for (;;) {
        state = slim_load_acquire(once);
        if (state == ONCE_DONE)
            return 0;
        if (state == ONCE_INIT) {
            if (slim_cas(once, ONCE_INIT, ONCE_RUNNING)) {
                run_routine(once, init_routine);
                return 0;
            }
        } else if (state == ONCE_WAITED || slim_cas(once, ONCE_RUNNING, ONCE_WAITED)) {
            slim_wait_on(once, ONCE_WAITED, NULL, SLIM_WAIT_PLAIN);
        }
    }
}

/* A done word: two tests, the acquire load, a compare, return (the acquire is
 * a plain load on x86, ldar on aarch64). */
int pthread_once(pthread_once_t *once, void (*init_routine)(void))
{
    return __slim_once(once, init_routine);
}

#include "code_end.h"
