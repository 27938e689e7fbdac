/*
 * harness.c - clock, CPU time, sleep, output and run sizes of the benchmarks.
 *
 * Compiled into all three programs unchanged. It calls Windows directly (QPC,
 * GetProcessTimes, Sleep, SwitchToThread) rather than clock_gettime or
 * nanosleep, because those belong to the libraries being compared: every
 * program must time itself, and sleep in case c, in exactly the same way.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NANOSECONDS_PER_SECOND 1000000000LL
#define NANOSECONDS_PER_FILETIME_TICK 100LL

static const struct bench_params full_params = {
    .lockperf_pairs = 1000000,
    .lockperf_cap_ms = 400,
    .nsv_background_ops = 20000,
    .nsv_foreground_ops = 200000,
    .nsv_cap_ms = 600,
    .nsv_busy_foreground_ops = 50000,
    .nsv_busy_cap_ms = 3000,
    .cond2010_ms = 1200,
    .uncontended_ms = 60,
    .queue_ms = 500,
    .thread_ms = 400,
    .bufread_bytes = 8L << 20,
    .handoff_ms = 300,
    .subruns = 5,
    .sweep_ms = 200,
    .xproc_ms = 300,
    .yieldloop_rounds = 4000,
};

static const struct bench_params quick_params = {
    .lockperf_pairs = 100000,
    .lockperf_cap_ms = 150,
    .nsv_background_ops = 2000,
    .nsv_foreground_ops = 20000,
    .nsv_cap_ms = 150,
    .nsv_busy_foreground_ops = 1000,
    .nsv_busy_cap_ms = 600,
    .cond2010_ms = 400,
    .uncontended_ms = 10,
    .queue_ms = 100,
    .thread_ms = 80,
    .bufread_bytes = 1L << 20,
    .handoff_ms = 60,
    .subruns = 2,
    .sweep_ms = 40,
    .xproc_ms = 60,
    .yieldloop_rounds = 1000,
};

struct bench_params bench_params;

static const char *program_name = "?";
static const char *only_cases;
static int load_threads;
static long lines_printed;
static int bad_checksums;

static int case_in_list(const char *list, const char *case_name)
{
    size_t length = strlen(case_name);
    const char *item = list;

    while (item != NULL && *item != '\0') {
        const char *comma = strchr(item, ',');
        size_t item_length = comma ? (size_t)(comma - item) : strlen(item);

        if (item_length == length && strncmp(item, case_name, length) == 0)
            return 1;
        item = comma ? comma + 1 : NULL;
    }
    return 0;
}

int bench_case_enabled(const char *case_name)
{
    return only_cases == NULL || case_in_list(only_cases, case_name);
}

/* The N of --load N, or -1 when it is not a number from 0 to BENCH_MAX_LOAD_THREADS. */
static int parse_load(const char *text)
{
    char *end;
    long n = strtol(text, &end, 10);

    return *text != '\0' && *end == '\0' && n >= 0 && n <= BENCH_MAX_LOAD_THREADS ? (int)n : -1;
}

void bench_init(int argc, char **argv, const char *program)
{
    int quick = 0;
    int i;

    program_name = program;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only_cases = argv[++i];
        else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc && parse_load(argv[i + 1]) >= 0)
            load_threads = parse_load(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--quick] [--only CASE[,CASE...]] [--load N (0-%d)]\n",
                    argv[0], BENCH_MAX_LOAD_THREADS);
            exit(2);
        }
    }
    bench_params = quick ? quick_params : full_params;
    bench_params.load_threads = load_threads;
    /* From the environment, not an option: a peer built from an older
     * bench_posix.c must still run. */
    if (getenv("BENCH_SWEEP_RATE") != NULL)
        bench_params.sweep_loops_per_us = atof(getenv("BENCH_SWEEP_RATE"));
    /* Results go to a pipe: no buffering surprises if a case crashes. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("#program\t%s\t%s\tcpus=%u\tload=%d\n", program, quick ? "quick" : "full",
           bench_cpu_count(), load_threads);
}

int bench_finish(void)
{
    printf("done\t%s\tlines\t%ld\tcount\t%s\n", program_name, lines_printed,
           bad_checksums ? "BAD" : "ok");
    fflush(stdout);
    return bad_checksums ? 1 : 0;
}

int64_t bench_now_ns(void)
{
    static LONGLONG frequency;
    LARGE_INTEGER counter;

    if (frequency == 0) {
        LARGE_INTEGER value;
        QueryPerformanceFrequency(&value);
        frequency = value.QuadPart;
    }
    QueryPerformanceCounter(&counter);
    return (int64_t)(counter.QuadPart / frequency) * NANOSECONDS_PER_SECOND +
           (int64_t)(counter.QuadPart % frequency) * NANOSECONDS_PER_SECOND / frequency;
}

static int64_t filetime_ns(const FILETIME *time)
{
    ULONGLONG ticks = ((ULONGLONG)time->dwHighDateTime << 32) | time->dwLowDateTime;
    return (int64_t)ticks * NANOSECONDS_PER_FILETIME_TICK;
}

/* ---- Load threads (--load N) ---- */

