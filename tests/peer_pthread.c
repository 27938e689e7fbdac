/*
 * peer_pthread.c - what winpthreads' and pthreads4w's <pthread.h> give a
 * program, from our <pthread.h> alone: every function and macro of theirs but
 * the ones README.md lists as left out, including what winpthreads' brings in
 * with <time.h>, <signal.h> and <pthread_unistd.h> and pthreads4w's with
 * <sched.h>. tests/peer_headers.sh compiles it with
 * -Werror=implicit-function-declaration, at -O2 (the inline mutex and
 * spinlock paths) and at -O0 (the library's), checks the list against the
 * toolchain's winpthreads headers, and runs it.
 *
 * The static initializers are checked for the kind of object they give; every
 * other function is called once and answers as POSIX or the peer says.
 * With the argument "threads", PTHREAD_THREADS_MAX threads run at once.
 */
#include <pthread.h>

void peer_check(int ok, const char *what, int line);
void peer_note(const char *what, int value);
int peer_finish(const char *program);
#define CHECK(condition) peer_check((condition) != 0, #condition, __LINE__)
#define STATIC_CHECK(name, condition) typedef char name[(condition) ? 1 : -1]

/* ---- Limits: the peers' values, POSIX's minimums under them ---- */

STATIC_CHECK(posix_minimums, _POSIX_THREAD_DESTRUCTOR_ITERATIONS == 4 &&
                                 _POSIX_THREAD_KEYS_MAX == 128 && _POSIX_THREAD_THREADS_MAX == 64 &&
                                 _POSIX_SEM_NSEMS_MAX == 256 && _POSIX_SEM_VALUE_MAX == 32767);
STATIC_CHECK(limits_at_least_posix,
             PTHREAD_DESTRUCTOR_ITERATIONS >= _POSIX_THREAD_DESTRUCTOR_ITERATIONS &&
                 PTHREAD_KEYS_MAX >= _POSIX_THREAD_KEYS_MAX &&
                 PTHREAD_THREADS_MAX >= _POSIX_THREAD_THREADS_MAX &&
                 SEM_NSEMS_MAX >= _POSIX_SEM_NSEMS_MAX && SEM_VALUE_MAX >= _POSIX_SEM_VALUE_MAX);
STATIC_CHECK(peer_counts, PTHREAD_THREADS_MAX == 2019 && SEM_NSEMS_MAX == 1024);
STATIC_CHECK(stack_min, PTHREAD_STACK_MIN > 0);

/* The options both peers advertise: what we provide, and what we do not. */
STATIC_CHECK(options_provided,
             _POSIX_THREADS > 0 && _POSIX_READER_WRITER_LOCKS > 0 && _POSIX_SPIN_LOCKS > 0 &&
                 _POSIX_BARRIERS > 0 && _POSIX_THREAD_SAFE_FUNCTIONS > 0 &&
                 _POSIX_THREAD_ATTR_STACKSIZE > 0 && _POSIX_ROBUST_MUTEXES > 0 &&
                 _POSIX_THREAD_PRIORITY_SCHEDULING > 0 && _POSIX_TIMEOUTS > 0 &&
                 _POSIX_CLOCK_SELECTION > 0 && _POSIX_SEMAPHORES > 0 && _POSIX_TIMERS > 0 &&
                 _POSIX_MONOTONIC_CLOCK > 0 && _POSIX_CPUTIME > 0 && _POSIX_THREAD_CPUTIME > 0);
STATIC_CHECK(options_not_provided,
             _POSIX_THREAD_ATTR_STACKADDR == -1 && _POSIX_THREAD_PRIO_INHERIT == -1 &&
                 _POSIX_THREAD_PRIO_PROTECT == -1 && _POSIX_THREAD_PROCESS_SHARED == -1);

/* Values that must tell things apart. */
STATIC_CHECK(mutex_kinds_apart,
             PTHREAD_MUTEX_DEFAULT != PTHREAD_MUTEX_RECURSIVE &&
                 PTHREAD_MUTEX_DEFAULT != PTHREAD_MUTEX_ERRORCHECK &&
                 PTHREAD_MUTEX_RECURSIVE != PTHREAD_MUTEX_ERRORCHECK &&
                 PTHREAD_MUTEX_NORMAL != PTHREAD_MUTEX_RECURSIVE &&
                 PTHREAD_MUTEX_NORMAL != PTHREAD_MUTEX_ERRORCHECK);
STATIC_CHECK(mutex_np_kinds, PTHREAD_MUTEX_FAST_NP == PTHREAD_MUTEX_DEFAULT &&
                                 PTHREAD_MUTEX_TIMED_NP == PTHREAD_MUTEX_DEFAULT &&
                                 PTHREAD_MUTEX_ADAPTIVE_NP == PTHREAD_MUTEX_DEFAULT &&
                                 PTHREAD_MUTEX_RECURSIVE_NP == PTHREAD_MUTEX_RECURSIVE &&
                                 PTHREAD_MUTEX_ERRORCHECK_NP == PTHREAD_MUTEX_ERRORCHECK);
