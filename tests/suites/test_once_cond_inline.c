/*
 * test_once_cond_inline.c - pthread.h's inline pthread_once, pthread_cond_signal
 * and pthread_cond_broadcast (and threads.h's call_once, cnd_signal and
 * cnd_broadcast) against the library's functions, compiled once per level
 * (tests/tests.mk builds test_once_cond_inline_O0 and _O2 from this file and
 * names the level in SLIMTEST_OPT_LEVEL).
 *
 * The inline paths (include/slimpthreads_once_cond_inline.h) answer a done
 * once and a cond nobody waits on with one load, and call the library for the
 * rest. At -O0 nothing is inlined and both columns below are the library; at
 * -O2 the inline column is the inline path: tests/shell/inline_levels.sh
 * checks, in each level's object, which of the two the wrappers below call.
 */
#include <errno.h>
#include <string.h>
#include <threads.h>
#include "testutil.h"

#ifndef SLIMTEST_OPT_LEVEL
#error "test_once_cond_inline.c: build it through tests/tests.mk, which names the level"
#endif

#define WAITERS 3
#define SLOW_ROUTINE_MS 50
#define WAKE_TIMEOUT_MS 10000

/* Out of line, each under its own name, so that tests/shell/inline_levels.sh
 * finds its body in this object and sees what it calls. The arguments come
 * from the caller: the inline tests of them are compiled in. */
static __attribute__((noinline)) int inline_once(pthread_once_t *once, void (*routine)(void))
{
    return pthread_once(once, routine);
}

static __attribute__((noinline)) int inline_cond_signal(pthread_cond_t *cond)
{
    return pthread_cond_signal(cond);
}

static __attribute__((noinline)) int inline_cond_broadcast(pthread_cond_t *cond)
{
    return pthread_cond_broadcast(cond);
}

/* Counts its calls: with the same body as inline_once, GCC's -O2 would fold
 * the two into one function (-fipa-icf) and this name would have no code. */
static volatile long call_once_calls;

static __attribute__((noinline)) void inline_call_once(once_flag *flag, void (*routine)(void))
{
    call_once(flag, routine);
    call_once_calls++;
}

static __attribute__((noinline)) int inline_cnd_signal(cnd_t *cond)
{
    return cnd_signal(cond);
}

static __attribute__((noinline)) int inline_cnd_broadcast(cnd_t *cond)
{
    return cnd_broadcast(cond);
}

struct once_cond_calls {
    int (*once)(pthread_once_t *once, void (*routine)(void));
    int (*signal)(pthread_cond_t *cond);
    int (*broadcast)(pthread_cond_t *cond);
};

/* ---- once ---- */

static volatile long routine_runs;
static volatile long slow_routine_wrote;
static pthread_once_t slow_once;
static const struct once_cond_calls *racing_calls;

static void count_a_run(void)
{
    routine_runs++;
}

static void run_slowly(void)
{
    slimtest_sleep_ms(SLOW_ROUTINE_MS);
    slow_routine_wrote = 1;
}

static void call_slow_once(void *unused)
{
    (void)unused;
    racing_calls->once(&slow_once, run_slowly);
}

/* The routine runs once; a done once answers 0 and runs nothing; a caller that
 * comes while the routine runs returns after it, and sees what it wrote. */
static void check_once(const struct once_cond_calls *calls)
{
    pthread_once_t once = PTHREAD_ONCE_INIT;
    struct slimtest_thread *runner;

    routine_runs = 0;
    CU_ASSERT_EQUAL(calls->once(&once, count_a_run), 0);
    CU_ASSERT_EQUAL(calls->once(&once, count_a_run), 0);
    CU_ASSERT_EQUAL(routine_runs, 1);
    CU_ASSERT_EQUAL(calls->once(NULL, count_a_run), EINVAL);
    CU_ASSERT_EQUAL(calls->once(&once, NULL), EINVAL); /* done, yet the routine is checked */
    CU_ASSERT_EQUAL(routine_runs, 1);

    slow_once = PTHREAD_ONCE_INIT;
    slow_routine_wrote = 0;
    racing_calls = calls;
    runner = slimtest_start_thread(call_slow_once, NULL);
    while (slow_once == PTHREAD_ONCE_INIT)
        slimtest_sleep_ms(1);
    CU_ASSERT_EQUAL(calls->once(&slow_once, run_slowly), 0);
    CU_ASSERT_EQUAL(slow_routine_wrote, 1);
    slimtest_join_thread(runner, WAKE_TIMEOUT_MS);
}

/* ---- signal and broadcast ---- */

struct waited_cond {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int waiting;  /* under the mutex: threads inside the wait */
    int go;       /* under the mutex: how many may leave */
    int woken;    /* under the mutex: how many left */
};

static void wait_for_go(void *argument)
{
    struct waited_cond *waited = argument;

    pthread_mutex_lock(&waited->mutex);
    waited->waiting++;
    while (waited->go == 0)
        pthread_cond_wait(&waited->cond, &waited->mutex);
    waited->go--;
    waited->woken++;
    pthread_mutex_unlock(&waited->mutex);
}

/* Starts WAITERS threads and returns once all of them wait on the cond. */
static void start_waiters(struct waited_cond *waited, struct slimtest_thread **threads)
{
    int waiting = 0;

    waited->waiting = waited->go = waited->woken = 0;
    slimtest_start_threads(threads, WAITERS, wait_for_go, waited);
    while (waiting < WAITERS) {
        slimtest_sleep_ms(1);
        pthread_mutex_lock(&waited->mutex);
        waiting = waited->waiting;
        pthread_mutex_unlock(&waited->mutex);
    }
}

