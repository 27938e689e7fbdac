#!/bin/sh
# The Debian packages (debian/) as a user meets them (README.md, "Install from
# a Debian package"): builds them with dpkg-buildpackage from a copy of the
# source tree, checks them with lintian, installs them with apt-get, builds
# tests/fixtures/dropin_prog.c with x86_64-w64-mingw32-pkg-config and i686's (slimpthreads
# and slimpthreads-checked, with the DLL and static) and runs it under Wine,
# finds the package with CMake's find_package and meson's dependency(), then
# purges it: none of its files may be left, and winpthreads' pthread.h and
# libpthread.a must be the same before, during and after. It also checks that
# the versions of configure.ac, NEWS and debian/changelog agree.
#
#   sh contrib/debian-check.sh BUILD_DIR   everything, from BUILD_DIR's make dist
#   sh contrib/debian-check.sh             everything, from a copy of the source tree
#   sh contrib/debian-check.sh --versions  only the version agreement
# (make check-debian is the first form.) Everything but --versions needs root
# or sudo, for apt-get.
#
# The work directory, BUILD_DIR/debian-check (default build/debian-check),
# keeps the .debs, the logs and a Wine prefix that later runs reuse. Build-Depends and lintian are
# installed with apt-get when missing. Ends with "slimtest-summary: debian
# PASSED FAILED" (contrib/test-all.sh adds it up); programs this host cannot
# run (32-bit ones where the kernel runs 64-bit code only) are counted apart.
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
--versions | "") top_builddir=$top_srcdir ;;
*) top_builddir=$(cd "$1" && pwd) || exit 1 ;;
esac
. "$top_srcdir/tests/shell/shtest.sh"
triplets="x86_64-w64-mingw32 i686-w64-mingw32"
packages="libslimpthreads-mingw-w64 libslimpthreads-mingw-w64-dev"
program=$top_srcdir/tests/fixtures/dropin_prog.c

# ---- versions: configure.ac's AC_INIT, NEWS' newest release, debian/changelog ----
check_versions() {
    configured=$(sed -n 's/^AC_INIT(\[slimpthreads\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
    news_line=$(grep -m 1 '^\* Noteworthy changes in release ' "$top_srcdir/NEWS")
    news=$(echo "$news_line" | sed 's/^\* Noteworthy changes in release \([^ ]*\).*/\1/')
    changelog=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)
    distribution=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Distribution)
    if [ -n "$configured" ] && [ "$configured" = "$news" ] && [ "$news" = "$changelog" ]; then
        pass "versions agree: configure.ac, NEWS and debian/changelog say $changelog"
    else
        fail "versions differ: configure.ac '$configured', NEWS '$news', debian/changelog '$changelog'"
    fi
    # An unreleased version in NEWS is UNRELEASED in the changelog, and a dated one is not.
    case $news_line in
    *"(unreleased)"*) want=UNRELEASED ;;
    *) want=released ;;
    esac
    case $want/$distribution in
    UNRELEASED/UNRELEASED | released/[!U]* | released/U[!N]*)
        pass "NEWS and debian/changelog agree that $news is $want" ;;
    *) fail "NEWS says $news is $want, debian/changelog's distribution is $distribution" ;;
    esac
}

if [ "${1:-}" = --versions ]; then
    check_versions
    shtest_finish debian
fi
# Not BUILD_DIR/debian: make dist would take that for the sources' debian/.
if [ -n "${1:-}" ]; then workdir=$top_builddir/debian-check; else workdir=$top_srcdir/build/debian-check; fi
mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
export WINEPREFIX="${WINEPREFIX:-$workdir/wineprefix}"
check_versions

as_root() { # the command, through sudo when not root; apt-get asks nothing
    if [ "$(id -u)" -eq 0 ]; then env DEBIAN_FRONTEND=noninteractive "$@"
    else sudo -n env DEBIAN_FRONTEND=noninteractive "$@"; fi
}

