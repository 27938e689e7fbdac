/*
 * slimpthreads_mutex_inline.h - slimpthreads: the inline paths of a mutex's
 * lock, trylock and unlock (mutex.c, "Inline fast paths"), and the states and
 * slow calls they share with the library. Part of <pthread.h>, which includes
 * it after every declaration; kept apart so that pthread.h reads as the API it
 * is, and a reader of the inline paths finds them whole. Users need not read
 * it. Installed, never included by itself.
 */
#ifndef SLIMPTHREADS_MUTEX_INLINE_H
#define SLIMPTHREADS_MUTEX_INLINE_H

#ifndef SLIMPTHREADS_PTHREAD_H
#error "slimpthreads: slimpthreads_mutex_inline.h is part of <pthread.h>: include <pthread.h> instead"
#endif

/* The uncontended lock and unlock of a mutex of any kind but a robust one, and
 * the trylock of a DEFAULT one, inline in the caller (mutex.c, "Inline fast
 * paths"): a call into the library that only calls on into the section costs
 * a second call and return around two interlocked instructions, as much again
 * as the section's own enter and leave on some processors. Everything else
 * goes through the library's functions, out of line: a robust mutex, one not
 * yet initialized or destroyed, a busy one, a relock by the owner of a kind
 * that does not recurse, an unlock of a checked kind by a thread that does not
 * hold it, an unlock that has a sleeper to wake. The library's own copies do
 * the same, so a caller compiled without inlining (-O0, a function pointer)
 * gets the same results. Define SLIMPTHREADS_NO_INLINE before <pthread.h> to
 * call the library every time. */
#define __SLIM_MUTEX_READY_BASE 16 /* __state of a usable mutex of kind k: BASE + k (mutex.c) */
#define __SLIM_MUTEX_READY_DEFAULT (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_DEFAULT)
#define __SLIM_MUTEX_READY_RECURSIVE (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_RECURSIVE)
#define __SLIM_MUTEX_READY_ERRORCHECK (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_ERRORCHECK)
#define __SLIM_MUTEX_READY_NORMAL (__SLIM_MUTEX_READY_BASE + PTHREAD_MUTEX_NORMAL)
#define __SLIM_MUTEX_WAKE_FLAG_CLEAR 0 /* __wake_flag when no sleeper asked for a wake */

/* Exactly as <windows.h> declares them (kernel32), which may come before or
 * after: not again when it came first (-Wredundant-decls would say so). */
struct _RTL_CRITICAL_SECTION;
#if !defined(_SYNCHAPI_H_) && !defined(_WINBASE_)
__declspec(dllimport) int __stdcall TryEnterCriticalSection(struct _RTL_CRITICAL_SECTION *section);
__declspec(dllimport) void __stdcall LeaveCriticalSection(struct _RTL_CRITICAL_SECTION *section);
#endif
#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__) && \
    !defined(_PROCESSTHREADSAPI_H_) && !defined(_WINBASE_)
__declspec(dllimport) unsigned long __stdcall GetCurrentThreadId(void);
#endif

