#!/bin/sh
# contrib/peers/build-mcfgthread.sh - mcfgthread from its source tree, as an
# optional extra peer of the benchmark (bench/peers.md).
#
#   contrib/peers/build-mcfgthread.sh SRC_DIR OUT_DIR [HOST]
#
# SRC_DIR: an mcfgthread tree (github.com/lhmouse/mcfgthread: meson.build,
# mcfgthread/version.h.in, mcfgthread/src/). HOST: x86_64-w64-mingw32 (default)
# or i686-w64-mingw32. Builds mcfgthread's static library, libmcfgthread.a,
# with the -win32 flavour of the cross compiler, installs it with its headers
# into OUT_DIR/lib and OUT_DIR/include/mcfgthread, then links
# bench/bench_posix.c + bench/harness.c against exactly those, -static, into
# OUT_DIR/bench_mcfgthread_X.Y.exe, and checks the result.
#
# mcfgthread has no POSIX layer (it is the library behind GCC's mcf thread
# model, with a C11 <threads.h> and its own calls): contrib/peers/mcfgthread-pthread.h,
# installed as OUT_DIR/include/pthread.h (semaphore.h and sched.h there include
# it), maps each pthread object bench_posix.c uses onto one mcfgthread object,
# mostly through mcfgthread's C11 API; its header says which.
#
# The library is compiled here rather than by its meson.build, which needs meson
# 1.3 or later (Debian 12 has 1.0.1): the static library's target there is every
# source of mcfgthread/src/ (its mcfgthread_src_min and mcfgthread_src_ex), with
# the include directory ".", version.h made from version.h.in, and the
# project's code-generation flags, which this script passes the same (MCF_CFLAGS
# below; -O2 for meson's release build type; warnings left out). Written and
# built against mcfgthread's tree at commit
# 4805119001c9fb5eae56c8a94a7d66dd2d694353 (2026-08-21, version 2.5.alpha).
#
# Environment: PEER_CC (default HOST-gcc-win32), PEER_BENCH_CFLAGS (default -std=gnu11
# -O2 -falign-functions=64 -falign-loops=64 -g -Wall -Wextra).
set -eu

peer_tool=build-mcfgthread
. "$(dirname "$0")/common.sh"

for f in meson.build mcfgthread/version.h.in mcfgthread/c11.h mcfgthread/src/xglobals.c; do
    [ -f "$src/$f" ] || die "$src has no $f: not an mcfgthread tree"
done
mkdir -p "$2"
out=$(cd "$2" && pwd)

# The version, from meson.build's project(): version: '2.5.alpha' -> 2.5.
full_version=$(sed -n "s/^[[:space:]]*version:[[:space:]]*'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n 1)
abi_major=$(echo "$full_version" | cut -d. -f1)
abi_minor=$(echo "$full_version" | cut -d. -f2)
case $abi_major.$abi_minor in
[0-9]*.[0-9]*) ;;
*) die "no version in $src/meson.build (project(..., version: 'X.Y...'))" ;;
esac
peer_start "mcfgthread_$abi_major.$abi_minor" "$src"

# meson.build's add_project_arguments for C, code generation only; the last
# ones only where meson.build asks the compiler first (cc.get_supported_arguments).
MCF_CFLAGS="-std=c99 -O2 -D_WIN32_WINNT=0x0601 -D__USE_MINGW_ANSI_STDIO -D_CRT_SECURE_NO_WARNINGS
 -fstack-protector -fno-omit-frame-pointer -momit-leaf-frame-pointer -fmerge-all-constants
 -fstrict-aliasing -ffast-math -fdata-sections -ffunction-sections -funwind-tables"
for flag in -masm=intel -msse2 -mfpmath=sse+387 -fno-ident -mcmodel=small; do
    if echo 'int x;' | "$cc" -Werror "$flag" -x c -c -o /dev/null - 2>/dev/null; then
        MCF_CFLAGS="$MCF_CFLAGS $flag"
    fi
done

# MinGW-w64 headers before version 11 (Debian 12 has 10) lack the Windows 10
# CPU-set declarations cpu_collection.c uses: a header of our own supplies
# them, force-included, only then.
if ! printf '#include <windows.h>\nSYSTEM_CPU_SET_INFORMATION probe;\n' |
    "$cc" -x c -c -o /dev/null - 2>/dev/null; then
    MCF_CFLAGS="$MCF_CFLAGS -include $here/mcfgthread-winnt-compat.h"
fi

# The headers, version.h made as meson's configure_file makes it.
mkdir -p "$out/include/mcfgthread" "$out/lib"
cp "$src"/mcfgthread/*.h "$src"/mcfgthread/*.hpp "$out/include/mcfgthread/"
sed -e "s/@abi_major@/$abi_major/g" -e "s/@abi_minor@/$abi_minor/g" \
    -e "s/@abi_string@/$full_version/g" "$src/mcfgthread/version.h.in" \
    >"$out/include/mcfgthread/version.h"

# The static library: every source, the tree's own headers, and version.h
# where meson puts it, at the top of the build directory (fwd.h includes
# "version.h", which the tree does not have).
cp "$out/include/mcfgthread/version.h" "$build/version.h"
: >"$out/make.log"
for c in "$src"/mcfgthread/src/*.c; do
    o=$build/$(basename "$c" .c).o
    echo "$cc $MCF_CFLAGS -c $c" | tr '\n' ' ' >>"$out/make.log"
    echo >>"$out/make.log"
    # shellcheck disable=SC2086 # MCF_CFLAGS is a list of options
    "$cc" $MCF_CFLAGS -I"$src" -I"$build" -c "$c" -o "$o" \
        >>"$out/make.log" 2>&1 || die "compiling $c failed: $out/make.log"
done
lib=$out/lib/libmcfgthread.a
rm -f "$lib"
"$host-ar" rcs "$lib" "$build"/*.o || die "ar failed"

# The POSIX names bench_posix.c includes, on mcfgthread.
cp "$here/mcfgthread-pthread.h" "$out/include/pthread.h"
for h in semaphore.h sched.h; do
    printf '/* %s for the benchmark on mcfgthread: contrib/peers/mcfgthread-pthread.h */\n#include <pthread.h>\n' \
        "$h" >"$out/include/$h"
done

# The program: these headers first (never slimpthreads' include/), this library
# by its path; mcfgthread calls ntdll directly, and its objects were compiled
# with -fstack-protector (libssp).
map=$out/bench_$name.map
# shellcheck disable=SC2086 # cflags is a list of options
"$cc" $cflags -I"$out/include" -DBENCH_PTHREAD_EQUAL -DBENCH_PROGRAM_NAME="\"$name\"" \
    -o "$exe" "$bench/bench_posix.c" "$bench/harness.c" \
    -static -fstack-protector "$lib" -lntdll -Wl,-Map,"$map" || die "linking $exe failed"

peer_check_program "$exe" "$lib" "$map"
# And mcfgthread's own mutex is in the program (i686: with a leading _).
"$host-nm" "$exe" | grep -Eq ' _?_MCF_mutex_lock_slow$' ||
    die "$exe has no _MCF_mutex_lock_slow: not mcfgthread?"
echo "build-mcfgthread: ok: $exe"
echo "  run it with: BENCH_PEERS=\"$name=$exe\" sh bench/run.sh ..."
