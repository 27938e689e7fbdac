/*
 * np.c - the non-portable extensions of winpthreads and pthreads4w, so that
 * programs written against either build unchanged (x264 calls
 * pthread_num_processors_np, for one).
 *
 * Each maps onto a public function of ours or onto the thread record: nothing
 * here waits by itself (pthread_delay_np is nanosleep, a cancellation point;
 * the relative condvar wait is pthread_cond_clockwait on CLOCK_MONOTONIC).
 * pthread_attr_setname_np and setaffinity_np store into the attribute;
 * pthread_create hands the suspended thread to slim_attr_apply_np.
 * State of its own: a processor count set by pthread_set_num_processors_np
 * (0: not set) and the counter behind pthread_getunique_np, whose number a
 * thread receives the first time somebody asks (one compare-and-swap, so two
 * askers agree). The extensions Windows cannot honour are listed in README.md.
 */
#include "wait.h"
#include "thread_record.h"

static volatile long processors_set_by_program; /* 0: count the process's affinity */
static volatile LONGLONG last_unique_number;

static int timespec_is_valid(const struct timespec *interval)
{
    return interval != NULL && interval->tv_sec >= 0 && interval->tv_nsec >= 0 &&
           interval->tv_nsec < SLIM_NANOSECONDS_PER_SECOND;
}

/* ---- Processors ---- */

int pthread_num_processors_np(void)
{
    DWORD_PTR process_mask, system_mask;
    long set = slim_load_relaxed(&processors_set_by_program);
    int count = 0;

    if (set > 0)
        return (int)set;
    if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask))
        return 1;
    for (; process_mask != 0; process_mask &= process_mask - 1)
        count++;
    return count > 0 ? count : 1;
}

int pthread_set_num_processors_np(int count)
{
    if (count < 1)
        return EINVAL;
    slim_store_release(&processors_set_by_program, count);
    return 0;
}

/* ---- Sleeps and relative waits ---- */

int pthread_delay_np(const struct timespec *interval)
{
    if (!timespec_is_valid(interval))
        return EINVAL;
    return nanosleep(interval, NULL) == 0 ? 0 : errno;
}

struct timespec *pthread_win32_getabstime_np(struct timespec *abstime,
                                             const struct timespec *relative)
{
    struct timespec now;

    if (abstime == NULL || !timespec_is_valid(relative))
        return NULL;
    clock_gettime(CLOCK_REALTIME, &now);
    slim_timespec_add(&now, relative);
    *abstime = now;
    return abstime;
}

int pthread_cond_timedwait_relative_np(pthread_cond_t *cond, pthread_mutex_t *mutex,
                                       const struct timespec *relative)
{
    struct timespec deadline;

    if (!timespec_is_valid(relative))
        return EINVAL;
    /* The monotonic clock: a change of the wall clock must not stretch the wait. */
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    slim_timespec_add(&deadline, relative);
    return pthread_cond_clockwait(cond, mutex, CLOCK_MONOTONIC, &deadline);
}

/* ---- The Win32 thread behind a pthread_t ---- */

void *pthread_getw32threadhandle_np(pthread_t thread)
{
    struct slim_thread *record = slim_thread_checked(thread);

    /* Threads we did not create carry a duplicate of their own handle too. */
    return record == NULL ? NULL : record->handle;
}

void *pthread_gethandle(pthread_t thread)
{
    return pthread_getw32threadhandle_np(thread);
}

unsigned long pthread_getw32threadid_np(pthread_t thread)
{
    struct slim_thread *record = slim_thread_checked(thread);

    return record == NULL ? 0 : record->id;
}

uint64_t pthread_getunique_np(pthread_t thread)
{
    struct slim_thread *record = slim_thread_checked(thread);
    LONGLONG number, fresh;

    if (record == NULL)
        return 0;
    number = InterlockedCompareExchange64(&record->unique_number, 0, 0);
    if (number != 0)
        return (uint64_t)number;
    fresh = InterlockedIncrement64(&last_unique_number);
    number = InterlockedCompareExchange64(&record->unique_number, fresh, 0);
    return (uint64_t)(number == 0 ? fresh : number);
}

/* pthreads4w's explicit attach and detach: our records attach on first use and
 * detach in the thread-exit hook, so there is nothing left to do; TRUE. */
int pthread_win32_process_attach_np(void)
{
    return 1;
}

int pthread_win32_process_detach_np(void)
{
    return 1;
}

int pthread_win32_thread_attach_np(void)
{
    return 1;
}

int pthread_win32_thread_detach_np(void)
{
    return 1;
}

/* ---- Attributes under their older names ---- */

int pthread_attr_setstackaddr(pthread_attr_t *attr, void *address)
{
    if (attr == NULL)
        return EINVAL;
    (void)address;
    return ENOTSUP; /* as pthread_attr_setstack: Windows runs no thread on a caller's stack */
}

int pthread_attr_getstackaddr(const pthread_attr_t *attr, void **address)
{
    if (attr == NULL || address == NULL)
        return EINVAL;
    *address = attr->__stack_address;
    return 0;
}

