/*
 * check_calls.h - the public calls the checked build checks, listed once.
 *
 * Each is defined under its own name in its primitive's file, between the
 * hooks of check.h (which says why this is a list and not a generator).
 * tests/shell/check_calls.sh reads this table: every name must be defined in
 * compat/win32, and the checked library's function of that name must call
 * the checker. A call added to a primitive's hooks is added here.
 *
 * SLIM_CHECKED_CALLS(CALL) expands CALL(file, name) for each, file being the
 * primitive's source file without ".c".
 */
#ifndef SLIMPTHREADS_CHECK_CALLS_H
#define SLIMPTHREADS_CHECK_CALLS_H

#define SLIM_CHECKED_CALLS(CALL)              \
    CALL(mutex, pthread_mutex_init)           \
    CALL(mutex, pthread_mutex_destroy)        \
    CALL(mutex, pthread_mutex_lock)           \
    CALL(mutex, pthread_mutex_clocklock)      \
    CALL(mutex, pthread_mutex_timedlock)      \
    CALL(mutex, pthread_mutex_trylock)        \
    CALL(mutex, pthread_mutex_unlock)         \
    CALL(rwlock, pthread_rwlock_init)         \
    CALL(rwlock, pthread_rwlock_destroy)      \
    CALL(rwlock, pthread_rwlock_rdlock)       \
    CALL(rwlock, pthread_rwlock_tryrdlock)    \
    CALL(rwlock, pthread_rwlock_clockrdlock)  \
    CALL(rwlock, pthread_rwlock_timedrdlock)  \
    CALL(rwlock, pthread_rwlock_wrlock)       \
    CALL(rwlock, pthread_rwlock_trywrlock)    \
    CALL(rwlock, pthread_rwlock_clockwrlock)  \
    CALL(rwlock, pthread_rwlock_timedwrlock)  \
    CALL(rwlock, pthread_rwlock_unlock)       \
    CALL(cond, pthread_cond_wait)             \
    CALL(cond, pthread_cond_timedwait)        \
    CALL(cond, pthread_cond_clockwait)        \
    CALL(cond, pthread_cond_signal)           \
    CALL(cond, pthread_cond_broadcast)        \
    CALL(cond, pthread_cond_destroy)          \
    CALL(barrier, pthread_barrier_wait)       \
    CALL(barrier, pthread_barrier_destroy)    \
    CALL(spin, pthread_spin_destroy)          \
    CALL(spin, pthread_spin_lock)             \
    CALL(spin, pthread_spin_trylock)          \
    CALL(spin, pthread_spin_unlock)           \
    CALL(sem, sem_destroy)                    \
    CALL(sem, sem_trywait)                    \
    CALL(sem, sem_wait)                       \
    CALL(sem, sem_clockwait)                  \
    CALL(sem, sem_timedwait)                  \
    CALL(sem, sem_post)                       \
    CALL(sem, sem_getvalue)                   \
    CALL(c11_threads, mtx_init)               \
    CALL(c11_threads, mtx_lock)               \
    CALL(c11_threads, mtx_timedlock)          \
    CALL(c11_threads, mtx_trylock)            \
    CALL(c11_threads, mtx_unlock)             \
    CALL(c11_threads, mtx_destroy)            \
    CALL(c11_threads, cnd_signal)             \
    CALL(c11_threads, cnd_broadcast)          \
    CALL(c11_threads, cnd_wait)               \
    CALL(c11_threads, cnd_timedwait)          \
    CALL(c11_threads, cnd_destroy)

#endif /* SLIMPTHREADS_CHECK_CALLS_H */
