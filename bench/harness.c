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
};

struct bench_params bench_params;

static const char *program_name = "?";
static const char *only_cases;
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
        else {
            fprintf(stderr, "usage: %s [--quick] [--only CASE[,CASE...]]\n", argv[0]);
            exit(2);
        }
    }
    bench_params = quick ? quick_params : full_params;
    /* Results go to a pipe: no buffering surprises if a case crashes. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("#program\t%s\t%s\tcpus=%u\n", program, quick ? "quick" : "full", bench_cpu_count());
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

int64_t bench_cpu_ns(void)
{
    FILETIME created, exited, kernel, user;

    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return 0;
    return filetime_ns(&kernel) + filetime_ns(&user);
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
        printf("%s\t%s\t%s\t%.6g\t%s\t%lld\n", case_name, variant, metric, value, unit, checksum);
    else {
        bad_checksums++;
        printf("%s\t%s\t%s\t%.6g\t%s\tBAD:%lld/%lld\n", case_name, variant, metric, value, unit,
               checksum, expected);
        fprintf(stderr, "%s: %s/%s: checksum %lld, expected %lld\n", program_name, case_name,
                variant, checksum, expected);
    }
    lines_printed++;
}

void bench_impl(const char *case_name, const char *variant, const char *text)
{
    printf("#impl\t%s\t%s\t%s\n", case_name, variant, text);
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
