/*
 * bench_posix.c - the benchmark cases on POSIX threads.
 *
 * Uses only <pthread.h>, <semaphore.h> and standard C, and is built twice:
 * against slimpthreads (our include/ first, our static library) and against
 * MinGW-w64's winpthreads (x86_64-w64-mingw32-gcc-posix -static, the system
 * headers). bench_raw.c runs the same cases on bare Win32 primitives. The case
 * drivers live in cases.h; this file only says which primitive each one uses.
 *
 * Built against slimpthreads (BENCH_C11), it also runs the mutex, queue and
 * hand-off cases on C11's <threads.h> (variants c11_*): what the C11 layer
 * costs over the pthread calls. mtx_t is pthread_mutex_t and cnd_t is
 * pthread_cond_t, so each C11 variant runs on the very objects of its pthread
 * twin, made again by mtx_init and cnd_init: only the calls differ, not the
 * objects' places on the cache lines (which moved a contended case by 2x).
 * winpthreads has no <threads.h>; neither does the raw program.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases.h"

#ifdef BENCH_C11
#include <threads.h>
#endif

#ifdef BENCH_PROGRAM_NAME
#define PROGRAM_NAME BENCH_PROGRAM_NAME
#else
#define PROGRAM_NAME "posix"
#endif

/* ---- Threads for the harness ---- */

struct posix_thread {
    pthread_t id;
    bench_thread_fn fn;
    void *argument;
};

static void *posix_thread_start(void *argument)
{
    struct posix_thread *thread = argument;

    thread->fn(thread->argument);
    return NULL;
}

void *bench_spawn(bench_thread_fn fn, void *argument)
{
    struct posix_thread *thread = malloc(sizeof *thread);
    int rc;

    if (thread == NULL)
        return NULL;
    thread->fn = fn;
    thread->argument = argument;
    rc = pthread_create(&thread->id, NULL, posix_thread_start, thread);
    if (rc != 0) {
        free(thread);
        bench_fatal("pthread_create", rc);
    }
    return thread;
}

void bench_join(void *handle)
{
    struct posix_thread *thread = handle;
    int rc = pthread_join(thread->id, NULL);

    if (rc != 0)
        bench_fatal("pthread_join", rc);
    free(thread);
}

/* The checked wrappers of the primitives, inlined into the case loops (the
 * tables below are constant) as the raw program's unchecked ones are. */
#define BENCH_PRIMITIVE BENCH_INLINE

static void check(const char *what, int rc)
{
    if (rc != 0)
        bench_fatal(what, rc);
}

/* ---- Primitive tables ---- */

BENCH_PRIMITIVE void mutex_lock(void *m) { check("pthread_mutex_lock", pthread_mutex_lock(m)); }
BENCH_PRIMITIVE void mutex_unlock(void *m) { check("pthread_mutex_unlock", pthread_mutex_unlock(m)); }
BENCH_PRIMITIVE void rw_rdlock(void *l) { check("pthread_rwlock_rdlock", pthread_rwlock_rdlock(l)); }
BENCH_PRIMITIVE void rw_wrlock(void *l) { check("pthread_rwlock_wrlock", pthread_rwlock_wrlock(l)); }
BENCH_PRIMITIVE void rw_unlock(void *l) { check("pthread_rwlock_unlock", pthread_rwlock_unlock(l)); }
BENCH_PRIMITIVE void spin_lock(void *s) { check("pthread_spin_lock", pthread_spin_lock(s)); }
BENCH_PRIMITIVE void spin_unlock(void *s) { check("pthread_spin_unlock", pthread_spin_unlock(s)); }

BENCH_PRIMITIVE void cond_wait(void *c, void *m) { check("pthread_cond_wait", pthread_cond_wait(c, m)); }
BENCH_PRIMITIVE void cond_signal(void *c) { check("pthread_cond_signal", pthread_cond_signal(c)); }
BENCH_PRIMITIVE void cond_broadcast(void *c) { check("pthread_cond_broadcast", pthread_cond_broadcast(c)); }