# The sources the packages are built from: the build tree's make dist (the
# tarball users get must carry debian/), or a copy of the source tree; never
# the tree itself, which dh_autoreconf and dh_clean would rewrite.
unpack_sources() { # directory
    if [ -f "$top_builddir/Makefile" ]; then
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -C "$top_builddir" dist-gzip \
            >"$workdir/dist.out" 2>&1 || { tail -n 20 "$workdir/dist.out"; return 1; }
        tarball=$(ls -t "$top_builddir"/slimpthreads-*.tar.gz | head -n 1)
        tar -xzf "$tarball" -C "$1" --strip-components=1 && rm -f "$tarball" &&
            pass "make dist: $(basename "$tarball") unpacked"
    else
        (cd "$top_srcdir" && tar -cf - --exclude=./build --exclude=./.git --exclude=./autom4te.cache .) |
            (cd "$1" && tar -xf -)
    fi
}

build_packages() {
    src=$workdir/src
    rm -rf "$src" "$workdir"/*.deb "$workdir"/*.changes "$workdir"/*.buildinfo
    mkdir -p "$src"
    unpack_sources "$src" || { fail "the sources could not be unpacked"; return 1; }
    if ! (cd "$src" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
        as_root apt-get build-dep -y -q "$src" >"$workdir/build-dep.out" 2>&1 ||
            { fail "apt-get build-dep"; tail -n 20 "$workdir/build-dep.out"; return 1; }
    fi
    started=$(date +%s)
    if (cd "$src" && dpkg-buildpackage -us -uc -b -j"${JOBS:-2}") >"$workdir/build.out" 2>&1; then
        pass "dpkg-buildpackage -us -uc -b ($(($(date +%s) - started)) s)"
    else
        fail "dpkg-buildpackage -us -uc -b"
        tail -n 40 "$workdir/build.out"
        return 1
    fi
}

run_lintian() {
    command -v lintian >/dev/null 2>&1 ||
        as_root apt-get install -y -q --no-install-recommends lintian >/dev/null 2>&1
    lintian "$workdir"/slimpthreads_*.changes >"$workdir/lintian.out" 2>&1
    if ! command -v lintian >/dev/null 2>&1; then
        fail "lintian: not installed and could not be installed"
    elif grep -q '^E: ' "$workdir/lintian.out"; then
        fail "lintian reports errors"
        grep '^E: ' "$workdir/lintian.out"
    else
        pass "lintian: no error, $(grep -c '^W: ' "$workdir/lintian.out") warnings"
        grep '^W: ' "$workdir/lintian.out"
    fi
}

# The files of another package our package must never change.
winpthreads_sums() {
    for t in $triplets; do
        sha256sum "/usr/$t/include/pthread.h" "/usr/$t/lib/libpthread.a" 2>&1
    done
}

imports() { # triplet, program: the DLLs it imports, one a line; fails without a program
    "$1-objdump" -p "$2" >"$work/objdump.out" 2>&1 || return 1
    sed -n 's/^[[:space:]]*DLL Name: *//p' "$work/objdump.out" | tr -d '\r'
}

# ---- a threaded program, through pkg-config, with the DLL and static ----
check_pkg_config() { # triplet
    t=$1
    pkgc="$t-pkg-config"
    want="-I/usr/$t/include/slimpthreads -L/usr/$t/lib/slimpthreads -lslimpthreads"
    got=$($pkgc --cflags --libs slimpthreads 2>&1 | sed 's/ *$//')
    if [ "$got" = "$want" ]; then pass "$pkgc --cflags --libs slimpthreads: $got"
    else fail "$pkgc --cflags --libs slimpthreads: '$got', expected '$want'"; fi
    for pc in slimpthreads slimpthreads-checked; do
        dir=$work/$t-$pc
        mkdir -p "$dir"
        # shellcheck disable=SC2046 # pkg-config's words are separate arguments
        check "$t: $pc with the DLL builds" \
            "$t-gcc" $($pkgc --cflags $pc) -o "$dir/dll.exe" "$program" $($pkgc --libs $pc)
        cp "/usr/$t/lib/lib$pc-0.dll" "$dir/"
        if imports "$t" "$dir/dll.exe" | grep -qix "lib$pc-0.dll"; then
            pass "$t: $pc: the program imports lib$pc-0.dll"
        else
            fail "$t: $pc: the program does not import lib$pc-0.dll"
        fi
        check_run "$t: $pc with the DLL" 'checks passed' "$dir" ./dll.exe
        check "$t: $pc static builds" "$t-gcc" -static $($pkgc --cflags $pc) \
            -o "$dir/static.exe" "$program" $($pkgc --static --libs $pc)
        if ! dlls=$(imports "$t" "$dir/static.exe"); then
            fail "$t: $pc static: no program to look at"
        elif echo "$dlls" | grep -qi '^lib\(win\|slim\)pthread'; then
            fail "$t: $pc static: the program imports a pthreads DLL"
        else
            pass "$t: $pc static: no pthreads DLL imported"
        fi
        check_run "$t: $pc static" 'checks passed' "$dir" ./static.exe
    done
}

