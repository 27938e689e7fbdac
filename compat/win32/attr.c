/*
 * attr.c - thread attributes, and pthread_getattr_np which reports a thread's.
 *
 * A pthread_attr_t is plain data read by pthread_create: detach state, stack
 * reservation (passed to _beginthreadex), a guard size (stored and reported:
 * Windows places its own guard page), scheduling (applied as a Windows thread
 * priority, see the table in sched.c). Defaults are glibc's: joinable, inherited
 * scheduling, SCHED_OTHER, system scope, one page of guard, and the stack size
 * the executable's header asks for.
 *
 * What Windows cannot do is refused, not ignored: a thread cannot run on a stack
 * the caller provides (pthread_attr_setstack: ENOTSUP), and every thread
 * competes system-wide (PTHREAD_SCOPE_PROCESS: ENOTSUP).
 */
#include "thread_record.h"

static size_t page_size(void)
{
    SYSTEM_INFO system;

    GetSystemInfo(&system);
    return system.dwPageSize;
}

/* The stack reservation a thread gets when nobody asks for a size. */
static size_t default_stack_size(void)
{
    const BYTE *image = (const BYTE *)GetModuleHandleW(NULL);
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)image;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(image + dos->e_lfanew);

    return (size_t)nt->OptionalHeader.SizeOfStackReserve;
}

int pthread_attr_init(pthread_attr_t *attr)
{
    if (attr == NULL)
        return EINVAL;
    attr->__detach_state = PTHREAD_CREATE_JOINABLE;
    attr->__inherit_sched = PTHREAD_INHERIT_SCHED;
    attr->__sched_policy = SCHED_OTHER;
    attr->__scope = PTHREAD_SCOPE_SYSTEM;
    attr->__sched_param.sched_priority = 0;
    attr->__stack_size = 0;
    attr->__guard_size = page_size();
    attr->__stack_address = NULL;
    attr->__name[0] = '\0';
    attr->__affinity_set = 0;
    CPU_ZERO(&attr->__affinity);
    return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr)
{
    return attr == NULL ? EINVAL : 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *attr, int state)
{
    if (attr == NULL || (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED))
        return EINVAL;
    attr->__detach_state = state;
    return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state)
{
    if (attr == NULL || state == NULL)
        return EINVAL;
    *state = attr->__detach_state;
    return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size)
{
    /* _beginthreadex takes the size as an unsigned. */
    if (attr == NULL || size < PTHREAD_STACK_MIN || size > UINT_MAX)
        return EINVAL;
    attr->__stack_size = size;
    return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *attr, size_t *size)
{
    if (attr == NULL || size == NULL)
        return EINVAL;
    *size = attr->__stack_size != 0 ? attr->__stack_size : default_stack_size();
    return 0;
}

int pthread_attr_setguardsize(pthread_attr_t *attr, size_t size)
{
    if (attr == NULL)
        return EINVAL;
    attr->__guard_size = size;
    return 0;
}

int pthread_attr_getguardsize(const pthread_attr_t *attr, size_t *size)
{
    if (attr == NULL || size == NULL)
        return EINVAL;
    *size = attr->__guard_size;
    return 0;
}

/* Windows always allocates a new thread's stack itself: a program that needs
 * its thread on its own memory must learn so here, not find out later. */
int pthread_attr_setstack(pthread_attr_t *attr, void *address, size_t size)
{
    (void)address;
    if (attr == NULL || size < PTHREAD_STACK_MIN)
        return EINVAL;
    return ENOTSUP;
}

int pthread_attr_getstack(const pthread_attr_t *attr, void **address, size_t *size)
{
    if (attr == NULL || address == NULL || size == NULL)
        return EINVAL;
    *address = attr->__stack_address;
    return pthread_attr_getstacksize(attr, size);
}

int pthread_attr_setscope(pthread_attr_t *attr, int scope)
{
    if (attr == NULL)
        return EINVAL;
    if (scope == PTHREAD_SCOPE_PROCESS)
        return ENOTSUP;
    if (scope != PTHREAD_SCOPE_SYSTEM)
        return EINVAL;
    attr->__scope = scope;
    return 0;
}

int pthread_attr_getscope(const pthread_attr_t *attr, int *scope)
{
    if (attr == NULL || scope == NULL)
        return EINVAL;
    *scope = attr->__scope;
    return 0;
}

int pthread_attr_setinheritsched(pthread_attr_t *attr, int inherit)
{
    if (attr == NULL || (inherit != PTHREAD_INHERIT_SCHED && inherit != PTHREAD_EXPLICIT_SCHED))
        return EINVAL;
    attr->__inherit_sched = inherit;
    return 0;
}

int pthread_attr_getinheritsched(const pthread_attr_t *attr, int *inherit)
{
    if (attr == NULL || inherit == NULL)
        return EINVAL;
    *inherit = attr->__inherit_sched;
    return 0;
}

int pthread_attr_setschedpolicy(pthread_attr_t *attr, int policy)
{
    if (attr == NULL || (policy != SCHED_OTHER && policy != SCHED_FIFO && policy != SCHED_RR))
        return EINVAL;
    attr->__sched_policy = policy;
    return 0;
}

int pthread_attr_getschedpolicy(const pthread_attr_t *attr, int *policy)
{
    if (attr == NULL || policy == NULL)
        return EINVAL;
    *policy = attr->__sched_policy;
    return 0;
}

/* The priority must fit the policy already set, as in glibc. */
int pthread_attr_setschedparam(pthread_attr_t *attr, const struct sched_param *param)
{
    int win32_priority;

    if (attr == NULL || param == NULL ||
        slim_priority_to_win32(attr->__sched_policy, param->sched_priority, &win32_priority) != 0)
        return EINVAL;
    attr->__sched_param = *param;
    return 0;
}

int pthread_attr_getschedparam(const pthread_attr_t *attr, struct sched_param *param)
{
    if (attr == NULL || param == NULL)
        return EINVAL;
    *param = attr->__sched_param;
    return 0;
}

/* A thread's attributes as they stand: its stack as the thread found it (or the
 * size it was asked for, if it has not run yet), its priority as Windows has it. */
int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
    struct slim_thread *target = slim_thread_checked(thread);
    ULONG_PTR low, high;
    int priority;

    if (target == NULL)
        return ESRCH;
    if (attr == NULL)
        return EINVAL;
    pthread_attr_init(attr);
    if (slim_join_state(target) == SLIM_THREAD_DETACHED)
        attr->__detach_state = PTHREAD_CREATE_DETACHED;
    if (target == slim_self_if_known()) {
        GetCurrentThreadStackLimits(&low, &high);
        attr->__stack_address = (void *)low;
        attr->__stack_size = (size_t)(high - low);
    } else { /* the address first: the thread writes it last (thread.c) */
        attr->__stack_address = slim_pointer_load_acquire(&target->stack_low);
        attr->__stack_size = target->stack_size;
    }
    attr->__guard_size = target->guard_size;
    attr->__inherit_sched = target->inherit_sched;
    attr->__sched_policy = target->sched_policy;
    priority = GetThreadPriority(target->handle);
    if (priority != THREAD_PRIORITY_ERROR_RETURN)
        attr->__sched_param.sched_priority = slim_priority_from_win32(target->sched_policy, priority);
    return 0;
}

#include "code_end.h"
