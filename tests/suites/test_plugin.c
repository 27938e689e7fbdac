/* test_plugin.c - a DLL that links slimpthreads statically (plugin_dll.c) is
 * loaded and unloaded thousands of times by a program that links its own
 * static copy: no TLS or FLS slot and no handle leaks, every destructor runs
 * once, no FLS callback is left pointing into the unloaded code (threads that
 * end after the unload, and the end of the process, run cleanly), the two
 * copies of the library keep apart, and an asynchronous request still looked
 * after keeps the plugin loaded until it acts. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <process.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <errno.h>
#include "testutil.h"
#include "../fixtures/plugin_dll.h"

#define LOAD_CYCLES 2000
#define CHILD_CYCLES 20
#define THREADS_PER_CYCLE 2
#define THREADS_AFTER_UNLOAD 8
#define CHILD_ARGUMENT "--plugin-child"
#define CHILD_SUCCESS_STATUS 42
#define CHILD_TIMEOUT_MS 60000
/* Handle values are reused lowest first; a leak of one handle per cycle would
 * move a new handle's value by thousands. */
#define HANDLE_VALUE_SLACK 64

struct plugin {
    HMODULE module;
    plugin_run_function *run;
    plugin_touch_function *touch;
};

static wchar_t plugin_path[MAX_PATH];

static int find_plugin(void)
{
    wchar_t *slash;

    if (GetModuleFileNameW(NULL, plugin_path, MAX_PATH) == 0)
        return 0;
    slash = wcsrchr(plugin_path, L'\\');
    if (slash == NULL)
        slash = wcsrchr(plugin_path, L'/');
    if (slash == NULL || (size_t)(slash + 1 - plugin_path) + wcslen(PLUGIN_DLL_NAME) >= MAX_PATH)
        return 0;
    wcscpy(slash + 1, PLUGIN_DLL_NAME);
    return 1;
}

static int load_plugin(struct plugin *plugin)
{
    plugin->module = LoadLibraryW(plugin_path);
    if (plugin->module == NULL)
        return 0;
    plugin->run = (plugin_run_function *)(void (*)(void))GetProcAddress(plugin->module,
                                                                        "plugin_run");
    plugin->touch = (plugin_touch_function *)(void (*)(void))GetProcAddress(plugin->module,
                                                                            "plugin_touch");
    return plugin->run != NULL && plugin->touch != NULL;
}

/* The index the next TlsAlloc (FlsAlloc) hands out. */
static DWORD next_tls_slot(void)
{
    DWORD slot = TlsAlloc();

    TlsFree(slot);
    return slot;
}

static DWORD next_fls_slot(void)
{
    DWORD slot = FlsAlloc(NULL);

    FlsFree(slot);
    return slot;
}

static uintptr_t next_handle_value(void)
{
    HANDLE event = CreateEventW(NULL, TRUE, FALSE, NULL);

    CloseHandle(event);
    return (uintptr_t)event;
}

/* Load, run, unload: 0, or which step failed. */
static int plugin_cycle(struct plugin_counters *counters)
{
    struct plugin plugin;
    int error;

    if (!load_plugin(&plugin))
        return 1;
    error = plugin.run(counters, THREADS_PER_CYCLE);
    if (!FreeLibrary(plugin.module))
        return 2;
    return error == 0 ? 0 : 3;
}

/* ---- Threads that end after the unload ---- */

static volatile LONG ended_after_unload;

static unsigned __stdcall raw_thread(void *argument)
{
    (void)argument;
    InterlockedIncrement(&ended_after_unload);
    return 0;
}

static void *posix_thread(void *argument)
{
    InterlockedIncrement(&ended_after_unload);
    return argument;
}

/* Win32 threads and pthreads of the program's own copy start and end: an FLS
 * callback left behind by the plugin would crash each of them at its end. */
static void run_threads_after_unload(void)
{
    HANDLE raw[THREADS_AFTER_UNLOAD];
    pthread_t posix[THREADS_AFTER_UNLOAD];
    int i;

    ended_after_unload = 0;
    for (i = 0; i < THREADS_AFTER_UNLOAD; i++) {
        raw[i] = (HANDLE)_beginthreadex(NULL, 0, raw_thread, NULL, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(raw[i]);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&posix[i], NULL, posix_thread, NULL), 0);
    }
    for (i = 0; i < THREADS_AFTER_UNLOAD; i++) {
        CU_ASSERT_EQUAL(WaitForSingleObject(raw[i], 30000), WAIT_OBJECT_0);
        CloseHandle(raw[i]);
        CU_ASSERT_EQUAL(pthread_join(posix[i], NULL), 0);
    }
    CU_ASSERT_EQUAL(ended_after_unload, 2 * THREADS_AFTER_UNLOAD);
}

