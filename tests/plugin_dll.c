/* plugin_dll.c - a plugin DLL that links slimpthreads statically, for
 * test_plugin: loaded and unloaded again and again, it creates threads that
 * store values under keys with destructors and meet on a mutex and a condvar,
 * and leaves a value on the thread that called it (the host's, adopted by this
 * copy of the library), whose destructor must run at the unload; and it
 * cancels a thread asynchronously where the request cannot act at once. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <pthread.h>

#include "plugin_dll.h"

#define PLUGIN_KEYS 2

static struct plugin_counters *counters;
static pthread_key_t keys[PLUGIN_KEYS];
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t arrived_cond = PTHREAD_COND_INITIALIZER;
static int arrived;

static void count_destruction(void *value)
{
    (void)value;
    InterlockedIncrement(&counters->destructed);
}

static void *worker(void *argument)
{
    int key;

    for (key = 0; key < PLUGIN_KEYS; key++) {
        if (pthread_setspecific(keys[key], argument) != 0)
            return NULL;
        InterlockedIncrement(&counters->stored);
    }
    pthread_mutex_lock(&mutex);
    arrived++;
    pthread_cond_signal(&arrived_cond);
    pthread_mutex_unlock(&mutex);
    return argument;
}

static int create_keys(void)
{
    int key, error;

    for (key = 0; key < PLUGIN_KEYS; key++) {
        error = pthread_key_create(&keys[key], count_destruction);
        if (error != 0)
            return error;
    }
    return 0;
}

__declspec(dllexport) int plugin_run(struct plugin_counters *shared, int thread_count)
{
    pthread_t threads[PLUGIN_THREADS_MAX];
    void *result;
    int i, error;

    if (thread_count > PLUGIN_THREADS_MAX)
        return -1;
    counters = shared;
    error = create_keys();
    if (error != 0)
        return error;
    for (i = 0; i < thread_count; i++) {
        error = pthread_create(&threads[i], NULL, worker, &threads[i]);
        if (error != 0)
            return error;
    }
    pthread_mutex_lock(&mutex);
    while (arrived < thread_count)
        pthread_cond_wait(&arrived_cond, &mutex);
    pthread_mutex_unlock(&mutex);
    for (i = 0; i < thread_count; i++) {
        error = pthread_join(threads[i], &result);
        if (error != 0)
            return error;
        if (result != &threads[i])
            return -2;
    }
    /* The caller's own value: its destructor runs when this copy unloads. */
    error = pthread_setspecific(keys[0], counters);
    if (error == 0)
        InterlockedIncrement(&counters->stored);
    return error;
}

/* For a host thread that lives on after the unload: a value (whose destructor
 * cannot run on it once the plugin is gone), a lock, an id. */
__declspec(dllexport) int plugin_touch(struct plugin_counters *shared)
{
    int error;

    counters = shared;
    error = pthread_setspecific(keys[1], shared);
    if (error != 0)
        return error;
    InterlockedIncrement(&counters->stored);
    error = pthread_mutex_lock(&mutex);
    if (error != 0)
        return error;
    pthread_mutex_unlock(&mutex);
    return pthread_self() != 0 ? 0 : -3;
}

/* ---- An asynchronous request that waits for its target ---- */

static pthread_t spinner;
static void (*spin_outside)(volatile long *);
static volatile long *spin_release;
static volatile long spinner_started;
static volatile long spinner_progress;

static void *spin_then_compute(void *unused)
{
    (void)unused;
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
    InterlockedExchange(&spinner_started, 1);
    spin_outside(spin_release);
    for (;;)
        spinner_progress++;
    return NULL;
}

__declspec(dllexport) int plugin_cancel_spinner(void (*spin)(volatile long *),
                                                volatile long *release)
{
    int error;

    spin_outside = spin;
    spin_release = release;
    spinner_started = 0;
    error = pthread_create(&spinner, NULL, spin_then_compute, NULL);
    if (error != 0)
        return error;
    while (!spinner_started)
        Sleep(1);
    Sleep(10); /* inside the spin */
    return pthread_cancel(spinner);
}

__declspec(dllexport) int plugin_join_spinner(void)
{
    void *result = NULL;

    return pthread_join(spinner, &result) == 0 && result == PTHREAD_CANCELED;
}