BENCH_PRIMITIVE void semaphore_post(void *s) { check("sem_post", sem_post(s)); }
BENCH_PRIMITIVE void semaphore_wait(void *s)
{
    while (sem_wait(s) != 0)
        if (errno != EINTR)
            bench_fatal("sem_wait", errno);
}

static const struct lock_ops mutex_ops = { mutex_lock, mutex_unlock, mutex_lock, mutex_unlock };
static const struct lock_ops rwlock_ops = { rw_wrlock, rw_unlock, rw_rdlock, rw_unlock };
static const struct lock_ops spin_ops = { spin_lock, spin_unlock, spin_lock, spin_unlock };
static const struct cond_ops cond_ops = { cond_wait, cond_signal, cond_broadcast };
static const struct sem_ops semaphore_ops = { semaphore_post, semaphore_wait };

#ifdef BENCH_C11
static void c11_check(const char *what, int result)
{
    if (result != thrd_success)
        bench_fatal(what, result);
}

BENCH_PRIMITIVE void c11_mtx_lock(void *m) { c11_check("mtx_lock", mtx_lock(m)); }
BENCH_PRIMITIVE void c11_mtx_unlock(void *m) { c11_check("mtx_unlock", mtx_unlock(m)); }
BENCH_PRIMITIVE void c11_cnd_wait(void *c, void *m) { c11_check("cnd_wait", cnd_wait(c, m)); }
BENCH_PRIMITIVE void c11_cnd_signal(void *c) { c11_check("cnd_signal", cnd_signal(c)); }
BENCH_PRIMITIVE void c11_cnd_broadcast(void *c) { c11_check("cnd_broadcast", cnd_broadcast(c)); }

static const struct lock_ops c11_mtx_ops = { c11_mtx_lock, c11_mtx_unlock, c11_mtx_lock,
                                             c11_mtx_unlock };
static const struct cond_ops c11_cnd_ops = { c11_cnd_wait, c11_cnd_signal, c11_cnd_broadcast };
#endif

static void mutex_init_kind(pthread_mutex_t *mutex, int kind)
{
    pthread_mutexattr_t attr;

    check("pthread_mutexattr_init", pthread_mutexattr_init(&attr));
    check("pthread_mutexattr_settype", pthread_mutexattr_settype(&attr, kind));
    check("pthread_mutex_init", pthread_mutex_init(mutex, &attr));
    pthread_mutexattr_destroy(&attr);
}

/* ---- a. lockperf ---- */

static void lockperf_mutex(void *self) { lockperf_loop(self, &mutex_ops, 0); }
static void lockperf_mutex_held(void *self) { lockperf_held_loop(self, &mutex_ops); }
static void lockperf_rwlock_read(void *self) { lockperf_loop(self, &rwlock_ops, 1); }
static void lockperf_rwlock_write(void *self) { lockperf_loop(self, &rwlock_ops, 0); }
static void lockperf_spin(void *self) { lockperf_loop(self, &spin_ops, 0); }
#ifdef BENCH_C11
static void lockperf_c11_mtx(void *self) { lockperf_loop(self, &c11_mtx_ops, 0); }
#endif

static void case_lockperf(void)
{
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;
    pthread_rwlock_t rwlock BENCH_OWN_CACHE_LINE;
    pthread_spinlock_t spin BENCH_OWN_CACHE_LINE;
#ifdef BENCH_C11
    mtx_t c11_mutex BENCH_OWN_CACHE_LINE;
#endif
    int threads;

    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    check("pthread_rwlock_init", pthread_rwlock_init(&rwlock, NULL));
    check("pthread_spin_init", pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE));
#ifdef BENCH_C11
    c11_check("mtx_init", mtx_init(&c11_mutex, mtx_plain));