STATIC_CHECK(pshared_names, PTHREAD_MUTEX_PRIVATE == PTHREAD_PROCESS_PRIVATE &&
                                PTHREAD_MUTEX_SHARED == PTHREAD_PROCESS_SHARED &&
                                PTHREAD_PROCESS_PRIVATE != PTHREAD_PROCESS_SHARED);
STATIC_CHECK(pairs_apart, PTHREAD_CREATE_JOINABLE != PTHREAD_CREATE_DETACHED &&
                              PTHREAD_INHERIT_SCHED != PTHREAD_EXPLICIT_SCHED &&
                              PTHREAD_SCOPE_SYSTEM != PTHREAD_SCOPE_PROCESS &&
                              PTHREAD_CANCEL_ENABLE != PTHREAD_CANCEL_DISABLE &&
                              PTHREAD_CANCEL_DEFERRED != PTHREAD_CANCEL_ASYNCHRONOUS &&
                              PTHREAD_MUTEX_STALLED != PTHREAD_MUTEX_ROBUST &&
                              PTHREAD_PRIO_NONE != PTHREAD_PRIO_INHERIT &&
                              PTHREAD_PRIO_INHERIT != PTHREAD_PRIO_PROTECT);
STATIC_CHECK(signal_hows, SIG_BLOCK != SIG_UNBLOCK && SIG_UNBLOCK != SIG_SETMASK &&
                              SIG_BLOCK != SIG_SETMASK);
STATIC_CHECK(sched_policies, SCHED_OTHER != SCHED_FIFO && SCHED_FIFO != SCHED_RR &&
                                 SCHED_MIN <= SCHED_OTHER && SCHED_RR <= SCHED_MAX);
/* The error codes the peers' headers make sure of. */
STATIC_CHECK(error_codes, ETIMEDOUT > 0 && ENOTSUP > 0 && EWOULDBLOCK > 0 && ENOSYS > 0 &&
                              EDEADLK > 0 && EOWNERDEAD > 0 && ENOTRECOVERABLE > 0);

/* ---- Objects statically initialized, as the peers' programs spell them ---- */

enum { INLINE_PATHS, LIBRARY_PATHS, PATH_KINDS }; /* see mutex_ops below */