/* ---- Cases ---- */

static void own_destructor(void *value)
{
    (void)value;
}

static void test_load_unload_cycles(void)
{
    struct plugin_counters counters = {0, 0};
    pthread_key_t own_key;
    pthread_t own_id = pthread_self();
    DWORD tls_before, fls_before;
    uintptr_t handle_before, handle_after;
    double start, per_cycle;
    int cycle, failed = 0, first_failure = 0;

    CU_ASSERT_FATAL(find_plugin());
    /* The program's own copy holds a key and a value across the cycles. */
    CU_ASSERT_EQUAL_FATAL(pthread_key_create(&own_key, own_destructor), 0);
    CU_ASSERT_EQUAL(pthread_setspecific(own_key, &counters), 0);
    /* One cycle first, so that what Windows loads once for good is loaded. */
    CU_ASSERT_EQUAL_FATAL(plugin_cycle(&counters), 0);
    tls_before = next_tls_slot();
    fls_before = next_fls_slot();
    handle_before = next_handle_value();
    start = slimtest_now_ms();
    for (cycle = 1; cycle < LOAD_CYCLES; cycle++) {
        int step = plugin_cycle(&counters);

        if (step != 0 && failed++ == 0)
            first_failure = step;
    }
    per_cycle = (slimtest_now_ms() - start) / (LOAD_CYCLES - 1);
    printf("\n  %d load/unload cycles, %.3f ms each\n", LOAD_CYCLES, per_cycle);
    CU_ASSERT_EQUAL(failed, 0);
    CU_ASSERT_EQUAL(first_failure, 0);
    CU_ASSERT_PTR_NULL(GetModuleHandleW(PLUGIN_DLL_NAME));
    /* Each cycle stores THREADS_PER_CYCLE * 2 values on its threads and one on
     * this thread: every one of them met its destructor, once. */
    CU_ASSERT_EQUAL(counters.stored, LOAD_CYCLES * (THREADS_PER_CYCLE * 2 + 1));
    CU_ASSERT_EQUAL(counters.destructed, counters.stored);
    CU_ASSERT_EQUAL(next_tls_slot(), tls_before);
    CU_ASSERT_EQUAL(next_fls_slot(), fls_before);
    handle_after = next_handle_value();
    CU_ASSERT(handle_after <= handle_before + HANDLE_VALUE_SLACK * sizeof(HANDLE));
    /* The program's copy kept its own state all along. */
    CU_ASSERT_EQUAL(pthread_self(), own_id);
    CU_ASSERT_PTR_EQUAL(pthread_getspecific(own_key), &counters);
    CU_ASSERT_EQUAL(pthread_setspecific(own_key, NULL), 0);
    CU_ASSERT_EQUAL(pthread_key_delete(own_key), 0);
    run_threads_after_unload();
}

/* ---- A host thread that used the plugin lives on after the unload ---- */

struct host_thread {
    struct plugin *plugin;
    struct plugin_counters *counters;
    HANDLE touched, unloaded;
    int touch_result;
};

static unsigned __stdcall use_plugin_then_outlive_it(void *argument)
{
    struct host_thread *host = argument;

    host->touch_result = host->plugin->touch(host->counters);
    SetEvent(host->touched);
    WaitForSingleObject(host->unloaded, INFINITE);
    return 0; /* its end would call into the plugin, were its FLS callback left */
}

