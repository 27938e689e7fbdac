/* test_signal_sched.c - signal sets and masks, scheduling parameters, affinity. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sched.h>
#include "testutil.h"

/* ---- Signal sets ---- */

static void test_sigset_operations(void)
{
    sigset_t set;

    CU_ASSERT_EQUAL(sigemptyset(&set), 0);
    CU_ASSERT_EQUAL(sigismember(&set, SIGINT), 0);
    CU_ASSERT_EQUAL(sigaddset(&set, SIGINT), 0);
    CU_ASSERT_EQUAL(sigismember(&set, SIGINT), 1);
    CU_ASSERT_EQUAL(sigismember(&set, SIGTERM), 0);
    CU_ASSERT_EQUAL(sigdelset(&set, SIGINT), 0);
    CU_ASSERT_EQUAL(sigismember(&set, SIGINT), 0);
    CU_ASSERT_EQUAL(sigfillset(&set), 0);
    CU_ASSERT_EQUAL(sigismember(&set, SIGTERM), 1);
    CU_ASSERT_EQUAL(sigismember(&set, NSIG - 1), 1);
}

static void test_sigset_invalid_signal(void)
{
    sigset_t set;
    int bad[] = {0, -1, NSIG, 1000};

    sigemptyset(&set);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SLIMTEST_ASSERT_ERRNO(sigaddset(&set, bad[i]), EINVAL);
        SLIMTEST_ASSERT_ERRNO(sigdelset(&set, bad[i]), EINVAL);
        SLIMTEST_ASSERT_ERRNO(sigismember(&set, bad[i]), EINVAL);
    }
    SLIMTEST_ASSERT_ERRNO(sigemptyset(NULL), EINVAL);
}

/* ---- Signal masks ---- */

static void test_sigmask_block_unblock_setmask(void)
{
    sigset_t set, old, now;

    sigemptyset(&set);
    CU_ASSERT_EQUAL(pthread_sigmask(SIG_SETMASK, &set, NULL), 0);
    sigaddset(&set, SIGINT);
    CU_ASSERT_EQUAL(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
    CU_ASSERT_EQUAL(sigismember(&old, SIGINT), 0);
    CU_ASSERT_EQUAL(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
    CU_ASSERT_EQUAL(sigismember(&now, SIGINT), 1);

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    CU_ASSERT_EQUAL(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    CU_ASSERT_EQUAL(pthread_sigmask(SIG_UNBLOCK, &set, &old), 0);
    CU_ASSERT_EQUAL(sigismember(&old, SIGINT), 1);
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    CU_ASSERT_EQUAL(sigismember(&now, SIGINT), 0);
    CU_ASSERT_EQUAL(sigismember(&now, SIGTERM), 1);

    sigfillset(&set);
    CU_ASSERT_EQUAL(pthread_sigmask(SIG_SETMASK, &set, NULL), 0);
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    CU_ASSERT_EQUAL(memcmp(&now, &set, sizeof set), 0);
    sigemptyset(&set);
    pthread_sigmask(SIG_SETMASK, &set, NULL);
}

static void test_sigmask_invalid_how(void)
{
    sigset_t set, before, after;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_SETMASK, NULL, &before);
    CU_ASSERT_EQUAL(pthread_sigmask(12345, &set, NULL), EINVAL);
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    CU_ASSERT_EQUAL(memcmp(&before, &after, sizeof before), 0);
    SLIMTEST_ASSERT_ERRNO(sigprocmask(-7, &set, NULL), EINVAL);
    CU_ASSERT_EQUAL(sigprocmask(SIG_BLOCK, &set, &before), 0);
    CU_ASSERT_EQUAL(sigprocmask(SIG_UNBLOCK, &set, NULL), 0);
}

static void *report_mask(void *argument)
{
    pthread_sigmask(SIG_SETMASK, NULL, (sigset_t *)argument);
    return NULL;
}

/* xz and many servers block signals around pthread_create so that the new
 * thread starts with them blocked: the mask must be inherited. */
static void test_sigmask_inherited_by_new_thread(void)
{
    sigset_t all, none, seen;
    pthread_t thread;

    sigfillset(&all);
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, report_mask, &seen), 0);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(memcmp(&seen, &all, sizeof all), 0);
}

/* ---- pthread_kill ---- */

static volatile sig_atomic_t handled_signal;

static void record_signal(int signal_number)
{
    handled_signal = signal_number;
}

static void *return_at_once(void *unused)
{
    return unused;
}

