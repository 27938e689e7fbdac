/* test_np.c - the extensions of winpthreads and pthreads4w (compat/win32/np.c). */
#include <errno.h>
#include <semaphore.h>
#include <string.h>
#include <windows.h>
#include "testutil.h"

static long long elapsed_ns(const struct timespec *from, const struct timespec *to)
{
    return (long long)(to->tv_sec - from->tv_sec) * 1000000000LL + (to->tv_nsec - from->tv_nsec);
}

static void test_num_processors(void)
{
    DWORD_PTR process_mask, system_mask;
    int expected = 0;

    CU_ASSERT_FATAL(GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask));
    for (; process_mask != 0; process_mask &= process_mask - 1)
        expected++;
    CU_ASSERT_EQUAL(pthread_num_processors_np(), expected);
    CU_ASSERT_EQUAL(pthread_set_num_processors_np(0), EINVAL);
    CU_ASSERT_EQUAL(pthread_set_num_processors_np(-3), EINVAL);
    CU_ASSERT_EQUAL(pthread_num_processors_np(), expected);
    CU_ASSERT_EQUAL(pthread_set_num_processors_np(7), 0);
    CU_ASSERT_EQUAL(pthread_num_processors_np(), 7);
}

static void test_delay(void)
{
    struct timespec interval = {0, 2000000}, start, end, bad = {0, 1000000000L};

    clock_gettime(CLOCK_MONOTONIC, &start);
    CU_ASSERT_EQUAL(pthread_delay_np(&interval), 0);
    clock_gettime(CLOCK_MONOTONIC, &end);
    CU_ASSERT(elapsed_ns(&start, &end) >= 2000000LL);
    CU_ASSERT_EQUAL(pthread_delay_np(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_delay_np(&bad), EINVAL);
    bad.tv_sec = -1;
    bad.tv_nsec = 0;
    CU_ASSERT_EQUAL(pthread_delay_np(&bad), EINVAL);
}

static void test_getabstime(void)
{
    struct timespec now, abstime, relative = {2, 900000000L}, bad = {0, -1};

    clock_gettime(CLOCK_REALTIME, &now);
    CU_ASSERT_PTR_EQUAL(pthread_win32_getabstime_np(&abstime, &relative), &abstime);
    CU_ASSERT(abstime.tv_nsec >= 0 && abstime.tv_nsec < 1000000000L);
    CU_ASSERT(elapsed_ns(&now, &abstime) >= 2900000000LL);
    CU_ASSERT(elapsed_ns(&now, &abstime) < 60000000000LL);
    CU_ASSERT_PTR_NULL(pthread_win32_getabstime_np(&abstime, &bad));
    CU_ASSERT_PTR_NULL(pthread_win32_getabstime_np(NULL, &relative));
}

static void test_cond_timedwait_relative(void)
{
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    struct timespec relative = {0, 20000000}, start, end, bad = {0, 1000000000L};

    pthread_mutex_lock(&mutex);
    clock_gettime(CLOCK_MONOTONIC, &start);
    CU_ASSERT_EQUAL(pthread_cond_timedwait_relative_np(&cond, &mutex, &relative), ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &end);
    CU_ASSERT(elapsed_ns(&start, &end) >= 20000000LL);
    CU_ASSERT_EQUAL(pthread_cond_timedwait_relative_np(&cond, &mutex, &bad), EINVAL);
    CU_ASSERT_EQUAL(pthread_cond_timedwait_relative_np(&cond, &mutex, NULL), EINVAL);
    /* The mutex is still held after each return. */
    CU_ASSERT_EQUAL(pthread_mutex_trylock(&mutex), EBUSY);
    pthread_mutex_unlock(&mutex);
    CU_ASSERT_EQUAL(pthread_cond_destroy(&cond), 0);
}

struct thread_identity {
    HANDLE handle;
    unsigned long id;
    uint64_t unique;
    pthread_t self;
};

static void *report_identity(void *argument)
{
    struct thread_identity *identity = argument;

    identity->id = GetCurrentThreadId();
    identity->self = pthread_self();
    identity->unique = pthread_getunique_np(pthread_self());
    return NULL;
}

static void test_win32_thread(void)
{
    struct thread_identity identity = {0};
    pthread_t thread;
    HANDLE handle;
    uint64_t unique, main_unique;

    CU_ASSERT_FATAL(pthread_create(&thread, NULL, report_identity, &identity) == 0);
    handle = pthread_getw32threadhandle_np(thread);
    CU_ASSERT_PTR_NOT_NULL_FATAL(handle);
    CU_ASSERT_PTR_EQUAL(pthread_gethandle(thread), handle);
    unique = pthread_getunique_np(thread);
    CU_ASSERT(unique != 0);
    CU_ASSERT_EQUAL(pthread_getunique_np(thread), unique);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(identity.unique, unique); /* the thread saw the same number */
    CU_ASSERT(identity.id != 0);
    CU_ASSERT_PTR_EQUAL(identity.self, thread);
    /* main was not created by us: a handle that names it, its id, a number of its own */
    handle = pthread_getw32threadhandle_np(pthread_self());
    CU_ASSERT_PTR_NOT_NULL_FATAL(handle);
    CU_ASSERT_EQUAL(GetThreadId(handle), GetCurrentThreadId());
    CU_ASSERT_EQUAL(pthread_getw32threadid_np(pthread_self()), GetCurrentThreadId());
    main_unique = pthread_getunique_np(pthread_self());
    CU_ASSERT(main_unique != 0 && main_unique != unique);
    /* a thread id, checked while the thread lives */
    CU_ASSERT_FATAL(pthread_create(&thread, NULL, report_identity, &identity) == 0);
    CU_ASSERT(pthread_getw32threadid_np(thread) != 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(pthread_getunique_np(0), 0);
    CU_ASSERT_PTR_NULL(pthread_getw32threadhandle_np(0));
    CU_ASSERT_EQUAL(pthread_getw32threadid_np(0), 0);
}

static void test_unique_numbers_agree_across_askers(void)
{
    /* Many threads ask for one fresh thread's number at once: one answer. */
    enum { ROUNDS = 50 };
    for (int round = 0; round < ROUNDS; round++) {
        struct thread_identity identity = {0};
        pthread_t thread;
        CU_ASSERT_FATAL(pthread_create(&thread, NULL, report_identity, &identity) == 0);
        uint64_t mine = pthread_getunique_np(thread);
        CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
        CU_ASSERT_EQUAL(identity.unique, mine);
    }
}

static void test_attach_detach(void)
{
    CU_ASSERT_EQUAL(pthread_win32_process_attach_np(), 1);
    CU_ASSERT_EQUAL(pthread_win32_thread_attach_np(), 1);
    CU_ASSERT_EQUAL(pthread_win32_thread_detach_np(), 1);
    CU_ASSERT_EQUAL(pthread_win32_process_detach_np(), 1);
}

static void test_attr_stackaddr_and_kinds(void)
{
    pthread_attr_t attr;
    pthread_mutexattr_t mutex_attr;
    void *address = &attr;
    int kind = -1, level = -1;

    pthread_attr_init(&attr);
    CU_ASSERT_EQUAL(pthread_attr_setstackaddr(&attr, &kind), ENOTSUP);
    CU_ASSERT_EQUAL(pthread_attr_setstackaddr(NULL, &kind), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getstackaddr(&attr, &address), 0);
    CU_ASSERT_PTR_NULL(address);
    CU_ASSERT_EQUAL(pthread_attr_getstackaddr(&attr, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getstackaddr(NULL, &address), EINVAL);
    pthread_attr_destroy(&attr);

    pthread_mutexattr_init(&mutex_attr);
    CU_ASSERT_EQUAL(pthread_mutexattr_setkind_np(&mutex_attr, PTHREAD_MUTEX_RECURSIVE_NP), 0);
    CU_ASSERT_EQUAL(pthread_mutexattr_getkind_np(&mutex_attr, &kind), 0);
    CU_ASSERT_EQUAL(kind, PTHREAD_MUTEX_RECURSIVE);
    CU_ASSERT_EQUAL(pthread_mutexattr_setkind_np(&mutex_attr, 99), EINVAL);
    CU_ASSERT_EQUAL(pthread_mutexattr_getkind_np(&mutex_attr, NULL), EINVAL);
    pthread_mutexattr_destroy(&mutex_attr);

    CU_ASSERT_EQUAL(pthread_set_concurrency(3), 0);
    CU_ASSERT_EQUAL(pthread_get_concurrency(&level), 0);
    CU_ASSERT_EQUAL(level, 3);
    CU_ASSERT_EQUAL(pthread_set_concurrency(-1), EINVAL);
    CU_ASSERT_EQUAL(pthread_get_concurrency(NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_set_concurrency(0), 0);
}

struct named_thread {
    char name[16];
    int name_error;
    cpu_set_t affinity;
    int affinity_error;
};

static void *report_name_and_affinity(void *argument)
{
    struct named_thread *seen = argument;

    seen->name_error = pthread_getname_np(pthread_self(), seen->name, sizeof seen->name);
    seen->affinity_error = pthread_getaffinity_np(pthread_self(), sizeof seen->affinity, &seen->affinity);
    return NULL;
}

static void test_attr_name(void)
{
    pthread_attr_t attr;
    struct named_thread seen = {{0}, -1, {{0}}, -1};
    pthread_t thread;
    char name[16];

    pthread_attr_init(&attr);
    CU_ASSERT_EQUAL(pthread_attr_getname_np(&attr, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "");
    CU_ASSERT_EQUAL(pthread_attr_setname_np(&attr, "worker-%s", "7"), 0);
    CU_ASSERT_EQUAL(pthread_attr_getname_np(&attr, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "worker-7");
    CU_ASSERT_EQUAL(pthread_attr_getname_np(&attr, name, 8), ERANGE);
    CU_ASSERT_EQUAL(pthread_attr_getname_np(&attr, NULL, 8), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setname_np(&attr, "a-name-of-16-chr", NULL), ERANGE);
    CU_ASSERT_EQUAL(pthread_attr_setname_np(&attr, "n%d", (void *)1), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setname_np(&attr, NULL, NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setname_np(NULL, "x", NULL), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setname_np(&attr, "100%%", NULL), 0);
    CU_ASSERT_EQUAL(pthread_attr_getname_np(&attr, name, sizeof name), 0);
    CU_ASSERT_STRING_EQUAL(name, "100%");
    CU_ASSERT_EQUAL(pthread_attr_setname_np(&attr, "worker-%s", "7"), 0);
    /* the new thread carries the name from its first instruction */
    int error = pthread_create(&thread, &attr, report_name_and_affinity, &seen);
    if (error == ENOTSUP) /* no SetThreadDescription: pthread_setname_np's answer */
        return;
    CU_ASSERT_EQUAL_FATAL(error, 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(seen.name_error, 0);
    CU_ASSERT_STRING_EQUAL(seen.name, "worker-7");
    pthread_attr_destroy(&attr);
}

static void test_attr_affinity(void)
{
    pthread_attr_t attr;
    struct named_thread seen = {{0}, -1, {{0}}, -1};
    pthread_t thread;
    cpu_set_t set, got;
    unsigned char wide[2 * sizeof(cpu_set_t)];

    pthread_attr_init(&attr);
    CU_ASSERT_EQUAL(pthread_attr_getaffinity_np(&attr, sizeof got, &got), 0);
    CU_ASSERT_EQUAL(CPU_COUNT(&got), CPU_SETSIZE); /* no affinity of its own: all */
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    CU_ASSERT_EQUAL(pthread_attr_setaffinity_np(&attr, sizeof set, &set), 0);
    CU_ASSERT_EQUAL(pthread_attr_getaffinity_np(&attr, sizeof got, &got), 0);
    CU_ASSERT(CPU_EQUAL(&got, &set));
    CU_ASSERT_FATAL(pthread_create(&thread, &attr, report_name_and_affinity, &seen) == 0);
    CU_ASSERT_EQUAL(pthread_join(thread, NULL), 0);
    CU_ASSERT_EQUAL(seen.affinity_error, 0);
    CU_ASSERT(CPU_EQUAL(&seen.affinity, &set));
    /* errors: a processor past our set; NULL attr or set; a processor that is not there */
    memset(wide, 0, sizeof wide);
    wide[sizeof(cpu_set_t) + 3] = 1;
    CU_ASSERT_EQUAL(pthread_attr_setaffinity_np(&attr, sizeof wide, (cpu_set_t *)(void *)wide), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_setaffinity_np(NULL, sizeof set, &set), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getaffinity_np(&attr, sizeof got, NULL), EINVAL);
    CPU_ZERO(&set);
    CPU_SET(CPU_SETSIZE - 1, &set);
    CU_ASSERT_EQUAL(pthread_attr_setaffinity_np(&attr, sizeof set, &set), 0);
    CU_ASSERT_EQUAL(pthread_create(&thread, &attr, report_name_and_affinity, &seen), EINVAL);
    CU_ASSERT_EQUAL(pthread_attr_getaffinity_np(&attr, 8, &got), EINVAL); /* too small */
    /* a NULL set clears it again */
    CU_ASSERT_EQUAL(pthread_attr_setaffinity_np(&attr, 0, NULL), 0);
    CU_ASSERT_EQUAL(pthread_attr_getaffinity_np(&attr, sizeof got, &got), 0);
    CU_ASSERT_EQUAL(CPU_COUNT(&got), CPU_SETSIZE);
    pthread_attr_destroy(&attr);
}

static void test_sem_post_multiple(void)
{
    sem_t sem;
    int value = -1;

    CU_ASSERT_FATAL(sem_init(&sem, 0, 1) == 0);
    CU_ASSERT_EQUAL(sem_post_multiple(&sem, 4), 0);
    CU_ASSERT_EQUAL(sem_getvalue(&sem, &value), 0);
    CU_ASSERT_EQUAL(value, 5);
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(sem_trywait(&sem), 0);
    CU_ASSERT_EQUAL(sem_trywait(&sem), -1);
    SLIMTEST_ASSERT_ERRNO(sem_post_multiple(&sem, 0), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_post_multiple(&sem, -2), EINVAL);
    SLIMTEST_ASSERT_ERRNO(sem_post_multiple(NULL, 1), EINVAL);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);

    CU_ASSERT_FATAL(sem_init(&sem, 0, SEM_VALUE_MAX - 2) == 0);
    SLIMTEST_ASSERT_ERRNO(sem_post_multiple(&sem, 3), ERANGE);
    CU_ASSERT_EQUAL(sem_getvalue(&sem, &value), 0);
    CU_ASSERT_EQUAL(value, SEM_VALUE_MAX - 2); /* nothing posted */
    CU_ASSERT_EQUAL(sem_post_multiple(&sem, 2), 0);
    CU_ASSERT_EQUAL(sem_getvalue(&sem, &value), 0);
    CU_ASSERT_EQUAL(value, SEM_VALUE_MAX);
    CU_ASSERT_EQUAL(sem_destroy(&sem), 0);
}

static CU_TestInfo cases[] = {
    {"pthread_num_processors_np, set_num_processors_np", test_num_processors},
    {"pthread_delay_np sleeps; EINVAL", test_delay},
    {"pthread_win32_getabstime_np", test_getabstime},
    {"pthread_cond_timedwait_relative_np times out; EINVAL", test_cond_timedwait_relative},
    {"Win32 handle, id and unique number of a thread", test_win32_thread},
    {"pthread_getunique_np: one number per thread", test_unique_numbers_agree_across_askers},
    {"pthreads4w attach and detach", test_attach_detach},
    {"stackaddr, mutex kinds, concurrency", test_attr_stackaddr_and_kinds},
    {"pthread_attr_setname_np/getname_np; EINVAL, ERANGE", test_attr_name},
    {"pthread_attr_setaffinity_np/getaffinity_np; EINVAL", test_attr_affinity},
    {"sem_post_multiple; EINVAL, ERANGE", test_sem_post_multiple},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    return slimtest_run("np", cases, 60);
}