static pthread_mutex_t default_mutex[PATH_KINDS] = {PTHREAD_MUTEX_INITIALIZER,
                                                    PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t default_named[PATH_KINDS] = {PTHREAD_DEFAULT_MUTEX_INITIALIZER,
                                                    PTHREAD_DEFAULT_MUTEX_INITIALIZER};
static pthread_mutex_t normal_mutex[PATH_KINDS] = {PTHREAD_NORMAL_MUTEX_INITIALIZER,
                                                   PTHREAD_NORMAL_MUTEX_INITIALIZER};
static pthread_mutex_t recursive_mutex[PATH_KINDS] = {PTHREAD_RECURSIVE_MUTEX_INITIALIZER,
                                                      PTHREAD_RECURSIVE_MUTEX_INITIALIZER};
static pthread_mutex_t recursive_np[PATH_KINDS] = {PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
                                                   PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};
static pthread_mutex_t errorcheck_mutex[PATH_KINDS] = {PTHREAD_ERRORCHECK_MUTEX_INITIALIZER,
                                                       PTHREAD_ERRORCHECK_MUTEX_INITIALIZER};
static pthread_mutex_t errorcheck_np[PATH_KINDS] = {PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
                                                    PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP};
static pthread_spinlock_t spinlock[PATH_KINDS] = {PTHREAD_SPINLOCK_INITIALIZER,
                                                  PTHREAD_SPINLOCK_INITIALIZER};
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The calls of a mutex and a spinlock two ways: as written (inline where the
 * header makes them so and the build optimizes) and through pointers (always
 * the library's functions). */
struct lock_ops {
    int (*mutex_lock)(pthread_mutex_t *);
    int (*mutex_trylock)(pthread_mutex_t *);
    int (*mutex_unlock)(pthread_mutex_t *);
    int (*spin_lock)(pthread_spinlock_t *);
    int (*spin_trylock)(pthread_spinlock_t *);
    int (*spin_unlock)(pthread_spinlock_t *);
};

static int mutex_lock_as_written(pthread_mutex_t *mutex) { return pthread_mutex_lock(mutex); }
static int mutex_trylock_as_written(pthread_mutex_t *mutex) { return pthread_mutex_trylock(mutex); }
static int mutex_unlock_as_written(pthread_mutex_t *mutex) { return pthread_mutex_unlock(mutex); }
static int spin_lock_as_written(pthread_spinlock_t *lock) { return pthread_spin_lock(lock); }
static int spin_trylock_as_written(pthread_spinlock_t *lock) { return pthread_spin_trylock(lock); }
static int spin_unlock_as_written(pthread_spinlock_t *lock) { return pthread_spin_unlock(lock); }

static const struct lock_ops as_written = {
    mutex_lock_as_written, mutex_trylock_as_written, mutex_unlock_as_written,
    spin_lock_as_written,  spin_trylock_as_written,  spin_unlock_as_written};
static const struct lock_ops *volatile library_ops_pointer; /* set in main: no constant folding */
static const struct lock_ops library = {pthread_mutex_lock, pthread_mutex_trylock,
                                        pthread_mutex_unlock, pthread_spin_lock,
                                        pthread_spin_trylock, pthread_spin_unlock};

/* ---- Another thread's try at a lock ---- */

struct elsewhere {
    const struct lock_ops *ops;
    pthread_mutex_t *mutex;
    pthread_spinlock_t *spinlock;
    int unlock_instead; /* 1: the other thread unlocks (it does not hold the lock) */
    int result;
};

static void *try_elsewhere(void *argument)
{
    struct elsewhere *job = argument;

    if (job->mutex != NULL) {
        job->result = job->unlock_instead ? job->ops->mutex_unlock(job->mutex)
                                          : job->ops->mutex_trylock(job->mutex);
        if (!job->unlock_instead && job->result == 0)
            job->ops->mutex_unlock(job->mutex);
    } else {
        job->result = job->ops->spin_trylock(job->spinlock);
        if (job->result == 0)
            job->ops->spin_unlock(job->spinlock);
    }
    return NULL;
}

static int run_elsewhere(struct elsewhere *job)
{
    pthread_t thread;

    job->result = -1;
    if (pthread_create(&thread, NULL, try_elsewhere, job) != 0 || pthread_join(thread, NULL) != 0)
        return -1;
    return job->result;
}

static int mutex_trylock_elsewhere(const struct lock_ops *ops, pthread_mutex_t *mutex)
{
    struct elsewhere job = {ops, mutex, NULL, 0, 0};
    return run_elsewhere(&job);
}

static int mutex_unlock_elsewhere(const struct lock_ops *ops, pthread_mutex_t *mutex)
{
    struct elsewhere job = {ops, mutex, NULL, 1, 0};
    return run_elsewhere(&job);
}

static int spin_trylock_elsewhere(const struct lock_ops *ops, pthread_spinlock_t *lock)
{
    struct elsewhere job = {ops, NULL, lock, 0, 0};
    return run_elsewhere(&job);
}

/* ---- The mutex initializers give their kind ---- */

static const struct timespec long_ago = {0, 0}; /* an absolute deadline that has passed */

/* Each check below looks with trylock or an expired deadline before it calls
 * anything that blocks, so that a wrong kind fails the check, not hangs it. */

/* A DEFAULT mutex: held against others, unlocked by its holder; an unlock of
 * it unheld is EPERM (README.md). Its bytes are PTHREAD_MUTEX_INITIALIZER's. */
static void check_default(const struct lock_ops *ops, pthread_mutex_t *mutex)
{
    CHECK(ops->mutex_lock(mutex) == 0);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == EBUSY);
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == EPERM);
    CHECK(ops->mutex_trylock(mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == 0);
}

/* NORMAL: its owner's relock deadlocks (here: waits out its deadline). */
static void check_normal(const struct lock_ops *ops, pthread_mutex_t *mutex)
{
    CHECK(ops->mutex_lock(mutex) == 0);
    CHECK(pthread_mutex_timedlock(mutex, &long_ago) == ETIMEDOUT);
    CHECK(ops->mutex_trylock(mutex) == EBUSY);
    CHECK(mutex_unlock_elsewhere(ops, mutex) == EPERM);
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == EPERM);
}

/* RECURSIVE: its owner relocks; it is free after as many unlocks. */
static void check_recursive(const struct lock_ops *ops, pthread_mutex_t *mutex)
{
    int relocked;

    CHECK(ops->mutex_lock(mutex) == 0);
    CHECK((relocked = ops->mutex_trylock(mutex)) == 0);
    if (relocked != 0) {
        ops->mutex_unlock(mutex);
        return;
    }
    CHECK(ops->mutex_lock(mutex) == 0);
    CHECK(pthread_mutex_timedlock(mutex, &long_ago) == 0);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == EBUSY);
    CHECK(mutex_unlock_elsewhere(ops, mutex) == EPERM);
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == EBUSY); /* one lock is still held */
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == EPERM);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == 0);
}

