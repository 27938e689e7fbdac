/*
 * test_release.c - the rule of release: after the instant another thread can see
 * an object released, the releasing call touches it no more.
 *
 * POSIX lets the thread that gets an object next destroy it and free its memory
 * at once (pthread_mutex_destroy's rationale; glibc bugs 13690 and 12674). Each
 * case runs many rounds in which the object sits alone in its own VirtualAlloc'd
 * page: a releaser thread holds it (or is about to post, signal, complete a
 * round), the last user waits for it, gets it, destroys it and frees the page at
 * once. A releasing call that still reads or writes the object after that point
 * faults, which ends the test program. The releaser's timing varies from round
 * to round (releasing at once, after a short spin, after SwitchToThread, after
 * Sleep(0), after Sleep(1) so that the last user is surely asleep), so that the
 * last user sometimes spins and sometimes sleeps and the releaser is sometimes
 * preempted in the middle of its release.
 * Threads come from _beginthreadex (testutil), one releaser per round.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include "testutil.h"

#define ROUNDS 2000
#define ROBUST_ROUNDS 400 /* a thread exits holding the mutex each round */
#define RELEASE_TIMINGS 5

/* What a round shares, outside the page under test. */
struct round {
    void *object;              /* in its own page */
    int timing;                /* how the releaser waits before it releases */
    int kind;                  /* mutex kind, or which cond call */
    volatile long holding;     /* the releaser holds the object (or is about to release) */
    volatile long waiting;     /* the last user is about to wait for it */
    volatile long errors;
};

static void wait_for(volatile long *flag)
{
    while (InterlockedCompareExchange(flag, 0, 0) == 0)
        SwitchToThread();
}

static void set_flag(volatile long *flag)
{
    InterlockedExchange(flag, 1);
}

/* The releaser's varied pause between seeing the last user arrive and releasing. */
static void pause_before_release(int timing)
{
    volatile int spin;

    switch (timing) {
    case 0:
        break;
    case 1:
        for (spin = 0; spin < 2000; spin++)
            YieldProcessor();
        break;
    case 2:
        SwitchToThread();
        break;
    case 3:
        Sleep(0);
        break;
    default:
        Sleep(1); /* the last user is asleep by now */
        break;
    }
}

/* The releaser's side of the meeting: it holds the object (or is about to
 * release), lets the last user come, then pauses as the round's timing says. */
static void hold_until_user_waits(struct round *round)
{
    set_flag(&round->holding);
    wait_for(&round->waiting);
    pause_before_release(round->timing);
}

/* The last user's side: it comes once the releaser holds the object. */
static void come_when_held(struct round *round)
{
    wait_for(&round->holding);
    set_flag(&round->waiting);
}

static void note_error(struct round *round)
{
    InterlockedIncrement(&round->errors);
}

/* Runs rounds: setup puts a fresh object in a fresh page, the releaser runs on
 * its own thread, the last user on this one (it destroys the object and this
 * function frees the page right after). Returns the errors of the round it
 * stopped at: 0 when every round passed. */
static long run_rounds(int rounds, int kind, void (*setup)(struct round *),
                       slimtest_routine *releaser, void (*last_user)(struct round *))
{
    static struct round round;
    int i;

    rounds = (int)slimtest_rounds((unsigned)rounds);
    for (i = 0; i < rounds; i++) {
        struct slimtest_thread *thread;

        memset((void *)&round, 0, sizeof round);
        round.object = slimtest_alloc_page(4096);
        round.timing = i % RELEASE_TIMINGS;
        round.kind = kind;
        setup(&round);
        thread = slimtest_start_thread(releaser, &round);
        last_user(&round);
        slimtest_free_page(round.object); /* at once: the releaser may still be returning */
        slimtest_join_thread(thread, SLIMTEST_JOIN_TIMEOUT_MS);
        if (round.errors != 0)
            break;
    }
    CU_ASSERT_EQUAL(round.errors, 0);
    return round.errors;
}

/* One variant of an object's release, for the cases that try several. */
struct release_case {
    const char *name; /* printed when its rounds fail */
    int rounds, kind;
    void (*setup)(struct round *);
    slimtest_routine *releaser;
    void (*last_user)(struct round *);
};

static void run_release_cases(const struct release_case *cases, size_t count)
{
    size_t i;

    for (i = 0; i < count; i++)
        if (run_rounds(cases[i].rounds, cases[i].kind, cases[i].setup, cases[i].releaser,
                       cases[i].last_user) != 0)
            printf("\n    %s: a round failed ", cases[i].name);
}

/* ---- Mutexes, every kind ---- */

static void mutex_setup(struct round *round)
{
    pthread_mutexattr_t attr;

    pthread_mutexattr_init(&attr);
    if (round->kind >= 0)
        pthread_mutexattr_settype(&attr, round->kind);
    else
        pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(round->object, &attr), 0);
    pthread_mutexattr_destroy(&attr);
}

