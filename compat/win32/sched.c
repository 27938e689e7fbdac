/*
 * sched.c - scheduling policy, priorities and processor affinity.
 *
 * Windows has one scheduler: every policy maps onto the Windows thread priorities
 * through the table below (slim_priority_to_win32; README.md shows it). The
 * policy and priority a thread was given are remembered in its record, since
 * Windows cannot report a policy back and several POSIX priorities share one
 * Windows level; the remembered priority is reported while the thread's Windows
 * priority still matches it.
 *
 * cpu_set_t bit n is processor n of the thread's processor group (Windows
 * affinity never spans groups); processors past the group's 64 are EINVAL.
 */
#include "thread_record.h"

#define AFFINITY_BITS ((int)(sizeof(KAFFINITY) * CHAR_BIT))
#define DEFAULT_CLOCK_INTERRUPT_TICKS 156250 /* 15.625 ms in 100 ns units */

/* ---- Priority ranges ---- */

/* POSIX priorities of one policy mapped onto Windows thread priorities: each row
 * covers [lowest, highest]. SCHED_OTHER uses the Windows values themselves
 * (0 is normal, as POSIX programs pass for SCHED_OTHER); SCHED_FIFO and SCHED_RR
 * take Linux's 1..99 and run above normal, as real-time threads do on Linux. */
struct priority_row {
    int lowest, highest, win32;
};

static const struct priority_row other_priorities[] = {
    {-15, -15, THREAD_PRIORITY_IDLE},
    {-14, -2, THREAD_PRIORITY_LOWEST},
    {-1, -1, THREAD_PRIORITY_BELOW_NORMAL},
    {0, 0, THREAD_PRIORITY_NORMAL},
    {1, 1, THREAD_PRIORITY_ABOVE_NORMAL},
    {2, 14, THREAD_PRIORITY_HIGHEST},
    {15, 15, THREAD_PRIORITY_TIME_CRITICAL},
};

static const struct priority_row realtime_priorities[] = {
    {1, 33, THREAD_PRIORITY_ABOVE_NORMAL},
    {34, 66, THREAD_PRIORITY_HIGHEST},
    {67, 99, THREAD_PRIORITY_TIME_CRITICAL},
};

#define ROWS(table) (sizeof(table) / sizeof((table)[0]))

/* The rows of policy, or NULL for an unknown policy. */
static const struct priority_row *priority_rows(int policy, size_t *count)
{
    switch (policy) {
    case SCHED_OTHER:
        *count = ROWS(other_priorities);
        return other_priorities;
    case SCHED_FIFO:
    case SCHED_RR:
        *count = ROWS(realtime_priorities);
        return realtime_priorities;
    default:
        return NULL;
    }
}

int sched_get_priority_min(int policy)
{
    size_t count;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL)
        return slim_fail(EINVAL);
    return rows[0].lowest;
}

int sched_get_priority_max(int policy)
{
    size_t count;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL)
        return slim_fail(EINVAL);
    return rows[count - 1].highest;
}

int slim_priority_to_win32(int policy, int priority, int *win32_priority)
{
    size_t count, row;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL)
        return EINVAL;
    for (row = 0; row < count; row++) {
        if (priority >= rows[row].lowest && priority <= rows[row].highest) {
            *win32_priority = rows[row].win32;
            return 0;
        }
    }
    return EINVAL;
}

/* The row holding the Windows priority, or the nearest one above it; its own
 * value when the row holds it (SCHED_OTHER), else its lowest priority. */
int slim_priority_from_win32(int policy, int win32_priority)
{
    size_t count, row;
    const struct priority_row *rows = priority_rows(policy, &count);

    if (rows == NULL)
        return 0;
    for (row = 0; row + 1 < count && rows[row].win32 < win32_priority; row++)
        continue;
    if (win32_priority >= rows[row].lowest && win32_priority <= rows[row].highest)
        return win32_priority;
    return rows[row].lowest;
}

/* ---- Scheduling parameters ---- */

static HANDLE thread_handle(pthread_t thread)
{
    struct slim_thread *record = slim_thread_checked(thread);

    return record == NULL ? NULL : record->handle;
}