/* ERRORCHECK: EDEADLK for its owner's relock, EPERM for others' unlock. */
static void check_errorcheck(const struct lock_ops *ops, pthread_mutex_t *mutex)
{
    int relock;

    CHECK(ops->mutex_lock(mutex) == 0);
    CHECK((relock = pthread_mutex_timedlock(mutex, &long_ago)) == EDEADLK);
    if (relock == EDEADLK)
        CHECK(ops->mutex_lock(mutex) == EDEADLK);
    else if (relock == 0)
        ops->mutex_unlock(mutex);
    CHECK(ops->mutex_trylock(mutex) == EBUSY);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == EBUSY);
    CHECK(mutex_unlock_elsewhere(ops, mutex) == EPERM);
    CHECK(ops->mutex_unlock(mutex) == 0);
    CHECK(ops->mutex_unlock(mutex) == EPERM);
    CHECK(mutex_trylock_elsewhere(ops, mutex) == 0);
}

/* PTHREAD_SPINLOCK_INITIALIZER: an unlocked spinlock, usable at once. */
static void check_spinlock(const struct lock_ops *ops, pthread_spinlock_t *lock)
{
    int first;

    CHECK((first = ops->spin_trylock(lock)) == 0);
    if (first != 0)
        return;
    CHECK(ops->spin_trylock(lock) == EBUSY);
    CHECK(spin_trylock_elsewhere(ops, lock) == EBUSY);
    CHECK(ops->spin_unlock(lock) == 0);
    CHECK(ops->spin_unlock(lock) == EPERM);
    CHECK(spin_trylock_elsewhere(ops, lock) == 0);
    CHECK(ops->spin_lock(lock) == 0);
    CHECK(ops->spin_unlock(lock) == 0);
    CHECK(pthread_spin_destroy(lock) == 0);
    CHECK(ops->spin_trylock(lock) == EINVAL);
}

static int same_bytes(const void *a, const void *b, size_t size)
{
    const unsigned char *x = a, *y = b;

    for (size_t at = 0; at < size; at++)
        if (x[at] != y[at])
            return 0;
    return 1;
}

static void check_static_locks(void)
{
    const struct lock_ops *ways[PATH_KINDS] = {&as_written, library_ops_pointer};
    static const pthread_mutex_t fresh_default = PTHREAD_MUTEX_INITIALIZER;

    CHECK(same_bytes(&default_named[0], &fresh_default, sizeof fresh_default));
    for (int way = 0; way < PATH_KINDS; way++) {
        check_default(ways[way], &default_mutex[way]);
        check_default(ways[way], &default_named[way]);
        check_normal(ways[way], &normal_mutex[way]);
        check_recursive(ways[way], &recursive_mutex[way]);
        check_recursive(ways[way], &recursive_np[way]);
        check_errorcheck(ways[way], &errorcheck_mutex[way]);
        check_errorcheck(ways[way], &errorcheck_np[way]);
        check_spinlock(ways[way], &spinlock[way]);
    }
    CHECK(PTHREAD_SPINLOCK_INITIALIZER == 0); /* what zero-filled memory holds */
    for (int way = 0; way < PATH_KINDS; way++)
        CHECK(pthread_mutex_destroy(&default_mutex[way]) == 0 &&
              pthread_mutex_destroy(&recursive_mutex[way]) == 0 &&
              pthread_mutex_destroy(&errorcheck_mutex[way]) == 0);
}

/* ---- Condition variable, rwlock and once, statically initialized ---- */

static pthread_mutex_t handshake_mutex = PTHREAD_MUTEX_INITIALIZER;
static int handshake_flag;
static int once_runs;

static void count_once(void)
{
    once_runs++;
}

static void *raise_flag(void *argument)
{
    pthread_mutex_lock(&handshake_mutex);
    handshake_flag = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&handshake_mutex);
    return argument;
}

