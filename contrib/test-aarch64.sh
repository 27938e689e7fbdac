# test-aarch64.sh - the aarch64 leg of contrib/test-all.sh, which sources this
# file and calls aarch64_leg; it adds to test-all's counters (passed, failed,
# not_run, status) and uses its say, count_results and run_counted.
#
# The library, CUnit and the tests are built with zig's cc (Debian ships no
# aarch64 MinGW-w64 runtime) and run under emulation: Debian's arm64 Wine in a
# root of its own through qemu-user-static (contrib/wine-arm64.sh). Everything
# is compiled with -D__USE_MINGW_ANSI_STDIO=1: that Wine's CRT DLLs are Linux
# code that reads a Windows va_list wrongly, so printf and its family must be
# MinGW-w64's own, compiled into the program.
#
# What runs: the CUnit suites and tests/shell/wine-loader.sh (a real aarch64 program
# through the emulation's loader). The other shell tests are left out, as in
# the UCRT leg: they check what MinGW-w64's gcc and binutils give (-pthread
# adding -lpthread, GNU ld's messages, x86 tools under the host's name), which
# zig's cc does not; the x86 legs run them.
#
#   SLIM_ZIG           the zig binary (contrib/zig-path.sh)
#   AARCH64_TESTS      the tests to run instead (make check TESTS=...)
#   SKIP_AARCH64_INTEGRATION=1  without xz and zstd under emulation

# shellcheck source=contrib/zig-path.sh
. "$top/contrib/zig-path.sh"
ZIG=$SLIM_ZIG
export ZIG
aarch64_host=aarch64-w64-mingw32
# The C library's own printf family, not the emulated CRT's (see above).
aarch64_cppflags=-D__USE_MINGW_ANSI_STDIO=1

# Prints how long the last step took, and starts timing the next.
aarch64_timed() { # what
    now=$(date +%s)
    say "aarch64 timing: $1: $((now - aarch64_clock)) s"
    aarch64_clock=$now
}

# An LLVM tool that reads aarch64 PE files (the shell tests' nm and objdump:
# Debian's binutils read x86 ones only); nothing when there is none.
aarch64_llvm_tool() { # name
    for tool in "llvm-$1" "llvm-$1-14"; do
        command -v "$tool" && return
    done
}

# DLLTOOL: zig's llvm-dlltool must be told the machine. CXX, NM, OBJDUMP: for
# the shell tests, when AARCH64_TESTS names them.
aarch64_configure() { # build directory
    cc="$ZIG cc -target aarch64-windows-gnu"
    nm=$(aarch64_llvm_tool nm)
    objdump=$(aarch64_llvm_tool objdump)
    # contrib/build-cunit.sh (run by configure) builds CUnit with these.
    CUNIT_CC=$cc CUNIT_AR="$ZIG ar" CUNIT_RANLIB="$ZIG ranlib" CUNIT_CFLAGS=$aarch64_cppflags \
        "$top/configure" -q --host=$aarch64_host CC="$cc" AR="$ZIG ar" RANLIB="$ZIG ranlib" \
        DLLTOOL="$ZIG dlltool -m arm64" CPPFLAGS=$aarch64_cppflags \
        CXX="$ZIG c++ -target aarch64-windows-gnu" \
        ${nm:+NM="$nm"} ${objdump:+OBJDUMP="$objdump"} \
        --with-cunit="${HOME:-/tmp}/.cache/slimpthreads/cunit-$aarch64_host-zig"
}

# The benchmark without -falign-loops=64: with it zig's clang 19 fails in its
# backend on aarch64 ("Failed to evaluate function length in SEH unwind info").
# No timing comes from emulation: the benchmark is only compiled here.
aarch64_bench_cflags='BENCH_CFLAGS=-std=gnu11 -O2 -falign-functions=64 $(WARN_CFLAGS)'

aarch64_build() { # build directory
    (cd "$1" && { [ -f Makefile ] || aarch64_configure "$1" >configure.out 2>&1; } &&
        make -j"$jobs" >build.out 2>&1 &&
        make -j"$jobs" check TESTS= "$aarch64_bench_cflags" >build-tests.out 2>&1)
}

aarch64_leg() {
    build=$top/build/ci-aarch64
    not_run=0
    aarch64_clock=$(date +%s)
    say "build and test for $aarch64_host (zig cc, run under emulation) in $build"
    if [ ! -x "$ZIG" ]; then
        say "aarch64: no zig at $ZIG (contrib/setup-deps.sh installs it): nothing built"
        failed=$((failed + 1))
        status=1
        return
    fi
    mkdir -p "$build"
    if ! aarch64_build "$build"; then
        tail -n 40 "$build/build.out" "$build/build-tests.out" 2>/dev/null
        say "build for $aarch64_host FAILED"
        failed=$((failed + 1))
        status=1
        return
    fi
    aarch64_timed "CUnit, library and test programs built"
    why=$(sh "$top/contrib/wine-run.sh" --can-run aarch64 2>&1 | sed 's/^wine-run: //')
    rm -f "$build"/tests/*/*.log "$build"/tests/*/*.trs
    tests=${AARCH64_TESTS:-"$(cd "$build" && make -s print-unit-tests) tests/shell/wine-loader.sh"}
    (cd "$build" && make -j"$jobs" check "$aarch64_bench_cflags" TESTS="$tests" >check.out 2>&1) || status=1
    grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP):' "$build/check.out"
    for log in $(grep -lE '^:test-result: (FAIL|ERROR)' "$build"/tests/*/*.trs 2>/dev/null); do
        say "log of ${log%.trs}"
        tail -n 60 "${log%.trs}.log"
    done
    count_results "$build"
    aarch64_timed "make check under emulation"
    if [ -n "$why" ]; then
        say "aarch64: $not_run test programs built, not run: $why"
    elif [ -z "${SKIP_INTEGRATION:-}" ] && [ -z "${SKIP_AARCH64_INTEGRATION:-}" ]; then
        say "real programs for aarch64: xz and zstd, byte-exact under emulation"
        run_counted "$build" check-integration integration integration.out
        aarch64_timed "xz and zstd"
    fi
}