int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
{
    struct slim_thread *record = slim_thread_checked(thread);
    int win32_priority;

    if (record == NULL)
        return ESRCH;
    if (param == NULL || slim_priority_to_win32(policy, param->sched_priority, &win32_priority) != 0)
        return EINVAL;
    if (!SetThreadPriority(record->handle, win32_priority))
        return slim_errno_from_win32(GetLastError());
    record->sched_policy = policy;
    record->sched_priority = param->sched_priority;
    return 0;
}

int pthread_getschedparam(pthread_t thread, int *policy, struct sched_param *param)
{
    struct slim_thread *record = slim_thread_checked(thread);
    int win32_priority, remembered;

    if (record == NULL)
        return ESRCH;
    if (policy == NULL || param == NULL)
        return EINVAL;
    win32_priority = GetThreadPriority(record->handle);
    if (win32_priority == THREAD_PRIORITY_ERROR_RETURN)
        return slim_errno_from_win32(GetLastError());
    *policy = record->sched_policy;
    if (slim_priority_to_win32(record->sched_policy, record->sched_priority, &remembered) == 0 &&
        remembered == win32_priority)
        param->sched_priority = record->sched_priority;
    else
        param->sched_priority = slim_priority_from_win32(record->sched_policy, win32_priority);
    return 0;
}

int pthread_setschedprio(pthread_t thread, int priority)
{
    struct slim_thread *record = slim_thread_checked(thread);
    struct sched_param param;

    if (record == NULL)
        return ESRCH;
    param.sched_priority = priority;
    return pthread_setschedparam(thread, record->sched_policy, &param);
}

/* ---- Process-level calls: Linux applies them to one thread; pid 0 is the caller. ---- */

static int names_calling_thread(pid_t pid)
{
    return pid == 0;
}

int sched_getscheduler(pid_t pid)
{
    if (pid < 0)
        return slim_fail(EINVAL);
    if (!names_calling_thread(pid))
        return slim_fail(ESRCH);
    return slim_self()->sched_policy;
}

int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
    int error;

    if (pid < 0)
        return slim_fail(EINVAL);
    if (!names_calling_thread(pid))
        return slim_fail(ESRCH);
    error = pthread_setschedparam(pthread_self(), policy, param);
    return error == 0 ? 0 : slim_fail(error);
}

int sched_getparam(pid_t pid, struct sched_param *param)
{
    int policy, error;

    if (pid < 0 || param == NULL)
        return slim_fail(EINVAL);
    if (!names_calling_thread(pid))
        return slim_fail(ESRCH);
    error = pthread_getschedparam(pthread_self(), &policy, param);
    return error == 0 ? 0 : slim_fail(error);
}

int sched_setparam(pid_t pid, const struct sched_param *param)
{
    if (pid < 0 || param == NULL)
        return slim_fail(EINVAL);
    if (!names_calling_thread(pid))
        return slim_fail(ESRCH);
    return sched_setscheduler(pid, slim_self()->sched_policy, param);
}

int sched_rr_get_interval(pid_t pid, struct timespec *interval)
{
    DWORD adjustment, increment;
    BOOL disabled;

    if (pid < 0 || interval == NULL)
        return slim_fail(EINVAL);
    if (!names_calling_thread(pid))
        return slim_fail(ESRCH);
    /* The clock interrupt period in 100 ns units; a quantum is a few of them,
     * but the period is what Windows lets us read. */
    if (!GetSystemTimeAdjustment(&adjustment, &increment, &disabled) || increment == 0)
        increment = DEFAULT_CLOCK_INTERRUPT_TICKS;
    interval->tv_sec = 0;
    interval->tv_nsec = (long)increment * 100L;
    return 0;
}

int sched_getcpu(void)
{
    return (int)GetCurrentProcessorNumber();
}

/* ---- CPU sets ---- */

int __slim_cpu_count(const cpu_set_t *set)
{
    int count = 0;

    for (size_t i = 0; i < sizeof set->__bits / sizeof set->__bits[0]; i++)
        count += __builtin_popcountll(set->__bits[i]);
    return count;
}