#endif
    for (threads = 1; threads <= LOCKPERF_MAX_THREADS; threads++) {
        lockperf_add_row("mutex", lockperf_mutex, &mutex, 0, threads);
        if (threads == 1)
            lockperf_add_held_row("mutex_held", lockperf_mutex_held, &mutex, &mutex_ops);
        if (bench_loaded())
            continue; /* under load, the contended mutex only: the case is long */
        lockperf_add_row("rwlock_read", lockperf_rwlock_read, &rwlock, 1, threads);
        lockperf_add_row("rwlock_write", lockperf_rwlock_write, &rwlock, 0, threads);
        lockperf_add_row("spinlock", lockperf_spin, (void *)&spin, 0, threads);
#ifdef BENCH_C11
        lockperf_add_row("c11_mtx", lockperf_c11_mtx, &c11_mutex, 0, threads);
#endif
    }
    lockperf_run();
#ifdef BENCH_C11
    mtx_destroy(&c11_mutex);
#endif
    pthread_spin_destroy(&spin);
    pthread_rwlock_destroy(&rwlock);
    pthread_mutex_destroy(&mutex);
}

/* ---- b. nsv ---- */

static void nsv_mutex(void *self) { nsv_loop(self, &mutex_ops); }
static void nsv_rwlock(void *self) { nsv_loop(self, &rwlock_ops); }

static void case_nsv(void)
{
    static const unsigned write_permille[] = { 0, 10, 100, 500 };
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;
    pthread_rwlock_t rwlock BENCH_OWN_CACHE_LINE;
    size_t i;

    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    check("pthread_rwlock_init", pthread_rwlock_init(&rwlock, NULL));
    nsv_measure("nolock", nsv_unlocked, NULL, 0); /* the floor */
    for (i = 0; i < sizeof write_permille / sizeof write_permille[0]; i++) {
        nsv_measure("mutex", nsv_mutex, &mutex, write_permille[i]);
        nsv_measure("rwlock", nsv_rwlock, &rwlock, write_permille[i]);
    }
    for (i = 0; i < NSV_BUSY_SETTINGS; i++) {
        nsv_busy_measure("mutex", nsv_mutex, &mutex, nsv_busy_settings[i][0],
                         nsv_busy_settings[i][1]);
        nsv_busy_measure("rwlock", nsv_rwlock, &rwlock, nsv_busy_settings[i][0],
                         nsv_busy_settings[i][1]);
    }
    pthread_rwlock_destroy(&rwlock);
    pthread_mutex_destroy(&mutex);
}

/* ---- c. cond2010 ---- */

static void cond2010_waiter(void *self) { cond2010_loop(self, &mutex_ops, &cond_ops); }

static void case_cond2010(void)
{
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;
    pthread_cond_t cond BENCH_OWN_CACHE_LINE;

    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    check("pthread_cond_init", pthread_cond_init(&cond, NULL));
    cond2010_measure(cond2010_waiter, &mutex_ops, &cond_ops, &mutex, &cond, 10, 100);
    cond2010_measure(cond2010_waiter, &mutex_ops, &cond_ops, &mutex, &cond, 100, 10);
    pthread_cond_destroy(&cond);
    pthread_mutex_destroy(&mutex);
}

/* ---- d. uncontended ---- */

static int op_mutex_pair(void *m)
{
    int locked = pthread_mutex_lock(m);
    int unlocked = pthread_mutex_unlock(m);
    return (locked | unlocked) == 0;
}

static int op_mutex_trylock(void *m)
{
    int locked = pthread_mutex_trylock(m);
    int unlocked = locked == 0 ? pthread_mutex_unlock(m) : locked;
    return (locked | unlocked) == 0;
}

static int op_rwlock_read(void *l)
{
    int locked = pthread_rwlock_rdlock(l);
    int unlocked = pthread_rwlock_unlock(l);
    return (locked | unlocked) == 0;
}

static int op_rwlock_write(void *l)
{
    int locked = pthread_rwlock_wrlock(l);
    int unlocked = pthread_rwlock_unlock(l);
    return (locked | unlocked) == 0;
}

static int op_spin(void *s)
{
    int locked = pthread_spin_lock(s);
    int unlocked = pthread_spin_unlock(s);
    return (locked | unlocked) == 0;
}

static int op_cond_signal(void *c) { return pthread_cond_signal(c) == 0; }
static int op_cond_broadcast(void *c) { return pthread_cond_broadcast(c) == 0; }