/* A load thread looks at its stop flag once every this many steps. */
#define LOAD_STEPS_PER_CHECK 4096
/* The steps: a linear congruential generator (Numerical Recipes' constants),
 * arithmetic in a register that no compiler can fold away. */
#define LOAD_MULTIPLIER 1664525u
#define LOAD_INCREMENT 1013904223u
#define LOAD_SUFFIX_SIZE 16

static HANDLE load_handles[BENCH_MAX_LOAD_THREADS];
static int load_running;          /* threads in load_handles */
static atomic_int load_stop;
static volatile uint32_t load_sink; /* each thread's last value: the work is used */
static int64_t load_cpu_retired_ns; /* CPU time of the load threads already stopped */
static char load_suffix[LOAD_SUFFIX_SIZE] = "";

static DWORD WINAPI load_thread(void *argument)
{
    uint32_t value = (uint32_t)(uintptr_t)argument;
    int i;

    /* No memory traffic but the flag: the load takes processor time from the
     * case, not cache lines. */
    while (!atomic_load_explicit(&load_stop, memory_order_relaxed)) {
        for (i = 0; i < LOAD_STEPS_PER_CHECK; i++) {
            value = value * LOAD_MULTIPLIER + LOAD_INCREMENT;
            __asm__ volatile("" : "+r"(value)); /* one step at a time, as written */
        }
    }
    load_sink = value;
    return 0;
}

static int64_t thread_cpu_ns(HANDLE thread)
{
    FILETIME created, exited, kernel, user;

    if (!GetThreadTimes(thread, &created, &exited, &kernel, &user))
        return 0;
    return filetime_ns(&kernel) + filetime_ns(&user);
}

/* The CPU time of every load thread so far, running or stopped. */
static int64_t load_cpu_ns(void)
{
    int64_t total = load_cpu_retired_ns;
    int i;

    for (i = 0; i < load_running; i++)
        total += thread_cpu_ns(load_handles[i]);
    return total;
}

void bench_load_start(void)
{
    int i;

    if (load_running > 0 || bench_params.load_threads == 0)
        return;
    atomic_store(&load_stop, 0);
    for (i = 0; i < bench_params.load_threads; i++) {
        load_handles[i] = CreateThread(NULL, 0, load_thread, (void *)(uintptr_t)(i + 1), 0, NULL);
        if (load_handles[i] == NULL)
            bench_fatal("load: CreateThread", (int)GetLastError());
        load_running = i + 1;
    }
    snprintf(load_suffix, sizeof load_suffix, "-load%d", bench_params.load_threads);
}

void bench_load_stop(void)
{
    int i;

    atomic_store(&load_stop, 1);
    for (i = 0; i < load_running; i++) {
        WaitForSingleObject(load_handles[i], INFINITE);
        load_cpu_retired_ns += thread_cpu_ns(load_handles[i]);
        CloseHandle(load_handles[i]);
    }
    load_running = 0;
    load_suffix[0] = '\0';
}

int bench_loaded(void)
{
    return load_running > 0;
}

const char *bench_variant_suffix(void)
{
    return load_suffix;
}

int64_t bench_cpu_ns(void)
{
    FILETIME created, exited, kernel, user;

    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return 0;
    return filetime_ns(&kernel) + filetime_ns(&user) - load_cpu_ns();
}

int64_t bench_machine_cpu_ns(void)
{
    FILETIME idle, kernel, user;

    if (!GetSystemTimes(&idle, &kernel, &user))
        return 0;
    return filetime_ns(&kernel) + filetime_ns(&user) - filetime_ns(&idle); /* kernel holds idle */
}

void bench_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

void bench_yield(void)
{
    SwitchToThread();
}

unsigned bench_cpu_count(void)
{
    SYSTEM_INFO info;

    GetSystemInfo(&info);
    return info.dwNumberOfProcessors;
}

void bench_pin_to_cpu(int cpu)
{
    DWORD_PTR process_mask, system_mask;

    if (!GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask))
        return;
    if (cpu >= 0 && cpu < (int)(8 * sizeof(DWORD_PTR)) &&
        (process_mask & ((DWORD_PTR)1 << cpu)) != 0)
        SetThreadAffinityMask(GetCurrentThread(), (DWORD_PTR)1 << cpu);
    else
        SetThreadAffinityMask(GetCurrentThread(), process_mask);
}

