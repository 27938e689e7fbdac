# Tests: CUnit programs cross-compiled for Windows and run under Wine by
# contrib/wine-run.sh, plus shell tests that inspect what the build produced.
# Every program links the static library, so a test binary shows exactly what a
# statically linked user gets (tests/independence.sh checks it for winpthreads).

TEST_EXTENSIONS = .sh
LOG_COMPILER = $(SHELL) $(top_srcdir)/contrib/wine-run.sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)'; top_srcdir='$(abs_top_srcdir)'; \
	WINEPREFIX='$(abs_top_builddir)/wineprefix'; WINE='$(WINE)'; WINESERVER='$(WINESERVER)'; \
	CC='$(CC)'; CXX_FOR_HOST='$(CXX_FOR_HOST)'; OBJDUMP='$(OBJDUMP)'; NM='$(NM)'; \
	CUNIT_PREFIX='$(CUNIT_PREFIX)'; EXEEXT='$(EXEEXT)'; \
	export top_builddir top_srcdir WINEPREFIX WINE WINESERVER CC CXX_FOR_HOST OBJDUMP NM CUNIT_PREFIX EXEEXT;

unit_tests = \
	tests/test_thread \
	tests/test_once_key \
	tests/test_clock \
	tests/test_mutex \
	tests/test_robust \
	tests/test_spin_barrier \
	tests/test_rwlock \
	tests/test_sem \
	tests/test_cond \
	tests/test_cancel \
	tests/test_signal_sched \
	tests/test_np
check_PROGRAMS = $(unit_tests)
check_LIBRARIES = tests/libtestutil.a
tests_libtestutil_a_SOURCES = tests/testutil.c tests/testutil.h

AM_LDFLAGS = -static
LDADD = tests/libtestutil.a libslimpthreads.la $(CUNIT_PREFIX)/lib/libcunit.a

TESTS = $(check_PROGRAMS) tests/headers.sh tests/independence.sh tests/abi.sh tests/probes.sh
EXTRA_DIST += tests/headers.sh tests/independence.sh tests/headers_all.c tests/shtest.sh \
	tests/abi.sh tests/abi_prog.c tests/abi_winpthreads.c tests/probes.sh

# One wineserver for the whole run, stopped by its pid afterwards (it also exits
# by itself 60 s after its last client, should a failing run skip check-local).
$(TEST_LOGS): wine-server-start
wine-server-start:
	@$(SHELL) $(top_srcdir)/contrib/wine-run.sh --start-server
check-local: check-TESTS
	@$(SHELL) $(top_srcdir)/contrib/wine-run.sh --stop-server
.PHONY: wine-server-start

clean-local: clean-wineprefix
clean-wineprefix:
	-@$(SHELL) $(top_srcdir)/contrib/wine-run.sh --stop-server
	-rm -rf wineprefix wineprefix.server.pid
.PHONY: clean-wineprefix