static volatile long once_runs;
static void once_routine(void) { once_runs++; }
static int op_once(void *o) { return pthread_once(o, once_routine) == 0; }

struct key_object {
    pthread_key_t key;
    void *value;
};

static int op_getspecific(void *k)
{
    struct key_object *object = k;
    return pthread_getspecific(object->key) == object->value;
}

static int op_setspecific(void *k)
{
    struct key_object *object = k;
    return pthread_setspecific(object->key, object->value) == 0;
}

#ifdef BENCH_PTHREAD_EQUAL
/* pthreads4w's pthread_t is a struct, which == cannot compare (set by
   contrib/peers/build-pthreads4w.sh; its row then includes a pthread_equal call). */
static int op_self(void *t) { return pthread_equal(pthread_self(), *(pthread_t *)t); }
#else
static int op_self(void *t) { return pthread_self() == *(pthread_t *)t; }
#endif

static int op_sem(void *s)
{
    int posted = sem_post(s);
    int taken = sem_trywait(s);
    return (posted | taken) == 0;
}

#ifdef BENCH_C11
static int op_c11_mtx_pair(void *m)
{
    int locked = mtx_lock(m);
    int unlocked = mtx_unlock(m);
    return (locked | unlocked) == thrd_success;
}

static int op_c11_mtx_trylock(void *m)
{
    int locked = mtx_trylock(m);
    int unlocked = locked == thrd_success ? mtx_unlock(m) : locked;
    return (locked | unlocked) == thrd_success;
}

static long batch_c11_mtx(void *o, long n) { return uncontended_batch(o, op_c11_mtx_pair, n); }
static long batch_c11_trylock(void *o, long n) { return uncontended_batch(o, op_c11_mtx_trylock, n); }

/* The C11 mutexes' rows of case_uncontended, on objects of their own. */
static void uncontended_c11(mtx_t *plain, mtx_t *recursive)
{
    c11_check("mtx_init", mtx_init(plain, mtx_plain));
    c11_check("mtx_init", mtx_init(recursive, mtx_plain | mtx_recursive));
    uncontended_add_row("c11_mtx_plain", batch_c11_mtx, plain);
    uncontended_add_row("c11_mtx_recursive", batch_c11_mtx, recursive);
    uncontended_add_row("c11_mtx_trylock", batch_c11_trylock, plain);
}
#endif

static long batch_mutex(void *o, long n) { return uncontended_batch(o, op_mutex_pair, n); }
static long batch_trylock(void *o, long n) { return uncontended_batch(o, op_mutex_trylock, n); }
static long batch_rwlock_read(void *o, long n) { return uncontended_batch(o, op_rwlock_read, n); }
static long batch_rwlock_write(void *o, long n) { return uncontended_batch(o, op_rwlock_write, n); }
static long batch_spin(void *o, long n) { return uncontended_batch(o, op_spin, n); }
static long batch_cond_signal(void *o, long n) { return uncontended_batch(o, op_cond_signal, n); }
static long batch_cond_broadcast(void *o, long n) { return uncontended_batch(o, op_cond_broadcast, n); }
static long batch_once(void *o, long n) { return uncontended_batch(o, op_once, n); }
static long batch_getspecific(void *o, long n) { return uncontended_batch(o, op_getspecific, n); }
static long batch_setspecific(void *o, long n) { return uncontended_batch(o, op_setspecific, n); }
static long batch_self(void *o, long n) { return uncontended_batch(o, op_self, n); }
static long batch_sem(void *o, long n) { return uncontended_batch(o, op_sem, n); }