static void test_thread_outlives_unload(void)
{
    struct plugin_counters counters = {0, 0};
    struct plugin plugin;
    struct host_thread host;
    HANDLE thread;
    int round;

    CU_ASSERT_FATAL(find_plugin());
    for (round = 0; round < 20; round++) {
        CU_ASSERT_FATAL(load_plugin(&plugin));
        CU_ASSERT_EQUAL(plugin.run(&counters, 1), 0);
        host.plugin = &plugin;
        host.counters = &counters;
        host.touched = CreateEventW(NULL, TRUE, FALSE, NULL);
        host.unloaded = CreateEventW(NULL, TRUE, FALSE, NULL);
        thread = (HANDLE)_beginthreadex(NULL, 0, use_plugin_then_outlive_it, &host, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
        WaitForSingleObject(host.touched, INFINITE);
        CU_ASSERT_EQUAL(host.touch_result, 0);
        CU_ASSERT(FreeLibrary(plugin.module));
        SetEvent(host.unloaded);
        CU_ASSERT_EQUAL(WaitForSingleObject(thread, 30000), WAIT_OBJECT_0);
        CloseHandle(thread);
        CloseHandle(host.touched);
        CloseHandle(host.unloaded);
    }
    /* The living thread's value had no destructor (as at pthread_key_delete);
     * every other value had its one. */
    CU_ASSERT_EQUAL(counters.destructed, counters.stored - 20);
    run_threads_after_unload();
}

/* ---- An asynchronous request pending in the plugin ---- */

static int plugin_loaded(void)
{
    return GetModuleHandleW(plugin_path) != NULL;
}

/* The plugin cancels its thread while the thread spins in generated code,
 * where the request cannot act; the retrier that keeps looking at it runs the
 * plugin's code, and holds the plugin: the host's FreeLibrary leaves it
 * loaded. Released, the thread is cancelled in the plugin's code; then the
 * retrier lets go, and the host's last FreeLibrary unloads the plugin. */
static void test_pending_request_keeps_plugin(void)
{
    static volatile long release;
    struct plugin plugin;
    plugin_cancel_spinner_function *cancel_spinner;
    plugin_join_spinner_function *join_spinner;
    slimtest_spin_routine *spin = slimtest_make_spin();
    int waited;

    CU_ASSERT_FATAL(find_plugin());
    CU_ASSERT_FATAL(load_plugin(&plugin));
    cancel_spinner = (plugin_cancel_spinner_function *)(void (*)(void))GetProcAddress(
        plugin.module, "plugin_cancel_spinner");
    join_spinner = (plugin_join_spinner_function *)(void (*)(void))GetProcAddress(
        plugin.module, "plugin_join_spinner");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cancel_spinner);
    CU_ASSERT_PTR_NOT_NULL_FATAL(join_spinner);
    release = 0;
    CU_ASSERT_EQUAL_FATAL(cancel_spinner(spin, &release), 0);
    CU_ASSERT(FreeLibrary(plugin.module));
    CU_ASSERT_FATAL(plugin_loaded());
    CU_ASSERT_FATAL(LoadLibraryW(plugin_path) == plugin.module); /* to join the thread */
    InterlockedExchange(&release, 1);
    CU_ASSERT_EQUAL(join_spinner(), 1);
    CU_ASSERT(FreeLibrary(plugin.module));
    for (waited = 0; plugin_loaded() && waited < 20000; waited++)
        Sleep(1);
    CU_ASSERT(!plugin_loaded());
    slimtest_free_spin(spin);
}

/* ---- The end of a process that loaded and unloaded the plugin ---- */

static int child_main(void)
{
    struct plugin_counters counters = {0, 0};
    int cycle;

    if (!find_plugin())
        return 1;
    for (cycle = 0; cycle < CHILD_CYCLES; cycle++) {
        if (plugin_cycle(&counters) != 0)
            return 2;
    }
    if (counters.destructed != counters.stored)
        return 3;
    /* Returning from main ends the process, with this thread's FLS callbacks. */
    return CHILD_SUCCESS_STATUS;
}

static void test_process_exit_after_unload(void)
{
    CU_ASSERT_EQUAL(slimtest_run_child(CHILD_ARGUMENT, CHILD_TIMEOUT_MS), CHILD_SUCCESS_STATUS);
}

static CU_TestInfo cases[] = {
    {"2000 load/unload cycles: no slot, handle or destructor lost", test_load_unload_cycles},
    {"a host thread that used the plugin outlives its unload", test_thread_outlives_unload},
    {"the process ends cleanly after unloads (child process)", test_process_exit_after_unload},
    {"an asynchronous request still looked after keeps the plugin loaded",
     test_pending_request_keeps_plugin},
    CU_TEST_INFO_NULL,
};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], CHILD_ARGUMENT) == 0)
        return child_main();
    return slimtest_run("plugin", cases, 240);
}
