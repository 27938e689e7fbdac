#!/bin/sh
# Build a static CUnit (Framework + Basic interface) for a MinGW-w64 target from
# Debian's `cunit` source package, without CUnit's own autotools build system.
#
# Usage: contrib/build-cunit.sh HOST PREFIX
#   e.g. contrib/build-cunit.sh x86_64-w64-mingw32 "$HOME/.cache/slimpthreads/x86_64-w64-mingw32"
#
# Result: PREFIX/lib/libcunit.a and PREFIX/include/CUnit/*.h, i.e. use
#   -IPREFIX/include  (#include <CUnit/Basic.h>)   and   -LPREFIX/lib -lcunit
# Do not define CU_DLL when compiling tests: the library is static.
#
# Environment:
#   CUNIT_CACHE  where the downloaded source package is kept
#                (default: $HOME/.cache/slimpthreads/cunit-src)
#   CUNIT_CC     the C compiler, words allowed (default: HOST-gcc), e.g.
#                "zig cc -target x86_64-windows-gnu" or
#                "clang --target=x86_64-w64-windows-gnu"
#   CUNIT_AR     the archiver (default: HOST-ar), e.g. "zig ar"
#   CUNIT_RANLIB the archive indexer (default: HOST-ranlib), e.g. "zig ranlib"
#   CUNIT_CFLAGS extra compiler flags (default: none; -O2 is always used)
# A CUnit built by another compiler or for another C runtime (msvcrt, UCRT)
# must not be mixed with this one: give each toolchain a PREFIX of its own.
#
# Needs: apt-get with a deb-src entry (see contrib/setup-deps.sh), dpkg-source
# (dpkg-dev), and the three tools above.
set -eu

me=build-cunit

