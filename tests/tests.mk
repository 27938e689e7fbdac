# Tests: CUnit programs cross-compiled for Windows and run under Wine by
# contrib/wine-run.sh, plus shell tests that inspect what the build produced.
# Every program links the static library, so a test binary shows exactly what a
# statically linked user gets (tests/shell/independence.sh checks it for winpthreads).

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
	tests/suites/test_thread \
	tests/suites/test_once_key \
	tests/suites/test_clock \
	tests/suites/test_mutex \
	tests/suites/test_robust \
	tests/suites/test_pshared_mutex \
	tests/suites/test_spin_barrier \
	tests/suites/test_rwlock \
	tests/suites/test_sem \
	tests/suites/test_pshared_rwsem \
	tests/suites/test_cond \
	tests/suites/test_pshared_cond \
	tests/suites/test_cancel \
	tests/suites/test_cancel_async \
	tests/suites/test_deadline \
	tests/suites/test_signal_sched \
	tests/suites/test_c11 \
	tests/suites/test_plugin \
	tests/suites/test_release \
	tests/suites/test_np \
	tests/suites/test_checked \
	tests/suites/test_mutex_inline_O0 \
	tests/suites/test_mutex_inline_O1 \
	tests/suites/test_mutex_inline_O2 \
	tests/suites/test_mutex_inline_Os \
	tests/suites/test_mutex_inline_O3 \
	tests/suites/test_once_cond_inline_O0 \
	tests/suites/test_once_cond_inline_O2 \
	tests/suites/test_rwlock_inline_O0 \
	tests/suites/test_rwlock_inline_O2
check_PROGRAMS = $(unit_tests)
# The CUnit programs alone, for make check TESTS="`make -s print-unit-tests`"
# (contrib/test-all.sh's UCRT leg).
print-unit-tests:
	@echo $(unit_tests:=$(EXEEXT))
.PHONY: print-unit-tests
check_LIBRARIES = tests/suites/libtestutil.a
tests_suites_libtestutil_a_SOURCES = tests/suites/testutil.c tests/suites/testutil.h

AM_LDFLAGS = -static
LDADD = tests/suites/libtestutil.a libslimpthreads.la $(CUNIT_PREFIX)/lib/libcunit.a

# The plugin that test_plugin loads and unloads: a DLL linking the static library,
# as a plugin (or a library that vendors us) does. Not a libtool module: libtool
# would link it against our DLL rather than the static library.
SLIM_PLUGIN_DLL = tests/suites/slimplugin.dll
$(SLIM_PLUGIN_DLL): $(srcdir)/tests/fixtures/plugin_dll.c $(srcdir)/tests/fixtures/plugin_dll.h libslimpthreads.la
	$(AM_V_CCLD)$(CC) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) -shared $(SLIM_STATIC_LIBGCC) \
	  -o $@ $(srcdir)/tests/fixtures/plugin_dll.c .libs/libslimpthreads.a $(SLIM_SYNCH_LIBS) $(LDFLAGS)
# The checked build's test: compiled for it (testutil.c too: an object of the
# normal build does not link with the checked library), linked with its library.
tests_suites_test_checked_SOURCES = tests/suites/test_checked.c tests/suites/testutil.c tests/suites/testutil.h
tests_suites_test_checked_CPPFLAGS = $(AM_CPPFLAGS) -DSLIMPTHREADS_CHECKED
tests_suites_test_checked_LDADD = libslimpthreads-checked.la $(CUNIT_PREFIX)/lib/libcunit.a
# pthread.h's inline mutex paths against the library's functions, once per
# optimisation level (tests/suites/test_mutex_inline.c). Each object has a rule
# of its own so that its -O comes after the configured CFLAGS (a target's
# _CFLAGS come before them); tests/shell/inline_levels.sh reads the objects.
# Each rule's first prerequisite is its source, which slim_compile_at_level
# compiles ($<); the level's flags follow it.
slim_compile_at_level = $(AM_V_CC)$(MKDIR_P) tests/suites && $(COMPILE) -c -o $@ $<
slim_mutex_inline_deps = tests/suites/test_mutex_inline.c tests/suites/testutil.h $(include_HEADERS)
tests/suites/mutex_inline-O0.$(OBJEXT): $(slim_mutex_inline_deps)
	$(slim_compile_at_level) -O0 -DSLIMTEST_OPT_LEVEL='"O0"'
tests/suites/mutex_inline-O1.$(OBJEXT): $(slim_mutex_inline_deps)
	$(slim_compile_at_level) -O1 -DSLIMTEST_OPT_LEVEL='"O1"'
tests/suites/mutex_inline-O2.$(OBJEXT): $(slim_mutex_inline_deps)
	$(slim_compile_at_level) -O2 -DSLIMTEST_OPT_LEVEL='"O2"'
tests/suites/mutex_inline-Os.$(OBJEXT): $(slim_mutex_inline_deps)
	$(slim_compile_at_level) -Os -DSLIMTEST_OPT_LEVEL='"Os"'
tests/suites/mutex_inline-O3.$(OBJEXT): $(slim_mutex_inline_deps)
	$(slim_compile_at_level) -O3 -DSLIMTEST_OPT_LEVEL='"O3"'
