#!/bin/sh
# The test command: build slimpthreads for 64-bit and 32-bit Windows, run every
# test suite under 64-bit and 32-bit Wine, smoke-test the benchmark, build and
# run real programs (xz, zstd: make check-integration; git: make check-git) on
# 64-bit, run glibc's C11 threads tests (make check-c11-glibc) on both, and print
# as the very last line "N passed, N failed", counting CUnit test cases (and
# the checks of the shell tests) over both architectures. Exits non-zero on any
# failure. Run from anywhere; builds in build/ci-<arch> of the source tree.
#
# The Wine loaders are chosen once, first (contrib/wine-run.sh --choose), and
# every later run shares that choice. On a host that cannot execute 32-bit code
# the i686 library, test programs, amalgamation and C11 tests are still built
# (a 32-bit compile or link break still fails), and the programs that could not
# run are reported in one line: never counted as passed.
#
#   sh contrib/test-all.sh            everything
#   ARCHS=x86_64 sh contrib/test-all.sh   one architecture
#   SKIP_BENCH=1 SKIP_INTEGRATION=1 ...    without the benchmark or the real programs
#   SKIP_GLIBC_C11=1 ...                   without glibc's C11 threads tests
#   SKIP_GIT=1 ...                         without git (contrib/git/try-git.sh)
#   SKIP_DEBIAN=1 ...                      without the Debian packages (make check-debian)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
archs=${ARCHS:-"x86_64 i686"}
jobs=${JOBS:-2}
passed=0
failed=0
not_run=0
status=0

say() { printf '== %s\n' "$*"; }

# Adds up the "slimtest-summary: SUITE PASSED FAILED" lines of one build's logs;
# a test program that failed without printing one counts as one failed case.
count_results() { # build directory
    for trs in "$1"/tests/*.trs; do
        [ -f "$trs" ] || continue
        log=${trs%.trs}.log
        # Windows programs end their lines with CR LF.
        summary=$(tr -d '\r' <"$log" 2>/dev/null | grep '^slimtest-summary:' | tail -n 1)
        if [ -n "$summary" ]; then
            set -- "$1" $summary
            passed=$((passed + $4))
            failed=$((failed + $5))
        elif grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs"; then
            failed=$((failed + 1))
        elif grep -q '^:test-result: SKIP' "$trs" && grep -q 'not run:' "$log"; then
            not_run=$((not_run + 1))
        fi
        count_not_run "$log"
    done
}

# Adds up the "slimtest-not-run: SUITE N" lines of a log: programs a shell test
# built but this host could not execute.
count_not_run() { # log file
    for count in $(tr -d '\r' <"$1" 2>/dev/null | sed -n 's/^slimtest-not-run: [^ ]* //p'); do
        not_run=$((not_run + count))
    done
}

# Runs one make target of a build that ends with a "slimtest-summary: SUITE
# PASSED FAILED" line and adds it up; no such line counts as one failed case.
run_counted() { # build target suite output-file [pattern of lines to show]
    (cd "$1" && make "$2" >"$1/$4" 2>&1) || status=1
    grep -E "${5:-^(PASS|FAIL)}" "$1/$4"
    summary=$(grep "^slimtest-summary: $3" "$1/$4" | tail -n 1)
    count_not_run "$1/$4"
    if [ -n "$summary" ]; then
        set -- $summary
        passed=$((passed + $3))
        failed=$((failed + $4))
    else
        tail -n 40 "$1/$4"
        failed=$((failed + 1))
    fi
}

cd "$top" || exit 1
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    say "autogen"
    ./autogen.sh >/dev/null 2>&1 || { ./autogen.sh; echo "0 passed, 1 failed"; exit 1; }
fi

started=$(date +%s)
# One loader choice for the whole run, made in the first build's prefix.
first_arch=${archs%% *}
mkdir -p "$top/build/ci-$first_arch"
if ! choice=$(WINEPREFIX=$top/build/ci-$first_arch/wineprefix sh "$top/contrib/wine-run.sh" --choose); then
    say "no Wine loader runs 64-bit Windows programs on this host: nothing can be tested (see above)"
    echo "0 passed, 1 failed"
    exit 1
fi
eval "$choice"
say "Wine loaders: 64-bit programs: $WINE64; 32-bit programs: $WINE32"

for arch in $archs; do
    host=$arch-w64-mingw32
    build=$top/build/ci-$arch
    not_run=0
    say "build and test for $host in $build"
    mkdir -p "$build"
    if ! (cd "$build" && { [ -f Makefile ] || "$top/configure" --host="$host" -q; } &&
        make -j"$jobs" >build.out 2>&1); then
        tail -n 40 "$build/build.out" 2>/dev/null
        say "build for $host FAILED"
        failed=$((failed + 1))
        status=1
        continue
    fi
    rm -f "$build"/tests/*.log "$build"/tests/*.trs
    if ! (cd "$build" && make -j"$jobs" check >check.out 2>&1); then
        status=1
    fi
    grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP):' "$build/check.out"
    for log in $(grep -lE '^:test-result: (FAIL|ERROR)' "$build"/tests/*.trs 2>/dev/null); do
        say "log of ${log%.trs}"
        tail -n 60 "${log%.trs}.log"
    done
    count_results "$build"
    if [ -z "${SKIP_GLIBC_C11:-}" ]; then
        say "glibc's C11 threads tests (make check-c11-glibc)"
        run_counted "$build" check-c11-glibc glibc-c11 glibc-c11.out
    fi
    if [ "$not_run" -gt 0 ]; then
        why=${SLIM_WINE32_WHY:-WINE32=none}
        say "$arch: $not_run test programs built, not run: ${why%%: tried*}"
    fi
    if [ "$arch" = x86_64 ] && [ -z "${SKIP_BENCH:-}" ]; then
        say "benchmark smoke test (bench-quick, no timing is asserted)"
        if (cd "$build" && make bench-quick >bench.out 2>&1); then
            passed=$((passed + 1))
            tail -n 5 "$build/bench.out"
        else
            tail -n 40 "$build/bench.out"
            failed=$((failed + 1))
            status=1
        fi
    fi
    if [ "$arch" = x86_64 ] && [ -z "${SKIP_INTEGRATION:-}" ]; then
        say "real programs: xz and zstd built unchanged against the installed library"
        run_counted "$build" check-integration integration integration.out
    fi
    if [ "$arch" = x86_64 ] && [ -z "${SKIP_INTEGRATION:-}" ] && [ -z "${SKIP_GIT:-}" ]; then
        say "git: built with its own pthread layer and with the drop-in, one workload compared"
        run_counted "$build" check-git git git.out '^(PASS|FAIL)|^\||^== timing'
    fi
    if [ "$arch" = x86_64 ] && [ -z "${SKIP_DEBIAN:-}" ]; then
        say "Debian packages: built from make dist, installed, used, purged (contrib/debian-check.sh)"
        run_counted "$build" check-debian debian debian.out '^(PASS|FAIL|NOT RUN)'
    fi
done
say "done in $(($(date +%s) - started)) s"
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