static void check_static_others(void)
{
    pthread_t thread;
    int error = 0;

    CHECK(pthread_mutex_lock(&handshake_mutex) == 0);
    CHECK(pthread_cond_timedwait(&cond, &handshake_mutex, &long_ago) == ETIMEDOUT);
    CHECK(pthread_create(&thread, NULL, raise_flag, NULL) == 0);
    while (!handshake_flag && error == 0)
        error = pthread_cond_wait(&cond, &handshake_mutex);
    CHECK(error == 0 && handshake_flag);
    CHECK(pthread_mutex_unlock(&handshake_mutex) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(pthread_cond_broadcast(&cond) == 0);
    CHECK(pthread_cond_destroy(&cond) == 0);

    CHECK(pthread_rwlock_rdlock(&rwlock) == 0);
    CHECK(pthread_rwlock_tryrdlock(&rwlock) == 0);
    CHECK(pthread_rwlock_trywrlock(&rwlock) == EBUSY);
    CHECK(pthread_rwlock_unlock(&rwlock) == 0 && pthread_rwlock_unlock(&rwlock) == 0);
    CHECK(pthread_rwlock_wrlock(&rwlock) == 0);
    CHECK(pthread_rwlock_tryrdlock(&rwlock) == EBUSY);
    CHECK(pthread_rwlock_timedrdlock(&rwlock, &long_ago) == EDEADLK); /* its own writer */
    CHECK(pthread_rwlock_unlock(&rwlock) == 0);
    CHECK(pthread_rwlock_timedwrlock(&rwlock, &long_ago) == 0);
    CHECK(pthread_rwlock_unlock(&rwlock) == 0);
    CHECK(pthread_rwlock_destroy(&rwlock) == 0);

    CHECK(pthread_once(&once, count_once) == 0 && pthread_once(&once, count_once) == 0);
    CHECK(once_runs == 1);
}

/* ---- pthread_kill and the signal mask, from <pthread.h> ---- */

static void *return_argument(void *argument)
{
    return argument;
}

static void check_signals(void)
{
    pthread_t thread;
    sigset_t set, old, now;

    CHECK(pthread_kill(pthread_self(), 0) == 0);
    CHECK(pthread_kill(pthread_self(), -1) == EINVAL);
    CHECK(pthread_kill(pthread_self(), NSIG) == EINVAL);
    CHECK(pthread_create(&thread, NULL, return_argument, NULL) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(pthread_kill(thread, 0) == ESRCH);

    CHECK(sigemptyset(&set) == 0 && sigaddset(&set, SIGINT) == 0);
    CHECK(pthread_sigmask(SIG_BLOCK, &set, &old) == 0);
    CHECK(pthread_sigmask(SIG_SETMASK, NULL, &now) == 0 && sigismember(&now, SIGINT) == 1);
    CHECK(pthread_sigmask(SIG_UNBLOCK, &set, NULL) == 0);
    CHECK(pthread_sigmask(SIG_SETMASK, NULL, &now) == 0 && sigismember(&now, SIGINT) == 0);
    CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
}

/* ---- Threads: creation, exit, cancellation, keys, names ---- */

static int cleanup_ran;

static void note_cleanup(void *argument)
{
    (void)argument;
    cleanup_ran++;
}

static void *exit_with_argument(void *argument)
{
    pthread_cleanup_push(note_cleanup, NULL);
    pthread_exit(argument);
    pthread_cleanup_pop(0);
    return NULL;
}

static void *wait_for_cancel(void *argument)
{
    int old;

    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
    pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old);
    pthread_cleanup_push(note_cleanup, NULL);
    for (;;) {
        pthread_testcancel();
        sched_yield();
    }
    pthread_cleanup_pop(0);
    return argument;
}

static void check_threads(void)
{
    pthread_t thread, self = pthread_self();
    void *result = NULL;
    pthread_key_t key;
    int value = 0, old_state, old_type;
    struct timespec soon;

    CHECK(pthread_equal(self, pthread_self()));
    CHECK(pthread_create(&thread, NULL, exit_with_argument, &value) == 0);
    CHECK(pthread_join(thread, &result) == 0 && result == &value && cleanup_ran == 1);
    CHECK(pthread_create(&thread, NULL, wait_for_cancel, NULL) == 0);
    CHECK(pthread_cancel(thread) == 0);
    CHECK(pthread_join(thread, &result) == 0 && result == PTHREAD_CANCELED && cleanup_ran == 2);
    CHECK(pthread_create(&thread, NULL, return_argument, &value) == 0);
    CHECK(pthread_detach(thread) == 0);
    CHECK(pthread_create(&thread, NULL, return_argument, &value) == 0);
    CHECK(pthread_win32_getabstime_np(&soon, &long_ago) == &soon);
    soon.tv_sec += 60;
    CHECK(pthread_timedjoin_np(thread, &result, &soon) == 0 && result == &value);
    CHECK(pthread_create(&thread, NULL, return_argument, &value) == 0);
    while (pthread_tryjoin_np(thread, &result) == EBUSY)
        sched_yield();
    CHECK(result == &value);

    CHECK(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old_state) == 0);
    CHECK(pthread_setcancelstate(old_state, &old_state) == 0 && old_state == PTHREAD_CANCEL_DISABLE);
    CHECK(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old_type) == 0);
    CHECK(pthread_setcanceltype(old_type, &old_type) == 0 && old_type == PTHREAD_CANCEL_ASYNCHRONOUS);
    pthread_testcancel();

    CHECK(pthread_key_create(&key, NULL) == 0);
    CHECK(pthread_setspecific(key, &value) == 0 && pthread_getspecific(key) == &value);
    CHECK(pthread_key_delete(key) == 0);

    CHECK(pthread_atfork(NULL, NULL, NULL) == 0);
    CHECK(pthread_setconcurrency(2) == 0 && pthread_getconcurrency() == 2);
    CHECK(pthread_set_concurrency(3) == 0 && pthread_get_concurrency(&value) == 0 && value == 3);
    CHECK(pthread_yield() == 0);
}