static void test_pthread_kill(void)
{
    pthread_t thread;

    CU_ASSERT_EQUAL(pthread_kill(pthread_self(), 0), 0);
    CU_ASSERT_EQUAL(pthread_kill(pthread_self(), NSIG + 3), EINVAL);
    CU_ASSERT_EQUAL(pthread_kill(pthread_self(), -1), EINVAL);
    handled_signal = 0;
    signal(SIGTERM, record_signal);
    CU_ASSERT_EQUAL(pthread_kill(pthread_self(), SIGTERM), 0);
    CU_ASSERT_EQUAL(handled_signal, SIGTERM);
    signal(SIGTERM, SIG_DFL);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, return_at_once, NULL), 0);
    CU_ASSERT_EQUAL(pthread_kill(thread, 0), 0); /* exited or not, not yet joined */
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(pthread_kill(thread, 0), ESRCH); /* joined: gone */
    CU_ASSERT_EQUAL(pthread_kill((pthread_t)0, 0), ESRCH);
}

/* ---- Scheduling ---- */

static void test_schedparam_round_trip(void)
{
    struct sched_param param;
    int policy;

    param.sched_priority = 1;
    CU_ASSERT_EQUAL(pthread_setschedparam(pthread_self(), SCHED_OTHER, &param), 0);
    param.sched_priority = -99;
    CU_ASSERT_EQUAL(pthread_getschedparam(pthread_self(), &policy, &param), 0);
    CU_ASSERT_EQUAL(policy, SCHED_OTHER);
    CU_ASSERT_EQUAL(param.sched_priority, 1);
    /* FIFO priorities share Windows levels; the one set is the one reported. */
    param.sched_priority = 50;
    CU_ASSERT_EQUAL(pthread_setschedparam(pthread_self(), SCHED_FIFO, &param), 0);
    CU_ASSERT_EQUAL(pthread_getschedparam(pthread_self(), &policy, &param), 0);
    CU_ASSERT_EQUAL(policy, SCHED_FIFO);
    CU_ASSERT_EQUAL(param.sched_priority, 50);
    CU_ASSERT_EQUAL(pthread_setschedprio(pthread_self(), 60), 0);
    CU_ASSERT_EQUAL(pthread_getschedparam(pthread_self(), &policy, &param), 0);
    CU_ASSERT_EQUAL(param.sched_priority, 60);
    param.sched_priority = 0;
    CU_ASSERT_EQUAL(pthread_setschedparam(pthread_self(), SCHED_OTHER, &param), 0);
}

