#!/bin/sh
# The checked build (README.md, Checked build) links by names of its own: an
# object compiled for one build and the library of the other do not link, with
# a message that names the missing checked or plain function; each with its own
# library links, and the pkg-config module's flags say -DSLIMPTHREADS_CHECKED.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${CC:?}"
. "$top_srcdir/tests/shell/shtest.sh"
plain=$top_builddir/.libs/libslimpthreads.a
checked=$top_builddir/.libs/libslimpthreads-checked.a

cat >"$work/prog.c" <<'PROG'
#include <pthread.h>
int main(void)
{
    static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

    return pthread_mutex_lock(&mutex) == 0 && pthread_mutex_unlock(&mutex) == 0 ? 0 : 1;
}
PROG
links() { # cppflags library: succeeds when the program links
    $CC -O2 -I"$top_srcdir/include" $1 "$work/prog.c" -static "$2" $synch_libs \
        $configured_ldflags -o "$work/prog.exe" >"$work/link.out" 2>&1
}

check "plain object, plain library: links" links "" "$plain"
check "checked object, checked library: links" links -DSLIMPTHREADS_CHECKED "$checked"
if links -DSLIMPTHREADS_CHECKED "$plain"; then
    fail "a checked object linked with the plain library"
elif grep -q 'undefined reference to `_\{0,1\}slimpthreads_checked_pthread_mutex_lock' "$work/link.out"; then
    pass "a checked object with the plain library: undefined slimpthreads_checked_pthread_mutex_lock"
else
    fail "a checked object with the plain library: $(head -n 3 "$work/link.out")"
fi
if links "" "$checked"; then
    fail "a plain object linked with the checked library"
elif grep -q 'undefined reference to `_\{0,1\}slimpthreads_' "$work/link.out"; then
    pass "a plain object with the checked library: undefined slimpthreads_* names"
else
    fail "a plain object with the checked library: $(head -n 3 "$work/link.out")"
fi
if grep -q '^Cflags:.*-DSLIMPTHREADS_CHECKED' "$top_builddir/slimpthreads-checked.pc" &&
    grep -q '^Libs:.*-lslimpthreads-checked' "$top_builddir/slimpthreads-checked.pc"; then
    pass "slimpthreads-checked.pc: -DSLIMPTHREADS_CHECKED, -lslimpthreads-checked"
else
    fail "slimpthreads-checked.pc: $(grep -E '^(Cflags|Libs):' "$top_builddir/slimpthreads-checked.pc")"
fi
shtest_finish checked_link
