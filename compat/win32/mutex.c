/*
 * mutex.c - pthread_mutex_t on an embedded CRITICAL_SECTION.
 *
 * States of __state: UNINITIALIZED (0: PTHREAD_MUTEX_INITIALIZER or zero-filled),
 * INITIALIZING (one thread won the CAS and is setting up the section), READY_<kind>
 * (usable; the kind is folded into the state so the fast path is one load and one
 * compare), DESTROYED (a later lock gives EINVAL). The CRITICAL_SECTION supplies the
 * owner and the recursion count; the kinds are built on those: a non-recursive kind
 * that finds RecursionCount > 1 right after entering knows the caller already held it.
 */
#include "internal.h"

#include <stddef.h>

/* The public mirror must be the real thing, on 32- and 64-bit alike. */
SLIM_STATIC_ASSERT(sizeof(struct __slim_critical_section) == sizeof(CRITICAL_SECTION),
                   "CRITICAL_SECTION mirror size");
SLIM_STATIC_ASSERT(_Alignof(struct __slim_critical_section) == _Alignof(CRITICAL_SECTION),
                   "CRITICAL_SECTION mirror alignment");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __debug_info) ==
                       offsetof(CRITICAL_SECTION, DebugInfo), "DebugInfo offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __lock_count) ==
                       offsetof(CRITICAL_SECTION, LockCount), "LockCount offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __recursion_count) ==
                       offsetof(CRITICAL_SECTION, RecursionCount), "RecursionCount offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __owning_thread) ==
                       offsetof(CRITICAL_SECTION, OwningThread), "OwningThread offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __lock_semaphore) ==
                       offsetof(CRITICAL_SECTION, LockSemaphore), "LockSemaphore offset");
SLIM_STATIC_ASSERT(offsetof(struct __slim_critical_section, __spin_count) ==
                       offsetof(CRITICAL_SECTION, SpinCount), "SpinCount offset");

enum {
    MUTEX_UNINITIALIZED = 0,
    MUTEX_INITIALIZING = 1,
    MUTEX_DESTROYED = 2,
    MUTEX_READY_BASE = 16 /* READY for kind k is MUTEX_READY_BASE + k */
};

#define MUTEX_READY_DEFAULT (MUTEX_READY_BASE + PTHREAD_MUTEX_DEFAULT)

/* Spin iterations of EnterCriticalSection before it sleeps. */
#define MUTEX_SPIN_COUNT 0

static inline CRITICAL_SECTION *section_of(pthread_mutex_t *mutex)
{
    return (CRITICAL_SECTION *)&mutex->__section;
}

static inline long ready_state(int kind)
{
    return MUTEX_READY_BASE + kind;
}

static inline int kind_is_valid(int kind)
{
    return kind == PTHREAD_MUTEX_DEFAULT || kind == PTHREAD_MUTEX_NORMAL ||
           kind == PTHREAD_MUTEX_ERRORCHECK || kind == PTHREAD_MUTEX_RECURSIVE;
}

static void init_section(pthread_mutex_t *mutex)
{
    /* No debug info: nothing is allocated, so init cannot fail and destroy frees nothing. */
    InitializeCriticalSectionEx(section_of(mutex), MUTEX_SPIN_COUNT,
                                CRITICAL_SECTION_NO_DEBUG_INFO);
}

/* Brings a statically initialized mutex to READY exactly once, however many threads
 * race on its first use. Returns the READY state, or EINVAL-worthy states as they are. */
static long __attribute__((noinline)) settle_state(pthread_mutex_t *mutex)
{
    for (;;) {
        long state = slim_load_acquire(&mutex->__state);

        if (state == MUTEX_UNINITIALIZED) {
            int kind = mutex->__kind;

            if (!kind_is_valid(kind))
                return MUTEX_DESTROYED;
            if (!slim_cas(&mutex->__state, MUTEX_UNINITIALIZED, MUTEX_INITIALIZING))
                continue;
            init_section(mutex);
            slim_store_release(&mutex->__state, ready_state(kind));
            slim_wake_all(&mutex->__state);
            return ready_state(kind);
        }
        if (state != MUTEX_INITIALIZING)
            return state;
        slim_wait_on(&mutex->__state, MUTEX_INITIALIZING, NULL);
    }
}

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    int kind = attr ? attr->__kind : PTHREAD_MUTEX_DEFAULT;

    if (mutex == NULL || !kind_is_valid(kind))
        return EINVAL;
    mutex->__kind = kind;
    mutex->__robustness = PTHREAD_MUTEX_STALLED;
    mutex->__timed_waiters = 0;
    mutex->__unlock_events = 0;
    mutex->__robust_owner = NULL;
    init_section(mutex);
    slim_store_release(&mutex->__state, ready_state(kind));
    return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);
    CRITICAL_SECTION *section = section_of(mutex);

    if (state == MUTEX_UNINITIALIZED) {
        if (!slim_cas(&mutex->__state, MUTEX_UNINITIALIZED, MUTEX_DESTROYED))
            return EBUSY; /* another thread is using it right now */
        return 0;
    }
    if (state < MUTEX_READY_BASE)
        return state == MUTEX_INITIALIZING ? EBUSY : EINVAL;
    if (slim_load_acquire(&mutex->__timed_waiters) != 0 || !TryEnterCriticalSection(section))
        return EBUSY;
    if (section->RecursionCount > 1) { /* the caller holds it */
        LeaveCriticalSection(section);
        return EBUSY;
    }
    slim_store_release(&mutex->__state, MUTEX_DESTROYED);
    LeaveCriticalSection(section);
    DeleteCriticalSection(section);
    return 0;
}

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);
    CRITICAL_SECTION *section = section_of(mutex);

    if (state != MUTEX_READY_DEFAULT) {
        state = settle_state(mutex);
        if (state < MUTEX_READY_BASE)
            return EINVAL;
    }
    EnterCriticalSection(section);
    return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);
    CRITICAL_SECTION *section = section_of(mutex);

    if (state != MUTEX_READY_DEFAULT) {
        state = settle_state(mutex);
        if (state < MUTEX_READY_BASE)
            return EINVAL;
    }
    if (!TryEnterCriticalSection(section))
        return EBUSY;
    /* A CRITICAL_SECTION lets its owner in again; a non-recursive mutex must not. */
    if (section->RecursionCount > 1 && state != ready_state(PTHREAD_MUTEX_RECURSIVE)) {
        LeaveCriticalSection(section);
        return EBUSY;
    }
    return 0;
}

int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    long state = slim_load_acquire(&mutex->__state);

    if (state < MUTEX_READY_BASE)
        return EINVAL;
    LeaveCriticalSection(section_of(mutex));
    return 0;
}
