#!/bin/sh
# `make install` into a fresh prefix gives what a user links against, and the
# ways build systems ask for POSIX threads all land on slimpthreads: gcc's
# -pthread and a hard-coded -lpthread (dynamic and -static), and pkg-config.
# Each program is checked with objdump (no libwinpthread-1.dll import) and nm
# (our symbols are in, winpthreads' are not), and run under Wine. A control
# build without our -L shows that the check does see winpthreads.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${CC:?}" "${OBJDUMP:?}" "${NM:?}"
. "$top_srcdir/tests/shell/shtest.sh"
prefix=$work/prefix
program=$top_srcdir/tests/fixtures/dropin_prog.c

imports() { # binary: the DLLs it imports, one a line
    "$OBJDUMP" -p "$1" | sed -n 's/^.*DLL Name: *//p'
}

# Symbols only winpthreads defines (as tests/shell/independence.sh lists them).
winpthreads_only='pthread_delay_np|pthread_num_processors_np|_pthread_rel_time_in_ms|_pthread_time_in_ms|__pthread_clock_nanosleep|_pthread_get_state|_pthread_set_state'

defines() { # binary symbol: nonzero unless the binary defines symbol in its text
    $NM "$1" 2>/dev/null | awk '{print $NF}' | sed 's/^_//' | grep -qx "$2"
}

# Links, inspects and runs one program. $1 names the case, $2 is "dynamic" or
# "static"; the rest is the compile-and-link command line after $CC.
build_and_run() {
    name=$1 linkage=$2
    shift 2
    exe=$work/$name.exe
    if ! $CC "$@" $configured_ldflags -o "$exe" >"$work/$name.build" 2>&1; then
        fail "$name: build failed: $CC $*"
        cat "$work/$name.build"
        return
    fi
    pass "$name: builds"
    dlls=$(imports "$exe")
    if echo "$dlls" | grep -qi '^libwinpthread'; then
        fail "$name: imports libwinpthread-1.dll"
    else
        pass "$name: no libwinpthread-1.dll import"
    fi
    if [ "$linkage" = dynamic ]; then
        if echo "$dlls" | grep -qi '^libslimpthreads-[0-9]*\.dll$'; then
            pass "$name: imports our DLL"
        else
            fail "$name: does not import libslimpthreads-N.dll (imports: $(echo $dlls))"
        fi
        cp "$prefix"/bin/libslimpthreads-*.dll "$work/"
    else
        if echo "$dlls" | grep -qi 'slimpthreads'; then
            fail "$name: a -static build still imports our DLL"
        elif defines "$exe" slimpthreads_pthread_create && defines "$exe" slim_wait; then
            pass "$name: our slimpthreads_pthread_create and slim_wait are linked in"
        else
            fail "$name: pthread_create or slim_wait is missing from the binary"
        fi
        found=$($NM "$exe" 2>/dev/null | awk '{print $NF}' | sed 's/^_//' | grep -Ex "$winpthreads_only" | head -3)
        if [ -n "$found" ]; then
            fail "$name: contains winpthreads symbols: $found"
        else
            pass "$name: contains no winpthreads symbol"
        fi
    fi
    run_dropin_prog "$name" "$exe"
}

# ---- make install ----
shtest_make_install "$prefix"
for file in include/pthread.h include/sched.h include/semaphore.h include/pthread_time.h \
    include/pthread_signal.h include/pthread_unistd.h include/threads.h include/slimpthreads_abi.h \
    include/slimpthreads_types.h include/slimpthreads_mutex_inline.h include/slimpthreads_spin_inline.h \
    include/slimpthreads_once_cond_inline.h include/slimpthreads_rwlock_inline.h \
    lib/libslimpthreads.a \
    lib/libslimpthreads.dll.a lib/libpthread.a lib/libpthread.dll.a lib/pkgconfig/slimpthreads.pc; do
    if [ -f "$prefix/$file" ]; then pass "installed $file"; else fail "not installed: $file"; fi
done
if ls "$prefix"/bin/libslimpthreads-*.dll >/dev/null 2>&1; then
    pass "installed bin/$(cd "$prefix/bin" && ls libslimpthreads-*.dll)"
else
    fail "no bin/libslimpthreads-N.dll installed"
fi
# The DLL is shipped alone: it may import Windows' own DLLs only, never a
# compiler runtime DLL (libgcc_s_*.dll) or a threads library.
dll_imports=$(for dll in "$prefix"/bin/libslimpthreads-*.dll; do imports "$dll"; done | tr '\n' ' ')
if [ -z "$dll_imports" ]; then
    fail "no imports found in bin/libslimpthreads-N.dll"
elif echo "$dll_imports" | tr ' ' '\n' | grep -Eiv '^(kernel32|msvcrt|ucrtbase|api-ms-win-[a-z0-9-]+)\.dll$' |
    grep -q .; then
    fail "bin/libslimpthreads-N.dll imports non-system DLLs: $dll_imports"
else
    pass "bin/libslimpthreads-N.dll imports only Windows DLLs: $dll_imports"
