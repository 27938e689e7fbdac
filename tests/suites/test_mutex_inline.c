/*
 * test_mutex_inline.c - pthread.h's inline mutex paths against the library's
 * functions, compiled once per optimisation level (tests/tests.mk builds
 * test_mutex_inline_O0, _O1, _O2, _Os and _O3 from this file, each object at
 * its level after the configured CFLAGS, and names the level in
 * SLIMTEST_OPT_LEVEL).
 *
 * The inline paths are GNU inline functions (include/slimpthreads_mutex_inline.h):
 * GCC and clang inline them only when optimising. At -O0 a call of
 * pthread_mutex_lock is a call of the library's function of the same link
 * name, so there both columns below are the library; the program still runs,
 * to show a caller built without optimisation gets the same results. At every
 * other level the inline column is the inline path: tests/shell/inline_levels.sh
 * checks, in each level's object, that inline_lock, inline_trylock and
 * inline_unlock call the critical section directly and not the library.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <string.h>
#include "testutil.h"

#ifndef SLIMTEST_OPT_LEVEL
#error "test_mutex_inline.c: build it through tests/tests.mk, which names the level"
#endif

static pthread_mutex_t shared_mutex;
static volatile long other_result;

static void other_unlocks(void *unused)
{
    (void)unused;
    other_result = pthread_mutex_unlock(&shared_mutex);
}

static void other_trylocks(void *unused)
{
    (void)unused;
    other_result = pthread_mutex_trylock(&shared_mutex);
    if (other_result == 0)
        pthread_mutex_unlock(&shared_mutex);
}

/* Runs what (other_unlocks, other_trylocks) on another thread and returns what
 * its call on shared_mutex returned. */
static long other_thread_gets(slimtest_routine *what)
{
    other_result = -1;
    slimtest_on_other_thread(what, NULL);
    return other_result;
}

/* The object was compiled at the level its name says: a -O in CFLAGS placed
 * after the level would otherwise test one level five times over. */
static void test_built_at_its_level(void)
{
    const char *level = SLIMTEST_OPT_LEVEL;
#if defined(__OPTIMIZE__)
    const int optimised = 1;
#else
    const int optimised = 0;
#endif
#if defined(__OPTIMIZE_SIZE__)
    const int for_size = 1;
#else
    const int for_size = 0;
#endif

    CU_ASSERT_EQUAL(optimised, strcmp(level, "O0") != 0);
    CU_ASSERT_EQUAL(for_size, strcmp(level, "Os") == 0);
}

/* pthread.h inlines the uncontended lock and unlock of every kind but a
 * robust one, and a DEFAULT mutex's trylock; calls through a pointer reach the
 * library's own functions. Both give the same results, at every step from the
 * static initializer to destroyed. */
struct mutex_calls {
    int (*lock)(pthread_mutex_t *mutex);
    int (*trylock)(pthread_mutex_t *mutex);
    int (*unlock)(pthread_mutex_t *mutex);
};

/* Out of line, each under its own name, so that tests/shell/inline_levels.sh
 * finds its body in this object and sees what it calls: at -O0 the library's
 * function, at every other level the inline path's section calls. */
static __attribute__((noinline)) int inline_lock(pthread_mutex_t *mutex)
{
    return pthread_mutex_lock(mutex);
}

static __attribute__((noinline)) int inline_trylock(pthread_mutex_t *mutex)
{
    return pthread_mutex_trylock(mutex);
}

static __attribute__((noinline)) int inline_unlock(pthread_mutex_t *mutex)
{
    return pthread_mutex_unlock(mutex);
}

static void check_default_steps(const struct mutex_calls *calls)
{
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

    CU_ASSERT_EQUAL(calls->lock(&mutex), 0); /* the first use sets it up */
    CU_ASSERT_EQUAL(calls->trylock(&mutex), EBUSY); /* DEFAULT does not recurse */
    /* ...but the owner's relock counts, as a CRITICAL_SECTION's (README). */
    CU_ASSERT_EQUAL(calls->lock(&mutex), 0);
    CU_ASSERT_EQUAL(calls->unlock(&mutex), 0);
    CU_ASSERT_EQUAL(calls->unlock(&mutex), 0);
    CU_ASSERT_EQUAL(calls->unlock(&mutex), EPERM); /* the trylock left nothing held */
    CU_ASSERT_EQUAL(calls->trylock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), EBUSY);
    CU_ASSERT_EQUAL(calls->unlock(&mutex), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&mutex), 0);
    CU_ASSERT_EQUAL(calls->lock(&mutex), EINVAL);
    CU_ASSERT_EQUAL(calls->trylock(&mutex), EINVAL);
    CU_ASSERT_EQUAL(calls->unlock(&mutex), EINVAL);
}

