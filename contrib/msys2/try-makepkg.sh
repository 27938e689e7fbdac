#!/bin/sh
# Run contrib/msys2/PKGBUILD through makepkg on Linux, as a cross build that emulates
# MSYS2's makepkg-mingw for MSYSTEM=MINGW64, and inspect the package it makes.
#
#   sh contrib/msys2/try-makepkg.sh [--check] [--hardening] BUILDDIR
#
# BUILDDIR is a build tree configured with --host=x86_64-w64-mingw32. `make dist` runs
# there; makepkg builds that tarball. Everything else goes to BUILDDIR/msys2-makepkg
# (makepkg's src/ and pkg/, makepkg.log, the .pkg.tar.zst), which is removed first.
#
#   --check      run check() too: the test suite under Wine, with the CUnit BUILDDIR was
#                configured with (WINEPREFIX inside makepkg's build tree). Default: --nocheck.
#   --hardening  use all of MSYS2's CFLAGS. By default -Wp,-D_FORTIFY_SOURCE=2 and
#                -fstack-protector-strong are left out: Debian's MinGW-w64 gcc implements
#                them with libssp-0.dll, MSYS2 (MinGW-w64 11 and later) with its CRT. With
#                them the DLL imports libssp-0.dll here, and under --check tests/shell/install.sh
#                (that import; static links lack __stack_chk_*) and tests/shell/independence.sh
#                (the compiler's .refptr.__stack_chk_guard) fail: expect failures.
#
# What is emulated: the variables /etc/makepkg_mingw.conf sets for MINGW64 (MSYSTEM,
# CARCH, CHOST, MINGW_CHOST, MINGW_PREFIX, MINGW_PACKAGE_PREFIX, CPPFLAGS, CFLAGS, LDFLAGS,
# OPTIONS, PKGEXT). What is not: CC is x86_64-w64-mingw32-gcc, not MSYS2's native gcc;
# makepkg runs with --nodeps (no pacman database, so .BUILDINFO generation prints "failed
# to initialize alpm library"); upstream makepkg strips ELF files only, so the DLL is not
# stripped as MSYS2's makepkg would; configure guesses build = x86_64-pc-linux-gnu.
#
# Installs nothing. Needs makepkg (Debian: pacman-package-manager, makepkg), bsdtar
# (libarchive-tools), fakeroot, zstd, pkg-config and the MinGW-w64 binutils; exits 77
# when one is missing. makepkg refuses to run as root: as root this runs it as
# MAKEPKG_USER (default: nobody), who must be able to reach BUILDDIR.
# Prints PASS/FAIL lines and last "slimtest-summary: msys2-makepkg P F"; exit status 0
# when all passed, 1 otherwise.
set -u

script_dir=$(cd "$(dirname "$0")" && pwd)
check=no
hardening=no
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=yes ;;
    --hardening) hardening=yes ;;
    -*) echo "usage: $0 [--check] [--hardening] BUILDDIR" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ $# -eq 1 ] || { echo "usage: $0 [--check] [--hardening] BUILDDIR" >&2; exit 2; }
[ -f "$1/Makefile" ] || { echo "$0: $1 is not a configured build tree" >&2; exit 2; }
builddir=$(cd "$1" && pwd)

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() {
    echo "slimtest-summary: msys2-makepkg $passed $failed"
    [ "$failed" -eq 0 ]
    exit
}
skip() { echo "SKIP: $*"; exit 77; }

chost=x86_64-w64-mingw32
for tool in makepkg bsdtar fakeroot zstd pkg-config $chost-objdump $chost-nm; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done
if [ "$(id -u)" = 0 ]; then
    user=${MAKEPKG_USER:-nobody}
    command -v runuser >/dev/null 2>&1 || skip "running as root and no runuser to leave root"
    id -u "$user" >/dev/null 2>&1 || skip "running as root and no user $user for makepkg"
    as_user() { runuser -u "$user" -- "$@"; }
else
    user=
    as_user() { "$@"; }
fi

mkvar() { sed -n "s/^$1 = //p" "$builddir/Makefile"; }
host=$(mkvar host)
version=$(mkvar PACKAGE_VERSION)
tarname=$(mkvar PACKAGE_TARNAME)
[ "$host" = $chost ] || skip "$builddir is configured for '$host', not $chost"
pkgver=$(sed -n 's/^pkgver=//p' "$script_dir/PKGBUILD")
pkgrel=$(sed -n 's/^pkgrel=//p' "$script_dir/PKGBUILD")
if [ "$pkgver" = "$version" ]; then
    pass "PKGBUILD pkgver $pkgver is the configured version"
else
    fail "PKGBUILD pkgver $pkgver, configure says $version"
    finish
fi

work=$builddir/msys2-makepkg
rm -rf "$work"
mkdir -p "$work/pkg" "$work/home"

# ---- The tarball: `make dist` in BUILDDIR ----
tarball=$tarname-$version.tar.gz
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -C "$builddir" dist >"$work/dist.log" 2>&1 &&
    [ -f "$builddir/$tarball" ]; then
    pass "make dist wrote $tarball"
