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

# make check builds the test programs before it runs this: none is a broken build.
ls tests/suites/*.exe >/dev/null 2>&1 || fail "no test program (tests/suites/*.exe) to inspect in $top_builddir"
binaries=$(ls tests/suites/*.exe bench/*.exe .libs/*.dll 2>/dev/null | grep -v 'winpthreads')
for binary in $binaries; do
    # Every Windows program imports KERNEL32.dll: an objdump that lists no
    # import at all could not read the file, and would pass the check below.
    imports=$($OBJDUMP -p "$binary" 2>&1 | grep -i 'DLL Name:')
    if [ -z "$imports" ]; then
        fail "$binary: objdump ($OBJDUMP) lists no imported DLL"
    elif printf '%s\n' "$imports" | grep -qi 'DLL Name: *libwinpthread'; then
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

# Control: the same checks must catch a program linked against winpthreads, or
# they prove nothing. The configured compiler builds one with its toolchain's own
# <pthread.h> and -lpthread (winpthreads, as MinGW-w64 ships it): statically for
# the symbol check, against the DLL for the import check. A toolchain without
# winpthreads is the one reason to skip (said, and counted as not run); any
# other failure to build or to recognise it fails.
printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' >"$work/control.c"

toolchain_has() { # library file name: the compiler finds it in its own directories
    found=$($CC $configured_ldflags -print-file-name="$1" 2>/dev/null)
    case $found in /*) [ -f "$found" ] ;; *) false ;; esac
}

build_control() { # name, link options...: $work/control-NAME.exe, or a failure shown
    name=$1
    shift
    if $CC "$work/control.c" -o "$work/control-$name.exe" "$@" $configured_ldflags -lpthread \
        >"$work/control.out" 2>&1; then
        return 0
    fi
    fail "control: $CC cannot build a $name winpthreads program"
    head -n 20 "$work/control.out"
    return 1
}

if ! toolchain_has libwinpthread.a; then
    skip "control ($CC): this toolchain has no libwinpthread.a to build a winpthreads program with"
elif build_control static -static; then
    if $NM "$work/control-static.exe" | awk '{print $NF}' | grep -Eqx "_?($winpthreads_only)"; then
        pass "control: a static winpthreads program is recognised by its symbols"
    else
        fail "control: the winpthreads symbol check does not recognise a static winpthreads program"
    fi
fi
if ! toolchain_has libwinpthread.dll.a; then
    skip "control ($CC): this toolchain has no libwinpthread.dll.a to link a winpthreads program with"
elif build_control dynamic; then
    if $OBJDUMP -p "$work/control-dynamic.exe" | grep -qi 'DLL Name: *libwinpthread'; then
        pass "control: a winpthreads program linked with its DLL is recognised by its import"
    else
        fail "control: the import check does not recognise a program linked with libwinpthread-1.dll"
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
