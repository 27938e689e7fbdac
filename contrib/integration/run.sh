#!/bin/sh
# Real POSIX programs, built unchanged against the INSTALLED slimpthreads and run
# under Wine: xz-utils (liblzma + xz, --enable-threads=posix, no patch) and zstd's
# multithreaded CLI (one #if patched: its choice of threading backend), both from
# Debian's source packages. Every workload runs with 4 threads on 24 MiB of
# generated text (the compressions also with 8: more threads than cores) and is
# compared byte for byte with Linux's own xz and zstd. The
# same sources are built a second time with MinGW-w64's winpthreads
# (<host>-gcc-posix) and every workload is timed with both in the same run.
# A third time against the installed checked build (-DSLIMPTHREADS_CHECKED,
# -lslimpthreads-checked: README.md, Checked build): every workload runs once
# more with SLIMPTHREADS_CHECK_FILE set and passes only with the right bytes
# and no report. lock-order-canary.c, built the same way, must be reported.
#
#   make check-integration               (from a configured build tree), or
#   top_builddir=BUILD_DIR sh contrib/integration/run.sh
#
# Environment: SLIM_INTEGRATION_CACHE (default ~/.cache/slimpthreads/integration:
# sources, builds, data; nothing of xz or zstd lands in the repository),
# SLIM_INTEGRATION_REPS (timed repetitions, default 5), JOBS (default 2),
# WINEPREFIX (default BUILD_DIR/wineprefix).
# Prints PASS/FAIL lines, a timing table (also written to
# BUILD_DIR/integration-results.md), and last "slimtest-summary: integration P F".
# Timings are reported, never asserted: the machine is shared.
set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$script_dir/../.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
cache=${SLIM_INTEGRATION_CACHE:-${HOME:-/tmp}/.cache/slimpthreads/integration}
reps=${SLIM_INTEGRATION_REPS:-5}
jobs=${JOBS:-2}
data_size=25165824 # 24 MiB
passed=0
failed=0
started=$(date +%s)

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
say() { printf '== %s\n' "$*"; }
finish() {
    say "done in $(($(date +%s) - started)) s"
    echo "slimtest-summary: integration $passed $failed"
    [ "$failed" -eq 0 ]
    exit
}

host=$(sed -n 's/^host = //p' "$top_builddir/Makefile" 2>/dev/null)
if [ -z "$host" ]; then
    fail "$top_builddir is not a configured slimpthreads build tree"
    finish
fi
# aarch64 runs under emulation: a lean pass of its own.
case $host in aarch64-*) top_builddir=$top_builddir top_srcdir=$top_srcdir exec sh "$script_dir/run-aarch64.sh" ;; esac
# The win32 thread model compiler for our builds: the posix one's libgcc calls
# winpthreads itself, with winpthreads' object layouts.
cc_slim=${SLIM_CC:-$host-gcc-win32}
command -v "$cc_slim" >/dev/null 2>&1 || cc_slim=$host-gcc
cc_winpthreads=$host-gcc-posix
objdump=$host-objdump
prefix=$cache/prefix-$host
builds=$cache/build-$host
work=$cache/work-$host
src=$cache/src
: "${WINEPREFIX:=$top_builddir/wineprefix}"
export WINEPREFIX

missing=
for tool in wineserver xz zstd awk cmp make "$cc_slim" "$cc_winpthreads" "$objdump"; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    fail "missing tools:$missing (contrib/setup-deps.sh installs them)"
    finish
fi
mkdir -p "$src" "$builds" "$work" || exit 1

# ---- One wineserver for the run, stopped afterwards if we started it ----
server_was_up=no
[ -f "$WINEPREFIX.server.pid" ] && kill -0 "$(cat "$WINEPREFIX.server.pid")" 2>/dev/null && server_was_up=yes
sh "$top_srcdir/contrib/wine-run.sh" --start-server
stop_server() {
    [ "$server_was_up" = yes ] || sh "$top_srcdir/contrib/wine-run.sh" --stop-server
}
trap stop_server EXIT