else
    fail "make dist (see $work/dist.log)"
    finish
fi
cp "$script_dir/PKGBUILD" "$builddir/$tarball" "$work/pkg/"

# ---- makepkg, configured as makepkg-mingw configures it for MINGW64 ----
cflags="-march=nocona -msahf -mtune=generic -O2 -pipe"
[ "$hardening" = yes ] && cflags="$cflags -Wp,-D_FORTIFY_SOURCE=2 -fstack-protector-strong"
cunit=
if [ "$check" = yes ]; then
    cunit_prefix=$(mkvar CUNIT_PREFIX)
    [ -f "$cunit_prefix/lib/libcunit.a" ] || skip "--check: no CUnit in $cunit_prefix"
    # A copy: the makepkg user may not be able to read the owner's cache.
    cp -R "$cunit_prefix" "$work/cunit"
    cunit="SLIMPTHREADS_CUNIT='$work/cunit'"
fi
cat >"$work/makepkg_mingw64.conf" <<EOF
# Generated by contrib/msys2/try-makepkg.sh: /etc/makepkg.conf, then what MSYS2's
# /etc/makepkg_mingw.conf sets for MSYSTEM=MINGW64, for a cross build on Linux.
source /etc/makepkg.conf
CARCH="x86_64"
CHOST="$chost"
MINGW_CHOST="$chost"
MINGW_PREFIX="/mingw64"
MINGW_PACKAGE_PREFIX="mingw-w64-x86_64"
MSYSTEM_PREFIX="/mingw64"
MSYSTEM_CARCH="x86_64"
MSYSTEM_CHOST="$chost"
# MSYS2: CC=gcc, its native compiler.
CC="$chost-gcc"
CXX="$chost-g++"
export CC CXX
CPPFLAGS="-D__USE_MINGW_ANSI_STDIO=1"
CFLAGS="$cflags"
CXXFLAGS="-march=nocona -msahf -mtune=generic -O2 -pipe"
LDFLAGS="-pipe"
MAKEFLAGS="-j1"
BUILDENV=(!distcc !color !ccache check !sign)
OPTIONS=(strip docs !libtool staticlibs emptydirs zipman purge !debug !lto)
INTEGRITY_CHECK=(sha256)
MAN_DIRS=("\${MINGW_PREFIX#/}"{{,/local}{,/share},/opt/*}/{man,info})
DOC_DIRS=("\${MINGW_PREFIX#/}"/{,local/}{,share/}{doc,gtk-doc})
PURGE_TARGETS=("\${MINGW_PREFIX#/}"/{,share}/info/dir .packlist *.pod)
PKGEXT='.pkg.tar.zst'
SRCEXT='.src.tar.zst'
PACKAGER="contrib/msys2/try-makepkg.sh"
$cunit
EOF

if [ -n "$user" ]; then
    chown -R "$user:" "$work"
    as_user test -w "$work/pkg" || skip "user $user cannot write $work (set MAKEPKG_USER)"
fi
nocheck=--nocheck
[ "$check" = yes ] && nocheck=
echo "makepkg in $work/pkg${user:+ as $user}${nocheck:+ (--nocheck)}; log: $work/makepkg.log"
# The soft limit on open files goes up to the hard one, as Wine's loader does for itself:
# the wineserver that contrib/wine-run.sh starts for make check does not, and with the
# usual 1024 test_thread's "500 threads alive at once" hangs until its watchdog fires.
# shellcheck disable=SC2086,SC2016 # $nocheck is empty or one word; $( ) is for sh -c
(cd "$work/pkg" && as_user sh -c 'ulimit -n "$(ulimit -H -n)" 2>/dev/null; exec "$@"' sh \
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL HOME="$work/home" MSYSTEM=MINGW64 \
    makepkg --config "$work/makepkg_mingw64.conf" --nodeps --noconfirm --noprogressbar \
    $nocheck) >"$work/makepkg.log" 2>&1
status=$?
# make check stops its wineserver (not after a failure), but Wine's services.exe,
# plugplay.exe and the like stay behind: end what still runs in makepkg's Wine prefix.
wineprefix=$work/pkg/src/build-MINGW64/wineprefix
for pid in $(pgrep -u "${user:-$(id -un)}"); do
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx "WINEPREFIX=$wineprefix"; then
        kill "$pid" 2>/dev/null
    fi
done
if [ "$status" -eq 0 ]; then
    pass "makepkg${nocheck:+ $nocheck} built the package"
else
    fail "makepkg failed; the end of $work/makepkg.log:"
    tail -n 40 "$work/makepkg.log"
    finish
fi
if grep -q '^checking whether we are cross compiling\.\.\. yes' "$work/makepkg.log"; then
    pass "configure ran as a cross build"
else
    fail "configure did not run as a cross build"
fi
if [ "$check" = yes ]; then
    grep -E '^# (TOTAL|PASS|FAIL|ERROR):' "$work/makepkg.log"
    pass "check(): make check passed"
fi

# ---- The package ----
package=$work/pkg/mingw-w64-x86_64-$tarname-$version-$pkgrel-any.pkg.tar.zst
[ -f "$package" ] || { fail "no $package"; finish; }
pass "made $(basename "$package")"
x=$work/extract
mkdir -p "$x"
bsdtar -xf "$package" -C "$x"

# Exactly these files: the headers the tarball has, under include/slimpthreads.
dll=libslimpthreads-N.dll
{
    echo "mingw64/bin/$dll"
    tar -tzf "$builddir/$tarball" |
        sed -n "s|^$tarname-$version/include/\([^/]*\.h\)$|mingw64/include/slimpthreads/\1|p"
    echo mingw64/lib/pkgconfig/slimpthreads.pc
    for lib in libpthread.a libpthread.dll.a libslimpthreads.a libslimpthreads.dll.a; do
        echo "mingw64/lib/slimpthreads/$lib"
    done
    echo mingw64/share/licenses/slimpthreads/COPYING
} | LC_ALL=C sort >"$work/expected-files"
bsdtar -tf "$package" | grep -v '/$' | grep -v '^\.' |
    sed "s|^mingw64/bin/libslimpthreads-[0-9][0-9]*\.dll$|mingw64/bin/$dll|" |
    LC_ALL=C sort >"$work/files"
if cmp -s "$work/expected-files" "$work/files"; then
    pass "the package holds exactly the $(wc -l <"$work/files") expected files"
else
    fail "the package's files differ from the expected ones (-expected +package):"
    diff -u "$work/expected-files" "$work/files" | sed -n 's/^\([-+][^-+]\)/    \1/p'
fi

if grep -qx "pkgname = mingw-w64-x86_64-$tarname" "$x/.PKGINFO" &&
    grep -qx "pkgver = $version-$pkgrel" "$x/.PKGINFO"; then
    pass ".PKGINFO: mingw-w64-x86_64-$tarname $version-$pkgrel"
else
    fail ".PKGINFO names another package or version"
fi

# The .pc file resolves to the package's directories.
pc() {
    PKG_CONFIG_LIBDIR=$x/mingw64/lib/pkgconfig PKG_CONFIG_PATH='' PKG_CONFIG_SYSROOT_DIR='' \
        pkg-config "$@" slimpthreads 2>&1
}
expect_pc() { # "options" expected-output
    # shellcheck disable=SC2046,SC2086 # options and output are word lists
    got=$(printf '%s ' $(pc $1))
    got=${got% }
    if [ "$got" = "$2" ]; then
        pass "pkg-config $1: $got"
    else
        fail "pkg-config $1: '$got', expected '$2'"
    fi
}
expect_pc --cflags "-I/mingw64/include/slimpthreads"
expect_pc --libs "-L/mingw64/lib/slimpthreads -lslimpthreads"
expect_pc "--static --libs" "-L/mingw64/lib/slimpthreads -lslimpthreads -lsynchronization"
if grep -q "$work" "$x/mingw64/lib/pkgconfig/slimpthreads.pc"; then
    fail "slimpthreads.pc names the build directory"
fi

# The DLL imports only Windows' own DLLs.
dlls=$($chost-objdump -p "$x"/mingw64/bin/libslimpthreads-*.dll | sed -n 's/^.*DLL Name: *//p' |
    tr '\n' ' ')
if [ -z "$dlls" ]; then
    fail "no imports found in the DLL"
elif echo "$dlls" | tr ' ' '\n' |
    grep -Eiv '^(kernel32|msvcrt|ucrtbase|api-ms-win-[a-z0-9-]+)\.dll$' | grep -q .; then
    fail "the DLL imports non-system DLLs: $dlls"
else
    pass "the DLL imports only Windows DLLs: $dlls"
fi

# The -lpthread aliases: ours (link names slimpthreads_*) plus winpthreads' plain
# names, for code compiled against winpthreads' headers (tests/dropin.mk).
l=$x/mingw64/lib/slimpthreads
if LC_ALL=C grep -aq 'libslimpthreads-[0-9][0-9]*\.dll' "$l/libpthread.dll.a" &&
    $chost-nm "$l/libpthread.dll.a" 2>/dev/null | grep -q ' T slimpthreads_pthread_create$'; then
    pass "libpthread.dll.a holds our import library"
else
    fail "libpthread.dll.a does not hold our import library"
fi
if $chost-nm "$l/libpthread.a" 2>/dev/null | grep -q '__imp_WaitOnAddress$' &&
    $chost-nm "$l/libpthread.a" 2>/dev/null | grep -q ' T slimpthreads_pthread_create$'; then
    pass "libpthread.a: our static library with the WaitOnAddress import stubs"
else
    fail "libpthread.a lacks slimpthreads_pthread_create or the WaitOnAddress stubs"
fi

if tar -xzOf "$builddir/$tarball" "$tarname-$version/COPYING" |
    cmp -s - "$x/mingw64/share/licenses/slimpthreads/COPYING"; then
    pass "the license is the tarball's COPYING"
else
    fail "share/licenses/slimpthreads/COPYING is not the tarball's COPYING"
fi

finish