void bench_report(const char *case_name, const char *variant, const char *metric,
                  double value, const char *unit, long long checksum, long long expected)
{
    if (checksum == expected)
        printf("%s\t%s%s\t%s\t%.6g\t%s\t%lld\n", case_name, variant, load_suffix, metric, value,
               unit, checksum);
    else {
        bad_checksums++;
        printf("%s\t%s%s\t%s\t%.6g\t%s\tBAD:%lld/%lld\n", case_name, variant, load_suffix,
               metric, value, unit, checksum, expected);
        fprintf(stderr, "%s: %s/%s%s: checksum %lld, expected %lld\n", program_name, case_name,
                variant, load_suffix, checksum, expected);
    }
    lines_printed++;
}

void bench_impl(const char *case_name, const char *variant, const char *text)
{
    printf("#impl\t%s\t%s\t%s\n", case_name, variant, text);
}

void bench_unsupported(const char *case_name, const char *variant, const char *why)
{
    printf("#unsupported\t%s\t%s%s\t%s\n", case_name, variant, load_suffix, why);
}

void bench_fatal(const char *what, int code)
{
    fflush(stdout);
    fprintf(stderr, "%s: fatal: %s failed (%d)\n", program_name, what, code);
    exit(2);
}

void bench_temp_path(char *buffer, unsigned size, const char *tag)
{
    snprintf(buffer, size, "bench-%s-%lu.tmp", tag, (unsigned long)GetCurrentProcessId());
}

/* ---- Another process (case k) ---- */

/* A child that ends with a failure, or that the watchdog finds still there,
 * ends the parent with this status; a child whose parent is gone ends with
 * BENCH_ORPHANED. */
#define BENCH_OTHER_FAILED 2
#define BENCH_ORPHANED 3
#define BENCH_CHILD_HUNG 4
#define BENCH_MAX_MAPPINGS 4
/* After the child's end, the time the parent has to end the watch. */
#define BENCH_EXIT_GRACE_MS 10000

/* The mappings this process created: the handle is kept until the view is
 * closed, so that the name stays for the child to open. */
static struct {
    void *view;
    HANDLE mapping;
} mappings[BENCH_MAX_MAPPINGS];
static unsigned mapping_serial;

void *bench_shared_create(char *name, unsigned long size)
{
    HANDLE mapping;
    void *view;
    int slot;

    for (slot = 0; slot < BENCH_MAX_MAPPINGS && mappings[slot].view != NULL; slot++)
        ;
    if (slot == BENCH_MAX_MAPPINGS)
        bench_fatal("bench_shared_create: too many mappings", BENCH_MAX_MAPPINGS);
    snprintf(name, BENCH_NAME_SIZE, "Local\\slimbench-%lu-%u", (unsigned long)GetCurrentProcessId(),
             ++mapping_serial);
    mapping = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, size, name);
    if (mapping == NULL)
        bench_fatal("CreateFileMapping", (int)GetLastError());
    view = MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size);
    if (view == NULL)
        bench_fatal("MapViewOfFile", (int)GetLastError());
    mappings[slot].view = view;
    mappings[slot].mapping = mapping;
    return view;
}

void *bench_shared_open(const char *name, unsigned long size)
{
    HANDLE mapping = OpenFileMappingA(FILE_MAP_READ | FILE_MAP_WRITE, FALSE, name);
    void *view = NULL;

    if (mapping == NULL)
        return NULL;
    /* A first view, kept, takes the place where the creator's address would
     * likely fall: the objects must work where the other process does not
     * have them. */
    if (MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size) != NULL)
        view = MapViewOfFile(mapping, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size);
    CloseHandle(mapping); /* the views keep it */
    return view;
}

void bench_shared_close(void *view)
{
    int slot;

    UnmapViewOfFile(view);
    for (slot = 0; slot < BENCH_MAX_MAPPINGS; slot++)
        if (mappings[slot].view == view) {
            CloseHandle(mappings[slot].mapping);
            mappings[slot].view = NULL;
        }
}

/* A thread that watches the other process of a row (not a primitive under
 * test: plain Win32). */
struct bench_watch {
    HANDLE process;     /* the other side */
    HANDLE released;    /* set when the watch ends normally */
    HANDLE thread;
    DWORD timeout_ms;
    int any_exit_fails; /* the child's view: the parent may not leave first */
    int status;         /* this process's exit status when the watch fires */
};