# ---- Install slimpthreads, fresh, into a prefix of its own ----
say "make install into $prefix"
rm -rf "$prefix"
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" install prefix="$prefix" \
    >"$work/install.log" 2>&1; then
    pass "slimpthreads installed into $prefix"
else
    tail -n 20 "$work/install.log"
    fail "make install"
    finish
fi
headers_stamp=$(cat "$prefix"/include/*.h | cksum)
dll_normal=$(ls "$prefix"/bin/libslimpthreads-[0-9]*.dll 2>/dev/null | head -n 1)
dll_checked=$(ls "$prefix"/bin/libslimpthreads-checked-*.dll 2>/dev/null | head -n 1)
checked_pc=$prefix/lib/pkgconfig/slimpthreads-checked.pc
if [ -n "$dll_checked" ] && [ -f "$prefix/lib/libslimpthreads-checked.dll.a" ] && [ -f "$checked_pc" ]; then
    pass "the install holds the checked build: $(basename "$dll_checked"), its import library and slimpthreads-checked.pc"
else
    fail "the install lacks the checked build (DLL, import library or slimpthreads-checked.pc in $prefix)"
    finish
fi

# ---- The checked build reports what it should, into SLIMPTHREADS_CHECK_FILE ----
# Without this an empty report file from xz or zstd would prove nothing.
# Compiled and linked with what pkg-config says for slimpthreads-checked.
canary_check() {
    dir=$work/canary
    rm -rf "$dir"
    mkdir -p "$dir"
    # shellcheck disable=SC2046 # pkg-config's words are separate options
    "$cc_slim" -g -o "$dir/canary.exe" "$script_dir/lock-order-canary.c" \
        $(PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" pkg-config --define-prefix --cflags --libs slimpthreads-checked) || return 1
    cp "$dll_checked" "$dir/"
    (cd "$dir" && SLIMPTHREADS_CHECK_FILE="Z:$dir/report" sh "$top_srcdir/contrib/wine-run.sh" ./canary.exe) || return 1
    grep -q 'lock order inversion' "$dir/report"
}
if canary_check >"$work/canary.log" 2>&1; then
    pass "checked build: lock-order-canary.c's inversion is reported into SLIMPTHREADS_CHECK_FILE"
else
    cat "$work/canary.log" "$work/canary/report" 2>/dev/null | tail -n 20
    fail "checked build: the canary's inversion was not reported into its file"
fi

# ---- CMake: find_package(Threads) with contrib/cmake/slimpthreads-toolchain.cmake ----
cmake_check() {
    dir=$work/cmake
    rm -rf "$dir"
    mkdir -p "$dir/src"
    cp "$top_srcdir/tests/fixtures/dropin_prog.c" "$dir/src/"
    cat >"$dir/src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(dropin C)
find_package(Threads REQUIRED)
if(NOT CMAKE_USE_PTHREADS_INIT)
  message(FATAL_ERROR "find_package(Threads) did not find POSIX threads")
endif()
message(STATUS "slimpthreads: Threads::Threads is '${CMAKE_THREAD_LIBS_INIT}'")
add_executable(dropin_prog dropin_prog.c)
target_link_libraries(dropin_prog Threads::Threads)
EOF
    cmake -S "$dir/src" -B "$dir/build" -DCMAKE_TOOLCHAIN_FILE="$top_srcdir/contrib/cmake/slimpthreads-toolchain.cmake" \
        -DSLIMPTHREADS_PREFIX="$prefix" -DSLIMPTHREADS_HOST="$host" >"$dir/cmake.log" 2>&1 &&
        cmake --build "$dir/build" >>"$dir/cmake.log" 2>&1 || return 1
    grep 'slimpthreads: Threads::Threads' "$dir/cmake.log"
    "$objdump" -p "$dir/build/dropin_prog.exe" | grep -q 'DLL Name: libslimpthreads-' || return 1
    cp "$prefix"/bin/libslimpthreads-*.dll "$dir/build/"
    (cd "$dir/build" && sh "$top_srcdir/contrib/wine-run.sh" ./dropin_prog.exe) | grep 'checks passed'
}
if ! command -v cmake >/dev/null 2>&1; then
    fail "cmake is missing: the CMake toolchain file cannot be tried"
elif result=$(cmake_check 2>&1); then
    pass "CMake: find_package(Threads) finds slimpthreads; the program imports our DLL and runs: $(echo $result | tr -d '\r')"
else
    tail -n 15 "$work/cmake/cmake.log"
    fail "CMake toolchain file (log: $work/cmake/cmake.log)"
fi

# ---- Debian source packages, downloaded and unpacked once ----
fetch() { # source package, directory name
    [ -d "$src/$2" ] && return 0
    say "apt-get source $1"
    (cd "$src" && apt-get source --download-only "$1" >"$2.fetch.log" 2>&1 &&
        dsc=$(ls -t "$1"_*.dsc | head -n 1) &&
        dpkg-source -x "$dsc" "$2.tmp" >>"$2.fetch.log" 2>&1 && mv "$2.tmp" "$2")
}
for package in xz-utils:xz libzstd:zstd; do
    if fetch "${package%%:*}" "${package#*:}"; then
        pass "Debian source ${package%%:*}: $(cd "$src" && ls -t "${package%%:*}"_*.dsc | head -n 1)"
    else
        tail -n 5 "$src/${package#*:}.fetch.log" 2>/dev/null
        fail "apt-get source ${package%%:*} (is a deb-src entry configured?)"
        finish
    fi
done

# ---- Builds: cached, redone when what they depend on changes ----
# build NAME DIR STAMP COMMAND...: runs COMMAND in DIR unless DIR already holds a
# build with the same STAMP (the recipe, and for our builds our installed headers:
# a program compiled against other object layouts must not meet the new DLL).
# Logs to DIR.log.
recipe=2
build() {
    name=$1 dir=$2 stamp="recipe $recipe, $3"
    shift 3
    if [ -f "$dir/.slim-built" ] && [ "$(cat "$dir/.slim-built")" = "$stamp" ]; then
        pass "$name: cached build in $dir"
        return 0
    fi
    say "building $name in $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    if (cd "$dir" && "$@") >"$dir.log" 2>&1; then
        echo "$stamp" >"$dir/.slim-built"
        pass "$name: builds"
    else
        tail -n 25 "$dir.log"
        fail "$name: build failed (log: $dir.log)"
        return 1
    fi
}

xz_configure_flags="--host=$host --enable-threads=posix --disable-shared --disable-nls \
    --disable-doc --disable-scripts --disable-lzmadec --disable-lzmainfo --disable-xzdec"
build_xz_against_prefix() { # extra CPPFLAGS, LIBS
    # shellcheck disable=SC2086 # a list of options
    "$src/xz/configure" $xz_configure_flags CC="$cc_slim" \
        CPPFLAGS="-I$prefix/include $1" LDFLAGS="-L$prefix/lib" LIBS="$2" && make -j"$jobs"
}
build_xz_slim() { build_xz_against_prefix "" ""; }
build_xz_checked() { build_xz_against_prefix -DSLIMPTHREADS_CHECKED -lslimpthreads-checked; }
build_xz_winpthreads() {
    # winpthreads lacks sigset_t and sigfillset, which xz's POSIX threading needs:
    # the baseline gets them from winpthreads-shim.h (CFLAGS, not CPPFLAGS: windres
    # reads CPPFLAGS too).
    # shellcheck disable=SC2086
    "$src/xz/configure" $xz_configure_flags CC="$cc_winpthreads" \
        CFLAGS="-g -O2 -include $script_dir/winpthreads-shim.h" && make -j"$jobs"
}
# zstd picks its own Win32 threading whenever _WIN32 is defined; the one patched
# condition (the same #if in threading.h and threading.c) lets a define choose
# the POSIX backend instead. Its Makefile finds -pthread by itself.
zstd_switch='ZSTD_WIN32_USE_PTHREADS'
build_zstd() { # compiler, extra CPPFLAGS, extra LDFLAGS, libraries
    cp -a "$src/zstd/." . || return 1
    sed -i "s/^#if defined(ZSTD_MULTITHREAD) \&\& defined(_WIN32)\$/& \&\& !defined($zstd_switch)/" \
        lib/common/threading.h lib/common/threading.c || return 1
    if [ "$(cat lib/common/threading.h lib/common/threading.c | grep -c "!defined($zstd_switch)")" -ne 2 ]; then
        echo "run.sh: zstd's threading switch was not where it was expected"
        return 1
    fi
    diff -u "$src/zstd/lib/common/threading.h" lib/common/threading.h # the patch, for the log
    CPPFLAGS="$2 -D$zstd_switch" LDFLAGS="$3" LDLIBS="$4" make -C programs -j"$jobs" zstd CC="$1" EXT=.exe \
        HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0
}
build_zstd_slim() { build_zstd "$cc_slim" "-I$prefix/include" "-L$prefix/lib" ""; }
build_zstd_checked() {
    build_zstd "$cc_slim" "-I$prefix/include -DSLIMPTHREADS_CHECKED" "-L$prefix/lib" -lslimpthreads-checked
}
build_zstd_winpthreads() { build_zstd "$cc_winpthreads" "" "" ""; }

# The two timed variants; "checked" runs each workload once, untimed.
variants="slimpthreads winpthreads"
for variant in $variants checked; do
    case $variant in
    slimpthreads) fn=slim stamp="headers $headers_stamp" ;;
    checked) fn=checked stamp="headers $headers_stamp" ;;
    *) fn=winpthreads stamp="system winpthreads" ;;
    esac
    build "xz ($variant)" "$builds/xz-$variant" "$stamp" "build_xz_$fn"
    build "zstd ($variant)" "$builds/zstd-$variant" "$stamp" "build_zstd_$fn"
done
for variant in $variants checked; do
    if grep -q 'building with threading support' "$builds/zstd-$variant.log" 2>/dev/null; then
        pass "zstd ($variant): its Makefile found -pthread and built with threading support"
    else
        fail "zstd ($variant): built without threading support (see $builds/zstd-$variant.log)"
    fi
done

# ---- Stage each variant's programs with the DLL they import ----
stage() { # variant, DLL
    dir=$work/$1
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$builds/xz-$1/src/xz/xz.exe" "$builds/zstd-$1/programs/zstd.exe" "$2" "$dir/" 2>/dev/null
}
stage slimpthreads "$dll_normal"
stage checked "$dll_checked"
stage winpthreads "$($cc_winpthreads -print-file-name=libwinpthread-1.dll)"
for variant in $variants checked; do
    for program in xz zstd; do
        exe=$work/$variant/$program.exe
        if [ ! -f "$exe" ]; then
            fail "$program ($variant): no binary to run"
            continue
        fi
        dlls=$("$objdump" -p "$exe" | sed -n 's/^.*DLL Name: *//p' | tr '\n' ' ')
        case "$variant:$dlls" in
        slimpthreads:*libwinpthread* | slimpthreads:*libslimpthreads-checked*) fail "$program ($variant) imports another threads DLL: $dlls" ;;
        slimpthreads:*libslimpthreads-*) pass "$program ($variant) imports $dlls" ;;
        checked:*libwinpthread* | checked:*libslimpthreads-[0-9]*) fail "$program ($variant) imports another threads DLL: $dlls" ;;
        checked:*libslimpthreads-checked-*) pass "$program ($variant) imports $dlls" ;;
        winpthreads:*libwinpthread*) pass "$program ($variant) imports $dlls" ;;
        *) fail "$program ($variant) does not import the expected threads DLL: $dlls" ;;
        esac
    done
