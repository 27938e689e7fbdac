# Tests: CUnit programs cross-compiled for Windows and run under Wine by
# contrib/wine-run.sh, plus shell tests that inspect what the build produced.
# Every program links the static library, so a test binary shows exactly what a
# statically linked user gets (tests/independence.sh checks it for winpthreads).

TEST_EXTENSIONS = .sh
LOG_COMPILER = $(SHELL) $(top_srcdir)/contrib/wine-run.sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)'; top_srcdir='$(abs_top_srcdir)'; \
	WINEPREFIX='$(abs_top_builddir)/wineprefix'; \
	CC='$(CC)'; CXX_FOR_HOST='$(CXX_FOR_HOST)'; OBJDUMP='$(OBJDUMP)'; NM='$(NM)'; \
	CUNIT_PREFIX='$(CUNIT_PREFIX)'; EXEEXT='$(EXEEXT)'; \
	export top_builddir top_srcdir WINEPREFIX CC CXX_FOR_HOST OBJDUMP NM CUNIT_PREFIX EXEEXT;

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
	tests/test_cancel_async \
	tests/test_deadline \
	tests/test_signal_sched \
	tests/test_c11 \
	tests/test_plugin \
	tests/test_release \
	tests/test_np \
	tests/test_checked
check_PROGRAMS = $(unit_tests)
# The CUnit programs alone, for make check TESTS="`make -s print-unit-tests`"
# (contrib/test-all.sh's UCRT leg).
print-unit-tests:
	@echo $(unit_tests:=$(EXEEXT))
.PHONY: print-unit-tests
check_LIBRARIES = tests/libtestutil.a
tests_libtestutil_a_SOURCES = tests/testutil.c tests/testutil.h

AM_LDFLAGS = -static
LDADD = tests/libtestutil.a libslimpthreads.la $(CUNIT_PREFIX)/lib/libcunit.a

# The plugin that test_plugin loads and unloads: a DLL linking the static library,
# as a plugin (or a library that vendors us) does. Not a libtool module: libtool
# would link it against our DLL rather than the static library.
SLIM_PLUGIN_DLL = tests/slimplugin.dll
$(SLIM_PLUGIN_DLL): $(srcdir)/tests/plugin_dll.c $(srcdir)/tests/plugin_dll.h libslimpthreads.la
	$(AM_V_CCLD)$(CC) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) -shared $(SLIM_STATIC_LIBGCC) \
	  -o $@ $(srcdir)/tests/plugin_dll.c .libs/libslimpthreads.a $(SLIM_SYNCH_LIBS) $(LDFLAGS)
# The checked build's test: compiled for it (testutil.c too: an object of the
# normal build does not link with the checked library), linked with its library.
tests_test_checked_SOURCES = tests/test_checked.c tests/testutil.c tests/testutil.h
tests_test_checked_CPPFLAGS = $(AM_CPPFLAGS) -DSLIMPTHREADS_CHECKED
tests_test_checked_LDADD = libslimpthreads-checked.la $(CUNIT_PREFIX)/lib/libcunit.a
EXTRA_tests_test_plugin_DEPENDENCIES = $(SLIM_PLUGIN_DLL)
tests_test_plugin_SOURCES = tests/test_plugin.c tests/plugin_dll.h
EXTRA_DIST += tests/plugin_dll.c
clean-local: clean-plugin
clean-plugin:
	-rm -f $(SLIM_PLUGIN_DLL)
.PHONY: clean-plugin

TESTS = $(check_PROGRAMS) tests/headers.sh tests/peer_headers.sh tests/independence.sh tests/abi.sh \
	tests/probes.sh tests/wine-loader.sh tests/checked_link.sh tests/toolchain_headers.sh \
	tests/check_calls.sh
EXTRA_DIST += tests/headers.sh tests/independence.sh tests/headers_all.c tests/headers_c11.c tests/headers_windows.c \
	tests/shtest.sh tests/abi.sh tests/abi_prog.c tests/abi_winpthreads.c tests/probes.sh \
	tests/peer_headers.sh tests/peer_pthread.c tests/peer_sched.c tests/peer_semaphore.c tests/peer_report.c \
	tests/wine-loader.sh tests/checked_link.sh tests/toolchain_headers.sh contrib/zig-path.sh \
	tests/check_calls.sh
# No file says which work session or issue made it (tests/history-words.sh).
TESTS += tests/history-words.sh
EXTRA_DIST += tests/history-words.sh

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
	-rm -rf wineprefix wineprefix.server.pid wineprefix.loaders wineprefix.loaders.lock wineprefix.probe \
		wineprefix-arm64 wineprefix-arm64.server.pid wineprefix-arm64.lock wineprefix-arm64.made
.PHONY: clean-wineprefix

# ---- glibc's own C11 threads tests ----
# Not part of `make check`: it downloads Debian's glibc source package (once,
# cached in ~/.cache/slimpthreads/glibc) and extracts the tests from it.
check-c11-glibc: all
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	WINEPREFIX='$(abs_top_builddir)/wineprefix' \
	$(SHELL) $(top_srcdir)/contrib/glibc-c11/run.sh
.PHONY: check-c11-glibc
EXTRA_DIST += contrib/glibc-c11/run.sh contrib/glibc-c11/driver.c \
	contrib/glibc-c11/support/check.h contrib/glibc-c11/support/test-driver.c
clean-local: clean-glibc-c11
clean-glibc-c11:
	-rm -rf glibc-c11
.PHONY: clean-glibc-c11