static void case_uncontended(void)
{
    pthread_mutex_t mutex_default, mutex_normal, mutex_errorcheck, mutex_recursive;
#ifdef BENCH_C11
    mtx_t c11_plain, c11_recursive;
#endif
    pthread_rwlock_t rwlock;
    pthread_spinlock_t spin;
    pthread_cond_t cond;
    pthread_once_t once = PTHREAD_ONCE_INIT;
    struct key_object key;
    pthread_t self = pthread_self();
    sem_t sem;

    check("pthread_mutex_init", pthread_mutex_init(&mutex_default, NULL));
    mutex_init_kind(&mutex_normal, PTHREAD_MUTEX_NORMAL);
    mutex_init_kind(&mutex_errorcheck, PTHREAD_MUTEX_ERRORCHECK);
    mutex_init_kind(&mutex_recursive, PTHREAD_MUTEX_RECURSIVE);
    check("pthread_rwlock_init", pthread_rwlock_init(&rwlock, NULL));
    check("pthread_spin_init", pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE));
    check("pthread_cond_init", pthread_cond_init(&cond, NULL));
    check("pthread_key_create", pthread_key_create(&key.key, NULL));
    key.value = &key;
    check("pthread_setspecific", pthread_setspecific(key.key, key.value));
    check("pthread_once", pthread_once(&once, once_routine));
    if (sem_init(&sem, 0, 0) != 0)
        bench_fatal("sem_init", -1);

    uncontended_add_row("mutex_default", batch_mutex, &mutex_default);
    uncontended_add_row("mutex_normal", batch_mutex, &mutex_normal);
    uncontended_add_row("mutex_errorcheck", batch_mutex, &mutex_errorcheck);
    uncontended_add_row("mutex_recursive", batch_mutex, &mutex_recursive);
    uncontended_add_row("mutex_trylock", batch_trylock, &mutex_default);
#ifdef BENCH_C11
    uncontended_c11(&c11_plain, &c11_recursive);
#endif
    uncontended_add_row("rwlock_read", batch_rwlock_read, &rwlock);
    uncontended_add_row("rwlock_write", batch_rwlock_write, &rwlock);
    uncontended_add_row("spinlock", batch_spin, (void *)&spin);
    uncontended_add_row("cond_signal", batch_cond_signal, &cond);
    uncontended_add_row("cond_broadcast", batch_cond_broadcast, &cond);
    uncontended_add_row("once", batch_once, (void *)&once);
    uncontended_add_row("getspecific", batch_getspecific, &key);
    uncontended_add_row("setspecific", batch_setspecific, &key);
    uncontended_add_row("self", batch_self, &self);
    uncontended_add_row("sem_post_trywait", batch_sem, &sem);
    uncontended_run();
    if (once_runs != 1)
        bench_report("uncontended", "once", "runs", 0, "count", once_runs, 1);

    sem_destroy(&sem);
#ifdef BENCH_C11
    mtx_destroy(&c11_recursive);
    mtx_destroy(&c11_plain);
#endif
    pthread_key_delete(key.key);
    pthread_cond_destroy(&cond);
    pthread_spin_destroy(&spin);
    pthread_rwlock_destroy(&rwlock);
    pthread_mutex_destroy(&mutex_recursive);
    pthread_mutex_destroy(&mutex_errorcheck);
    pthread_mutex_destroy(&mutex_normal);
    pthread_mutex_destroy(&mutex_default);
}

/* ---- e. queue ---- */

static void queue_worker(void *self) { queue_loop(self, &mutex_ops, &cond_ops); }
#ifdef BENCH_C11
static void c11_queue_worker(void *self) { queue_loop(self, &c11_mtx_ops, &c11_cnd_ops); }
#endif

static void case_queue(void)
{
    static const int sides[] = { 1, 4 };
    size_t i;

    for (i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        pthread_mutex_t mutex;
        pthread_cond_t not_full, not_empty;

        check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
        check("pthread_cond_init", pthread_cond_init(&not_full, NULL));
        check("pthread_cond_init", pthread_cond_init(&not_empty, NULL));
        queue_measure(queue_worker, &mutex, &not_full, &not_empty, sides[i], "");
        pthread_cond_destroy(&not_empty);
        pthread_cond_destroy(&not_full);
        pthread_mutex_destroy(&mutex);
#ifdef BENCH_C11
        c11_check("mtx_init", mtx_init(&mutex, mtx_plain));
        c11_check("cnd_init", cnd_init(&not_full));
        c11_check("cnd_init", cnd_init(&not_empty));
        queue_measure(c11_queue_worker, &mutex, &not_full, &not_empty, sides[i], "c11_");
        cnd_destroy(&not_empty);
        cnd_destroy(&not_full);
        mtx_destroy(&mutex);
#endif
    }
}

