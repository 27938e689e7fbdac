#!/bin/sh
# contrib/peers/build-winpthreads.sh - winpthreads from a mingw-w64 source tree,
# as an optional extra peer of the benchmark (bench/peers.md).
#
#   contrib/peers/build-winpthreads.sh SRC_DIR OUT_DIR [HOST]
#
# SRC_DIR: a mingw-w64 checkout (e.g. tag v14.0.0) or its
# mingw-w64-libraries/winpthreads directory. HOST: x86_64-w64-mingw32 (default)
# or i686-w64-mingw32. Builds, out of tree in OUT_DIR/build, a static
# libwinpthread.a with the -win32 flavour of the cross compiler (its libgcc
# does not use winpthreads, so no other winpthreads gets mixed in), installs it
# with its headers into OUT_DIR/lib and OUT_DIR/include, then links
# bench/bench_posix.c + bench/harness.c against exactly those headers and that
# library, -static, into OUT_DIR/bench_winpthreads_vN.exe, and checks the result.
#
# Environment: PEER_CC (default HOST-gcc-win32), PEER_VERSION (the name's
# suffix, default read from the tree: v14 for mingw-w64 v14.0.0),
# PEER_BENCH_CFLAGS (default the bench's own: -std=gnu11 -O2
# -falign-functions=64 -falign-loops=64 -g -Wall -Wextra), MAKE. Builds with
# make -j1 (MAKEFLAGS is cleared): the machine may be timing.
set -eu

peer_tool=build-winpthreads
. "$(dirname "$0")/common.sh"

if [ -f "$src/mingw-w64-libraries/winpthreads/configure.ac" ]; then
    top=$src
    wp=$src/mingw-w64-libraries/winpthreads
elif grep -q mingw-w64-winpthreads "$src/configure.ac" 2>/dev/null; then
    wp=$src
    top=$(cd "$src/../.." && pwd)
else
    die "$src is neither a mingw-w64 tree nor its winpthreads directory"
fi
mkdir -p "$2"
out=$(cd "$2" && pwd)

# The version, for the program's name: a release tag if the tree is a git
# checkout, else the major version of the headers next to it (a tarball or git
# archive), else "new".
version=${PEER_VERSION:-}
if [ -z "$version" ]; then
    tag=
    [ ! -e "$top/.git" ] || tag=$(git -C "$top" describe --tags --exact-match 2>/dev/null || true)
    major=$(sed -n 's/^#define __MINGW64_VERSION_MAJOR[[:space:]]*\([0-9]*\).*/\1/p' \
        "$top/mingw-w64-headers/crt/_mingw_mac.h" 2>/dev/null || true)
    case $tag in
    v[0-9]*) version=${tag%%.*} ;;
    *) version=${major:+v$major} ;;
    esac
fi
: "${version:=new}"
# Out of tree. A checkout without a generated configure (not the case for the
# release tags, which carry it) is copied first, so the user's tree stays as it is.
peer_start "winpthreads_$version" "$wp"
if [ ! -x "$wp/configure" ]; then
    echo "build-winpthreads: no configure in $wp: autoreconf in a copy"
    cp -R "$wp" "$build/src"
    (cd "$build/src" && autoreconf -fi) >"$build/autoreconf.log" 2>&1 || die "autoreconf failed: $build/autoreconf.log"
    wp=$build/src
fi
# Only the static library: the benchmark links -static and must not find a DLL.
(cd "$build" && "$wp/configure" --host="$host" --prefix="$out" \
    --disable-shared --enable-static CC="$cc") >"$out/configure.log" 2>&1 ||
    die "configure failed: $out/configure.log"
(cd "$build" && "$make" && "$make" install) >"$out/make.log" 2>&1 ||
    die "make failed: $out/make.log"
lib=$out/lib/libwinpthread.a
[ -f "$lib" ] && [ -f "$out/include/pthread.h" ] || die "make install left no $lib or headers"

# The program: these headers first (never slimpthreads' include/), this library
# by its path (no -lpthread: no search path can pick another one).
map=$out/bench_$name.map
# shellcheck disable=SC2086 # cflags is a list of options
"$cc" $cflags -I"$out/include" -DBENCH_PROGRAM_NAME="\"$name\"" -o "$exe" \
    "$bench/bench_posix.c" "$bench/harness.c" -static "$lib" -Wl,-Map,"$map" ||
    die "linking $exe failed"

peer_check_program "$exe" "$lib" "$map"
# Information: the symbols of this library that the system's winpthreads
# lacks and the program contains, e.g. nanosleep64 in v14 against v10.
system_lib=$("$cc" -print-file-name=libwinpthread.a)
if [ -f "$system_lib" ] && [ "$system_lib" != libwinpthread.a ]; then
    "$host-nm" -g --defined-only "$system_lib" | awk 'NF == 3 {print $3}' | sort -u >"$build/system.syms"
    "$host-nm" -g --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u >"$build/new.syms"
    "$host-nm" "$exe" | awk '{print $NF}' | sort -u >"$build/exe.syms"
    only_new=$(comm -13 "$build/system.syms" "$build/new.syms" | comm -12 - "$build/exe.syms" |
        grep -v '^\.refptr' | head -n 4 | tr '\n' ' ')
    echo "build-winpthreads: in the program, not in $system_lib: ${only_new:-none}"
fi
echo "build-winpthreads: ok: $exe"
echo "  run it with: BENCH_PEERS=\"$name=$exe\" sh bench/run.sh ..."
