/*
 * testutil.h - what every slimpthreads test program shares: a CUnit runner
 * bounded by a watchdog, an assertion for errno-style failures, and small time,
 * thread and child-process helpers that do not go through the library under test.
 */
#ifndef SLIMPTHREADS_TESTUTIL_H
#define SLIMPTHREADS_TESTUTIL_H

#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <CUnit/Basic.h>

/* Asserts that call fails the way a function that reports through errno does:
 * it returns failure (-1, SEM_FAILED) and sets errno to error. errno is
 * cleared first, so that a value left by an earlier call cannot pass. */
#define SLIMTEST_ASSERT_FAILS(call, failure, error) \
    do {                                            \
        errno = 0;                                  \
        CU_ASSERT_EQUAL((call), (failure));         \
        CU_ASSERT_EQUAL(errno, (error));            \
    } while (0)

/* The same for the usual failure value, -1. */
#define SLIMTEST_ASSERT_ERRNO(call, error) SLIMTEST_ASSERT_FAILS(call, -1, error)

/* Checks the process-shared attribute of a fresh attribute object attr (of
 * any type: get and set are its functions): it reads PTHREAD_PROCESS_PRIVATE;
 * set takes PTHREAD_PROCESS_SHARED, which get reads back, and PRIVATE again;
 * set refuses invalid with EINVAL, leaving the value as it was; get refuses a
 * NULL pointer with EINVAL. A macro, since each attribute type has functions of
 * its own. */
#define SLIMTEST_CHECK_PSHARED(get, set, attr, invalid)             \
    do {                                                            \
        int pshared_ = -1;                                          \
                                                                    \
        CU_ASSERT_EQUAL(get(attr, &pshared_), 0);                   \
        CU_ASSERT_EQUAL(pshared_, PTHREAD_PROCESS_PRIVATE);         \
        CU_ASSERT_EQUAL(set(attr, PTHREAD_PROCESS_SHARED), 0);      \
        CU_ASSERT_EQUAL(get(attr, &pshared_), 0);                   \
        CU_ASSERT_EQUAL(pshared_, PTHREAD_PROCESS_SHARED);          \
        CU_ASSERT_EQUAL(set(attr, invalid), EINVAL);                \
        CU_ASSERT_EQUAL(get(attr, &pshared_), 0);                   \
        CU_ASSERT_EQUAL(pshared_, PTHREAD_PROCESS_SHARED);          \
        CU_ASSERT_EQUAL(set(attr, PTHREAD_PROCESS_PRIVATE), 0);     \
        CU_ASSERT_EQUAL(get(attr, &pshared_), 0);                   \
        CU_ASSERT_EQUAL(pshared_, PTHREAD_PROCESS_PRIVATE);         \
        CU_ASSERT_EQUAL(get(attr, NULL), EINVAL);                   \
    } while (0)

/* Runs one suite and returns main's exit status: 0 when every case passed.
 * A watchdog ends the process with status 3 after timeout_seconds (times this
 * host's slowness, below), naming the case that was running, so a hung case
 * fails the run instead of hanging it. Prints CUnit's verbose report and a last
 * line "slimtest-summary: SUITE PASSED FAILED" that .ci/run adds up. */
int slimtest_run(const char *suite_name, CU_TestInfo *cases, unsigned timeout_seconds);

/* How many times slower than the host the budgets were set on (where Wine
 * creates and joins a thread in about SLIMTEST_REFERENCE_THREAD_MS) this one
 * creates threads: measured once, up to SLIMTEST_MAX_SLOWNESS. Below
 * SLIMTEST_SLOW_HOST (a busy core makes the reference host read up to about
 * 1.5x) it is 1: such a host runs every round. The environment variable
 * SLIMTEST_SLOWNESS sets it instead. */
#define SLIMTEST_REFERENCE_THREAD_MS 0.6
#define SLIMTEST_SLOW_HOST 2.0
#define SLIMTEST_MAX_SLOWNESS 6.0
double slimtest_host_slowness(void);

/* The rounds to run of a case whose every round creates threads: rounds on a
 * host as fast as the reference, fewer where threads cost more, so that the
 * case takes about the same time everywhere; never fewer than one. */
unsigned slimtest_rounds(unsigned rounds);

/* An absolute time ms milliseconds from now on clock (ms may be negative). */
struct timespec slimtest_time_after_ms(clockid_t clock, long ms);

/* Milliseconds on a monotonic clock read straight from Windows (QPC). */
double slimtest_now_ms(void);

/* Sleeps with Win32 Sleep, not with the library's nanosleep. */
void slimtest_sleep_ms(unsigned ms);

/* Number of processors Windows reports. */
unsigned slimtest_cpu_count(void);

/* Nonzero when clock (read with the library's clock_gettime) is at or past at. */
int slimtest_clock_reached(clockid_t clock, const struct timespec *at);

/* Memory of its own (VirtualAlloc) for an object of size bytes, a page or more:
 * once slimtest_free_page gives it back, any later access faults, so a test
 * can catch a thread that touches an object after another one freed it. */
void *slimtest_alloc_page(size_t size);
void slimtest_free_page(void *page);

/* ---- Threads straight from Windows (_beginthreadex), not from pthread_create,
 * so that each primitive is tested independently of thread.c ---- */

/* What a test thread runs. */
typedef void slimtest_routine(void *argument);