/* pthreads4w's BSD-compatible names: PTHREAD_MAX_NAMELEN_NP bytes with the NUL. */
static void check_names(void)
{
    char name[PTHREAD_MAX_NAMELEN_NP], longest[PTHREAD_MAX_NAMELEN_NP], too_long[PTHREAD_MAX_NAMELEN_NP + 1];
    pthread_attr_t attr;
    int error;

    for (int at = 0; at < PTHREAD_MAX_NAMELEN_NP; at++)
        too_long[at] = longest[at] = 'n';
    longest[PTHREAD_MAX_NAMELEN_NP - 1] = too_long[PTHREAD_MAX_NAMELEN_NP] = '\0';
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setname_np(&attr, longest, NULL) == 0);
    CHECK(pthread_attr_getname_np(&attr, name, sizeof name) == 0 && same_bytes(name, longest, sizeof name));
    CHECK(pthread_attr_setname_np(&attr, too_long, NULL) == ERANGE);
    CHECK(pthread_attr_destroy(&attr) == 0);
    error = pthread_setname_np(pthread_self(), longest);
    CHECK(error == 0 || error == ENOTSUP); /* ENOTSUP: no SetThreadDescription */
    if (error == 0)
        CHECK(pthread_getname_np(pthread_self(), name, sizeof name) == 0 &&
              same_bytes(name, longest, sizeof name));
    CHECK(pthread_setname_np(pthread_self(), too_long) == ERANGE || error == ENOTSUP);
}

/* ---- Attributes ---- */

static void check_thread_attributes(void)
{
    pthread_attr_t attr;
    struct sched_param param = {0};
    cpu_set_t cpus;
    size_t size;
    void *address;
    int value;

    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0);
    CHECK(pthread_attr_getdetachstate(&attr, &value) == 0 && value == PTHREAD_CREATE_DETACHED);
    CHECK(pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) == 0);
    CHECK(pthread_attr_getinheritsched(&attr, &value) == 0 && value == PTHREAD_EXPLICIT_SCHED);
    CHECK(pthread_attr_setscope(&attr, PTHREAD_SCOPE_SYSTEM) == 0);
    CHECK(pthread_attr_getscope(&attr, &value) == 0 && value == PTHREAD_SCOPE_SYSTEM);
    CHECK(pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN) == 0);
    CHECK(pthread_attr_getstacksize(&attr, &size) == 0 && size == PTHREAD_STACK_MIN);
    CHECK(pthread_attr_setguardsize(&attr, 4096) == 0);
    CHECK(pthread_attr_getguardsize(&attr, &size) == 0 && size == 4096);
    CHECK(pthread_attr_setstack(&attr, &value, PTHREAD_STACK_MIN) == ENOTSUP);
    CHECK(pthread_attr_getstack(&attr, &address, &size) == 0);
    CHECK(pthread_attr_setstackaddr(&attr, &value) == ENOTSUP);
    CHECK(pthread_attr_getstackaddr(&attr, &address) == 0);
    CHECK(pthread_attr_setschedpolicy(&attr, SCHED_OTHER) == 0);
    CHECK(pthread_attr_getschedpolicy(&attr, &value) == 0 && value == SCHED_OTHER);
    CHECK(pthread_attr_setschedparam(&attr, &param) == 0);
    CHECK(pthread_attr_getschedparam(&attr, &param) == 0 && param.sched_priority == 0);
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    CHECK(pthread_attr_setaffinity_np(&attr, sizeof cpus, &cpus) == 0);
    CPU_ZERO(&cpus);
    CHECK(pthread_attr_getaffinity_np(&attr, sizeof cpus, &cpus) == 0 && CPU_ISSET(0, &cpus));
    CHECK(pthread_attr_destroy(&attr) == 0);
}

