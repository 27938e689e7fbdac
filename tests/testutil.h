/*
 * testutil.h - what every slimpthreads test program shares: a CUnit runner
 * bounded by a watchdog, and small time helpers that do not go through the
 * library under test.
 */
#ifndef SLIMPTHREADS_TESTUTIL_H
#define SLIMPTHREADS_TESTUTIL_H

#include <pthread.h>
#include <time.h>
#include <CUnit/Basic.h>

/* Runs one suite and returns main's exit status: 0 when every case passed.
 * A watchdog ends the process with status 3 after timeout_seconds, so a hung
 * case fails the run instead of hanging it. Prints CUnit's verbose report and a
 * last line "slimtest-summary: SUITE PASSED FAILED" that .ci/run adds up. */
int slimtest_run(const char *suite_name, CU_TestInfo *cases, unsigned timeout_seconds);

/* An absolute time ms milliseconds from now on clock (ms may be negative). */
struct timespec slimtest_time_after_ms(clockid_t clock, long ms);

/* Milliseconds on a monotonic clock read straight from Windows (QPC). */
double slimtest_now_ms(void);

/* Sleeps with Win32 Sleep, not with the library's nanosleep. */
void slimtest_sleep_ms(unsigned ms);

/* Number of processors Windows reports. */
unsigned slimtest_cpu_count(void);

#endif
