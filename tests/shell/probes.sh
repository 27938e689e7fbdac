#!/bin/sh
# Build-system probes keep finding threads, tried against `make install
# prefix=...` exactly as README.md writes the projects' lines ("Autotools
# projects", "CMake", "meson"):
#  - autoconf: AC_CHECK_LIB(pthread, pthread_create), AC_SEARCH_LIBS,
#    AC_CHECK_FUNCS(pthread_rwlock_init) and AX_PTHREAD (autoconf-archive);
#  - CMake with contrib/cmake/slimpthreads-toolchain.cmake, and the user's own
#    -DCMAKE_C_FLAGS=-O2 -DCMAKE_EXE_LINKER_FLAGS=-static: FindThreads,
#    check_symbol_exists, check_library_exists;
#  - meson: dependency('threads'), has_function, has_header_symbol.
# Header-less probes (AC_CHECK_LIB and friends) link plain names, which the
# -lpthread alias answers with winpthreads' own entry points; the program
# built afterwards with our headers must still get slimpthreads and run.
# A tool that is missing is reported as a failure, not skipped, except meson
# and autoconf-archive, which the CI installs but a developer may not have.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${CC:?}" "${NM:?}" "${OBJDUMP:?}"
. "$top_srcdir/tests/shell/shtest.sh"
prefix=$work/prefix
program=$top_srcdir/tests/fixtures/dropin_prog.c
# The configured host (clang -dumpmachine says x86_64-w64-windows-gnu, for which
# no MinGW-w64 tools are named).
host=$(sed -n "s/^host = //p" "$top_builddir/Makefile")
: "${host:=$($CC -dumpmachine)}"

shtest_make_install "$prefix" || shtest_finish probes

# The program a probe's answer is used for: ours, static, and it runs.
slim_program() { # name, exe
    if ! $NM "$2" 2>/dev/null | grep -q ' T _\{0,1\}slimpthreads_pthread_create$'; then
        fail "$1: the program does not hold slimpthreads_pthread_create"
    elif "$OBJDUMP" -p "$2" | grep -Eqi 'DLL Name: *lib(win|slim)pthread'; then
        fail "$1: the program imports a pthreads DLL"
    else
        pass "$1: the program is statically slimpthreads"
    fi
    run_dropin_prog "$1" "$2"
}

# ---- autoconf ----
case $CC in
*clang*) autoconf_cc=$CC ;;
*) autoconf_cc=$host-gcc ;;
esac
if command -v autoconf >/dev/null 2>&1; then
    mkdir -p "$work/ac"
    # --host needs config.sub and config.guess next to configure.
    for aux in config.sub config.guess; do
        for dir in "$(automake --print-libdir 2>/dev/null)" /usr/share/misc; do
            if [ -f "$dir/$aux" ]; then cp "$dir/$aux" "$work/ac/"; break; fi
        done
    done
    if [ -f /usr/share/aclocal/ax_pthread.m4 ]; then
        cp /usr/share/aclocal/ax_pthread.m4 "$work/ac/"
        ax_pthread='m4_include([ax_pthread.m4])
AX_PTHREAD([have_ax_pthread=yes], [have_ax_pthread=no])'
    else
        ax_pthread='have_ax_pthread=missing'
    fi
    cat >"$work/ac/configure.ac" <<CONFIGURE
AC_INIT([probe], [1])
AC_CONFIG_AUX_DIR([.])
AC_PROG_CC
AC_CHECK_LIB([pthread], [pthread_create], [have_check_lib=yes], [have_check_lib=no])
AC_SEARCH_LIBS([pthread_rwlock_init], [pthread], [have_search_libs=yes], [have_search_libs=no])
AC_CHECK_FUNCS([pthread_rwlock_init pthread_mutex_timedlock])
AC_CHECK_HEADERS([pthread.h semaphore.h])
$ax_pthread
AC_SUBST([have_check_lib]) AC_SUBST([have_search_libs]) AC_SUBST([have_ax_pthread])
AC_CONFIG_FILES([results])
AC_OUTPUT
CONFIGURE
    cat >"$work/ac/results.in" <<'RESULTS'
check_lib=@have_check_lib@
search_libs=@have_search_libs@
ax_pthread=@have_ax_pthread@
PTHREAD_CFLAGS='@PTHREAD_CFLAGS@'
PTHREAD_LIBS='@PTHREAD_LIBS@'
LIBS='@LIBS@'
defs='@DEFS@'
RESULTS
    # README.md's autotools line.
    if (cd "$work/ac" && autoconf >/dev/null 2>&1 &&
        ./configure --host="$host" CC="$autoconf_cc" \
            CPPFLAGS=-I"$prefix/include" LDFLAGS="-L$prefix/lib $configured_ldflags" \
            >configure.out 2>&1); then
        pass "autoconf: configure runs"
        . "$work/ac/results"
        for answer in check_lib search_libs; do
            eval "value=\$$answer"
            if [ "$value" = yes ]; then pass "autoconf: $answer finds threads"; else fail "autoconf: $answer: $value"; fi
        done
        for define in HAVE_PTHREAD_RWLOCK_INIT HAVE_PTHREAD_MUTEX_TIMEDLOCK HAVE_PTHREAD_H HAVE_SEMAPHORE_H; do
            case $defs in
            *"-D$define=1"*) pass "autoconf: $define" ;;
            *) fail "autoconf: no $define" ;;
            esac
        done
        case $ax_pthread in
        yes) pass "autoconf: AX_PTHREAD finds threads ($PTHREAD_CFLAGS $PTHREAD_LIBS)" ;;
        missing) echo "note: autoconf-archive's ax_pthread.m4 is not installed; AX_PTHREAD not tried" ;;
        *) fail "autoconf: AX_PTHREAD: $ax_pthread" ;;
        esac
        # shellcheck disable=SC2086 # flag lists
        if $autoconf_cc -static $PTHREAD_CFLAGS -I"$prefix/include" "$program" -L"$prefix/lib" \
            $PTHREAD_LIBS $LIBS $configured_ldflags -o "$work/ac/prog.exe" >"$work/ac/prog.out" 2>&1; then
            slim_program "autoconf" "$work/ac/prog.exe"
        else
            fail "autoconf: the program does not build with what configure found"
            head -n 20 "$work/ac/prog.out"
        fi
    else
        fail "autoconf: configure failed"
        tail -n 30 "$work/ac/config.log"
    fi
