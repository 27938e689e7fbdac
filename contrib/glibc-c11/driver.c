/*
 * driver.c - the body of the test driver shim (support/test-driver.c) for
 * glibc's C11 threads tests, built beside each one by run.sh.
 *
 * glibc's driver forks and watches the child; Windows cannot fork, so the test
 * runs in this process under a watchdog: a Win32 thread, not one of the
 * library's, so that a hang in the library cannot stop it. The exit status is
 * do_test's, or 1 when a TEST_VERIFY failed, or 3 when the watchdog fired.
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <support/check.h>

/* Wine on a loaded machine is slow: the watchdog allows this many times more. */
#define TIMEOUT_FACTOR 5
#define WATCHDOG_EXIT_STATUS 3

volatile int slim_glibc_test_failed;
static DWORD watchdog_ms;

void slim_glibc_fail_exit(int status, const char *file, int line, const char *format, ...)
{
    va_list arguments;

    printf("%s:%d: %s: ", file, line, status == EXIT_UNSUPPORTED ? "unsupported" : "error");
    va_start(arguments, format);
    vprintf(format, arguments);
    va_end(arguments);
    putchar('\n');
    fflush(stdout);
    exit(status);
}

void slim_glibc_record_failure(const char *file, int line, const char *expression)
{
    printf("%s:%d: error: not true: %s\n", file, line, expression);
    fflush(stdout);
    slim_glibc_test_failed = 1;
}

static DWORD WINAPI watchdog(void *unused)
{
    (void)unused;
    Sleep(watchdog_ms);
    printf("timed out after %lu ms\n", (unsigned long)watchdog_ms);
    fflush(stdout);
    ExitProcess(WATCHDOG_EXIT_STATUS);
    return 0;
}

int slim_glibc_run_test(int (*test)(void), int timeout_seconds)
{
    int status;

    setvbuf(stdout, NULL, _IONBF, 0);
    watchdog_ms = (DWORD)timeout_seconds * TIMEOUT_FACTOR * 1000;
    if (CreateThread(NULL, 0, watchdog, NULL, 0, NULL) == NULL)
        return 1;
    status = test();
    if (status == 0 && slim_glibc_test_failed)
        status = 1;
    fflush(stdout);
    return status;
}
