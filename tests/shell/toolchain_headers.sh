#!/bin/sh
# Our headers and MinGW-w64's declare some functions twice (sleep and usleep in
# <unistd.h>, kernel32's lock calls in <windows.h>; <time.h> and <signal.h>
# include ours): the declarations must agree to the attribute, or a compiler
# refuses the second (clang++ takes __MINGW_NOTHROW for an exception
# specification). Each of our headers is compiled next to each of MinGW-w64's
# that declare or include what ours do, in both orders, as C and C++, -Werror
# -pedantic, with the host's gcc, with clang (--target=CPU-w64-windows-gnu)
# and with zig's cc (its own MinGW-w64 headers) when they are installed. winpthreads' own headers are not
# paired: ours replace them, and mixing the two stops with an #error
# (tests/shell/headers.sh).
set -u
: "${top_builddir:?}" "${top_srcdir:?}"
. "$top_srcdir/tests/shell/shtest.sh"
. "$top_srcdir/contrib/zig-path.sh"

host=$(sed -n 's/^host = //p' "$top_builddir/Makefile")
cpu=${host%%-*}
case $cpu in i?86) zig_cpu=x86 ;; *) zig_cpu=$cpu ;; esac

ours='pthread.h sched.h semaphore.h threads.h pthread_time.h pthread_signal.h pthread_unistd.h'
theirs='time.h signal.h unistd.h windows.h process.h'
warnings='-Wall -Wextra -Werror -pedantic'

# All of ours, then all of theirs (and the other way round), in one file: every
# pair of one of ours and one of theirs meets in that order, at the cost of
# one compile (a compile per pair took minutes of make check).
both_orders() { # writes ours-first.c and theirs-first.c
    for header in $ours $theirs; do printf '#include <%s>\n' "$header"; done >"$work/ours-first.c"
    for header in $theirs $ours; do printf '#include <%s>\n' "$header"; done >"$work/theirs-first.c"
    echo 'int slim_headers_compiled;' | tee -a "$work/ours-first.c" >>"$work/theirs-first.c"
}

check_pairs() { # compiler name, C compiler command, C++ compiler command
    name=$1 cc=$2 cxx=$3
    for order in ours-first theirs-first; do
        # zig's cc has no -fsyntax-only that works on Windows targets: compile.
        # shellcheck disable=SC2086
        check "$name, C11, $order" $cc -std=c11 $warnings -I"$top_srcdir/include" \
            -c "$work/$order.c" -o "$work/$order.o"
        # shellcheck disable=SC2086
        check "$name, C++17, $order" $cxx -x c++ -std=c++17 $warnings -I"$top_srcdir/include" \
            -c "$work/$order.c" -o "$work/$order.o"
    done
}

both_orders
if command -v "$host-gcc" >/dev/null 2>&1 && command -v "$host-g++" >/dev/null 2>&1; then
    check_pairs "$host-gcc" "$host-gcc" "$host-g++"
else
    fail "no $host-gcc and $host-g++"
fi
if command -v clang >/dev/null 2>&1 && command -v clang++ >/dev/null 2>&1; then
    target=--target=$cpu-w64-windows-gnu
    check_pairs "clang $target" "clang $target" "clang++ $target"
else
    echo "SKIP: clang is not installed"
fi
if [ -x "$SLIM_ZIG" ]; then
    target="-target $zig_cpu-windows-gnu"
    check_pairs "zig cc $target" "$SLIM_ZIG cc $target" "$SLIM_ZIG c++ $target"
else
    echo "SKIP: zig is not installed ($SLIM_ZIG)"
fi

shtest_finish toolchain_headers