fi
# libpthread.dll.a must name our DLL, or -lpthread would bind to another one.
if "$OBJDUMP" -p "$prefix/lib/libpthread.dll.a" 2>/dev/null | grep -q 'libslimpthreads-[0-9]*\.dll' ||
    strings "$prefix/lib/libpthread.dll.a" | grep -q 'libslimpthreads-[0-9]*\.dll'; then
    pass "libpthread.dll.a imports from libslimpthreads-N.dll"
else
    fail "libpthread.dll.a does not name libslimpthreads-N.dll"
fi

# ---- The ways programs ask for threads ----
include=-I$prefix/include
lib=-L$prefix/lib
build_and_run pthread-flag dynamic -pthread "$include" "$program" "$lib"
build_and_run pthread-flag-static static -static -pthread "$include" "$program" "$lib"
build_and_run lpthread dynamic -DINCLUDE_ORDER=1 "$include" "$program" "$lib" -lpthread
build_and_run lpthread-static static -static -DINCLUDE_ORDER=1 "$include" "$program" "$lib" -lpthread
# pkg-config exactly as README.md writes it: PKG_CONFIG_PATH and nothing else,
# so the installed .pc must know its prefix (make install prefix=... rewrote it).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
if cflags=$(pkg-config --cflags slimpthreads 2>"$work/pc.err") &&
    static_libs=$(pkg-config --static --libs slimpthreads 2>>"$work/pc.err") &&
    libs=$(pkg-config --libs slimpthreads 2>>"$work/pc.err"); then
    # shellcheck disable=SC2086 # pkg-config output is a list of words
    build_and_run pkg-config-static static -static $cflags "$program" $static_libs
    # shellcheck disable=SC2086
    build_and_run pkg-config dynamic $cflags "$program" $libs
    # A C11 program needs nothing more than the same flags.
    cat >"$work/c11.c" <<'EOF'
#include <stdio.h>
#include <threads.h>
static mtx_t mutex;
static int counter;
static int run(void *argument)
{
    mtx_lock(&mutex);
    counter += *(int *)argument;
    mtx_unlock(&mutex);
    return counter;
}
int main(void)
{
    thrd_t threads[4];
    int one = 1, result = 0, i;
    if (mtx_init(&mutex, mtx_plain) != thrd_success)
        return 1;
    for (i = 0; i < 4; i++)
        if (thrd_create(&threads[i], run, &one) != thrd_success)
            return 2;
    for (i = 0; i < 4; i++)
        if (thrd_join(threads[i], &result) != thrd_success || result < 1)
            return 3;
    printf("c11: counter %d\n", counter);
    return counter == 4 ? 0 : 4;
}
EOF
    # shellcheck disable=SC2086 # pkg-config output is a list of words
    if $CC -std=c11 -static $cflags "$work/c11.c" $static_libs $configured_ldflags -o "$work/c11.exe" \
        >"$work/c11.build" 2>&1; then
        pass "pkg-config: a C11 <threads.h> program builds with the same flags"
        check_run "pkg-config: the C11 <threads.h> program runs" 'c11: counter 4' "$work" "$work/c11.exe"
    else
        fail "pkg-config: the C11 <threads.h> program does not build"
        head -n 20 "$work/c11.build"
    fi
else
    fail "pkg-config slimpthreads: $(cat "$work/pc.err")"
fi
# The libtool archive names the prefix it was installed to, not configure's.
if grep -q "^libdir='$prefix/lib'\$" "$prefix/lib/libslimpthreads.la" 2>/dev/null; then
    pass "lib/libslimpthreads.la: libdir='$prefix/lib'"
else
    fail "lib/libslimpthreads.la: $(grep '^libdir=' "$prefix/lib/libslimpthreads.la" 2>&1)"
fi
# A copied prefix still works: the .pc finds its files from its own place.
cp -R "$prefix" "$work/moved"
if PKG_CONFIG_PATH="$work/moved/lib/pkgconfig" pkg-config --cflags slimpthreads | grep -q -- "-I$work/moved/"; then
    pass "slimpthreads.pc is relative to its own place (a copied prefix works)"
else
    fail "slimpthreads.pc in a copied prefix points elsewhere: $(PKG_CONFIG_PATH="$work/moved/lib/pkgconfig" pkg-config --cflags slimpthreads)"
fi

# ---- Control: without our paths, -pthread means winpthreads, and the check sees it ----
cat >"$work/control.c" <<'EOF'
#include <pthread.h>
static void *run(void *argument) { return argument; }
int main(void)
{
    pthread_t thread;
    void *result;
    return pthread_create(&thread, 0, run, 0) || pthread_join(thread, &result);
}
EOF
if $CC -pthread "$work/control.c" $configured_ldflags -o "$work/control.exe" >"$work/control.build" 2>&1; then
    if imports "$work/control.exe" | grep -qi '^libwinpthread'; then
        pass "control: without -L<prefix>/lib, -pthread links winpthreads and the check sees it"
    else
        fail "control: the winpthreads build does not show a libwinpthread-1.dll import"
    fi
else
    fail "control: could not link a program against winpthreads"
    cat "$work/control.build"
fi

shtest_finish install
