#!/bin/sh
# Moves one `make install` tree (prefix /usr/<triplet>) beside winpthreads,
# which owns include/pthread.h and lib/libpthread.a there, as
# contrib/msys2/PKGBUILD does: headers to include/slimpthreads, static and
# import libraries (with the -lpthread aliases) to lib/slimpthreads, the DLLs
# from bin/ to lib/ (Debian's place for MinGW DLLs, as libz-mingw-w64's);
# adds the CMake package. Called by debian/rules for each triplet.
#
#   sh debian/relayout.sh DESTDIR_TREE PREFIX VERSION
#   e.g. sh debian/relayout.sh debian/tmp/usr/x86_64-w64-mingw32 /usr/x86_64-w64-mingw32 0.1.0
set -eu
tree=$1
prefix=$2
version=$3
here=$(dirname "$0")

mkdir -p "$tree/include/slimpthreads" "$tree/lib/slimpthreads" "$tree/lib/cmake/slimpthreads"
mv "$tree"/include/*.h "$tree/include/slimpthreads/"
mv "$tree"/lib/*.a "$tree/lib/slimpthreads/"
mv "$tree"/bin/*.dll "$tree/lib/"
rmdir "$tree/bin"
# libtool archives: Debian ships none (Policy 10.2); they would name the build's paths.
rm -f "$tree"/lib/*.la
# An absolute prefix, as Debian's other MinGW .pc files have, rather than the
# relocatable ${pcfiledir}/../.. of `make install`: with PKG_CONFIG_SYSROOT_DIR
# pkg-config would put the sysroot in front of a path that already holds it.
for pc in "$tree"/lib/pkgconfig/*.pc; do
    sed -i -e "s|^prefix=.*|prefix=$prefix|" \
        -e "s|^libdir=.*|libdir=\${prefix}/lib/slimpthreads|" \
        -e "s|^includedir=.*|includedir=\${prefix}/include/slimpthreads|" "$pc"
done
install -m 644 "$here/slimpthreads-config.cmake" "$tree/lib/cmake/slimpthreads/"
sed "s|@VERSION@|$version|" "$here/slimpthreads-config-version.cmake.in" \
    >"$tree/lib/cmake/slimpthreads/slimpthreads-config-version.cmake"
