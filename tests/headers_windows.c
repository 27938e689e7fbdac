/*
 * headers_windows.c - our <pthread.h> and <threads.h> next to <windows.h>, in
 * either order (HEADERS_ORDER 0: <windows.h> first), with the inline mutex
 * paths in use: pthread.h declares TryEnterCriticalSection and
 * LeaveCriticalSection as <windows.h> does, and must not declare them twice.
 */
#if HEADERS_ORDER == 0
#include <windows.h>
#endif
#include <pthread.h>
#include <threads.h>
#if HEADERS_ORDER == 1
#include <windows.h>
#endif

int lock_and_unlock_both(pthread_mutex_t *mutex, mtx_t *mtx);

int lock_and_unlock_both(pthread_mutex_t *mutex, mtx_t *mtx)
{
    CRITICAL_SECTION *section = (CRITICAL_SECTION *)(void *)&mutex->__section;

    if (pthread_mutex_lock(mutex) != 0 || pthread_mutex_unlock(mutex) != 0)
        return 1;
    if (pthread_mutex_trylock(mutex) == 0 && pthread_mutex_unlock(mutex) != 0)
        return 1;
    if (mtx_lock(mtx) != thrd_success || mtx_unlock(mtx) != thrd_success)
        return 1;
    return TryEnterCriticalSection(section) ? (LeaveCriticalSection(section), 0) : 1;
}