# ---- CMake: find_package(slimpthreads) in a MinGW cross build ----
check_cmake() { # triplet
    t=$1
    dir=$work/cmake-$t
    mkdir -p "$dir/src"
    cp "$program" "$dir/src/prog.c"
    cat >"$dir/toolchain.cmake" <<TOOLCHAIN
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $t-gcc)
set(CMAKE_RC_COMPILER $t-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$t)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
TOOLCHAIN
    cat >"$dir/src/CMakeLists.txt" <<'PROJECT'
cmake_minimum_required(VERSION 3.13)
project(probe C)
find_package(slimpthreads 0.1 REQUIRED)
message(STATUS "probe: slimpthreads ${slimpthreads_VERSION} in ${slimpthreads_INCLUDE_DIRS}")
add_executable(prog prog.c)
target_link_libraries(prog PRIVATE slimpthreads::static)
target_link_options(prog PRIVATE -static)
PROJECT
    if cmake -S "$dir/src" -B "$dir/build" -DCMAKE_TOOLCHAIN_FILE="$dir/toolchain.cmake" \
        >"$dir/cmake.out" 2>&1 && cmake --build "$dir/build" >>"$dir/cmake.out" 2>&1; then
        pass "$t: CMake find_package(slimpthreads): $(sed -n 's/.*probe: //p' "$dir/cmake.out")"
        check_run "$t: CMake's program" 'checks passed' "$dir/build" ./prog.exe
    else
        fail "$t: CMake find_package(slimpthreads) and build"
        tail -n 30 "$dir/cmake.out"
    fi
}

# ---- meson: dependency('slimpthreads') through the triplet's pkg-config ----
check_meson() { # triplet
    t=$1
    dir=$work/meson-$t
    cpu=${t%%-*}
    case $cpu in i?86) family=x86 ;; *) family=$cpu ;; esac
    mkdir -p "$dir/src"
    cp "$program" "$dir/src/prog.c"
    cat >"$dir/cross.ini" <<CROSS
[binaries]
c = '$t-gcc'
ar = '$t-ar'
strip = '$t-strip'
pkgconfig = '$t-pkg-config'
[host_machine]
system = 'windows'
cpu_family = '$family'
cpu = '$cpu'
endian = 'little'
[built-in options]
c_link_args = ['-static']
CROSS
    cat >"$dir/src/meson.build" <<'PROJECT'
project('probe', 'c')
slim = dependency('slimpthreads', version: '>=0.1', static: true)
message('probe: slimpthreads ' + slim.version())
executable('prog', 'prog.c', dependencies: slim)
PROJECT
    if meson setup --cross-file "$dir/cross.ini" "$dir/build" "$dir/src" >"$dir/meson.out" 2>&1 &&
        ninja -C "$dir/build" >>"$dir/meson.out" 2>&1; then
        pass "$t: meson dependency('slimpthreads'): $(sed -n 's/.*probe: //p' "$dir/meson.out" | head -n 1)"
        check_run "$t: meson's program" 'checks passed' "$dir/build" ./prog.exe
    else
        fail "$t: meson dependency('slimpthreads') and build"
        tail -n 30 "$dir/meson.out"
    fi
}