done
[ "$failed" -eq 0 ] || finish

# ---- Data and Linux's own results ----
data=$cache/data-24MiB.txt
if [ ! -f "$data" ] || [ "$(wc -c <"$data")" -ne "$data_size" ]; then
    say "generating $data"
    # Text from a 4096-word vocabulary drawn with a small LCG (exact in awk's
    # doubles, so every awk writes the same bytes): compresses about 3:1.
    awk -v size="$data_size" 'BEGIN {
        seed = 20240611
        for (i = 0; i < 4096; i++) {
            seed = (seed * 48271) % 2147483647; len = 3 + seed % 9; word = ""
            for (j = 0; j < len; j++) {
                seed = (seed * 48271) % 2147483647; word = word sprintf("%c", 97 + seed % 26)
            }
            vocabulary[i] = word
        }
        for (total = 0; total < size; total += length(line) + 1) {
            seed = (seed * 48271) % 2147483647; words = 6 + seed % 14; line = "record " ++count ":"
            for (k = 0; k < words; k++) {
                seed = (seed * 48271) % 2147483647; r = seed % 65536
                line = line " " vocabulary[int(r * r / 65536 / 16) % 4096]
            }
            print line
        }
    }' | head -c "$data_size" >"$data.tmp" && mv "$data.tmp" "$data"
