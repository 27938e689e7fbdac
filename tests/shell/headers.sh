#!/bin/sh
# Our headers compile, warning-free under -pedantic -Werror, as C99, C11 and C++
# (C++98 to C++20), together with MinGW-w64's <time.h>, <signal.h> and
# <unistd.h> in either order, and never through <windows.h>; <threads.h> as
# C11, C17 and C2x, with gcc and (when installed) clang; next to <windows.h>.
# pthread.h's parts (slimpthreads_types.h, slimpthreads_*_inline.h) refuse to be included alone.
set -u
: "${top_srcdir:?}" "${CC:?}"
. "$top_srcdir/tests/shell/shtest.sh"
src=$top_srcdir/tests/fixtures/headers_all.c

warnings="-pedantic -Wall -Wextra -Werror"
for order in 0 1; do
    for std in c99 c11; do
        check "C $std, order $order" \
            $CC -std=$std $warnings -DHEADERS_ORDER=$order -I"$top_srcdir/include" \
            -c "$src" -o "$work/c.o"
    done
    if [ -n "${CXX_FOR_HOST:-}" ]; then
        for std in c++98 c++11 c++14 c++17 c++20; do
            check "C++ $std, order $order" \
                $CXX_FOR_HOST -x c++ -std=$std $warnings -DHEADERS_ORDER=$order \
                -I"$top_srcdir/include" -c "$src" -o "$work/cxx.o"
        done
    else
        fail "no C++ compiler for the host was found by configure"
    fi
done

# <threads.h>: C11, C17 and C2x (gcc 12: -std=gnu2x), -pedantic; C++ too. With
# clang as well when it is installed (the other compiler MinGW-w64 users have).
c11_src=$top_srcdir/tests/fixtures/headers_c11.c
for order in 0 1; do
    for std in c11 c17 gnu2x; do
        check "threads.h: C $std, order $order" \
            $CC -std=$std $warnings -DHEADERS_ORDER=$order -I"$top_srcdir/include" \
            -c "$c11_src" -o "$work/c11.o"
    done
    if [ -n "${CXX_FOR_HOST:-}" ]; then
        check "threads.h: C++ c++11, order $order" \
            $CXX_FOR_HOST -x c++ -std=c++11 $warnings -DHEADERS_ORDER=$order \
            -I"$top_srcdir/include" -c "$c11_src" -o "$work/c11xx.o"
    fi
done
clang_target=$($CC -dumpmachine 2>/dev/null)
if command -v clang >/dev/null 2>&1 && [ -n "$clang_target" ]; then
    for std in c11 c17 c2x; do
        check "threads.h: clang C $std" \
            clang --target="$clang_target" -std=$std $warnings -I"$top_srcdir/include" \
            -c "$c11_src" -o "$work/c11clang.o"
    done
fi

# Next to <windows.h>, before or after ours: the inline mutex paths' two kernel32
# declarations must match its own and not repeat them (-Wredundant-decls).
win_src=$top_srcdir/tests/fixtures/headers_windows.c
for order in 0 1; do
    check "with <windows.h>, order $order: C11 -Wredundant-decls" \
        $CC -std=c11 $warnings -Wredundant-decls -DHEADERS_ORDER=$order \
        -I"$top_srcdir/include" -c "$win_src" -o "$work/win.o"
    if [ -n "${CXX_FOR_HOST:-}" ]; then
        check "with <windows.h>, order $order: C++11 -Wredundant-decls" \
            $CXX_FOR_HOST -x c++ -std=c++11 $warnings -Wredundant-decls -DHEADERS_ORDER=$order \
            -I"$top_srcdir/include" -c "$win_src" -o "$work/winxx.o"
    fi
done

# The public headers must not drag <windows.h> in.
check "no <windows.h> behind the public headers" \
    sh -c "$CC -E -DHEADERS_ORDER=0 -I'$top_srcdir/include' '$src' | grep -qi 'windows\\.h' && exit 1 || exit 0"

# pthread.h's parts (its types, its inline paths) refuse to be included alone, and say what to include.
for part in slimpthreads_types.h slimpthreads_mutex_inline.h slimpthreads_spin_inline.h \
    slimpthreads_once_cond_inline.h slimpthreads_rwlock_inline.h; do
    check "$part alone stops with #error naming <pthread.h>" \
        sh -c "printf '#include <$part>\\n' | $CC -fsyntax-only -I'$top_srcdir/include' -x c - 2>&1 |
            grep -q 'error: .*include <pthread.h> instead'"
done

# pthread_self and pthread_equal are const, as glibc declares them: a caller
# compiled with optimisation asks once for several uses, and here, where two
# answers are compared, not at all (the function must be there, the call not).
printf '#include <pthread.h>\nint twice(void) { return pthread_self() == pthread_self(); }\n' \
    >"$work/self_const.c"
check "pthread_self is const: -O2 folds pthread_self() == pthread_self(), no call left" \
    sh -c "$CC -O2 -S -o '$work/self_const.s' -I'$top_srcdir/include' '$work/self_const.c' &&
        grep -q '^_*twice:' '$work/self_const.s' && ! grep -q pthread_self '$work/self_const.s'"

shtest_finish headers
