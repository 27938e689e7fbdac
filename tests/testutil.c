/* testutil.c - see testutil.h. Uses Win32 directly for the watchdog and the
 * clocks so that a broken library cannot take its own test harness down. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include "testutil.h"

static unsigned watchdog_seconds;
static const char *watchdog_suite;

static DWORD WINAPI watchdog(LPVOID unused)
{
    (void)unused;
    Sleep(watchdog_seconds * 1000u);
    fprintf(stderr, "\nslimtest: suite %s still running after %u s: watchdog ends it\n",
            watchdog_suite, watchdog_seconds);
    printf("slimtest-summary: %s 0 1\n", watchdog_suite);
    fflush(stdout);
    fflush(stderr);
    ExitProcess(3);
    return 0;
}

int slimtest_run(const char *suite_name, CU_TestInfo *cases, unsigned timeout_seconds)
{
    CU_SuiteInfo suites[] = {{suite_name, NULL, NULL, NULL, NULL, cases}, CU_SUITE_INFO_NULL};
    unsigned passed, failed;

    setvbuf(stdout, NULL, _IONBF, 0);
    watchdog_seconds = timeout_seconds;
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