else
    fail "autoconf is not installed"
fi

# ---- CMake ----
if command -v cmake >/dev/null 2>&1; then
    mkdir -p "$work/cm/src"
    cp "$program" "$work/cm/src/prog.c"
    cat >"$work/cm/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(probe C)
find_package(Threads REQUIRED)
include(CheckSymbolExists)
include(CheckLibraryExists)
set(CMAKE_REQUIRED_LIBRARIES Threads::Threads)
check_symbol_exists(pthread_create pthread.h HAVE_PTHREAD_CREATE)
check_symbol_exists(pthread_rwlock_init pthread.h HAVE_PTHREAD_RWLOCK_INIT)
check_symbol_exists(sem_timedwait semaphore.h HAVE_SEM_TIMEDWAIT)
unset(CMAKE_REQUIRED_LIBRARIES)
check_library_exists(pthread pthread_create "" HAVE_LIBPTHREAD)
message(STATUS "probe: CMAKE_USE_PTHREADS_INIT=${CMAKE_USE_PTHREADS_INIT}")
foreach(result HAVE_PTHREAD_CREATE HAVE_PTHREAD_RWLOCK_INIT HAVE_SEM_TIMEDWAIT HAVE_LIBPTHREAD)
  message(STATUS "probe: ${result}=${${result}}")
endforeach()
add_executable(prog prog.c)
target_link_libraries(prog Threads::Threads)
CMAKE
    # README.md's CMake line, plus the user's own flags the toolchain file must add to.
    if cmake -S "$work/cm/src" -B "$work/cm/build" \
        -DCMAKE_TOOLCHAIN_FILE="$top_srcdir/contrib/cmake/slimpthreads-toolchain.cmake" \
        -DSLIMPTHREADS_PREFIX="$prefix" -DSLIMPTHREADS_HOST="$host" \
        -DCMAKE_C_FLAGS=-O2 -DCMAKE_EXE_LINKER_FLAGS=-static >"$work/cm/cmake.out" 2>&1 &&
        cmake --build "$work/cm/build" >>"$work/cm/cmake.out" 2>&1; then
        pass "cmake: configures and builds with -DCMAKE_C_FLAGS=-O2 -DCMAKE_EXE_LINKER_FLAGS=-static"
        for result in CMAKE_USE_PTHREADS_INIT=1 HAVE_PTHREAD_CREATE=1 HAVE_PTHREAD_RWLOCK_INIT=1 \
            HAVE_SEM_TIMEDWAIT=1 HAVE_LIBPTHREAD=1; do
            if grep -q "probe: $result\$" "$work/cm/cmake.out"; then
                pass "cmake: $result"
            else
                fail "cmake: not $result: $(grep "probe: ${result%=*}=" "$work/cm/cmake.out")"
            fi
        done
        slim_program "cmake" "$work/cm/build/prog.exe"
    else
        fail "cmake: the project does not configure or build"
        tail -n 30 "$work/cm/cmake.out"
    fi
else
    fail "cmake is not installed"
fi

# ---- meson ----
if command -v meson >/dev/null 2>&1 && command -v ninja >/dev/null 2>&1; then
    mkdir -p "$work/ms/src"
    cp "$program" "$work/ms/src/prog.c"
    cpu=${host%%-*}
    case $cpu in i?86) family=x86 ;; *) family=$cpu ;; esac
    cat >"$work/ms/cross.ini" <<CROSS
[binaries]
c = '$host-gcc'
ar = '$host-ar'
strip = '$host-strip'
[host_machine]
system = 'windows'
cpu_family = '$family'
cpu = '$cpu'
endian = 'little'
[built-in options]
c_args = ['-I$prefix/include']
c_link_args = ['-L$prefix/lib', '-static']
CROSS
    cat >"$work/ms/src/meson.build" <<'MESON'
project('probe', 'c')
threads = dependency('threads')
cc = meson.get_compiler('c')
message('probe: has_function=' + cc.has_function('pthread_create', dependencies: threads).to_string())
message('probe: has_function_with_header=' + cc.has_function('pthread_rwlock_init',
  prefix: '#include <pthread.h>', dependencies: threads).to_string())
message('probe: has_header_symbol=' + cc.has_header_symbol('pthread.h', 'pthread_create').to_string())
executable('prog', 'prog.c', dependencies: threads)
MESON
    if meson setup --cross-file "$work/ms/cross.ini" "$work/ms/build" "$work/ms/src" \
        >"$work/ms/meson.out" 2>&1 && ninja -C "$work/ms/build" >>"$work/ms/meson.out" 2>&1; then
        pass "meson: dependency('threads') configures and builds"
        for result in has_function=true has_function_with_header=true has_header_symbol=true; do
            if grep -q "probe: $result" "$work/ms/meson.out"; then
                pass "meson: $result"
            else
                fail "meson: not $result"
            fi
        done
        slim_program "meson" "$work/ms/build/prog.exe"
    else
        fail "meson: the project does not configure or build"
        tail -n 30 "$work/ms/meson.out"
    fi
else
    echo "note: meson or ninja is not installed; meson not tried"
fi

shtest_finish probes
