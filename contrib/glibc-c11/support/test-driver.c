/*
 * support/test-driver.c - a minimal stand-in for glibc's test driver, written
 * for slimpthreads (contrib/glibc-c11/run.sh): a glibc test ends with
 *   #include <support/test-driver.c>
 * after defining do_test (and perhaps TIMEOUT, in seconds). Only main is here,
 * since a test's own macros (N, ...) may clash with system headers; the rest
 * (the watchdog, the failure reports) is driver.c, compiled beside the test.
 */
#include <support/check.h>

#ifndef TIMEOUT
#define TIMEOUT 20 /* glibc's default */
#endif

int do_test(void); /* static or not, as the test defined it */

int main(void)
{
    return slim_glibc_run_test(do_test, TIMEOUT);
}