fi
xz_options="-T4 -1 --block-size=1MiB"
zstd_options="-T4 -12 -B1MiB"
# The same with 8 threads: more threads than this machine's cores, where a
# waiter that spins before it sleeps only delays the thread it waits for.
xz_options8="-T8 -1 --block-size=1MiB"
zstd_options8="-T8 -12 -B1MiB"
# shellcheck disable=SC2086
xz $xz_options -c "$data" >"$work/linux.xz" && zstd -q $zstd_options -c "$data" >"$work/linux.zst" &&
    xz $xz_options8 -c "$data" >"$work/linux8.xz" && zstd -q $zstd_options8 -c "$data" >"$work/linux8.zst" ||
    { fail "Linux xz/zstd could not compress the data"; finish; }
# Compressed bytes can only agree when Windows and Linux run the same version.
xz_same=no zstd_same=no
case "$(ls "$src"/xz-utils_*.dsc)" in *_"$(xz --version | awk 'NR == 1 {print $NF}')"[-+]*) xz_same=yes ;; esac
case "$(ls "$src"/libzstd_*.dsc)" in *_"$(zstd --version | sed -n 's/.* v\([0-9.]*\),.*/\1/p')"[-+]*) zstd_same=yes ;; esac

# ---- Workloads: correctness on every run, time on every run ----
repeat() { # count, word: prints word count times, one a line
    i=0
    while [ "$i" -lt "$1" ]; do
        echo "$2"
        i=$((i + 1))
    done
}
repeated_cat() { # count, file
    for f in $(repeat "$1" "$2"); do cat "$f"; done
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# in_variant PROGRAM ARGS...: runs one of the variant's programs under Wine in
# its directory; the checked one appends its reports to $dir/$workload.report.
in_variant() {
    (
        cd "$dir" || exit 1
        if [ "$variant" = checked ]; then
            SLIMPTHREADS_CHECK_FILE="Z:$dir/$workload.report"
            export SLIMPTHREADS_CHECK_FILE
        fi
        sh "$top_srcdir/contrib/wine-run.sh" "$@"
    )
}
# run VARIANT WORKLOAD: runs one workload under Wine in the variant's directory,
# appends its wall time to $work/times, and checks its output; a failed check is
# recorded in $work/failures.
run() {
    variant=$1 workload=$2 dir=$work/$1
    out=$dir/$workload.out err=$dir/$workload.err
    begin=$(now_ms)
    # shellcheck disable=SC2086
    case $workload in
    xz-compress) in_variant ./xz.exe -vv $xz_options -c "$data" ;;
    xz-decompress) in_variant ./xz.exe -d -T4 -c $decompress_inputs_xz ;;
    zstd-compress) in_variant ./zstd.exe -q $zstd_options -c "$data" ;;
    xz-compress-8) in_variant ./xz.exe -vv $xz_options8 -c "$data" ;;
    zstd-compress-8) in_variant ./zstd.exe -q $zstd_options8 -c "$data" ;;
    zstd-decompress) in_variant ./zstd.exe -q -d -c $decompress_inputs_zstd ;;
    esac >"$out" 2>"$err"
    status=$?
    [ "$variant" = checked ] || echo "$rep $variant $workload $(($(now_ms) - begin))" >>"$work/times"
    problem=
    if [ "$status" -ne 0 ]; then
        problem="exit status $status: $(head -c 300 "$err")"
    else
        case $workload in
        xz-compress | xz-compress-8)
            threads=4 expected=$work/linux.xz
            [ "$workload" = xz-compress ] || threads=8 expected=$work/linux8.xz
            grep -q "Using up to $threads threads" "$err" || problem="xz did not report $threads threads"
            [ "$xz_same" = no ] || cmp -s "$out" "$expected" || problem="${problem:+$problem; }differs from Linux xz's output"
            xz -d -c "$out" | cmp -s - "$data" || problem="${problem:+$problem; }Linux xz -d does not give the data back" ;;
        zstd-compress | zstd-compress-8)
            expected=$work/linux.zst
            [ "$workload" = zstd-compress ] || expected=$work/linux8.zst
            [ "$zstd_same" = no ] || cmp -s "$out" "$expected" || problem="differs from Linux zstd's output"
            zstd -q -d -c "$out" | cmp -s - "$data" || problem="${problem:+$problem; }Linux zstd -d does not give the data back" ;;
        *) repeated_cat "$decompress_rounds" "$data" | cmp -s - "$out" || problem="output differs from the original data" ;;
        esac
    fi
    [ -z "$problem" ] || echo "$variant $workload: $problem" >>"$work/failures"
    rm -f "$out"
}

