/* testutil.c - see testutil.h. Uses Win32 directly for the watchdog, the clocks
 * and the threads so that a broken library cannot take its own test harness down. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <process.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static unsigned watchdog_seconds;
static const char *watchdog_suite;

static DWORD WINAPI watchdog(LPVOID unused)
{
    CU_pTest running;

    (void)unused;
    Sleep(watchdog_seconds * 1000u);
    running = CU_get_current_test();
    fprintf(stderr, "\nslimtest: suite %s still running after %u s, in case \"%s\": watchdog ends it\n",
            watchdog_suite, watchdog_seconds, running != NULL ? running->pName : "(none)");
    printf("slimtest-summary: %s 0 1\n", watchdog_suite);
    fflush(stdout);
    fflush(stderr);
    ExitProcess(3);
    return 0;
}

static DWORD WINAPI thread_that_returns(LPVOID unused)
{
    (void)unused;
    return 0;
}

/* Milliseconds to create, join and close one raw thread: the cost that makes
 * the suites' thread-heavy cases slow on some hosts (under Wine it ranges from
 * about 0.6 ms to 3.5 ms a thread between machines). */
static double measure_thread_ms(void)
{
    enum { threads = 24 };
    double started = slimtest_now_ms();
    int i;

    for (i = 0; i < threads; i++) {
        HANDLE thread = CreateThread(NULL, 0, thread_that_returns, NULL, 0, NULL);

        if (thread == NULL)
            return SLIMTEST_REFERENCE_THREAD_MS;
        WaitForSingleObject(thread, INFINITE);
        CloseHandle(thread);
    }
    return (slimtest_now_ms() - started) / threads;
}

double slimtest_host_slowness(void)
{
    static double slowness;
    const char *given;

    if (slowness == 0) {
        given = getenv("SLIMTEST_SLOWNESS");
        slowness = given != NULL ? atof(given) : measure_thread_ms() / SLIMTEST_REFERENCE_THREAD_MS;
        if (!(slowness >= SLIMTEST_SLOW_HOST))
            slowness = 1;
        if (slowness > SLIMTEST_MAX_SLOWNESS)
            slowness = SLIMTEST_MAX_SLOWNESS;
    }
    return slowness;
}

unsigned slimtest_rounds(unsigned rounds)
{
    unsigned scaled = (unsigned)(rounds / slimtest_host_slowness());

    return scaled > 0 ? scaled : 1;
}

int slimtest_run(const char *suite_name, CU_TestInfo *cases, unsigned timeout_seconds)
{
    CU_SuiteInfo suites[] = {{suite_name, NULL, NULL, NULL, NULL, cases}, CU_SUITE_INFO_NULL};
    unsigned passed, failed;
    double slowness;

    setvbuf(stdout, NULL, _IONBF, 0);
    slowness = slimtest_host_slowness();
    if (slowness > 1)
        printf("slimtest: threads cost %.1fx the reference host's here: budget %u s, thread-heavy rounds / %.1f\n",
               slowness, (unsigned)(timeout_seconds * slowness), slowness);
    watchdog_seconds = (unsigned)(timeout_seconds * slowness);
    watchdog_suite = suite_name;
    CloseHandle(CreateThread(NULL, 0, watchdog, NULL, 0, NULL));

    if (CU_initialize_registry() != CUE_SUCCESS || CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "slimtest: CUnit setup failed: %s\n", CU_get_error_msg());
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failed = CU_get_number_of_tests_failed();
    passed = CU_get_number_of_tests_run() - failed;
    printf("\nslimtest-summary: %s %u %u\n", suite_name, passed, failed);
    CU_cleanup_registry();
    return failed == 0 ? 0 : 1;
}

struct timespec slimtest_time_after_ms(clockid_t clock, long ms)
{
    struct timespec at;
    long long ns;

    clock_gettime(clock, &at);
    ns = (long long)at.tv_nsec + (long long)ms * 1000000LL;
    at.tv_sec += (time_t)(ns / 1000000000LL);
    ns %= 1000000000LL;
    if (ns < 0) {
        ns += 1000000000LL;
        at.tv_sec -= 1;
    }
    at.tv_nsec = (long)ns;
    return at;
}

double slimtest_now_ms(void)
{
    static LARGE_INTEGER frequency;
    LARGE_INTEGER now;

    if (frequency.QuadPart == 0)
        QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart * 1000.0 / (double)frequency.QuadPart;
}

void slimtest_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

unsigned slimtest_cpu_count(void)
{
    SYSTEM_INFO info;

    GetSystemInfo(&info);
    return info.dwNumberOfProcessors;
}