static void check_object_attributes(void)
{
    pthread_mutexattr_t mutex_attr;
    pthread_condattr_t cond_attr;
    pthread_rwlockattr_t rwlock_attr;
    pthread_barrierattr_t barrier_attr;
    clockid_t clock;
    int value;

    CHECK(pthread_mutexattr_init(&mutex_attr) == 0);
    CHECK(pthread_mutexattr_settype(&mutex_attr, PTHREAD_MUTEX_RECURSIVE) == 0);
    CHECK(pthread_mutexattr_gettype(&mutex_attr, &value) == 0 && value == PTHREAD_MUTEX_RECURSIVE);
    CHECK(pthread_mutexattr_setkind_np(&mutex_attr, PTHREAD_MUTEX_ERRORCHECK_NP) == 0);
    CHECK(pthread_mutexattr_getkind_np(&mutex_attr, &value) == 0 && value == PTHREAD_MUTEX_ERRORCHECK);
    CHECK(pthread_mutexattr_setpshared(&mutex_attr, PTHREAD_MUTEX_PRIVATE) == 0);
    CHECK(pthread_mutexattr_getpshared(&mutex_attr, &value) == 0 && value == PTHREAD_PROCESS_PRIVATE);
    CHECK(pthread_mutexattr_setprotocol(&mutex_attr, PTHREAD_PRIO_NONE) == 0);
    CHECK(pthread_mutexattr_getprotocol(&mutex_attr, &value) == 0 && value == PTHREAD_PRIO_NONE);
    CHECK(pthread_mutexattr_setprioceiling(&mutex_attr, sched_get_priority_max(SCHED_FIFO)) == 0);
    CHECK(pthread_mutexattr_getprioceiling(&mutex_attr, &value) == 0 &&
          value == sched_get_priority_max(SCHED_FIFO));
    CHECK(pthread_mutexattr_setrobust(&mutex_attr, PTHREAD_MUTEX_ROBUST) == 0);
    CHECK(pthread_mutexattr_getrobust(&mutex_attr, &value) == 0 && value == PTHREAD_MUTEX_ROBUST);
    CHECK(pthread_mutexattr_destroy(&mutex_attr) == 0);

    CHECK(pthread_condattr_init(&cond_attr) == 0);
    CHECK(pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC) == 0);
    CHECK(pthread_condattr_getclock(&cond_attr, &clock) == 0 && clock == CLOCK_MONOTONIC);
    CHECK(pthread_condattr_setpshared(&cond_attr, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_condattr_getpshared(&cond_attr, &value) == 0 && value == PTHREAD_PROCESS_PRIVATE);
    CHECK(pthread_condattr_destroy(&cond_attr) == 0);

    CHECK(pthread_rwlockattr_init(&rwlock_attr) == 0);
    CHECK(pthread_rwlockattr_setpshared(&rwlock_attr, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_rwlockattr_getpshared(&rwlock_attr, &value) == 0 && value == PTHREAD_PROCESS_PRIVATE);
    CHECK(pthread_rwlockattr_destroy(&rwlock_attr) == 0);

    CHECK(pthread_barrierattr_init(&barrier_attr) == 0);
    CHECK(pthread_barrierattr_setpshared(&barrier_attr, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_barrierattr_getpshared(&barrier_attr, &value) == 0 && value == PTHREAD_PROCESS_PRIVATE);
    CHECK(pthread_barrierattr_destroy(&barrier_attr) == 0);
}

/* ---- Objects initialized by call ---- */

static void check_initialized_objects(void)
{
    pthread_mutex_t mutex;
    pthread_cond_t cond_variable;
    pthread_rwlock_t lock;
    pthread_spinlock_t spin;
    pthread_barrier_t barrier;
    struct timespec no_time = {0, 0};
    int ceiling;

    CHECK(pthread_mutex_init(&mutex, NULL) == 0);
    CHECK(pthread_mutex_timedlock(&mutex, &long_ago) == 0);
    CHECK(pthread_mutex_consistent(&mutex) == EINVAL); /* not a robust mutex */
    CHECK(pthread_mutex_getprioceiling(&mutex, &ceiling) == EINVAL);
    CHECK(pthread_mutex_setprioceiling(&mutex, 0, &ceiling) == EINVAL);
    CHECK(pthread_cond_init(&cond_variable, NULL) == 0);
    CHECK(pthread_cond_timedwait_relative_np(&cond_variable, &mutex, &no_time) == ETIMEDOUT);
    CHECK(pthread_cond_signal(&cond_variable) == 0);
    CHECK(pthread_cond_destroy(&cond_variable) == 0);
    CHECK(pthread_mutex_unlock(&mutex) == 0);
    CHECK(pthread_mutex_destroy(&mutex) == 0);
    CHECK(pthread_rwlock_init(&lock, NULL) == 0 && pthread_rwlock_destroy(&lock) == 0);
    CHECK(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE) == 0);
    CHECK(pthread_spin_lock(&spin) == 0 && pthread_spin_unlock(&spin) == 0);
    CHECK(pthread_spin_destroy(&spin) == 0);
    CHECK(pthread_barrier_init(&barrier, NULL, 1) == 0);
    CHECK(pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD);
    CHECK(pthread_barrier_destroy(&barrier) == 0);
}

/* ---- Scheduling, processors, clocks, the Win32 thread ---- */

static void check_scheduling(void)
{
    struct sched_param param;
    cpu_set_t cpus;
    int policy, processors = pthread_num_processors_np();

    CHECK(sched_yield() == 0);
    CHECK(sched_get_priority_min(SCHED_OTHER) <= sched_get_priority_max(SCHED_OTHER));
    CHECK(sched_getscheduler(0) == SCHED_OTHER);
    param.sched_priority = 0;
    CHECK(sched_setscheduler(0, SCHED_OTHER, &param) == 0);
    CHECK(pthread_getschedparam(pthread_self(), &policy, &param) == 0);
    CHECK(pthread_setschedparam(pthread_self(), policy, &param) == 0);
    CHECK(pthread_getaffinity_np(pthread_self(), sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) >= 1);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus) == 0);
    CHECK(processors >= 1 && pthread_set_num_processors_np(processors) == 0);
    CHECK(pthread_num_processors_np() == processors);
}