workloads="xz-compress xz-decompress zstd-compress zstd-decompress xz-compress-8 zstd-compress-8"
# Decompressing 24 MiB takes a fraction of a second, which Wine's process start
# and the machine's noise would swamp: each decompression run reads Linux's
# output four times over (96 MiB out).
decompress_rounds=4
decompress_inputs_xz=$(repeat "$decompress_rounds" "../linux.xz" | tr '\n' ' ')
decompress_inputs_zstd=$(repeat "$decompress_rounds" "../linux.zst" | tr '\n' ' ')
# Start each variant once, untimed, so that no timed run pays for a cold start.
for variant in $variants; do
    for program in xz zstd; do
        (cd "$work/$variant" && sh "$top_srcdir/contrib/wine-run.sh" "./$program.exe" --version) >/dev/null 2>&1
    done
done
rm -f "$work/times" "$work/failures"
say "running each workload $reps times per variant under Wine (alternating order)"
rep=1
while [ "$rep" -le "$reps" ]; do
    order=$variants
    [ $((rep % 2)) -eq 0 ] && order="winpthreads slimpthreads"
    for workload in $workloads; do
        for variant in $order; do
            run "$variant" "$workload"
        done
    done
    rep=$((rep + 1))
done
what_is_checked() { # workload
    case $1 in
    xz-compress) echo "xz $xz_options: output $([ "$xz_same" = yes ] && echo "identical to Linux xz's, ")decompressed by Linux xz" ;;
    zstd-compress) echo "zstd $zstd_options: output $([ "$zstd_same" = yes ] && echo "identical to Linux zstd's, ")decompressed by Linux zstd" ;;
    xz-decompress) echo "xz -d -T4 of Linux xz's output (4 times over) gives the data back" ;;
    zstd-decompress) echo "zstd -d (I/O on worker threads) of Linux zstd's output (4 times over) gives the data back" ;;
    xz-compress-8) echo "xz $xz_options8 on $(nproc) cores: output $([ "$xz_same" = yes ] && echo "identical to Linux xz's, ")decompressed by Linux xz" ;;
    zstd-compress-8) echo "zstd $zstd_options8 on $(nproc) cores: output $([ "$zstd_same" = yes ] && echo "identical to Linux zstd's, ")decompressed by Linux zstd" ;;
    esac
}
for variant in $variants; do
    for workload in $workloads; do
        problems=$(grep "^$variant $workload:" "$work/failures" 2>/dev/null | head -n 1)
        if [ -z "$problems" ]; then
            pass "$variant: $(what_is_checked "$workload") ($reps runs)"
        else
            fail "$problems"
        fi
    done