int slimtest_clock_reached(clockid_t clock, const struct timespec *at)
{
    struct timespec now;

    clock_gettime(clock, &now);
    return now.tv_sec > at->tv_sec || (now.tv_sec == at->tv_sec && now.tv_nsec >= at->tv_nsec);
}

/* Each thread has its own record, so one stack frame may start many threads;
 * the joiner frees it once the thread has ended. */
struct slimtest_thread {
    slimtest_routine *routine;
    void *argument;
    HANDLE handle;
};

static unsigned __stdcall thread_trampoline(void *raw)
{
    struct slimtest_thread *thread = raw;

    thread->routine(thread->argument);
    return 0;
}

struct slimtest_thread *slimtest_start_thread(slimtest_routine *routine, void *argument)
{
    struct slimtest_thread *thread = malloc(sizeof *thread);
    HANDLE handle;

    CU_ASSERT_PTR_NOT_NULL_FATAL(thread);
    thread->routine = routine;
    thread->argument = argument;
    handle = (HANDLE)_beginthreadex(NULL, 0, thread_trampoline, thread, 0, NULL);
    if (handle == NULL)
        free(thread);
    CU_ASSERT_PTR_NOT_NULL_FATAL(handle);
    thread->handle = handle;
    return thread;
}

void slimtest_join_thread(struct slimtest_thread *thread, unsigned timeout_ms)
{
    CU_ASSERT_EQUAL_FATAL(WaitForSingleObject(thread->handle, timeout_ms), WAIT_OBJECT_0);
    CloseHandle(thread->handle);
    free(thread);
}

int slimtest_thread_ended(struct slimtest_thread *thread, unsigned ms)
{
    return WaitForSingleObject(thread->handle, ms) == WAIT_OBJECT_0;
}

void slimtest_start_threads(struct slimtest_thread **threads, unsigned count,
                            slimtest_routine *routine, void *argument)
{
    unsigned i;

    for (i = 0; i < count; i++)
        threads[i] = slimtest_start_thread(routine, argument);
}

void slimtest_join_threads(struct slimtest_thread **threads, unsigned count, unsigned timeout_ms)
{
    unsigned i;

    for (i = 0; i < count; i++)
        slimtest_join_thread(threads[i], timeout_ms);
}

void slimtest_run_threads(unsigned count, slimtest_routine *routine, void *argument)
{
    struct slimtest_thread **threads = calloc(count, sizeof *threads);

    CU_ASSERT_PTR_NOT_NULL_FATAL(threads);
    slimtest_start_threads(threads, count, routine, argument);
    slimtest_join_threads(threads, count, SLIMTEST_JOIN_TIMEOUT_MS);
    free(threads);
}

void slimtest_on_other_thread(slimtest_routine *routine, void *argument)
{
    slimtest_join_thread(slimtest_start_thread(routine, argument), SLIMTEST_JOIN_TIMEOUT_MS);
}

void slimtest_count_under_lock(void *raw)
{
    struct slimtest_counter *counter = raw;
    long round;

    for (round = 0; round < counter->rounds; round++) {
        if (counter->lock(counter->lock_object, round) != 0) {
            InterlockedIncrement(&counter->errors);
            continue;
        }
        counter->value++;
        if (counter->while_held != NULL)
            counter->while_held(round);
        if (counter->unlock(counter->lock_object) != 0)
            InterlockedIncrement(&counter->errors);
    }
}

void *slimtest_alloc_page(size_t size)
{
    void *page = VirtualAlloc(NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);

    CU_ASSERT_PTR_NOT_NULL_FATAL(page);
    return page;
}

void slimtest_free_page(void *page)
{
    CU_ASSERT_FATAL(VirtualFree(page, 0, MEM_RELEASE));
}

#if defined(__x86_64__)
static const unsigned char spin_code[] = {
    0xf3, 0x90,       /* 0: pause */
    0x8b, 0x01,       /* 2: mov (%rcx),%eax: the flag, first argument */
    0x85, 0xc0,       /* 4: test %eax,%eax */
    0x74, 0xf8,       /* 6: jz 0 */
    0xc3,             /* 8: ret */
};
#elif defined(__aarch64__)
static const unsigned char spin_code[] = {
    0x3f, 0x20, 0x03, 0xd5, /* 0: yield */
    0x08, 0x00, 0x40, 0xb9, /* 4: ldr w8, [x0]: the flag, first argument */
    0xc8, 0xff, 0xff, 0x34, /* 8: cbz w8, 0 */
    0xc0, 0x03, 0x5f, 0xd6, /* 12: ret */
};
#else
static const unsigned char spin_code[] = {
    0x8b, 0x4c, 0x24, 0x04, /* 0: mov 4(%esp),%ecx: the flag, first argument */
    0xf3, 0x90,             /* 4: pause */
    0x8b, 0x01,             /* 6: mov (%ecx),%eax */
    0x85, 0xc0,             /* 8: test %eax,%eax */
    0x74, 0xf8,             /* 10: jz 4 */
    0xc3,                   /* 12: ret */
};
#endif