static DWORD WINAPI watch_thread(void *argument)
{
    struct bench_watch *watch = argument;
    HANDLE handles[2] = { watch->released, watch->process };
    DWORD woken = WaitForMultipleObjects(2, handles, FALSE, watch->timeout_ms);
    DWORD code = 0;

    if (woken == WAIT_OBJECT_0)
        return 0;
    if (woken == WAIT_OBJECT_0 + 1) {
        GetExitCodeProcess(watch->process, &code);
        /* A child leaves with 0 only when told to stop, and then this side
         * ends the watch soon. Its status alone is no proof: a process Wine
         * saw killed reads 0 too. */
        if (code == 0 && !watch->any_exit_fails &&
            WaitForSingleObject(watch->released, BENCH_EXIT_GRACE_MS) == WAIT_OBJECT_0)
            return 0;
        fprintf(stderr, "%s: xproc: the other process ended (status %lu) before its row was done\n",
                program_name, (unsigned long)code);
    } else {
        fprintf(stderr, "%s: xproc: the other process is still there after %lu ms\n",
                program_name, (unsigned long)watch->timeout_ms);
        if (!watch->any_exit_fails)
            TerminateProcess(watch->process, BENCH_CHILD_HUNG);
    }
    fflush(stdout);
    ExitProcess((UINT)watch->status); /* a side may be blocked for good: end them all */
    return 0;
}

static struct bench_watch *watch_start(HANDLE process, unsigned timeout_ms, int any_exit_fails,
                                       int status)
{
    struct bench_watch *watch = calloc(1, sizeof *watch);

    if (watch == NULL)
        bench_fatal("xproc: watch", 0);
    watch->process = process;
    watch->released = CreateEventA(NULL, TRUE, FALSE, NULL);
    watch->timeout_ms = timeout_ms;
    watch->any_exit_fails = any_exit_fails;
    watch->status = status;
    if (watch->released == NULL)
        bench_fatal("xproc: CreateEvent", (int)GetLastError());
    watch->thread = CreateThread(NULL, 0, watch_thread, watch, 0, NULL);
    if (watch->thread == NULL)
        bench_fatal("xproc: CreateThread", (int)GetLastError());
    return watch;
}

static void watch_end(struct bench_watch *watch)
{
    SetEvent(watch->released);
    WaitForSingleObject(watch->thread, INFINITE);
    CloseHandle(watch->thread);
    CloseHandle(watch->released);
    free(watch);
}

struct bench_child {
    PROCESS_INFORMATION process;
    struct bench_watch *watch;
};

struct bench_child *bench_child_start(const char *role, const char *name, unsigned timeout_ms)
{
    struct bench_child *child = calloc(1, sizeof *child);
    char program[MAX_PATH], command[MAX_PATH + 2 * BENCH_NAME_SIZE];
    STARTUPINFOA startup;

    if (child == NULL || GetModuleFileNameA(NULL, program, sizeof program) == 0)
        bench_fatal("xproc: GetModuleFileName", (int)GetLastError());
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    snprintf(command, sizeof command, "\"%s\" %s %s %s %lu", program, BENCH_CHILD_FLAG, role,
             name, (unsigned long)GetCurrentProcessId());
    if (!CreateProcessA(program, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup,
                        &child->process))
        bench_fatal("xproc: CreateProcess", (int)GetLastError());
    child->watch = watch_start(child->process.hProcess, timeout_ms, 0, BENCH_OTHER_FAILED);
    return child;
}

unsigned long bench_child_finish(struct bench_child *child, unsigned timeout_ms)
{
    DWORD status = BENCH_CHILD_HUNG;

    watch_end(child->watch);
    if (WaitForSingleObject(child->process.hProcess, timeout_ms) == WAIT_OBJECT_0)
        GetExitCodeProcess(child->process.hProcess, &status);
    else
        TerminateProcess(child->process.hProcess, BENCH_CHILD_HUNG);
    CloseHandle(child->process.hThread);
    CloseHandle(child->process.hProcess);
    free(child);
    return status;
}

void *bench_child_attach(int argc, char **argv, const char **role, const char **name,
                         unsigned long size, unsigned timeout_ms)
{
    HANDLE parent;
    void *view;

    program_name = "xproc-child";
    if (argc != 5 || strcmp(argv[1], BENCH_CHILD_FLAG) != 0)
        return NULL;
    *role = argv[2];
    *name = argv[3];
    parent = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)strtoul(argv[4], NULL, 10));
    if (parent == NULL)
        return NULL;
    view = bench_shared_open(*name, size);
    if (view != NULL)
        watch_start(parent, timeout_ms, 1, BENCH_ORPHANED); /* lives until the child exits */
    return view;
}
