/*
 * mutexattr.c - pthread_mutexattr_t: a plain record of the settings a mutex is
 * created with. Each setter accepts exactly what pthread_mutex_init can honour, so
 * init never meets a setting it cannot deliver:
 *   - type: DEFAULT, NORMAL, ERRORCHECK, RECURSIVE;
 *   - pshared: PRIVATE or PROCESS_SHARED (every kind, robust too: a shared
 *     mutex keeps no CRITICAL_SECTION, mutex_shared.c);
 *   - protocol: NONE only; INHERIT and PROTECT give ENOTSUP;
 *   - prioceiling: stored (SCHED_FIFO's range) though PROTECT is never in effect;
 *   - robustness: STALLED or ROBUST (a shared robust mutex outlives its owner's
 *     process too, mutex_shared.c).
 * A destroyed attribute object is poisoned so that init refuses it.
 */
#include "mutex_state.h" /* kind_is_valid, as the mutex knows it */

#define DESTROYED_KIND (-1)

static int attr_is_valid(const pthread_mutexattr_t *attr)
{
    return attr != NULL && kind_is_valid(attr->__kind);
}

int pthread_mutexattr_init(pthread_mutexattr_t *attr)
{
    if (attr == NULL)
        return EINVAL;
    attr->__kind = PTHREAD_MUTEX_DEFAULT;
    attr->__pshared = PTHREAD_PROCESS_PRIVATE;
    attr->__protocol = PTHREAD_PRIO_NONE;
    attr->__prioceiling = sched_get_priority_min(SCHED_FIFO);
    attr->__robustness = PTHREAD_MUTEX_STALLED;
    return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *attr)
{
    if (!attr_is_valid(attr))
        return EINVAL;
    attr->__kind = DESTROYED_KIND;
    return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int kind)
{
    if (!attr_is_valid(attr) || !kind_is_valid(kind))
        return EINVAL;
    attr->__kind = kind;
    return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *attr, int *kind)
{
    if (!attr_is_valid(attr) || kind == NULL)
        return EINVAL;
    *kind = attr->__kind;
    return 0;
}

int pthread_mutexattr_setpshared(pthread_mutexattr_t *attr, int pshared)
{
    int error = attr_is_valid(attr) ? slim_pshared_error(pshared) : EINVAL;

    if (error == 0)
        attr->__pshared = pshared;
    return error;
}

int pthread_mutexattr_getpshared(const pthread_mutexattr_t *attr, int *pshared)
{
    if (!attr_is_valid(attr) || pshared == NULL)
        return EINVAL;
    *pshared = attr->__pshared;
    return 0;
}

int pthread_mutexattr_setprotocol(pthread_mutexattr_t *attr, int protocol)
{
    if (!attr_is_valid(attr))
        return EINVAL;
    if (protocol == PTHREAD_PRIO_INHERIT || protocol == PTHREAD_PRIO_PROTECT)
        return ENOTSUP;
    if (protocol != PTHREAD_PRIO_NONE)
        return EINVAL;
    attr->__protocol = protocol;
    return 0;
}

int pthread_mutexattr_getprotocol(const pthread_mutexattr_t *attr, int *protocol)
{
    if (!attr_is_valid(attr) || protocol == NULL)
        return EINVAL;
    *protocol = attr->__protocol;
    return 0;
}

int pthread_mutexattr_setprioceiling(pthread_mutexattr_t *attr, int prioceiling)
{
    if (!attr_is_valid(attr) || prioceiling < sched_get_priority_min(SCHED_FIFO) ||
        prioceiling > sched_get_priority_max(SCHED_FIFO))
        return EINVAL;
    attr->__prioceiling = prioceiling;
    return 0;
}

int pthread_mutexattr_getprioceiling(const pthread_mutexattr_t *attr, int *prioceiling)
{
    if (!attr_is_valid(attr) || prioceiling == NULL)
        return EINVAL;
    *prioceiling = attr->__prioceiling;
    return 0;
}

int pthread_mutexattr_setrobust(pthread_mutexattr_t *attr, int robustness)
{
    if (!attr_is_valid(attr) ||
        (robustness != PTHREAD_MUTEX_STALLED && robustness != PTHREAD_MUTEX_ROBUST))
        return EINVAL;
    attr->__robustness = robustness;
    return 0;
}

int pthread_mutexattr_getrobust(const pthread_mutexattr_t *attr, int *robustness)
{
    if (!attr_is_valid(attr) || robustness == NULL)
        return EINVAL;
    *robustness = attr->__robustness;
    return 0;
}

#include "code_end.h"
