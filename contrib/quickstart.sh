#!/bin/sh
# The main job on a fresh Debian 12 machine: install the tool chain and Wine,
# build slimpthreads for 64-bit Windows, and print the benchmark table that
# compares it with MinGW-w64's winpthreads and the raw Win32 primitives, run
# under Wine. Pass --quick for a run of under a minute.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO sh "$top/contrib/setup-deps.sh"
cd "$top"
[ -x configure ] && [ ! configure.ac -nt configure ] || ./autogen.sh >/dev/null
mkdir -p build/x86_64
cd build/x86_64
[ -f Makefile ] || "$top/configure" --host=x86_64-w64-mingw32 -q
make -j2 >/dev/null
if [ "${1-}" = --quick ]; then
    make bench-quick
else
    make bench
fi