/* ---- f. thread ---- */

static void *thread_count(void *counter)
{
    atomic_fetch_add((atomic_long *)counter, 1);
    return counter;
}

static int thread_pair(atomic_long *counter)
{
    pthread_t thread;
    void *result = NULL;

    if (pthread_create(&thread, NULL, thread_count, counter) != 0)
        return 0;
    return pthread_join(thread, &result) == 0 && result == counter;
}

static void case_thread(void)
{
    thread_measure(thread_pair);
}

/* ---- g. bufread ---- */

static long long bufread_mutex(struct bufreader *reader, void *lock)
{
    return bufread_loop(reader, lock, &mutex_ops);
}

static void case_bufread(void)
{
    char path[128];
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;
    long long expected;

    bench_temp_path(path, sizeof path, PROGRAM_NAME);
    expected = bufread_make_file(path, bench_params.bufread_bytes);
    if (expected < 0)
        bench_fatal("bufread: writing the data file", 0);
    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    bufread_measure("nolock", path, expected, bufread_plain, NULL);
    bufread_measure("mutex", path, expected, bufread_mutex, &mutex);
    pthread_mutex_destroy(&mutex);
    remove(path);
}

/* ---- h. handoff ---- */

static void handoff_sem(void *run) { handoff_sem_partner(run, &semaphore_ops); }
static void handoff_cond(void *run) { handoff_cond_partner(run, &mutex_ops, &cond_ops); }
#ifdef BENCH_C11
static void handoff_c11(void *run) { handoff_cond_partner(run, &c11_mtx_ops, &c11_cnd_ops); }
#endif

static void case_handoff(void)
{
    sem_t ping BENCH_OWN_CACHE_LINE, pong BENCH_OWN_CACHE_LINE;
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;
    pthread_cond_t ping_cond BENCH_OWN_CACHE_LINE, pong_cond BENCH_OWN_CACHE_LINE;

    if (sem_init(&ping, 0, 0) != 0 || sem_init(&pong, 0, 0) != 0)
        bench_fatal("sem_init", -1);
    handoff_sem_measure(handoff_sem, &semaphore_ops, &ping, &pong);
    sem_destroy(&pong);
    sem_destroy(&ping);

    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    check("pthread_cond_init", pthread_cond_init(&ping_cond, NULL));
    check("pthread_cond_init", pthread_cond_init(&pong_cond, NULL));
    handoff_cond_measure("cond", handoff_cond, &mutex_ops, &cond_ops, &mutex, &ping_cond,
                         &pong_cond);
    pthread_cond_destroy(&pong_cond);
    pthread_cond_destroy(&ping_cond);
    pthread_mutex_destroy(&mutex);
#ifdef BENCH_C11
    c11_check("mtx_init", mtx_init(&mutex, mtx_plain));
    c11_check("cnd_init", cnd_init(&ping_cond));
    c11_check("cnd_init", cnd_init(&pong_cond));
    handoff_cond_measure("c11_cond", handoff_c11, &c11_mtx_ops, &c11_cnd_ops, &mutex, &ping_cond,
                         &pong_cond);
    cnd_destroy(&pong_cond);
    cnd_destroy(&ping_cond);
    mtx_destroy(&mutex);
#endif
}

/* ---- i. sleep ---- */

static void sleep_nanosleep(long us)
{
    struct timespec request = {0, us * 1000};

    nanosleep(&request, NULL);
}

static void case_sleep(void)
{
    bench_impl("sleep", "all", "nanosleep");
    sleep_measure(sleep_nanosleep);
}

/* ---- i. sweep ---- */

static void case_sweep(void)
{
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;

    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    sweep_measure("mutex", &mutex_ops, &mutex);
    pthread_mutex_destroy(&mutex);
}

/* ---- k. xproc ---- */

/* The objects of case k, in the shared memory's object area (or a private
 * control block's, for the two-thread rows). */