tests_suites_test_mutex_inline_O0_SOURCES =
tests_suites_test_mutex_inline_O0_LDADD = tests/suites/mutex_inline-O0.$(OBJEXT) $(LDADD)
tests_suites_test_mutex_inline_O1_SOURCES =
tests_suites_test_mutex_inline_O1_LDADD = tests/suites/mutex_inline-O1.$(OBJEXT) $(LDADD)
tests_suites_test_mutex_inline_O2_SOURCES =
tests_suites_test_mutex_inline_O2_LDADD = tests/suites/mutex_inline-O2.$(OBJEXT) $(LDADD)
tests_suites_test_mutex_inline_Os_SOURCES =
tests_suites_test_mutex_inline_Os_LDADD = tests/suites/mutex_inline-Os.$(OBJEXT) $(LDADD)
tests_suites_test_mutex_inline_O3_SOURCES =
tests_suites_test_mutex_inline_O3_LDADD = tests/suites/mutex_inline-O3.$(OBJEXT) $(LDADD)
EXTRA_DIST += tests/suites/test_mutex_inline.c
# The inline once and signalling paths against the library's functions, the
# same way, at -O0 (nothing inlined) and -O2 (tests/suites/test_once_cond_inline.c).
slim_once_cond_inline_deps = tests/suites/test_once_cond_inline.c tests/suites/testutil.h \
	$(include_HEADERS)
tests/suites/once_cond_inline-O0.$(OBJEXT): $(slim_once_cond_inline_deps)
	$(slim_compile_at_level) -O0 -DSLIMTEST_OPT_LEVEL='"O0"'
tests/suites/once_cond_inline-O2.$(OBJEXT): $(slim_once_cond_inline_deps)
	$(slim_compile_at_level) -O2 -DSLIMTEST_OPT_LEVEL='"O2"'
tests_suites_test_once_cond_inline_O0_SOURCES =
tests_suites_test_once_cond_inline_O0_LDADD = tests/suites/once_cond_inline-O0.$(OBJEXT) $(LDADD)
tests_suites_test_once_cond_inline_O2_SOURCES =
tests_suites_test_once_cond_inline_O2_LDADD = tests/suites/once_cond_inline-O2.$(OBJEXT) $(LDADD)
EXTRA_DIST += tests/suites/test_once_cond_inline.c
# The inline rwlock write paths against the library's functions, the same way
# (tests/suites/test_rwlock_inline.c).
slim_rwlock_inline_deps = tests/suites/test_rwlock_inline.c tests/suites/testutil.h \
	$(include_HEADERS)
tests/suites/rwlock_inline-O0.$(OBJEXT): $(slim_rwlock_inline_deps)
	$(slim_compile_at_level) -O0 -DSLIMTEST_OPT_LEVEL='"O0"'
tests/suites/rwlock_inline-O2.$(OBJEXT): $(slim_rwlock_inline_deps)
	$(slim_compile_at_level) -O2 -DSLIMTEST_OPT_LEVEL='"O2"'
tests_suites_test_rwlock_inline_O0_SOURCES =
tests_suites_test_rwlock_inline_O0_LDADD = tests/suites/rwlock_inline-O0.$(OBJEXT) $(LDADD)
tests_suites_test_rwlock_inline_O2_SOURCES =
tests_suites_test_rwlock_inline_O2_LDADD = tests/suites/rwlock_inline-O2.$(OBJEXT) $(LDADD)
EXTRA_DIST += tests/suites/test_rwlock_inline.c
EXTRA_tests_suites_test_plugin_DEPENDENCIES = $(SLIM_PLUGIN_DLL)
tests_suites_test_plugin_SOURCES = tests/suites/test_plugin.c tests/fixtures/plugin_dll.h
EXTRA_DIST += tests/fixtures/plugin_dll.c
clean-local: clean-plugin
clean-plugin:
	-rm -f $(SLIM_PLUGIN_DLL)
.PHONY: clean-plugin

# The shell checks (tests/shell/) and the programs and headers they compile
# (tests/fixtures/); tests/README.md says what runs where.
TESTS = $(check_PROGRAMS) tests/shell/headers.sh tests/shell/peer_headers.sh tests/shell/independence.sh \
	tests/shell/abi.sh tests/shell/probes.sh tests/shell/wine-loader.sh tests/shell/checked_link.sh \
	tests/shell/toolchain_headers.sh tests/shell/inline_levels.sh \
	tests/shell/check_calls.sh
EXTRA_DIST += tests/README.md tests/shell/inline_levels.sh tests/shell/shtest.sh tests/shell/headers.sh tests/shell/independence.sh \
	tests/shell/abi.sh tests/shell/probes.sh tests/shell/peer_headers.sh tests/shell/wine-loader.sh \
	tests/shell/checked_link.sh tests/shell/toolchain_headers.sh \
	tests/fixtures/headers_all.c tests/fixtures/headers_c11.c tests/fixtures/headers_windows.c \
	tests/fixtures/abi_prog.c tests/fixtures/abi_winpthreads.c tests/fixtures/peer_pthread.c \
	tests/fixtures/peer_sched.c tests/fixtures/peer_semaphore.c tests/fixtures/peer_report.c \
	tests/shell/check_calls.sh contrib/zig-path.sh
# No file says which work session or issue made it (tests/shell/history-words.sh).
TESTS += tests/shell/history-words.sh
EXTRA_DIST += tests/shell/history-words.sh
# The reader's guide (compat/win32/README.md) and the header comments name
# files and definitions that exist (tests/shell/guide.sh).
TESTS += tests/shell/guide.sh
EXTRA_DIST += tests/shell/guide.sh

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