/* ---- A new thread's name and processors, from its attribute ---- */

/* pthreads4w 3 takes the NetBSD form: name is a format with one argument. Only
 * "%s" (arg as a string) and "%%" are honoured; anything else is EINVAL rather
 * than a printf of an unchecked format. ERANGE past 15 bytes, as setname_np. */
int pthread_attr_setname_np(pthread_attr_t *attr, const char *name, void *arg)
{
    char formatted[sizeof attr->__name];
    size_t length = 0;

    if (attr == NULL || name == NULL)
        return EINVAL;
    for (const char *from = name; *from != '\0'; from++) {
        const char *piece = from;
        size_t piece_length = 1;
        if (*from == '%') {
            from++;
            if (*from == 's' && arg != NULL) {
                piece = arg;
                piece_length = strlen(piece);
            } else if (*from != '%') {
                return EINVAL;
            }
        }
        if (length + piece_length >= sizeof formatted)
            return ERANGE;
        memcpy(formatted + length, piece, piece_length);
        length += piece_length;
    }
    formatted[length] = '\0';
    memcpy(attr->__name, formatted, length + 1);
    return 0;
}

int pthread_attr_getname_np(pthread_attr_t *attr, char *name, int size)
{
    size_t length;

    if (attr == NULL || name == NULL || size <= 0)
        return EINVAL;
    length = strlen(attr->__name);
    if (length >= (size_t)size)
        return ERANGE;
    memcpy(name, attr->__name, length + 1);
    return 0;
}

/* Nonzero when bytes of set past our cpu_set_t name a processor. */
static int names_processors_past_our_set(size_t cpusetsize, const cpu_set_t *set)
{
    const unsigned char *bytes = (const unsigned char *)set;

    for (size_t at = sizeof(cpu_set_t); at < cpusetsize; at++)
        if (bytes[at] != 0)
            return 1;
    return 0;
}

/* As glibc: a NULL set or size 0 gives the thread no affinity of its own. The
 * set is checked against the processors when the thread is created. */
int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t cpusetsize, const cpu_set_t *set)
{
    if (attr == NULL)
        return EINVAL;
    if (set == NULL || cpusetsize == 0) {
        attr->__affinity_set = 0;
        CPU_ZERO(&attr->__affinity);
        return 0;
    }
    if (names_processors_past_our_set(cpusetsize, set))
        return EINVAL;
    CPU_ZERO(&attr->__affinity);
    memcpy(&attr->__affinity, set, cpusetsize < sizeof(cpu_set_t) ? cpusetsize : sizeof(cpu_set_t));
    attr->__affinity_set = 1;
    return 0;
}

/* As glibc: without an affinity of its own, every processor. */
int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t cpusetsize, cpu_set_t *set)
{
    size_t kept = cpusetsize < sizeof(cpu_set_t) ? cpusetsize : sizeof(cpu_set_t);

    if (attr == NULL || set == NULL)
        return EINVAL;
    if (!attr->__affinity_set) {
        memset(set, 0xff, cpusetsize);
        return 0;
    }
    for (size_t at = kept; at < sizeof(cpu_set_t); at++)
        if (((const unsigned char *)&attr->__affinity)[at] != 0)
            return EINVAL; /* the caller's set is too small for what is stored */
    memset(set, 0, cpusetsize);
    memcpy(set, &attr->__affinity, kept);
    return 0;
}

int slim_attr_apply_np(const pthread_attr_t *attr, pthread_t thread)
{
    int error = 0;

    if (attr->__name[0] != '\0')
        error = pthread_setname_np(thread, attr->__name);
    if (error == 0 && attr->__affinity_set)
        error = pthread_setaffinity_np(thread, sizeof(cpu_set_t), &attr->__affinity);
    return error;
}

int pthread_mutexattr_setkind_np(pthread_mutexattr_t *attr, int kind)
{
    return pthread_mutexattr_settype(attr, kind);
}

int pthread_mutexattr_getkind_np(const pthread_mutexattr_t *attr, int *kind)
{
    return pthread_mutexattr_gettype(attr, kind);
}

int pthread_get_concurrency(int *level)
{
    if (level == NULL)
        return EINVAL;
    *level = pthread_getconcurrency();
    return 0;
}

int pthread_set_concurrency(int level)
{
    return pthread_setconcurrency(level);
}

/* ---- Semaphores ---- */

int sem_post_multiple(sem_t *sem, int count)
{
    int value;

    if (count <= 0 || sem_getvalue(sem, &value) != 0)
        return slim_fail(EINVAL);
    /* Checked before the first post: a concurrent post can still overflow it,
     * and then the posts made so far stay (README.md). */
    if (value > SEM_VALUE_MAX - count)
        return slim_fail(ERANGE);
    for (int posted = 0; posted < count; posted++)
        if (sem_post(sem) != 0)
            return -1;
    return 0;
}

#include "code_end.h"