struct xproc_objects {
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;
    pthread_cond_t ping BENCH_OWN_CACHE_LINE;
    pthread_cond_t pong BENCH_OWN_CACHE_LINE;
    sem_t sem_ping BENCH_OWN_CACHE_LINE;
    sem_t sem_pong BENCH_OWN_CACHE_LINE;
};

_Static_assert(sizeof(struct xproc_objects) <= XPROC_OBJECTS_SIZE,
               "case k's objects fit the shared memory's object area");

static struct xproc_objects *xproc_objects_of(struct xproc_control *control)
{
    return (struct xproc_objects *)control->objects;
}

static void xproc_mutex(struct xproc_control *control, struct xproc_parent *parent)
{
    xproc_mutex_side(control, parent, &xproc_objects_of(control)->mutex, &mutex_ops);
}

static void xproc_sem(struct xproc_control *control, struct xproc_parent *parent)
{
    struct xproc_objects *objects = xproc_objects_of(control);

    xproc_signal_side(control, parent, &objects->sem_ping, &objects->sem_pong, &semaphore_ops);
}

static void xproc_cond(struct xproc_control *control, struct xproc_parent *parent)
{
    struct xproc_objects *objects = xproc_objects_of(control);

    xproc_cond_side(control, parent, &objects->mutex, &objects->ping, &objects->pong, &mutex_ops,
                    &cond_ops);
}

static const struct xproc_role xproc_roles[] = {
    { "mutex", xproc_mutex, NULL },
    { "sem", xproc_sem, NULL },
    { "cond", xproc_cond, NULL },
};

static int xproc_child(int argc, char **argv)
{
    return xproc_child_main(argc, argv, xproc_roles,
                            (int)(sizeof xproc_roles / sizeof xproc_roles[0]));
}

/* The errors a library gives for PROCESS_SHARED it cannot do, by name. */
static const char *error_name(int code)
{
    static char number[24];

    switch (code) {
    case ENOSYS: return "ENOSYS";
    case ENOTSUP: return "ENOTSUP";
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    default:
        snprintf(number, sizeof number, "error %d", code);
        return number;
    }
}

/* Makes variant's objects with pshared; 0, or the call and error that refused
 * (*refused). Objects made before the refusal are destroyed again. */
static int xproc_init(struct xproc_objects *objects, const char *role, int pshared,
                      char *refused, size_t size)
{
    pthread_mutexattr_t mutex_attr;
    pthread_condattr_t cond_attr;
    const char *what;
    int rc;

    if (strcmp(role, "sem") == 0) {
        if (sem_init(&objects->sem_ping, pshared != PTHREAD_PROCESS_PRIVATE, 0) != 0) {
            snprintf(refused, size, "sem_init(pshared): %s", error_name(errno));
            return -1;
        }
        if (sem_init(&objects->sem_pong, pshared != PTHREAD_PROCESS_PRIVATE, 0) != 0)
            bench_fatal("sem_init", errno);
        return 0;
    }
    check("pthread_mutexattr_init", pthread_mutexattr_init(&mutex_attr));
    what = "pthread_mutexattr_setpshared";
    rc = pthread_mutexattr_setpshared(&mutex_attr, pshared);
    if (rc == 0) {
        what = "pthread_mutex_init(pshared)";
        rc = pthread_mutex_init(&objects->mutex, &mutex_attr);
    }
    pthread_mutexattr_destroy(&mutex_attr);
    if (rc != 0) {
        snprintf(refused, size, "%s: %s", what, error_name(rc));
        return -1;
    }
    if (strcmp(role, "cond") != 0)
        return 0;
    check("pthread_condattr_init", pthread_condattr_init(&cond_attr));
    what = "pthread_condattr_setpshared";
    rc = pthread_condattr_setpshared(&cond_attr, pshared);
    if (rc == 0) {
        what = "pthread_cond_init(pshared)";
        rc = pthread_cond_init(&objects->ping, &cond_attr);
        if (rc == 0 && (rc = pthread_cond_init(&objects->pong, &cond_attr)) != 0)
            pthread_cond_destroy(&objects->ping);
    }
    pthread_condattr_destroy(&cond_attr);
    if (rc != 0) {
        pthread_mutex_destroy(&objects->mutex);
        snprintf(refused, size, "%s: %s", what, error_name(rc));
        return -1;
    }
    return 0;
}

