/* plugin_dll.h - what test_plugin and plugin_dll share. */
#ifndef SLIMPTHREADS_PLUGIN_DLL_H
#define SLIMPTHREADS_PLUGIN_DLL_H

#define PLUGIN_DLL_NAME L"slimplugin.dll"
#define PLUGIN_THREADS_MAX 8

struct plugin_counters {
    volatile LONG stored;     /* values stored under the plugin's keys */
    volatile LONG destructed; /* destructor calls */
};

/* Creates thread_count threads that each store a value under each of the
 * plugin's keys, meet on a mutex and a condvar and are joined; then stores a
 * value on the calling thread. 0 or an error code. */
typedef int plugin_run_function(struct plugin_counters *counters, int thread_count);

/* Stores a value, locks a mutex, asks pthread_self, on the calling thread. */
typedef int plugin_touch_function(struct plugin_counters *counters);

/* Starts a thread that turns asynchronous, runs spin(release) (code outside
 * any image, where no request can act) and then computes in the plugin's code,
 * and cancels it while it spins: 0 or an error code. */
typedef int plugin_cancel_spinner_function(void (*spin)(volatile long *), volatile long *release);

/* Joins that thread: 1 when it was cancelled. */
typedef int plugin_join_spinner_function(void);

#endif
