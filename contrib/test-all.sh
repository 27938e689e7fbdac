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
#   SKIP_AARCH64=1 ...                     without the aarch64 leg
#
# The aarch64 leg (aarch64_leg below) builds with zig's cc and runs the programs
# under emulation (contrib/wine-arm64.sh); a host that cannot emulate builds them
# and reports them as not run, as for i686.
#
#   SKIP_CLANG=1 ...                       without the clang legs
#   SKIP_UCRT=1 ...                        without the UCRT leg (zig's cc)
#   SKIP_DEBIAN=1 ...                      without the Debian packages (make check-debian)
#
# The clang legs (build/ci-clang-<arch>: Debian's clang for the architectures
# in ARCHS, i686 only where the host runs 32-bit code) run the whole make check
# (CUnit suites, header, amalgamation and install tests); no benchmark, real
# programs or glibc's C11 tests. The UCRT leg (build/ci-ucrt-x86_64: zig's cc,
# which links the UCRT, as MSYS2's UCRT64 does) runs the CUnit suites. Zig is
# where contrib/zig-path.sh says (SLIM_ZIG); without it the leg fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
archs=${ARCHS:-"x86_64 i686 aarch64"}
[ -z "${SKIP_AARCH64:-}" ] || archs=$(echo " $archs " | sed 's/ aarch64 / /; s/^ //; s/ $//')
jobs=${JOBS:-2}
passed=0
failed=0
not_run=0
skipped=0
status=0

say() { printf '== %s\n' "$*"; }

# Adds up the "slimtest-summary: SUITE PASSED FAILED" lines of one build's logs;
# a test program that failed without printing one counts as one failed case.
count_results() { # build directory
    for trs in "$1"/tests/*/*.trs; do
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
        count_skipped "$log"
    done
}

# Adds up the "slimtest-skipped: SUITE N" lines of a log (checks a shell test
# could not make: a tool this host lacks) and shows their reasons.
count_skipped() { # log file
    for count in $(sed -n 's/^slimtest-skipped: [^ ]* //p' "$1" 2>/dev/null); do
        skipped=$((skipped + count))
        grep '^SKIP: ' "$1"
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
    count_skipped "$1/$4"
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

# Configures (once, with the arguments given) and builds; a failure is shown
# and counted as one failed case.
configure_and_build() { # build host [configure arguments...]
    build=$1 host=$2
    shift 2
    mkdir -p "$build"
    if (cd "$build" && { [ -f Makefile ] || "$top/configure" --host="$host" -q "$@"; } &&
        make -j"$jobs" >build.out 2>&1); then
        return 0
    fi
    tail -n 40 "$build/build.out" 2>/dev/null
    say "build in $build FAILED"
    failed=$((failed + 1))
    status=1
    return 1
}

# make check (with the make arguments given), its results shown and counted.
check_counted() { # build [make arguments...]
    build=$1
    shift
    rm -f "$build"/tests/*/*.log "$build"/tests/*/*.trs
    (cd "$build" && make -j"$jobs" check "$@" >check.out 2>&1) || status=1
    grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP):' "$build/check.out"
    for log in $(grep -lE '^:test-result: (FAIL|ERROR)' "$build"/tests/*/*.trs 2>/dev/null); do
        say "log of ${log%.trs}"
        tail -n 60 "${log%.trs}.log"
    done
    count_results "$build"
}

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

# shellcheck source=contrib/test-aarch64.sh
. "$top/contrib/test-aarch64.sh"

for arch in $archs; do
    if [ "$arch" = aarch64 ]; then
        aarch64_leg
        continue
    fi
    host=$arch-w64-mingw32
    build=$top/build/ci-$arch
    not_run=0
    say "build and test for $host in $build"
    configure_and_build "$build" "$host" || continue
    check_counted "$build"
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
# ---- Other compilers: clang (MinGW-w64's CRT) and zig's cc (the UCRT) ----
. "$top/contrib/zig-path.sh"

clang_leg() { # arch
    host=$1-w64-mingw32
    # Debian's clang does not find MinGW-w64's libgcc directory (README.md).
    libgcc_dir=$(dirname "$("$host-gcc" -print-libgcc-file-name)")
    say "clang: build and test for $host in $top/build/ci-clang-$1"
    configure_and_build "$top/build/ci-clang-$1" "$host" \
        CC="clang --target=$1-w64-windows-gnu" LDFLAGS="-L$libgcc_dir" || return
    check_counted "$top/build/ci-clang-$1"
}

# The CUnit suites only: the shell tests check what MinGW-w64's binutils and
# gcc give (symbol tables, -pthread adding -lpthread), which zig's do not.
ucrt_leg() {
    build=$top/build/ci-ucrt-x86_64
    say "UCRT (zig's cc): build and test for x86_64-w64-mingw32 in $build"
    if [ ! -x "$SLIM_ZIG" ]; then
        say "no zig at $SLIM_ZIG (contrib/setup-deps.sh installs it): UCRT leg FAILED"
        failed=$((failed + 1))
        status=1
        return
    fi
    configure_and_build "$build" x86_64-w64-mingw32 CC="$SLIM_ZIG cc -target x86_64-windows-gnu" \
        AR="$SLIM_ZIG ar" RANLIB="$SLIM_ZIG ranlib" || return
    check_counted "$build" TESTS="$(cd "$build" && make -s print-unit-tests)"
    # The leg's point: what ran is linked with the UCRT, not msvcrt.dll.
    if x86_64-w64-mingw32-objdump -p "$build/tests/suites/test_thread.exe" 2>/dev/null |
        grep -qi 'DLL Name: api-ms-win-crt-'; then
        passed=$((passed + 1))
        echo "PASS: the test programs import the UCRT (api-ms-win-crt-*)"
    else
        failed=$((failed + 1))
        status=1
        echo "FAIL: tests/suites/test_thread.exe does not import the UCRT"
    fi
}

legs_started=$(date +%s)
if [ -z "${SKIP_CLANG:-}" ]; then
    for arch in $archs; do
        if [ "$arch" = i686 ] && [ "$WINE32" = none ]; then
            say "clang: no i686 leg: this host runs no 32-bit Windows programs"
            continue
        fi
        # Debian ships no aarch64 MinGW-w64 runtime to link with: the aarch64 leg is zig's.
        [ "$arch" != aarch64 ] || continue
        clang_leg "$arch"
    done
    say "clang legs: $(($(date +%s) - legs_started)) s"
fi
legs_started=$(date +%s)
if [ -z "${SKIP_UCRT:-}" ]; then
    ucrt_leg
    say "UCRT leg: $(($(date +%s) - legs_started)) s"
fi
[ "$skipped" -eq 0 ] || say "$skipped shell checks skipped (the SKIP lines above say why)"
say "done in $(($(date +%s) - started)) s"
[ "$failed" -eq 0 ] || status=1
echo "$passed passed, $failed failed"
exit $status
