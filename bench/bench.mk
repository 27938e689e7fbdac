# Benchmarks (bench/README.md): three programs run the same cases.
#   bench/bench_slim         bench_posix.c against slimpthreads (an Automake program)
#   bench/bench_winpthreads  bench_posix.c against MinGW-w64's winpthreads: the -posix
#                            compiler, its own headers (never our include/), -static
#   bench/bench_raw          bench_raw.c on bare Win32 primitives
# `make all` builds none of them (so the library never needs the -posix compiler),
# `make check` builds bench_slim (so CI compiles it); `make bench` builds all three and runs the full comparison, `make bench-quick` a
# short one (CI's smoke test: fails only if a program crashed or a checksum is wrong).
# Optional extra peers (winpthreads v14, pthreads4w): bench/peers.md, BENCH_PEERS=...

BENCH_COMMON = bench/harness.c bench/harness.h bench/cases.h
# -falign-functions=64 -falign-loops=64: every measured loop starts a cache line,
# whichever program and row it is in, so that rows compare code, not addresses.
# Left to the linker, the same machine code (C11's mtx_lock and
# pthread_mutex_lock) ran 4-13% apart in lockperf, and one program's rebuild
# moved single uncontended rows by up to 0.3 ns (7%), as far as their loops'
# 64-byte fetch lines moved (bench/README.md, "Design decisions").
# contrib/peers/common.sh compiles the peers' programs with the same flags.
BENCH_CFLAGS = -std=gnu11 -O2 -falign-functions=64 -falign-loops=64 $(WARN_CFLAGS)
# The winpthreads build: the same target, the -posix flavour of the MinGW-w64 compiler.
WINPTHREADS_CC = $(host_alias)-gcc-posix

EXTRA_PROGRAMS = bench/bench_slim
bench_bench_slim_SOURCES = bench/bench_posix.c $(BENCH_COMMON)
# slimpthreads shares every object: case k's -2p rows may not read "unsupported" there.
bench_bench_slim_CPPFLAGS = -I$(top_srcdir)/include -DBENCH_PROGRAM_NAME='"slimpthreads"' -DBENCH_C11 \
	-DBENCH_PSHARED_REQUIRED
bench_bench_slim_CFLAGS = $(BENCH_CFLAGS)
bench_bench_slim_LDFLAGS = -static
bench_bench_slim_LDADD = libslimpthreads.la

# The checked build (README.md, Checked build) as a peer of its own:
# `make bench-checked` runs the uncontended and lockperf cases with its column.
EXTRA_PROGRAMS += bench/bench_slim_checked
bench_bench_slim_checked_SOURCES = bench/bench_posix.c $(BENCH_COMMON)
bench_bench_slim_checked_CPPFLAGS = -I$(top_srcdir)/include -DSLIMPTHREADS_CHECKED \
	-DBENCH_PROGRAM_NAME='"slimpthreads-checked"' -DBENCH_C11 -DBENCH_PSHARED_REQUIRED
bench_bench_slim_checked_CFLAGS = $(BENCH_CFLAGS)
bench_bench_slim_checked_LDFLAGS = -static
bench_bench_slim_checked_LDADD = libslimpthreads-checked.la

bench/bench_winpthreads$(EXEEXT): bench/bench_posix.c $(BENCH_COMMON)
	@$(MKDIR_P) bench
	$(AM_V_CCLD)$(WINPTHREADS_CC) $(BENCH_CFLAGS) $(CFLAGS) \
		-DBENCH_PROGRAM_NAME='"winpthreads"' -o $@ \
		$(srcdir)/bench/bench_posix.c $(srcdir)/bench/harness.c -static -lpthread

bench/bench_raw$(EXEEXT): bench/bench_raw.c $(BENCH_COMMON)
	@$(MKDIR_P) bench
	$(AM_V_CCLD)$(CC) $(BENCH_CFLAGS) $(CFLAGS) -o $@ \
		$(srcdir)/bench/bench_raw.c $(srcdir)/bench/harness.c -static

BENCH_EXECUTABLES = bench/bench_slim$(EXEEXT) bench/bench_winpthreads$(EXEEXT) \
	bench/bench_raw$(EXEEXT)
BENCH_ENVIRONMENT = BENCH_DIR='$(abs_top_builddir)/bench' \
	WINEPREFIX='$(abs_top_builddir)/wineprefix' \
	BENCH_CC='$(CC)' BENCH_WINPTHREADS_CC='$(WINPTHREADS_CC)'

# CI compiles the slimpthreads benchmark with every `make check`.
check-local: bench/bench_slim$(EXEEXT)

bench-programs: $(BENCH_EXECUTABLES)
bench: bench-programs
	$(BENCH_ENVIRONMENT) $(SHELL) $(srcdir)/bench/run.sh
bench-quick: bench-programs
	$(BENCH_ENVIRONMENT) $(SHELL) $(srcdir)/bench/run.sh --quick
bench-checked: bench-programs bench/bench_slim_checked$(EXEEXT)
	$(BENCH_ENVIRONMENT) $(SHELL) $(srcdir)/bench/run.sh --only uncontended,lockperf \
		--peer checked=bench/bench_slim_checked$(EXEEXT) $(BENCH_CHECKED_FLAGS)
.PHONY: bench bench-quick bench-programs bench-checked

clean-local: clean-bench
# bench/results.svg in the source tree is the chart of the latest full run, which
# bench/README.md shows: an in-tree build writes its runs' chart over it, and
# leaves it there when cleaning.
clean-bench:
	-rm -f $(BENCH_EXECUTABLES) bench/bench_slim_checked$(EXEEXT) bench/results.csv bench/targets.csv bench/results.txt \
		bench/results.png bench/bench-*.tmp
	-test "$(srcdir)" = . || rm -f bench/results.svg
	-rm -rf bench/runs
.PHONY: clean-bench

EXTRA_DIST += bench/bench_raw.c bench/run.sh bench/report.awk bench/targets.txt \
	bench/chart.gp bench/README.md bench/results.svg
# The tarball's chart is the source tree's, the one bench/README.md describes,
# not one that a build directory's own run wrote under the same name.
dist-hook: dist-bench-chart
dist-bench-chart:
	rm -f $(distdir)/bench/results.svg
	cp -p $(srcdir)/bench/results.svg $(distdir)/bench/results.svg
.PHONY: dist-bench-chart
# Optional peers (bench/peers.md): built by hand from sources the user supplies.
EXTRA_DIST += bench/peers.md contrib/peers/common.sh contrib/peers/build-winpthreads.sh \
	contrib/peers/build-pthreads4w.sh contrib/peers/pthreads4w-shim.c \
	contrib/peers/build-mcfgthread.sh contrib/peers/mcfgthread-pthread.h \
	contrib/peers/mcfgthread-winnt-compat.h