static void mutex_releaser(void *raw)
{
    struct round *round = raw;

    if (pthread_mutex_lock(round->object) != 0)
        note_error(round);
    if (round->kind == PTHREAD_MUTEX_RECURSIVE && pthread_mutex_lock(round->object) != 0)
        note_error(round);
    hold_until_user_waits(round);
    if (round->kind == PTHREAD_MUTEX_RECURSIVE && pthread_mutex_unlock(round->object) != 0)
        note_error(round);
    if (pthread_mutex_unlock(round->object) != 0)
        note_error(round);
}

static void mutex_last_user(struct round *round)
{
    come_when_held(round);
    if (pthread_mutex_lock(round->object) != 0)
        note_error(round);
    if (pthread_mutex_unlock(round->object) != 0 || pthread_mutex_destroy(round->object) != 0)
        note_error(round);
}

/* A timed lock waits the same way. */
static void mutex_last_user_timed(struct round *round)
{
    struct timespec later = slimtest_time_after_ms(CLOCK_REALTIME, 60000);

    come_when_held(round);
    if (pthread_mutex_timedlock(round->object, &later) != 0)
        note_error(round);
    if (pthread_mutex_unlock(round->object) != 0 || pthread_mutex_destroy(round->object) != 0)
        note_error(round);
}

/* Each kind (-1: robust) and the timed lock. */
static const struct release_case mutex_cases[] = {
    {"DEFAULT", ROUNDS, PTHREAD_MUTEX_DEFAULT, mutex_setup, mutex_releaser, mutex_last_user},
    {"NORMAL", ROUNDS, PTHREAD_MUTEX_NORMAL, mutex_setup, mutex_releaser, mutex_last_user},
    {"ERRORCHECK", ROUNDS, PTHREAD_MUTEX_ERRORCHECK, mutex_setup, mutex_releaser, mutex_last_user},
    {"RECURSIVE", ROUNDS, PTHREAD_MUTEX_RECURSIVE, mutex_setup, mutex_releaser, mutex_last_user},
    {"timedlock", ROUNDS, PTHREAD_MUTEX_DEFAULT, mutex_setup, mutex_releaser,
     mutex_last_user_timed},
    {"robust", ROUNDS, -1, mutex_setup, mutex_releaser, mutex_last_user},
};

static void test_mutex_each_kind(void)
{
    run_release_cases(mutex_cases, sizeof mutex_cases / sizeof mutex_cases[0]);
}

/* The owner exits holding a robust mutex: its exit hook releases it. */
static void robust_owner_exits(void *raw)
{
    struct round *round = raw;

    if (pthread_mutex_lock(round->object) != 0)
        note_error(round);
    hold_until_user_waits(round);
}

static void robust_last_user(struct round *round)
{
    come_when_held(round);
    if (pthread_mutex_lock(round->object) != EOWNERDEAD ||
        pthread_mutex_consistent(round->object) != 0 ||
        pthread_mutex_unlock(round->object) != 0 || pthread_mutex_destroy(round->object) != 0)
        note_error(round);
}

static void test_mutex_robust_owner_dead(void)
{
    run_rounds(ROBUST_ROUNDS, -1, mutex_setup, robust_owner_exits, robust_last_user);
}

/* ---- Condition variables: signal and broadcast, with and without the mutex ---- */

struct cond_object {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int signalled;
};

enum { COND_SIGNAL, COND_BROADCAST, COND_SIGNAL_UNLOCKED };

