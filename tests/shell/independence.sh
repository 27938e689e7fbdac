#!/bin/sh
# What we build owes nothing to winpthreads: no library or test program imports
# libwinpthread-1.dll, none contains a symbol that only winpthreads defines, and
# every symbol the static library defines carries one of our prefixes: the
# public functions their link names (slimpthreads_*, include/slimpthreads_abi.h),
# so that no plain pthread_* name of ours can capture another library's call.
set -u
: "${top_builddir:?}" "${OBJDUMP:?}" "${NM:?}"
cd "$top_builddir" || exit 1
. "$top_srcdir/tests/shell/shtest.sh"

# $NM may carry options (libtool's "nm -B"): it is used unquoted on purpose.
# Symbols that exist only in winpthreads (its internals and its _np extras).
winpthreads_only='pthread_delay_np|pthread_num_processors_np|_pthread_rel_time_in_ms|_pthread_time_in_ms|__pthread_clock_nanosleep|_pthread_get_state|_pthread_set_state|_pthread_invoke_cancel|__xl_f|_pthread_tryjoin'

binaries=$(ls tests/suites/*.exe bench/*.exe .libs/*.dll 2>/dev/null | grep -v 'winpthreads')
[ -n "$binaries" ] || fail "no binaries found to inspect in $top_builddir"
for binary in $binaries; do
    if $OBJDUMP -p "$binary" | grep -qi 'DLL Name: *libwinpthread'; then
        fail "$binary imports libwinpthread-1.dll"
    else
        pass "$binary does not import libwinpthread-1.dll"
    fi
    symbols=$($NM "$binary" 2>/dev/null | awk '{print $NF}')
    # A binary nm cannot read would pass the check below without a look.
    if ! printf '%s\n' "$symbols" | grep -Eq '^_?(slimpthreads_(checked_)?pthread_mutex_lock|slimpthreads_(checked_)?pthread_create|slimpthreads_(checked_)?pthread_self|main)$'; then
        fail "$binary: nm ($NM) lists none of the symbols every program has"
        continue
    fi
    found=$(printf '%s\n' "$symbols" | grep -Ex "_?($winpthreads_only)" | head -3)
    if [ -n "$found" ]; then
        fail "$binary contains winpthreads symbols: $found"
    else
        pass "$binary contains no winpthreads symbol"
    fi
done

# Control: the same checks must catch a program linked against winpthreads
# (Debian's posix-model compiler links it), or they prove nothing.
posix_cc=${CC%% *}-posix
if command -v "$posix_cc" >/dev/null 2>&1; then
    control=$work/control
    mkdir -p "$control"
    printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' >"$control/control.c"
    if "$posix_cc" -static "$control/control.c" -o "$control/control.exe" -lpthread >/dev/null 2>&1 &&
        $NM "$control/control.exe" | awk '{print $NF}' | grep -Eqx "_?($winpthreads_only)"; then
        pass "control: a winpthreads program is recognised"
    else
        fail "control: the winpthreads symbol check does not recognise a winpthreads program"
    fi
fi

# The static libraries, the normal one and the checked one (its own link names).
for pair in libslimpthreads.a:slimpthreads_ libslimpthreads-checked.a:slimpthreads_checked_; do
library=.libs/${pair%%:*}
link_prefix=${pair#*:}
if [ -f "$library" ]; then
    # i686 symbols carry one more leading underscore than x86_64 ones.
    # Names that start with a dot are the compiler's own (.refptr.X: a pointer to
    # data X in another module, e.g. __stack_chk_guard with -fstack-protector).
    defined=$($NM -g --defined-only "$library" 2>/dev/null | awk 'NF == 3 && $3 !~ /^\./ {print $3}')
    stray=$(printf '%s\n' "$defined" | grep -Ev "^_?($link_prefix|slim_|__slim_)" | head -5)
    if ! printf '%s\n' "$defined" | grep -Eq "^_?${link_prefix}pthread_mutex_lock\$"; then
        fail "nm ($NM) lists no ${link_prefix}pthread_mutex_lock in $library"
    elif [ -n "$stray" ]; then
        fail "$library defines symbols without our prefixes: $stray"
    else
        pass "every symbol of $library is prefixed $link_prefix or slim_"
    fi
else
    fail "no $library to inspect"
fi
done

shtest_finish independence