# ---- a real program: xz, unchanged, as README.md's autotools line builds it ----
# Only when make check-integration has already fetched xz's source (it is not
# fetched here); SLIM_DEBIAN_XZ=no skips it.
check_xz() { # triplet
    t=$1
    xz_src=${SLIM_INTEGRATION_CACHE:-${HOME:-/tmp}/.cache/slimpthreads/integration}/src/xz
    if [ "${SLIM_DEBIAN_XZ:-}" = no ] || [ ! -x "$xz_src/configure" ]; then
        echo "note: xz not tried (no source in $xz_src, or SLIM_DEBIAN_XZ=no)"
        return 0
    fi
    dir=$work/xz-$t
    mkdir -p "$dir"
    started=$(date +%s)
    if (cd "$dir" && "$xz_src/configure" --host="$t" --enable-threads=posix --disable-shared \
        --disable-nls --disable-doc --disable-scripts --disable-lzmadec --disable-lzmainfo \
        --disable-xzdec CPPFLAGS="-I/usr/$t/include/slimpthreads" \
        LDFLAGS="-L/usr/$t/lib/slimpthreads" && make -j"${JOBS:-2}") >"$dir.log" 2>&1; then
        pass "$t: xz builds against the package ($(($(date +%s) - started)) s)"
    else
        fail "$t: xz does not build against the package"
        tail -n 25 "$dir.log"
        return 1
    fi
    cp "$dir/src/xz/.libs/xz.exe" "$dir/src/xz/xz.exe" "$dir/" 2>/dev/null
    cp "/usr/$t/lib/libslimpthreads-0.dll" "$dir/"
    # -pthread found the package's libpthread.dll.a alias: xz's threads are ours.
    if imports "$t" "$dir/xz.exe" | grep -qix libslimpthreads-0.dll; then
        pass "$t: xz imports libslimpthreads-0.dll"
    else
        fail "$t: xz does not import libslimpthreads-0.dll"
    fi
    # Text of many lines, so that 4 threads get blocks of their own.
    seq 1 400000 | sed 's/$/ slimpthreads/' >"$dir/data"
    check_run "$t: xz -T4 compresses" 'KiB = ' "$dir" ./xz.exe -v -T4 --block-size=262144 -k -f data
    if xz -dc "$dir/data.xz" 2>/dev/null | cmp -s - "$dir/data"; then
        pass "$t: xz -T4's output decompresses to the input with Linux's xz"
    else
        fail "$t: xz -T4's output does not decompress to the input"
    fi
}

# ---- purge: nothing of ours left, winpthreads untouched ----
check_purge() { # the list of our files, taken while installed
    if as_root apt-get purge -y -q $packages >"$work/purge.out" 2>&1; then
        pass "apt-get purge"
    else
        fail "apt-get purge"
        tail -n 20 "$work/purge.out"
    fi
    left=$(while read -r file; do
        case $file in /usr/share/doc | /usr/share/lintian* | /usr | /usr/share | /. ) continue ;; esac
        if [ -e "$file" ]; then echo "$file"; fi
    done <"$1")
    # The triplets' own directories (/usr/<triplet>/lib ...) are winpthreads' too.
    left=$(echo "$left" | grep -v '^/usr/[^/]*-w64-mingw32\(/include\|/lib\|/lib/pkgconfig\|/lib/cmake\)\{0,1\}$')
    if [ -z "$left" ]; then pass "purged: no file or directory of ours left"
    else fail "purged, but left: $(echo $left)"; fi
}

if ! build_packages; then
    shtest_finish debian
fi
run_lintian
before=$(winpthreads_sums)
as_root dpkg -r $packages >/dev/null 2>&1 # a run that stopped half-way
if as_root apt-get install -y -q "$workdir"/libslimpthreads-mingw-w64_*.deb \
    "$workdir"/libslimpthreads-mingw-w64-dev_*.deb >"$work/install.out" 2>&1; then
    pass "apt-get install ./libslimpthreads-mingw-w64*.deb"
else
    fail "apt-get install ./libslimpthreads-mingw-w64*.deb"
    tail -n 20 "$work/install.out"
    as_root dpkg --purge $packages >/dev/null 2>&1 # nothing half-installed left behind
    shtest_finish debian
fi
dpkg -L $packages | sort -u >"$work/files"
if [ "$(winpthreads_sums)" = "$before" ]; then pass "installed: winpthreads' pthread.h and libpthread.a unchanged"
else fail "installed: winpthreads' pthread.h or libpthread.a changed"; fi
for t in $triplets; do
    check_pkg_config "$t"
    check_cmake "$t"
    check_meson "$t"
done
check_xz x86_64-w64-mingw32
check_purge "$work/files"
if [ "$(winpthreads_sums)" = "$before" ]; then pass "purged: winpthreads' pthread.h and libpthread.a unchanged"
else fail "purged: winpthreads' pthread.h or libpthread.a changed"; fi
shtest_finish debian