static void cond_setup(struct round *round)
{
    struct cond_object *object = round->object;

    CU_ASSERT_EQUAL_FATAL(pthread_mutex_init(&object->mutex, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_cond_init(&object->cond, NULL), 0);
}

static void cond_releaser(void *raw)
{
    struct round *round = raw;
    struct cond_object *object = round->object;

    wait_for(&round->waiting);
    pause_before_release(round->timing);
    pthread_mutex_lock(&object->mutex);
    object->signalled = 1;
    if (round->kind == COND_SIGNAL_UNLOCKED) {
        pthread_mutex_unlock(&object->mutex);
        if (pthread_cond_signal(&object->cond) != 0)
            note_error(round);
        return;
    }
    if ((round->kind == COND_SIGNAL ? pthread_cond_signal : pthread_cond_broadcast)(
            &object->cond) != 0)
        note_error(round);
    pthread_mutex_unlock(&object->mutex);
}

static void cond_last_user(struct round *round)
{
    struct cond_object *object = round->object;

    pthread_mutex_lock(&object->mutex);
    set_flag(&round->waiting);
    while (!object->signalled)
        if (pthread_cond_wait(&object->cond, &object->mutex) != 0)
            note_error(round);
    pthread_mutex_unlock(&object->mutex);
    if (pthread_cond_destroy(&object->cond) != 0 || pthread_mutex_destroy(&object->mutex) != 0)
        note_error(round);
}

static const struct release_case cond_cases[] = {
    {"signal under the mutex", ROUNDS, COND_SIGNAL, cond_setup, cond_releaser, cond_last_user},
    {"broadcast under the mutex", ROUNDS, COND_BROADCAST, cond_setup, cond_releaser,
     cond_last_user},
    {"signal after unlock", ROUNDS, COND_SIGNAL_UNLOCKED, cond_setup, cond_releaser,
     cond_last_user},
};

static void test_cond_each_call(void)
{
    run_release_cases(cond_cases, sizeof cond_cases / sizeof cond_cases[0]);
}

/* ---- Semaphores ---- */

static void sem_setup(struct round *round)
{
    CU_ASSERT_EQUAL_FATAL(sem_init(round->object, 0, 0), 0);
}

static void sem_releaser(void *raw)
{
    struct round *round = raw;

    wait_for(&round->waiting);
    pause_before_release(round->timing);
    if (sem_post(round->object) != 0)
        note_error(round);
}

static void sem_last_user(struct round *round)
{
    set_flag(&round->waiting);
    if (sem_wait(round->object) != 0 || sem_destroy(round->object) != 0)
        note_error(round);
}

static void test_sem_post(void)
{
    run_rounds(ROUNDS, 0, sem_setup, sem_releaser, sem_last_user);
}

/* ---- Barriers: the serial thread destroys the barrier ---- */

static void barrier_setup(struct round *round)
{
    CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(round->object, NULL, 2), 0);
}

static void barrier_last_user(struct round *round)
{
    int result;

    come_when_held(round);
    /* Usually first, so that the releaser completes the round; either may be
     * the serial thread: destroy waits for the other to leave. */
    result = pthread_barrier_wait(round->object);
    if (result != 0 && result != PTHREAD_BARRIER_SERIAL_THREAD)
        note_error(round);
    if (pthread_barrier_destroy(round->object) != 0)
        note_error(round);
}

/* The releaser's arrival completes the round, as a rule (see the last user). */
static void barrier_releaser_any(void *raw)
{
    struct round *round = raw;
    int result;

    hold_until_user_waits(round);
    result = pthread_barrier_wait(round->object);
    if (result != 0 && result != PTHREAD_BARRIER_SERIAL_THREAD)
        note_error(round);
}

static void test_barrier(void)
{
    run_rounds(ROUNDS, 0, barrier_setup, barrier_releaser_any, barrier_last_user);
}

/* ---- Once: a thread waiting in pthread_once frees it as soon as it returns ---- */

static struct round *once_round;

static void once_routine(void)
{
    hold_until_user_waits(once_round);
}

static void once_setup(struct round *round)
{
    *(pthread_once_t *)round->object = PTHREAD_ONCE_INIT;
    once_round = round;
}

static void once_releaser(void *raw)
{
    struct round *round = raw;

    if (pthread_once(round->object, once_routine) != 0)
        note_error(round);
}

static void once_last_user(struct round *round)
{
    come_when_held(round);
    if (pthread_once(round->object, once_routine) != 0)
        note_error(round);
}

static void test_once(void)
{
    run_rounds(ROUNDS, 0, once_setup, once_releaser, once_last_user);
}

/* ---- Spinlocks ---- */

static void spin_setup(struct round *round)
{
    CU_ASSERT_EQUAL_FATAL(pthread_spin_init(round->object, PTHREAD_PROCESS_PRIVATE), 0);
}

static void spin_releaser(void *raw)
{
    struct round *round = raw;

    if (pthread_spin_lock(round->object) != 0)
        note_error(round);
    hold_until_user_waits(round);
    if (pthread_spin_unlock(round->object) != 0)
        note_error(round);
}

static void spin_last_user(struct round *round)
{
    come_when_held(round);
    if (pthread_spin_lock(round->object) != 0 || pthread_spin_unlock(round->object) != 0 ||
        pthread_spin_destroy(round->object) != 0)
        note_error(round);
}

static void test_spin(void)
{
    run_rounds(ROUNDS, 0, spin_setup, spin_releaser, spin_last_user);
}

static CU_TestInfo cases[] = {
    {"mutex, each kind, lock and timedlock: the last locker frees it at once",
     test_mutex_each_kind},
    {"mutex robust, owner dead: the next locker frees it at once", test_mutex_robust_owner_dead},
    {"cond signal and broadcast, under the mutex or after unlock: the woken waiter frees both",
     test_cond_each_call},
    {"sem_post: the woken waiter frees it at once", test_sem_post},
    {"barrier: the thread that returns destroys and frees it", test_barrier},
    {"once: a thread that waited frees it at once", test_once},
    {"spinlock: the last locker frees it at once", test_spin},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("release", cases, 300);
}