enum cpu_set_operation { CPU_SET_AND = 0, CPU_SET_OR = 1, CPU_SET_XOR = 2 };

void __slim_cpu_combine(cpu_set_t *dst, const cpu_set_t *a, const cpu_set_t *b, int operation)
{
    for (size_t i = 0; i < sizeof dst->__bits / sizeof dst->__bits[0]; i++) {
        unsigned long long x = a->__bits[i], y = b->__bits[i];

        dst->__bits[i] = operation == CPU_SET_AND ? (x & y) : operation == CPU_SET_OR ? (x | y)
                                                                                      : (x ^ y);
    }
}

/* The group-relative affinity mask of a set; EINVAL for processors Windows cannot
 * put in one mask or for an empty set. */
static int affinity_from_cpu_set(size_t size, const cpu_set_t *set, KAFFINITY *mask)
{
    const unsigned char *bytes = (const unsigned char *)set;

    *mask = 0;
    for (size_t cpu = 0; cpu < size * CHAR_BIT; cpu++) {
        if (!(bytes[cpu / CHAR_BIT] & (1u << (cpu % CHAR_BIT))))
            continue;
        if (cpu >= (size_t)AFFINITY_BITS)
            return EINVAL;
        *mask |= (KAFFINITY)1 << cpu;
    }
    return *mask == 0 ? EINVAL : 0;
}

static void cpu_set_from_affinity(KAFFINITY mask, size_t size, cpu_set_t *set)
{
    unsigned char *bytes = (unsigned char *)set;

    memset(set, 0, size);
    for (size_t cpu = 0; cpu < (size_t)AFFINITY_BITS && cpu < size * CHAR_BIT; cpu++)
        if (mask & ((KAFFINITY)1 << cpu))
            bytes[cpu / CHAR_BIT] |= (unsigned char)(1u << (cpu % CHAR_BIT));
}

static int set_thread_affinity(HANDLE handle, size_t size, const cpu_set_t *set)
{
    GROUP_AFFINITY current, wanted;
    int error;

    if (set == NULL || size == 0)
        return EINVAL;
    if (!GetThreadGroupAffinity(handle, &current))
        return slim_errno_from_win32(GetLastError());
    error = affinity_from_cpu_set(size, set, &wanted.Mask);
    if (error != 0)
        return error;
    memset(wanted.Reserved, 0, sizeof wanted.Reserved);
    wanted.Group = current.Group;
    if (!SetThreadGroupAffinity(handle, &wanted, NULL))
        return slim_errno_from_win32(GetLastError());
    return 0;
}

static int get_thread_affinity(HANDLE handle, size_t size, cpu_set_t *set)
{
    GROUP_AFFINITY current;

    if (set == NULL || size < sizeof(KAFFINITY))
        return EINVAL;
    if (!GetThreadGroupAffinity(handle, &current))
        return slim_errno_from_win32(GetLastError());
    cpu_set_from_affinity(current.Mask, size, set);
    return 0;
}

int pthread_setaffinity_np(pthread_t thread, size_t cpusetsize, const cpu_set_t *set)
{
    HANDLE handle = thread_handle(thread);

    return handle == NULL ? ESRCH : set_thread_affinity(handle, cpusetsize, set);
}

int pthread_getaffinity_np(pthread_t thread, size_t cpusetsize, cpu_set_t *set)
{
    HANDLE handle = thread_handle(thread);

    return handle == NULL ? ESRCH : get_thread_affinity(handle, cpusetsize, set);
}

int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *set)
{
    int error;

    if (!names_calling_thread(pid))
        return slim_fail(pid < 0 ? EINVAL : ESRCH);
    error = set_thread_affinity(GetCurrentThread(), cpusetsize, set);
    return error == 0 ? 0 : slim_fail(error);
}

int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *set)
{
    int error;

    if (!names_calling_thread(pid))
        return slim_fail(pid < 0 ? EINVAL : ESRCH);
    error = get_thread_affinity(GetCurrentThread(), cpusetsize, set);
    return error == 0 ? 0 : slim_fail(error);
}

#include "code_end.h"