static int woken_within_timeout(struct waited_cond *waited, int expected)
{
    double give_up = slimtest_now_ms() + WAKE_TIMEOUT_MS;
    int woken;

    do {
        pthread_mutex_lock(&waited->mutex);
        woken = waited->woken;
        pthread_mutex_unlock(&waited->mutex);
        if (woken >= expected)
            return woken;
        slimtest_sleep_ms(1);
    } while (slimtest_now_ms() < give_up);
    return woken;
}

/* A cond nobody waits on answers 0; one with waiters wakes one per signal and
 * all of them per broadcast; a NULL cond is EINVAL. pshared: the cond's and
 * its mutex's. */
static void check_signalling(const struct once_cond_calls *calls, int pshared)
{
    struct waited_cond waited;
    struct slimtest_thread *threads[WAITERS];
    pthread_mutexattr_t mutex_attr;
    pthread_condattr_t cond_attr;

    /* A shared cond needs a shared mutex (README). */
    CU_ASSERT_EQUAL(pthread_mutexattr_init(&mutex_attr), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_setpshared(&mutex_attr, pshared), 0);
    CU_ASSERT_EQUAL(pthread_condattr_init(&cond_attr), 0);
    CU_ASSERT_EQUAL(pthread_condattr_setpshared(&cond_attr, pshared), 0);
    CU_ASSERT_EQUAL(pthread_mutex_init(&waited.mutex, &mutex_attr), 0);
    CU_ASSERT_EQUAL(pthread_cond_init(&waited.cond, &cond_attr), 0);
    pthread_mutexattr_destroy(&mutex_attr);
    pthread_condattr_destroy(&cond_attr);
    CU_ASSERT_EQUAL(calls->signal(&waited.cond), 0);
    CU_ASSERT_EQUAL(calls->broadcast(&waited.cond), 0);
    CU_ASSERT_EQUAL(calls->signal(NULL), EINVAL);
    CU_ASSERT_EQUAL(calls->broadcast(NULL), EINVAL);

    start_waiters(&waited, threads);
    pthread_mutex_lock(&waited.mutex);
    waited.go = 1;
    CU_ASSERT_EQUAL(calls->signal(&waited.cond), 0);
    pthread_mutex_unlock(&waited.mutex);
    CU_ASSERT_EQUAL(woken_within_timeout(&waited, 1), 1);
    pthread_mutex_lock(&waited.mutex);
    waited.go = WAITERS - 1;
    CU_ASSERT_EQUAL(calls->broadcast(&waited.cond), 0);
    pthread_mutex_unlock(&waited.mutex);
    CU_ASSERT_EQUAL(woken_within_timeout(&waited, WAITERS), WAITERS);
    slimtest_join_threads(threads, WAITERS, WAKE_TIMEOUT_MS);

    CU_ASSERT_EQUAL(calls->signal(&waited.cond), 0); /* nobody waits again */
    CU_ASSERT_EQUAL(pthread_cond_destroy(&waited.cond), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&waited.mutex), 0);
}

static void check_calls(const struct once_cond_calls *calls)
{
    check_once(calls);
    check_signalling(calls, PTHREAD_PROCESS_PRIVATE);
    /* A process-shared cond's first field is never null: the inline path
     * always hands it to the library. */
    check_signalling(calls, PTHREAD_PROCESS_SHARED);
}

static void test_inline_and_library_paths_agree(void)
{
    static const struct once_cond_calls inlined = {inline_once, inline_cond_signal,
                                                    inline_cond_broadcast};
    /* volatile: the compiler cannot see through it, so these are calls. */
    static int (*volatile library_once)(pthread_once_t *, void (*)(void)) = pthread_once;
    static int (*volatile library_signal)(pthread_cond_t *) = pthread_cond_signal;
    static int (*volatile library_broadcast)(pthread_cond_t *) = pthread_cond_broadcast;
    struct once_cond_calls library = {library_once, library_signal, library_broadcast};

    check_calls(&inlined);
    check_calls(&library);
}

/* C11's: the same paths under C11's results. Called through pointers, as
 * the pthread ones: direct calls with constant arguments would have GCC clone
 * the wrappers under other names. */
static void test_c11_calls(void)
{
    static void (*volatile call_once_inline)(once_flag *, void (*)(void)) = inline_call_once;
    static int (*volatile cnd_signal_inline)(cnd_t *) = inline_cnd_signal;
    static int (*volatile cnd_broadcast_inline)(cnd_t *) = inline_cnd_broadcast;
    once_flag flag = ONCE_FLAG_INIT;
    cnd_t cond;

    routine_runs = 0;
    call_once_inline(&flag, count_a_run);
    call_once_inline(&flag, count_a_run);
    CU_ASSERT_EQUAL(routine_runs, 1);
    CU_ASSERT_EQUAL(call_once_calls, 2);
    CU_ASSERT_EQUAL(cnd_init(&cond), thrd_success);
    CU_ASSERT_EQUAL(cnd_signal_inline(&cond), thrd_success);
    CU_ASSERT_EQUAL(cnd_broadcast_inline(&cond), thrd_success);
    CU_ASSERT_EQUAL(cnd_signal_inline(NULL), thrd_error);
    CU_ASSERT_EQUAL(cnd_broadcast_inline(NULL), thrd_error);
    cnd_destroy(&cond);
}

static CU_TestInfo cases[] = {
    {"the inline paths and the library's functions agree", test_inline_and_library_paths_agree},
    {"C11 call_once, cnd_signal and cnd_broadcast", test_c11_calls},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("once-cond-inline-" SLIMTEST_OPT_LEVEL, cases, 60);
}