die() {
    echo "$me: error: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: $0 HOST PREFIX   (e.g. $0 x86_64-w64-mingw32 /path/to/prefix)"
HOST=$1
PREFIX=$2
[ -n "$HOST" ] || die "HOST is empty"
[ -n "$PREFIX" ] || die "PREFIX is empty"
case $PREFIX in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac

# Headers of the parts that go into the library (Framework + Basic).
HEADERS="CUError.h CUnit.h CUnit_intl.h MyMem.h TestDB.h TestRun.h Util.h Basic.h"

# --- cached result? ---------------------------------------------------------
have_all=1
[ -f "$PREFIX/lib/libcunit.a" ] || have_all=0
for h in $HEADERS; do
    [ -f "$PREFIX/include/CUnit/$h" ] || have_all=0
done
if [ "$have_all" = 1 ]; then
    echo "$me: CUnit for $HOST already built: $PREFIX/lib/libcunit.a"
    exit 0
fi

# The tools may be commands with words ("zig cc -target ..."): they are split
# on blanks where used, and only their first word must be on PATH.
CC=${CUNIT_CC:-$HOST-gcc}
AR=${CUNIT_AR:-$HOST-ar}
RANLIB=${CUNIT_RANLIB:-$HOST-ranlib}
for t in "${CC%% *}" "${AR%% *}" "${RANLIB%% *}" apt-get dpkg-source; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found in PATH"
done

CACHE=${CUNIT_CACHE:-$HOME/.cache/slimpthreads/cunit-src}
case $CACHE in /*) ;; *) CACHE=$(pwd)/$CACHE ;; esac
mkdir -p "$CACHE"

work=$(mktemp -d "${TMPDIR:-/tmp}/build-cunit.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- source package (cached) -------------------------------------------------
find_dsc() {
    dsc=
    for f in "$CACHE"/cunit_*.dsc; do
        [ -f "$f" ] && dsc=$f
    done
    return 0
}

find_dsc
if [ -z "$dsc" ]; then
    echo "$me: downloading the cunit source package into $CACHE" >&2
    # Download into a private directory, then move into the cache with the .dsc
    # last, so that a present .dsc means a complete download (also if two builds
    # for different hosts share the cache concurrently).
    dl=$(mktemp -d "$CACHE/.download.XXXXXX")
    # As root apt wants to download as user _apt, which cannot write here;
    # let it download as root instead of warning about it.
    sandbox=
    [ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
    # shellcheck disable=SC2086
    if ! (cd "$dl" && apt-get -q $sandbox source --download-only cunit) >&2; then
        rm -rf "$dl"
        die "'apt-get source --download-only cunit' failed (is a deb-src entry configured and 'apt-get update' done? see contrib/setup-deps.sh)"
    fi
    for f in "$dl"/*; do
        case $f in *.dsc) ;; *) [ -f "$f" ] && mv -f "$f" "$CACHE/" ;; esac
    done
    for f in "$dl"/*.dsc; do
        [ -f "$f" ] || { rm -rf "$dl"; die "apt-get downloaded no .dsc file"; }
        mv -f "$f" "$CACHE/"
    done
    rm -rf "$dl"
    find_dsc
    [ -n "$dsc" ] || die "no cunit_*.dsc in $CACHE after download"
fi
srcver=$(basename "$dsc" .dsc)
srcver=${srcver#cunit_}

# --- unpack (dpkg-source verifies checksums and applies debian/patches) ------
# gpgv may say "Can't check signature: No public key" for the .dsc: harmless,
# apt already verified the files against the signed archive index.
src=$work/src
dpkg-source -q -x "$dsc" "$src" >&2 \
    || die "dpkg-source -x $dsc failed (remove $CACHE to download again)"
[ -f "$src/CUnit/Headers/CUnit.h.in" ] || die "unexpected source layout: no CUnit/Headers/CUnit.h.in"

# --- generate CUnit.h from CUnit.h.in ----------------------------------------
# The tarball ships a stale pre-generated CUnit.h (older version string and
# pointer macros); always regenerate it. Version numbers come from configure.in.
cfg=$src/configure.in
[ -f "$cfg" ] || cfg=$src/configure.ac
vmaj=$(sed -n 's/^VERSION_MAJOR=\([0-9][0-9]*\).*/\1/p' "$cfg" | head -n 1)
vmin=$(sed -n 's/^VERSION_MINOR=\([0-9][0-9]*\).*/\1/p' "$cfg" | head -n 1)
vrel=$(sed -n 's/^RELEASE=\([0-9][0-9]*\).*/\1/p' "$cfg" | head -n 1)
if [ -z "$vmaj" ] || [ -z "$vmin" ] || [ -z "$vrel" ]; then
    die "cannot read VERSION_MAJOR/VERSION_MINOR/RELEASE from $cfg"
fi
version=$vmaj.$vmin

hdr=$src/CUnit/Headers
sed -e "s/@VERSION@/$version/g" -e "s/@RELEASE@/$vrel/g" \
    -e "s/@VERSION_MAJOR@/$vmaj/g" -e "s/@VERSION_MINOR@/$vmin/g" \
    "$hdr/CUnit.h.in" > "$hdr/CUnit.h"
if grep -n '@[A-Z_][A-Z_]*@' "$hdr/CUnit.h" >&2; then
    die "unsubstituted placeholders left in generated CUnit.h"
fi
for h in $HEADERS; do
    [ -f "$hdr/$h" ] || die "header $h missing from the source package"
done

# --- platform fix-up ----------------------------------------------------------
# CU_get_run_results_string() passes size_t values as printf '*' field widths,
# which must be int. On Win64 (LLP64) size_t is 64 bits wide and int 32; cast
# them (only this build tree is changed).
sed -e 's/^\([[:space:]]*\)width\[\([0-9]\)\], /\1(int)width[\2], /' \
    "$src/CUnit/Sources/Framework/TestRun.c" > "$work/TestRun.c"
mv "$work/TestRun.c" "$src/CUnit/Sources/Framework/TestRun.c"

# --- compile & archive --------------------------------------------------------
# No -DCU_DLL: CU_EXPORT stays empty (static library). snprintf is C99 and is
# provided by mingw-w64 (CUnit.h maps it to _snprintf only under _MSC_VER).
obj=$work/obj
mkdir -p "$obj"
objs=
for c in "$src"/CUnit/Sources/Framework/*.c "$src/CUnit/Sources/Basic/Basic.c"; do
    o=$obj/$(basename "$c" .c).o
    echo "$me: $CC -O2 -c $(basename "$c")" >&2
    # shellcheck disable=SC2086
    $CC -O2 ${CUNIT_CFLAGS:-} -I"$hdr" -c "$c" -o "$o"
    objs="$objs $o"
done

rm -f "$obj/libcunit.a"
# shellcheck disable=SC2086
$AR rcs "$obj/libcunit.a" $objs
# shellcheck disable=SC2086
$RANLIB "$obj/libcunit.a"

# --- install (library last: its presence marks a complete install) ----------
mkdir -p "$PREFIX/include/CUnit" "$PREFIX/lib"
for h in $HEADERS; do
    cp "$hdr/$h" "$PREFIX/include/CUnit/$h"
done
cp "$obj/libcunit.a" "$PREFIX/lib/libcunit.a.tmp.$$"
mv -f "$PREFIX/lib/libcunit.a.tmp.$$" "$PREFIX/lib/libcunit.a"

echo "$me: CUnit $version-$vrel (Debian source $srcver) for $HOST: $PREFIX/lib/libcunit.a"