done

# ---- The checked build: every workload once, no report allowed ----
. "$top_srcdir/contrib/checked-verdict.sh"
say "running each workload once with the checked build"
checked_started=$(date +%s)
for workload in $workloads; do
    dir=$work/checked
    rm -f "$dir/$workload.report"
    run checked "$workload"
    problems=$(grep "^checked $workload:" "$work/failures" 2>/dev/null | head -n 1)
    checked_verdict "$dir/$workload.report" "$dir/$workload.err"
    if [ -n "$checked_problem" ]; then
        fail "checked: $workload: $checked_problem"
    elif [ -n "$problems" ]; then
        fail "$problems"
    else
        pass "checked: $(what_is_checked "$workload"), no report"
    fi
done
say "the checked runs took $(($(date +%s) - checked_started)) s"

# ---- Timing table ----
# The machine is shared, so single runs are noisy. The two variants of one
# workload run back to back (alternating which goes first), and the ratio is the
# median over the repetitions of slimpthreads' time / winpthreads' time in the
# same pair. Times: best of the runs (the least disturbed), median in brackets.
results=$top_builddir/integration-results.md
{
    echo "Wall time under Wine of each workload, best of $reps runs (median in brackets), $host,"
    echo "24 MiB of text, $(date -u +%Y-%m-%d). Ratio: median over the runs of slimpthreads / winpthreads,"
    echo "the two measured back to back (below 1: slimpthreads is faster)."
    echo
    echo "| workload | slimpthreads | winpthreads | ratio |"
    echo "|---|---|---|---|"
    for workload in $workloads; do
        case $workload in
        xz-compress) label="xz $xz_options (compress)" ;;
        xz-decompress) label="xz -d -T4 (decompress, 4 x 24 MiB)" ;;
        zstd-compress) label="zstd $zstd_options (compress)" ;;
        zstd-decompress) label="zstd -d (decompress, 4 x 24 MiB, I/O threads)" ;;
        xz-compress-8) label="xz $xz_options8 (compress, $(nproc) cores)" ;;
        zstd-compress-8) label="zstd $zstd_options8 (compress, $(nproc) cores)" ;;
        esac
        awk -v workload="$workload" -v label="$label" '
            function sort(list, n,   i, j, t) {
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                    if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
            }
            $3 == workload { ms[$1, $2] = $4; if ($1 > reps) reps = $1 }
            END {
                for (r = 1; r <= reps; r++) {
                    slim[r] = ms[r, "slimpthreads"]; winp[r] = ms[r, "winpthreads"]
                    ratio[r] = winp[r] > 0 ? slim[r] / winp[r] : 0
                }
                sort(slim, reps); sort(winp, reps); sort(ratio, reps)
                middle = int((reps + 1) / 2)
                printf "| `%s` | %.2f s (%.2f) | %.2f s (%.2f) | %.2f |\n", label,
                    slim[1] / 1000, slim[middle] / 1000, winp[1] / 1000, winp[middle] / 1000,
                    ratio[middle]
            }' "$work/times"
    done
} >"$results"
echo
cat "$results"
echo
finish