static void test_schedparam_errors(void)
{
    struct sched_param param;
    int policy;

    param.sched_priority = 0;
    CU_ASSERT_EQUAL(pthread_setschedparam(pthread_self(), 42, &param), EINVAL);
    param.sched_priority = sched_get_priority_max(SCHED_OTHER) + 1;
    CU_ASSERT_EQUAL(pthread_setschedparam(pthread_self(), SCHED_OTHER, &param), EINVAL);
    CU_ASSERT_EQUAL(pthread_setschedparam(pthread_self(), SCHED_OTHER, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_getschedparam(pthread_self(), NULL, &param), EINVAL);
    CU_ASSERT_EQUAL(pthread_getschedparam(pthread_self(), &policy, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_setschedparam((pthread_t)0, SCHED_OTHER, &param), ESRCH);
    CU_ASSERT_EQUAL(pthread_getschedparam((pthread_t)0, &policy, &param), ESRCH);
    CU_ASSERT_EQUAL(pthread_setschedprio((pthread_t)0, 0), ESRCH);
    CU_ASSERT_EQUAL(pthread_setschedprio(pthread_self(), 1000), EINVAL);
}

static void test_sched_process_calls(void)
{
    struct sched_param param;
    struct timespec interval;

    CU_ASSERT_EQUAL(sched_getscheduler(0), SCHED_OTHER);
    param.sched_priority = -1;
    CU_ASSERT_EQUAL(sched_setparam(0, &param), 0);
    param.sched_priority = 7;
    CU_ASSERT_EQUAL(sched_getparam(0, &param), 0);
    CU_ASSERT_EQUAL(param.sched_priority, -1);
    param.sched_priority = 0;
    CU_ASSERT_EQUAL(sched_setscheduler(0, SCHED_OTHER, &param), 0);
    CU_ASSERT_EQUAL(sched_rr_get_interval(0, &interval), 0);
    CU_ASSERT(interval.tv_sec > 0 || interval.tv_nsec > 0);

    SLIMTEST_ASSERT_ERRNO(sched_getscheduler(-1), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sched_getscheduler(999999), ESRCH);
    SLIMTEST_ASSERT_ERRNO(sched_getparam(0, NULL), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sched_setscheduler(0, 42, &param), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sched_rr_get_interval(999999, &interval), ESRCH);
}

/* ---- CPU sets and affinity ---- */

static void test_cpu_set_macros(void)
{
    cpu_set_t a, b, result;

    CPU_ZERO(&a);
    CPU_ZERO(&b);
    CU_ASSERT_EQUAL(CPU_COUNT(&a), 0);
    CPU_SET(0, &a);
    CPU_SET(3, &a);
    CPU_SET(70, &a);
    CPU_SET(CPU_SETSIZE + 5, &a); /* out of range: ignored, as glibc does */
    CU_ASSERT_EQUAL(CPU_COUNT(&a), 3);
    CU_ASSERT(CPU_ISSET(70, &a));
    CU_ASSERT(!CPU_ISSET(CPU_SETSIZE + 5, &a));
    CPU_SET(3, &b);
    CPU_SET(5, &b);
    CPU_AND(&result, &a, &b);
    CU_ASSERT_EQUAL(CPU_COUNT(&result), 1);
    CU_ASSERT(CPU_ISSET(3, &result));
    CPU_OR(&result, &a, &b);
    CU_ASSERT_EQUAL(CPU_COUNT(&result), 4);
    CPU_XOR(&result, &a, &b);
    CU_ASSERT_EQUAL(CPU_COUNT(&result), 3);
    CU_ASSERT(!CPU_ISSET(3, &result));
    CPU_CLR(70, &a);
    CU_ASSERT(!CPU_ISSET(70, &a));
    CU_ASSERT(!CPU_EQUAL(&a, &b));
    CPU_ZERO(&result);
    CPU_OR(&result, &result, &b);
    CU_ASSERT(CPU_EQUAL(&result, &b));
}

static void test_affinity_round_trip(void)
{
    cpu_set_t original, only_first, seen;

    CU_ASSERT_EQUAL_FATAL(pthread_getaffinity_np(pthread_self(), sizeof original, &original), 0);
    CU_ASSERT(CPU_COUNT(&original) >= 1);
    CU_ASSERT(CPU_COUNT(&original) <= (int)slimtest_cpu_count());
    CPU_ZERO(&only_first);
    CPU_SET(0, &only_first);
    CU_ASSERT_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof only_first, &only_first), 0);
    CU_ASSERT_EQUAL(pthread_getaffinity_np(pthread_self(), sizeof seen, &seen), 0);
    CU_ASSERT(CPU_EQUAL(&seen, &only_first));
    CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof seen, &seen), 0);
    CU_ASSERT(CPU_EQUAL(&seen, &only_first));
    CU_ASSERT_EQUAL(sched_setaffinity(0, sizeof original, &original), 0);
    CU_ASSERT_EQUAL(pthread_getaffinity_np(pthread_self(), sizeof seen, &seen), 0);
    CU_ASSERT(CPU_EQUAL(&seen, &original));
}

static void test_affinity_errors(void)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CU_ASSERT_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof set, &set), EINVAL);
    CPU_SET(200, &set); /* beyond one processor group */
    CU_ASSERT_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof set, &set), EINVAL);
    CU_ASSERT_EQUAL(pthread_setaffinity_np(pthread_self(), sizeof set, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_getaffinity_np(pthread_self(), 1, &set), EINVAL);
    CU_ASSERT_EQUAL(pthread_getaffinity_np((pthread_t)0, sizeof set, &set), ESRCH);
    SLIMTEST_ASSERT_ERRNO(sched_getaffinity(999999, sizeof set, &set), ESRCH);
    SLIMTEST_ASSERT_ERRNO(sched_setaffinity(-1, sizeof set, &set), EINVAL);
}

static void test_sched_getcpu(void)
{
    int cpu = sched_getcpu();

    CU_ASSERT(cpu >= 0);
    CU_ASSERT(cpu < (int)slimtest_cpu_count());
}

static CU_TestInfo cases[] = {
    {"sigset operations", test_sigset_operations},
    {"sigset invalid signal numbers: EINVAL", test_sigset_invalid_signal},
    {"pthread_sigmask block, unblock, setmask", test_sigmask_block_unblock_setmask},
    {"pthread_sigmask/sigprocmask bad how: EINVAL", test_sigmask_invalid_how},
    {"signal mask inherited by a new thread", test_sigmask_inherited_by_new_thread},
    {"pthread_kill: signal 0, raise, EINVAL, ESRCH", test_pthread_kill},
    {"schedparam round trip", test_schedparam_round_trip},
    {"schedparam errors", test_schedparam_errors},
    {"sched_* calls on pid 0", test_sched_process_calls},
    {"cpu_set_t macros", test_cpu_set_macros},
    {"affinity round trip", test_affinity_round_trip},
    {"affinity errors", test_affinity_errors},
    {"sched_getcpu", test_sched_getcpu},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("signal_sched", cases, 60);
}
