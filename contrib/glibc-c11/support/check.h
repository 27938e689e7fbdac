/*
 * support/check.h - the part of glibc's test-support check.h that glibc's C11
 * threads tests use, written for slimpthreads (contrib/glibc-c11/run.sh):
 * FAIL_EXIT1 and friends print a message and end the test; TEST_VERIFY and
 * TEST_COMPARE record a failure and go on, and the driver (test-driver.c)
 * (driver.c) turns a recorded failure into exit status 1.
 */
#ifndef SLIM_GLIBC_SUPPORT_CHECK_H
#define SLIM_GLIBC_SUPPORT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define EXIT_UNSUPPORTED 77

/* Set by TEST_VERIFY and friends; the driver fails the test when it is set. */
extern volatile int slim_glibc_test_failed;

void slim_glibc_fail_exit(int status, const char *file, int line, const char *format, ...)
    __attribute__((__noreturn__, __format__(__printf__, 4, 5)));
void slim_glibc_record_failure(const char *file, int line, const char *expression);

/* Runs test under a watchdog of timeout_seconds (times a margin): main's status. */
int slim_glibc_run_test(int (*test)(void), int timeout_seconds);

#define FAIL_EXIT(status, ...) slim_glibc_fail_exit((status), __FILE__, __LINE__, __VA_ARGS__)
#define FAIL_EXIT1(...) FAIL_EXIT(1, __VA_ARGS__)
#define FAIL_UNSUPPORTED(...) FAIL_EXIT(EXIT_UNSUPPORTED, __VA_ARGS__)
#define FAIL_RET(...) \
    do { \
        slim_glibc_record_failure(__FILE__, __LINE__, "FAIL_RET"); \
        printf(__VA_ARGS__); \
        putchar('\n'); \
        return 1; \
    } while (0)

#define TEST_VERIFY(expression) \
    ((expression) ? (void)0 : slim_glibc_record_failure(__FILE__, __LINE__, #expression))
#define TEST_VERIFY_EXIT(expression) \
    ((expression) ? (void)0 : FAIL_EXIT1("%s", #expression))
#define TEST_COMPARE(left, right) TEST_VERIFY((left) == (right))

#endif