/* A running test thread; opaque so that this header needs no <windows.h>. */
struct slimtest_thread;

/* How long slimtest_run_threads and slimtest_on_other_thread wait for a thread
 * before they call it hung: generous, Wine on a shared machine can be slow. */
#define SLIMTEST_JOIN_TIMEOUT_MS 30000

/* Starts routine(argument) on a new thread; a failure to start ends the case.
 * Each thread must be joined with slimtest_join_thread exactly once. */
struct slimtest_thread *slimtest_start_thread(slimtest_routine *routine, void *argument);

/* Waits for thread to end and releases it. A thread still running after
 * timeout_ms fails and ends the case; it is left alone, since it may still use
 * what the case handed it. */
void slimtest_join_thread(struct slimtest_thread *thread, unsigned timeout_ms);

/* Nonzero when thread ended within ms milliseconds; it still needs joining. */
int slimtest_thread_ended(struct slimtest_thread *thread, unsigned ms);

/* Starts routine(argument) on count threads, stored in threads[0 .. count - 1]. */
void slimtest_start_threads(struct slimtest_thread **threads, unsigned count,
                            slimtest_routine *routine, void *argument);

/* Joins count threads, in order, each with slimtest_join_thread. */
void slimtest_join_threads(struct slimtest_thread **threads, unsigned count, unsigned timeout_ms);

/* Runs routine(argument) on count threads at once and joins them all. */
void slimtest_run_threads(unsigned count, slimtest_routine *routine, void *argument);

/* Runs routine(argument) on one other thread and joins it. */
void slimtest_on_other_thread(slimtest_routine *routine, void *argument);

/* ---- Counting under a lock: threads add one to a shared value, each time
 * under the lock under test; a lock that ever lets two in at once loses counts,
 * so the total comes out short ---- */

/* The lock under test and how a counting thread uses it. lock and unlock
 * return 0 on success; lock is told the thread's round, for a test that varies
 * how it locks. while_held, unless NULL, runs with the lock held (a pause that
 * lets the other threads queue up behind it). */
struct slimtest_counter {
    void *lock_object;
    int (*lock)(void *lock_object, long round);
    int (*unlock)(void *lock_object);
    void (*while_held)(long round);
    long rounds;          /* per thread */
    long value;           /* written under the lock only */
    volatile long errors; /* failed locks and unlocks */
};

/* A counting thread (a slimtest_routine on a struct slimtest_counter): rounds
 * times lock, add one to value, unlock. A failed lock skips its round. */
void slimtest_count_under_lock(void *counter);

/* ---- Code outside any image: generated at run time in memory of its own,
 * which no image's tables describe, so that an asynchronous cancellation
 * request cannot act on a thread while it runs there ---- */

/* void spin(volatile long *flag): pause, load, test, loop until *flag is
 * nonzero, then return. */
typedef void slimtest_spin_routine(volatile long *flag);

/* A fresh copy of that spin in executable memory; a failure ends the case. */
slimtest_spin_routine *slimtest_make_spin(void);

/* Gives back a spin slimtest_make_spin made; no thread may still run in it. */
void slimtest_free_spin(slimtest_spin_routine *spin);

/* Whether asynchronous cancellation can replace a return from a system DLL
 * into the program. On aarch64 that return is found only through the DLLs'
 * unwind data (.pdata), which every Windows image carries but the DLLs of a
 * Wine built as Linux code (Debian's arm64 Wine) lack: there a thread in a
 * system call acts at its next cancellation point instead (README.md,
 * Cancellation), and the cases check that. */
int slimtest_system_returns_replaceable(void);

/* ---- This program run again as a child process (a test of what happens at a
 * process's end, or across processes) ---- */

/* A running child; opaque so that this header needs no <windows.h>. */
struct slimtest_child;

/* What slimtest_finish_child returns for a child still running at its timeout
 * (it is then terminated). */
#define SLIMTEST_CHILD_HUNG 0xdeadu

/* Starts this program again with the given arguments (one string, as on a
 * command line); a failure to start ends the case. */
struct slimtest_child *slimtest_start_child(const char *arguments);

/* Waits up to timeout_ms for child to end, releases it and returns its exit
 * status, or SLIMTEST_CHILD_HUNG. */
unsigned long slimtest_finish_child(struct slimtest_child *child, unsigned timeout_ms);

/* Both: runs the child to its end and returns its exit status. */
unsigned long slimtest_run_child(const char *arguments, unsigned timeout_ms);

/* ---- Memory several processes map (process-shared objects) ---- */

/* Writes into name (size bytes) a mapping name of this process's own, with tag
 * in it, for the children it hands it to on their command line. */
void slimtest_shared_name(char *name, size_t size, const char *tag);

/* A view of size bytes of the named mapping (pagefile-backed, zero-filled when
 * made): made by the first process that asks, opened by the others; each keeps
 * its handle until it ends (the name lives only while a handle does). With
 * displaced nonzero the view is mapped after another view of the same mapping,
 * which stays mapped, so that it lies at another address than a process's only
 * view: a shared object must work at a different address in each process. A
 * failure ends the case; in a child (no case running) it exits with status 2. */
void *slimtest_map_shared(const char *name, size_t size, int displaced);

/* Unmaps a view slimtest_map_shared gave (the displacing view stays). */
void slimtest_unmap_shared(void *view);

#endif