slimtest_spin_routine *slimtest_make_spin(void)
{
    void *code = VirtualAlloc(NULL, sizeof spin_code, MEM_COMMIT | MEM_RESERVE,
                              PAGE_EXECUTE_READWRITE);

    CU_ASSERT_PTR_NOT_NULL_FATAL(code);
    memcpy(code, spin_code, sizeof spin_code);
    FlushInstructionCache(GetCurrentProcess(), code, sizeof spin_code);
    return (slimtest_spin_routine *)(uintptr_t)code;
}

void slimtest_free_spin(slimtest_spin_routine *spin)
{
    VirtualFree((void *)(uintptr_t)spin, 0, MEM_RELEASE);
}

int slimtest_system_returns_replaceable(void)
{
#if defined(__aarch64__)
    MEMORY_BASIC_INFORMATION region;
    const IMAGE_DOS_HEADER *dos;
    const IMAGE_NT_HEADERS64 *nt;

    /* kernel32's: kernelbase's and ntdll's are built as it is */
    if (VirtualQuery((const void *)(uintptr_t)WaitForSingleObject, &region, sizeof region) !=
        sizeof region)
        return 0;
    dos = region.AllocationBase;
    nt = (const IMAGE_NT_HEADERS64 *)((const char *)dos + dos->e_lfanew);
    return nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXCEPTION].Size != 0;
#else
    return 1;
#endif
}

struct slimtest_child {
    PROCESS_INFORMATION process;
};

struct slimtest_child *slimtest_start_child(const char *arguments)
{
    struct slimtest_child *child = calloc(1, sizeof *child);
    char program[MAX_PATH], command[2 * MAX_PATH + 64];
    STARTUPINFOA startup;
    BOOL started;

    CU_ASSERT_PTR_NOT_NULL_FATAL(child);
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    CU_ASSERT_FATAL(GetModuleFileNameA(NULL, program, sizeof program) > 0);
    snprintf(command, sizeof command, "\"%s\" %s", program, arguments);
    started = CreateProcessA(program, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup,
                             &child->process);
    if (!started)
        free(child);
    CU_ASSERT_FATAL(started);
    return child;
}

unsigned long slimtest_finish_child(struct slimtest_child *child, unsigned timeout_ms)
{
    DWORD status = SLIMTEST_CHILD_HUNG;

    if (WaitForSingleObject(child->process.hProcess, timeout_ms) == WAIT_OBJECT_0)
        GetExitCodeProcess(child->process.hProcess, &status);
    else
        TerminateProcess(child->process.hProcess, SLIMTEST_CHILD_HUNG);
    CloseHandle(child->process.hThread);
    CloseHandle(child->process.hProcess);
    free(child);
    return status;
}

unsigned long slimtest_run_child(const char *arguments, unsigned timeout_ms)
{
    return slimtest_finish_child(slimtest_start_child(arguments), timeout_ms);
}

/* ---- Memory several processes map ---- */

void slimtest_shared_name(char *name, size_t size, const char *tag)
{
    snprintf(name, size, "Local\\slimtest-%lu-%s", (unsigned long)GetCurrentProcessId(), tag);
}

static void *map_view(HANDLE mapping, size_t size)
{
    return MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size);
}

void *slimtest_map_shared(const char *name, size_t size, int displaced)
{
    HANDLE mapping = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
                                        (DWORD)size, name);
    void *view = NULL;

    /* The handle stays open until the process ends: a named mapping's name lives
     * only as long as a handle to it (a view is not one), and a child started
     * later must find it. */
    if (mapping != NULL && (!displaced || map_view(mapping, size) != NULL))
        view = map_view(mapping, size); /* the displacing view stays */
    if (view == NULL) {
        fprintf(stderr, "slimtest: cannot map %s: error %lu\n", name, GetLastError());
        if (CU_get_current_test() == NULL)
            ExitProcess(2);
        CU_FAIL_FATAL("slimtest_map_shared");
    }
    return view;
}

void slimtest_unmap_shared(void *view)
{
    UnmapViewOfFile(view);
}