static void check_time_and_win32(void)
{
    struct timespec now, resolution, nothing = {0, 0};
    clockid_t thread_clock;

    CHECK(clock_gettime(CLOCK_REALTIME, &now) == 0 && clock_getres(CLOCK_MONOTONIC, &resolution) == 0);
    CHECK(clock_settime(CLOCK_MONOTONIC, &now) == -1 && errno == EINVAL);
    CHECK(nanosleep(&nothing, NULL) == 0);
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &nothing, NULL) == 0);
    CHECK(pthread_getcpuclockid(pthread_self(), &thread_clock) == 0 &&
          clock_gettime(thread_clock, &now) == 0);
    CHECK(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 &&
          clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 &&
          clock_gettime(CLOCK_REALTIME_COARSE, &now) == 0);
    CHECK(pthread_delay_np(&nothing) == 0);

    CHECK(pthread_getw32threadhandle_np(pthread_self()) != NULL);
    CHECK(pthread_gethandle(pthread_self()) == pthread_getw32threadhandle_np(pthread_self()));
    CHECK(pthread_getw32threadid_np(pthread_self()) != 0);
    CHECK(pthread_getunique_np(pthread_self()) != 0);
    CHECK(pthread_win32_process_attach_np() && pthread_win32_thread_attach_np());
    CHECK(pthread_win32_thread_detach_np() && pthread_win32_process_detach_np());
}

/* ---- PTHREAD_THREADS_MAX threads at once ---- */

/* The peers' value, not a limit of ours (pthread.h): on x86_64 that many
 * threads run at once. A 32-bit process may run out of address space for
 * their stacks first (under Wine, after some 640 threads): then
 * pthread_create says EAGAIN, and every thread made goes on and joins. */
static pthread_mutex_t gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_changed = PTHREAD_COND_INITIALIZER;
static int gate_open, threads_running;

static void *wait_at_gate(void *argument)
{
    pthread_mutex_lock(&gate_mutex);
    threads_running++;
    pthread_cond_broadcast(&gate_changed);
    while (!gate_open)
        pthread_cond_wait(&gate_changed, &gate_mutex);
    pthread_mutex_unlock(&gate_mutex);
    return argument;
}

static void check_threads_max(void)
{
    static pthread_t threads[PTHREAD_THREADS_MAX];
    pthread_t one_more;
    pthread_attr_t attr;
    int created = 0, joined = 0, error = 0;

    CHECK(pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN) == 0);
    while (created < PTHREAD_THREADS_MAX &&
           (error = pthread_create(&threads[created], &attr, wait_at_gate, NULL)) == 0)
        created++;
    peer_note("threads at once", created);
    if (sizeof(void *) >= 8)
        CHECK(created == PTHREAD_THREADS_MAX);
    else
        CHECK(created == PTHREAD_THREADS_MAX || (error == EAGAIN && created >= _POSIX_THREAD_THREADS_MAX));
    pthread_mutex_lock(&gate_mutex);
    while (threads_running < created)
        pthread_cond_wait(&gate_changed, &gate_mutex);
    gate_open = 1;
    pthread_cond_broadcast(&gate_changed);
    pthread_mutex_unlock(&gate_mutex);
    for (int at = 0; at < created; at++)
        joined += pthread_join(threads[at], NULL) == 0;
    CHECK(joined == created);
    CHECK(pthread_create(&one_more, NULL, return_argument, NULL) == 0 && pthread_join(one_more, NULL) == 0);
    CHECK(pthread_attr_destroy(&attr) == 0);
}

int main(int argc, char **argv)
{
    library_ops_pointer = &library;
    check_static_locks();
    check_static_others();
    check_signals();
    check_threads();
    check_names();
    check_thread_attributes();
    check_object_attributes();
    check_initialized_objects();
    check_scheduling();
    check_time_and_win32();
    if (argc > 1 && argv[1][0] == 't')
        check_threads_max();
    return peer_finish("peer_pthread");
}