static void xproc_destroy(struct xproc_objects *objects, const char *role)
{
    if (strcmp(role, "sem") == 0) {
        sem_destroy(&objects->sem_pong);
        sem_destroy(&objects->sem_ping);
        return;
    }
    if (strcmp(role, "cond") == 0) {
        pthread_cond_destroy(&objects->pong);
        pthread_cond_destroy(&objects->ping);
    }
    pthread_mutex_destroy(&objects->mutex);
}

/* The private row (two threads) and the shared one (two processes) of a role. */
static void xproc_rows(const struct xproc_role *role, enum xproc_unit unit)
{
    static struct xproc_control private_control;
    char variant[32], name[BENCH_NAME_SIZE], refused[128];
    struct xproc_control *shared;

    snprintf(variant, sizeof variant, "%s-2t", role->name);
    if (xproc_init(xproc_objects_of(&private_control), role->name, PTHREAD_PROCESS_PRIVATE,
                   refused, sizeof refused) != 0)
        bench_fatal(refused, 0);
    xproc_measure(variant, &private_control, NULL, role->name, role->side, unit);
    xproc_destroy(xproc_objects_of(&private_control), role->name);

    snprintf(variant, sizeof variant, "%s-2p", role->name);
    shared = bench_shared_create(name, sizeof *shared);
    if (xproc_init(xproc_objects_of(shared), role->name, PTHREAD_PROCESS_SHARED, refused,
                   sizeof refused) != 0)
#ifdef BENCH_PSHARED_REQUIRED
        bench_fatal(refused, 0); /* slimpthreads shares every object: a refusal is a bug */
#else
        bench_unsupported("xproc", variant, refused);
#endif
    else {
        xproc_measure(variant, shared, name, role->name, role->side, unit);
        xproc_destroy(xproc_objects_of(shared), role->name);
    }
    bench_shared_close(shared);
}

static void case_xproc(void)
{
    xproc_rows(&xproc_roles[0], XPROC_PAIRS);
    xproc_rows(&xproc_roles[1], XPROC_ROUND_TRIPS);
    xproc_rows(&xproc_roles[2], XPROC_ROUND_TRIPS);
}

/* ---- l. yieldloop ---- */

/* The library's own yield: a round gives the processor away as a POSIX
 * program does. */
static void posix_yield(void)
{
    sched_yield();
}

/* The raw program's second lock, a Win32 SRWLOCK, has no POSIX twin: its
 * cells in this program's columns read "unsupported", with why. */
static void yieldloop_unsupported(const char *lock_name, const char *why)
{
    size_t t;
    char variant[64];

    for (t = 0; t < sizeof yieldloop_threads / sizeof yieldloop_threads[0]; t++) {
        snprintf(variant, sizeof variant, "%s-%dt", lock_name, yieldloop_threads[t]);
        bench_unsupported("yieldloop", variant, why);
    }
}

static void yieldloop_mutex(void *self) { yieldloop_loop(self, &mutex_ops, posix_yield); }

static void case_yieldloop(void)
{
    pthread_mutex_t mutex BENCH_OWN_CACHE_LINE;

    check("pthread_mutex_init", pthread_mutex_init(&mutex, NULL));
    yieldloop_measure("mutex", yieldloop_mutex, &mutex);
    pthread_mutex_destroy(&mutex);
    yieldloop_unsupported("srwlock", "a Win32 SRWLOCK, the raw program's second lock");
}

int main(int argc, char **argv)
{
    static const struct bench_cases cases = {
        case_uncontended, case_lockperf, case_nsv,     case_cond2010,
        case_queue,       case_thread,   case_bufread, case_handoff,
        case_sleep,
        case_sweep,       case_xproc,    case_yieldloop,
        xproc_child,
    };

    return bench_main(argc, argv, PROGRAM_NAME, &cases);
}