/* The library's paths past the inline ones. */
int __slim_mutex_lock_slow(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(mutex_lock_slow);
int __slim_mutex_trylock_slow(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(mutex_trylock_slow);
int __slim_mutex_unlock_slow(pthread_mutex_t *mutex) SLIMPTHREADS_ABI(mutex_unlock_slow);

#if defined(__GNUC__)
/* The helpers below (__SLIM_INLINE_HELPER, slimpthreads_abi.h) are inlined
 * into the library's functions and the inline ones alike. */

__SLIM_INLINE_HELPER struct _RTL_CRITICAL_SECTION *__slim_mutex_section(pthread_mutex_t *mutex)
{
    return (struct _RTL_CRITICAL_SECTION *)(void *)&mutex->__section;
}

/* The calling thread's Win32 id: ClientId.UniqueThread of its TEB, at an
 * offset fixed by the ABI. GetCurrentThreadId reads the same field behind an
 * import call, which costs a lock path that checks its owner 1-4 ns. Volatile:
 * read afresh at each use, since a fiber may go on on another thread after a
 * call. */
__SLIM_INLINE_HELPER unsigned long __slim_current_thread_id(void)
{
#if defined(__x86_64__)
    uintptr_t id; /* UniqueThread is pointer-sized; ids fit in 32 bits */

    __asm__ __volatile__("movq %%gs:0x48, %0" : "=r"(id));
    return (unsigned long)id;
#elif defined(__i386__)
    unsigned long id;

    __asm__ __volatile__("movl %%fs:0x24, %0" : "=r"(id));
    return id;
#elif defined(__aarch64__)
    uintptr_t id; /* the TEB is in x18 (reserved by the ABI); its layout is x86_64's */

    __asm__ __volatile__("ldr %0, [x18, #0x48]" : "=r"(id));
    return (unsigned long)id;
#else
    return GetCurrentThreadId();
#endif
}

/* The section records its owner as the owner's thread id. Another thread's
 * entry may be read racily: it equals our id only if we wrote it, and only
 * the owner writes it. */
__SLIM_INLINE_HELPER int __slim_mutex_held_by_caller(pthread_mutex_t *mutex)
{
    return __atomic_load_n(&mutex->__section.__owning_thread, __ATOMIC_RELAXED) ==
           (void *)(uintptr_t)__slim_current_thread_id();
}

__SLIM_INLINE_HELPER long __slim_mutex_state(pthread_mutex_t *mutex)
{
    return __atomic_load_n(&mutex->__state, __ATOMIC_ACQUIRE);
}

__SLIM_INLINE_HELPER int __slim_mutex_is_ready_default(pthread_mutex_t *mutex)
{
    return __slim_mutex_state(mutex) == __SLIM_MUTEX_READY_DEFAULT;
}

/* A usable mutex of one of the four kinds, not robust: one unsigned compare,
 * since their states are READY_BASE + 0 (DEFAULT) to READY_BASE + 3 (NORMAL)
 * and a robust mutex's lie above (mutex.c asserts both). */
__SLIM_INLINE_HELPER int __slim_mutex_state_is_ready_plain(long state)
{
    return (unsigned long)(state - __SLIM_MUTEX_READY_BASE) <=
           (unsigned long)(__SLIM_MUTEX_READY_NORMAL - __SLIM_MUTEX_READY_BASE);
}

/* A usable RECURSIVE, ERRORCHECK or NORMAL mutex, not robust: the kinds whose
 * lock looks at the recursion and whose unlock checks the owner. */
__SLIM_INLINE_HELPER int __slim_mutex_state_is_checked_kind(long state)
{
    return state != __SLIM_MUTEX_READY_DEFAULT && __slim_mutex_state_is_ready_plain(state);
}

/* The __builtin_expect hints below lay out the uncontended lock of every kind
 * and the uncontended unlock of DEFAULT as straight code: left to itself, GCC
 * laid out the checked kinds' tests first and jumped to DEFAULT's path.
 *
 * Nonzero once the caller holds a usable mutex, not robust, that was free, or
 * a RECURSIVE or DEFAULT one it held already (DEFAULT's relock is undefined;
 * the section just counts it). A NORMAL or ERRORCHECK one its owner locks again
 * is left at once (that only drops the count) for the library to answer. */
__SLIM_INLINE_HELPER int __slim_mutex_lock_fast(pthread_mutex_t *mutex)
{
    long state = __slim_mutex_state(mutex);

    if (!__builtin_expect(__slim_mutex_state_is_ready_plain(state), 1) ||
        !__builtin_expect(TryEnterCriticalSection(__slim_mutex_section(mutex)), 1))
        return 0;
    if (__builtin_expect(mutex->__section.__recursion_count == 1, 1) ||
        state == __SLIM_MUTEX_READY_RECURSIVE || state == __SLIM_MUTEX_READY_DEFAULT)
        return 1;
    LeaveCriticalSection(__slim_mutex_section(mutex));
    return 0;
}

/* A ready DEFAULT mutex: 0, or EBUSY when it is held (by the caller too: DEFAULT
 * does not recurse, and entering the section again only raised its count). */
__SLIM_INLINE_HELPER int __slim_mutex_trylock_default(pthread_mutex_t *mutex)
{
    if (!__builtin_expect(TryEnterCriticalSection(__slim_mutex_section(mutex)), 1))
        return EBUSY;
    if (__builtin_expect(mutex->__section.__recursion_count == 1, 1))
        return 0;
    LeaveCriticalSection(__slim_mutex_section(mutex));
    return EBUSY;
}

/* Nonzero once a locked mutex, not robust, that no sleeper waits for is left:
 * a DEFAULT one that anybody holds (DEFAULT does not check the owner), one of
 * a checked kind that the caller holds. After LeaveCriticalSection the mutex
 * is not touched: it may be freed at once. */
__SLIM_INLINE_HELPER int __slim_mutex_unlock_fast(pthread_mutex_t *mutex)
{
    long state = __slim_mutex_state(mutex);
    int may_leave = __builtin_expect(state == __SLIM_MUTEX_READY_DEFAULT, 1)
                        ? mutex->__section.__recursion_count > 0
                        : __slim_mutex_state_is_checked_kind(state) &&
                              __slim_mutex_held_by_caller(mutex);

    if (!__builtin_expect(may_leave, 1) ||
        __builtin_expect(__atomic_load_n(&mutex->__wake_flag, __ATOMIC_RELAXED) !=
                             __SLIM_MUTEX_WAKE_FLAG_CLEAR,
                         0))
        return 0;
    LeaveCriticalSection(__slim_mutex_section(mutex));
    return 1;
}

/* The three whole calls, POSIX results: the library's functions, the GNU
 * inline ones below and threads.h's mtx_* are each one of these. */
__SLIM_INLINE_HELPER int __slim_mutex_lock(pthread_mutex_t *mutex)
{
    return __slim_mutex_lock_fast(mutex) ? 0 : __slim_mutex_lock_slow(mutex);
}

__SLIM_INLINE_HELPER int __slim_mutex_trylock(pthread_mutex_t *mutex)
{
    if (__builtin_expect(__slim_mutex_is_ready_default(mutex), 1))
        return __slim_mutex_trylock_default(mutex);
    return __slim_mutex_trylock_slow(mutex);
}

__SLIM_INLINE_HELPER int __slim_mutex_unlock(pthread_mutex_t *mutex)
{
    return __slim_mutex_unlock_fast(mutex) ? 0 : __slim_mutex_unlock_slow(mutex);
}

#if !defined(SLIMPTHREADS_NO_INLINE)
/* GNU inline (__SLIM_GNU_INLINE, slimpthreads_abi.h): used only to inline. */
__SLIM_GNU_INLINE int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    return __slim_mutex_lock(mutex);
}

__SLIM_GNU_INLINE int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    return __slim_mutex_trylock(mutex);
}

__SLIM_GNU_INLINE int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    return __slim_mutex_unlock(mutex);
}
#endif /* not SLIMPTHREADS_NO_INLINE */
#endif /* __GNUC__ */

#endif /* SLIMPTHREADS_MUTEX_INLINE_H */