/* A checked kind: the inline lock backs out of an owner's relock of a kind
 * that does not recurse (the section's count must be back to one: another
 * thread gets the mutex after a single unlock), and the inline unlock leaves
 * only a mutex the caller holds. */
static void check_checked_kind_steps(const struct mutex_calls *calls, int kind,
                                     const pthread_mutex_t *initializer)
{
    struct timespec soon = slimtest_time_after_ms(CLOCK_REALTIME, 50);

    shared_mutex = *initializer;
    CU_ASSERT_EQUAL(calls->unlock(&shared_mutex), EPERM); /* not yet set up, not held */
    CU_ASSERT_EQUAL(calls->lock(&shared_mutex), 0);
    if (kind == PTHREAD_MUTEX_ERRORCHECK) {
        CU_ASSERT_EQUAL(calls->lock(&shared_mutex), EDEADLK);
        CU_ASSERT_EQUAL(calls->lock(&shared_mutex), EDEADLK);
    } else if (kind == PTHREAD_MUTEX_NORMAL) {
        /* The untimed relock deadlocks (test_normal_relock_deadlocks). */
        CU_ASSERT_EQUAL(pthread_mutex_timedlock(&shared_mutex, &soon), ETIMEDOUT);
    } else {
        CU_ASSERT_EQUAL(calls->lock(&shared_mutex), 0);
        CU_ASSERT_EQUAL(calls->unlock(&shared_mutex), 0); /* still held once */
    }
    CU_ASSERT_EQUAL(calls->trylock(&shared_mutex), kind == PTHREAD_MUTEX_RECURSIVE ? 0 : EBUSY);
    if (kind == PTHREAD_MUTEX_RECURSIVE)
        CU_ASSERT_EQUAL(calls->unlock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(other_thread_gets(other_unlocks), EPERM);
    CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), EBUSY);
    CU_ASSERT_EQUAL(calls->unlock(&shared_mutex), 0);
    CU_ASSERT_EQUAL(calls->unlock(&shared_mutex), EPERM);
    /* nothing of the relocks was left held */
    CU_ASSERT_EQUAL(other_thread_gets(other_trylocks), 0);
    CU_ASSERT_EQUAL(pthread_mutex_destroy(&shared_mutex), 0);
    CU_ASSERT_EQUAL(calls->lock(&shared_mutex), EINVAL);
    CU_ASSERT_EQUAL(calls->unlock(&shared_mutex), EINVAL);
}

static void check_steps_of_each_kind(const struct mutex_calls *calls)
{
    static const pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    static const pthread_mutex_t errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
    static const pthread_mutex_t normal = PTHREAD_NORMAL_MUTEX_INITIALIZER_NP;

    check_default_steps(calls);
    check_checked_kind_steps(calls, PTHREAD_MUTEX_RECURSIVE, &recursive);
    check_checked_kind_steps(calls, PTHREAD_MUTEX_ERRORCHECK, &errorcheck);
    check_checked_kind_steps(calls, PTHREAD_MUTEX_NORMAL, &normal);
}

static void test_inline_and_library_paths_agree(void)
{
    static const struct mutex_calls inlined = {inline_lock, inline_trylock, inline_unlock};
    /* volatile: the compiler cannot see through it, so these are calls. */
    static int (*volatile library_lock)(pthread_mutex_t *) = pthread_mutex_lock;
    static int (*volatile library_trylock)(pthread_mutex_t *) = pthread_mutex_trylock;
    static int (*volatile library_unlock)(pthread_mutex_t *) = pthread_mutex_unlock;
    struct mutex_calls library = {library_lock, library_trylock, library_unlock};

    check_steps_of_each_kind(&inlined);
    check_steps_of_each_kind(&library);
}

static CU_TestInfo cases[] = {
    {"compiled at the level the program is named after", test_built_at_its_level},
    {"the inline paths and the library's functions agree, each kind", test_inline_and_library_paths_agree},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("mutex-inline-" SLIMTEST_OPT_LEVEL, cases, 60);
}
