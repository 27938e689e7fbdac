# contrib/peers/common.sh - what build-winpthreads.sh, build-pthreads4w.sh and
# build-mcfgthread.sh share: their arguments and settings, and the checks of the
# program they link.
# Sourced, with peer_tool set to the script's name.

die() { echo "$peer_tool: $*" >&2; exit 1; }

[ $# -ge 2 ] && [ $# -le 3 ] || {
    echo "usage: $0 SRC_DIR OUT_DIR [HOST]" >&2
    exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
bench=$(cd "$here/../../bench" && pwd)
host=${3:-x86_64-w64-mingw32}
cc=${PEER_CC:-$host-gcc-win32}
# The bench's own flags (BENCH_CFLAGS in bench/bench.mk, which says why the alignment).
cflags=${PEER_BENCH_CFLAGS:--std=gnu11 -O2 -falign-functions=64 -falign-loops=64 -g -Wall -Wextra}
make=${MAKE:-make}
# make -j1: the machine may be timing something else.
MAKEFLAGS=
export MAKEFLAGS
src=$(cd "$1" && pwd) || die "no directory $1"
command -v "$cc" >/dev/null || die "no compiler $cc (set PEER_CC)"

# peer_check_program EXE LIB MAP [CPPFLAGS...]: the program imports no pthread
# DLL (which would be the system's library, not this one), its <pthread.h> is
# OUT_DIR's, and the link took objects from LIB and from no other pthread or
# winpthread archive. Uses $out.
peer_check_program() {
    exe=$1 lib=$2 map=$3
    shift 3
    if "$host-objdump" -p "$exe" | grep -i 'DLL Name' | grep -qi pthread; then
        die "$exe imports a pthread DLL"
    fi
    # shellcheck disable=SC2086 # cflags is a list of options
    "$cc" $cflags -I"$out/include" "$@" -MM "$bench/bench_posix.c" | tr ' ' '\n' |
        grep -Fqx "$out/include/pthread.h" || die "bench_posix.c did not use $out/include/pthread.h"
    grep -Fq "$lib(" "$map" || die "nothing linked from $lib"
    if grep -E '^[^ ]*lib(win)?pthread[^ (]*\.a\(' "$map" | grep -Fv "$lib(" | grep -q .; then
        die "$exe also links another pthread library (see $map)"
    fi
}

# peer_start NAME FROM: the program's name and path, and a fresh build directory.
# Uses $out.
peer_start() {
    name=$1
    exe=$out/bench_$name.exe
    echo "$peer_tool: $2 -> $exe ($cc)"
    build=$out/build
    rm -rf "$build"
    mkdir -p "$build"
}
