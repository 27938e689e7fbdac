#!/bin/sh
# contrib/peers/build-pthreads4w.sh - pthreads4w 3.0.x from its source tree, as
# an optional extra peer of the benchmark (bench/peers.md).
#
#   contrib/peers/build-pthreads4w.sh SRC_DIR OUT_DIR [HOST]
#
# SRC_DIR: a pthreads4w 3.0.x tree (the one with pthread.h, _ptw32.h and
# GNUmakefile.in). HOST: x86_64-w64-mingw32 (default) or i686-w64-mingw32.
# Copies the tree to OUT_DIR/build/src (pthreads4w configures in place:
# autoheader, autoconf, configure write into it; the user's tree stays as it
# is), builds its GNU make target GC-static (libpthreadGC3.a: the whole library
# as one inlined translation unit, C cleanup, __PTW32_STATIC_LIB) with the -win32
# flavour of the cross compiler, installs the four headers and the library into
# OUT_DIR/include and OUT_DIR/lib, then links bench/bench_posix.c +
# bench/harness.c + contrib/peers/pthreads4w-shim.c against exactly those,
# -static, into OUT_DIR/bench_pthreads4w_X.Y.Z.exe, and checks the result.
#
# No source patch is needed with Debian 12's MinGW-w64 GCC 12. Two adaptations,
# both outside pthreads4w's sources: bench_posix.c compares pthread_t with
# pthread_equal when BENCH_PTHREAD_EQUAL is defined (pthreads4w's pthread_t is a
# struct), and the shim supplies nanosleep (pthreads4w has none) on top of
# pthread_delay_np and checks that the static library initialised itself.
#
# Environment: PEER_CC, PEER_CXX (default HOST-gcc-win32, HOST-g++-win32),
# PEER_BENCH_CFLAGS (default -std=gnu11 -O2 -falign-functions=64 -falign-loops=64
# -g -Wall -Wextra), MAKE.
# Builds with make -j1 (MAKEFLAGS is cleared): the machine may be timing.
set -eu

peer_tool=build-pthreads4w
. "$(dirname "$0")/common.sh"
cxx=${PEER_CXX:-$host-g++-win32}

for f in pthread.h _ptw32.h configure.ac GNUmakefile.in; do
    [ -f "$src/$f" ] || die "$src has no $f: not a pthreads4w 3.0.x tree"
done
command -v autoconf >/dev/null && command -v autoheader >/dev/null || die "needs autoconf"
mkdir -p "$2"
out=$(cd "$2" && pwd)

# The version, from _ptw32.h (__PTW32_VERSION_MAJOR, _MINOR, _MICRO).
version=$(awk '$1 == "#define" && $2 ~ /^__PTW32_VERSION_(MAJOR|MINOR|MICRO)$/ && !($2 in v) { v[$2] = $3; n++ }
    END { if (n == 3) print v["__PTW32_VERSION_MAJOR"] "." v["__PTW32_VERSION_MINOR"] "." v["__PTW32_VERSION_MICRO"] }' \
    "$src/_ptw32.h")
case $version in
3.0.*) ;;
*) die "$src is pthreads4w ${version:-of no readable version}, not 3.0.x" ;;
esac
peer_start "pthreads4w_$version" "$src"
cp -R "$src" "$build/src"
# The README's MinGW recipe: autoheader, autoconf, configure, make TARGET.
(cd "$build/src" && autoheader && autoconf &&
    ./configure --host="$host" CC="$cc" CXX="$cxx") >"$out/configure.log" 2>&1 ||
    die "configure failed: $out/configure.log"
(cd "$build/src" && "$make" GC-static) >"$out/make.log" 2>&1 || die "make failed: $out/make.log"
mkdir -p "$out/include" "$out/lib"
for f in pthread.h sched.h semaphore.h _ptw32.h; do
    cp "$build/src/$f" "$out/include/$f"
done
lib=$out/lib/libpthreadGC3.a
cp "$build/src/libpthreadGC3.a" "$lib" || die "make left no libpthreadGC3.a"

# The program: these headers first (never slimpthreads' include/), this library
# by its path. __PTW32_STATIC_LIB as the library was built (no dllimport).
map=$out/bench_$name.map
# shellcheck disable=SC2086 # cflags is a list of options
"$cc" $cflags -I"$out/include" -D__PTW32_STATIC_LIB -DBENCH_PTHREAD_EQUAL \
    -DBENCH_PROGRAM_NAME="\"$name\"" -o "$exe" \
    "$bench/bench_posix.c" "$bench/harness.c" "$here/pthreads4w-shim.c" \
    -static "$lib" -Wl,-Map,"$map" || die "linking $exe failed"

# MinGW-w64's <time.h> declares winpthreads' nanosleep: the checks make sure
# that the shim's is the one that got linked, with no winpthreads.
peer_check_program "$exe" "$lib" "$map" -D__PTW32_STATIC_LIB
# And pthreads4w's own process attach is in the program (i686: with a leading _).
"$host-nm" "$exe" | grep -Eq ' _?pthread_win32_process_attach_np$' ||
    die "$exe has no pthread_win32_process_attach_np: not pthreads4w?"
echo "build-pthreads4w: ok: $exe"
echo "  run it with: BENCH_PEERS=\"$name=$exe\" sh bench/run.sh ..."
