#!/bin/sh
# What we build owes nothing to winpthreads: no library or test program imports
# libwinpthread-1.dll, none contains a symbol that only winpthreads defines, and
# every symbol the static library defines is public API or carries our prefix.
set -u
: "${top_builddir:?}" "${OBJDUMP:?}" "${NM:?}"
passed=0
failed=0
cd "$top_builddir" || exit 1

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# Symbols that exist only in winpthreads (its internals and its _np extras).
winpthreads_only='pthread_delay_np|pthread_num_processors_np|_pthread_rel_time_in_ms|_pthread_time_in_ms|__pthread_clock_nanosleep|_pthread_get_state|_pthread_set_state|_pthread_invoke_cancel|__xl_f|_pthread_tryjoin'

binaries=$(ls tests/*.exe bench/*.exe .libs/*.dll 2>/dev/null | grep -v 'winpthreads')
[ -n "$binaries" ] || fail "no binaries found to inspect in $top_builddir"
for binary in $binaries; do
    if "$OBJDUMP" -p "$binary" | grep -qi 'DLL Name: *libwinpthread'; then
        fail "$binary imports libwinpthread-1.dll"
    else
        pass "$binary does not import libwinpthread-1.dll"
    fi
    found=$("$NM" "$binary" 2>/dev/null | awk '{print $NF}' | sed 's/^_//' | grep -Ex "$winpthreads_only" | head -3)
    if [ -n "$found" ]; then
        fail "$binary contains winpthreads symbols: $found"
    else
        pass "$binary contains no winpthreads symbol"
    fi
done

library=.libs/libslimpthreads.a
if [ -f "$library" ]; then
    stray=$("$NM" -g --defined-only "$library" 2>/dev/null | awk 'NF == 3 {print $3}' | sed 's/^_//' |
        grep -Ev '^(pthread_|sem_|sched_|clock_|nanosleep$|sig|slim_|__slim_)' | head -5)
    if [ -n "$stray" ]; then
        fail "the static library defines symbols outside our namespace: $stray"
    else
        pass "every symbol of the static library is public API or prefixed slim_"
    fi
else
    fail "no $library to inspect"
fi

echo "slimtest-summary: independence $passed $failed"
[ "$failed" -eq 0 ]
