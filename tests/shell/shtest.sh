# shtest.sh - what the shell tests share; sourced, after `set -u`, as
#   . "$top_srcdir/tests/shell/shtest.sh"
# It gives a scratch directory $work (removed on exit), the link flags configure
# was given ($configured_ldflags: a clang build needs -fuse-ld=lld and MinGW-w64's
# libgcc directory), pass/fail/check/skip that count, check_run for a Windows
# program, shtest_make_install PREFIX, and shtest_finish NAME, which prints the "slimtest-summary: NAME
# PASSED FAILED" line contrib/test-all.sh adds up and exits non-zero on any failure.
passed=0
failed=0
not_run=0
skipped=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configured_ldflags=$(sed -n 's/^LDFLAGS = //p' "${top_builddir:-.}/Makefile" 2>/dev/null)
# The import library of WaitOnAddress configure found (MinGW-w64: -lsynchronization).
synch_libs=$(sed -n "s/^SLIM_SYNCH_LIBS = //p" "${top_builddir:-.}/Makefile" 2>/dev/null)
: "${synch_libs:=-lsynchronization}"

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# A check this host cannot make (a tool it truly lacks), said with the reason:
# counted apart with the programs not run, never as passed.
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }

check() { # description, command...: passes when the command succeeds
    description=$1
    shift
    if "$@" >"$work/out" 2>&1; then
        pass "$description"
    else
        fail "$description"
        head -n 30 "$work/out"
    fi
}

# Runs a Windows program under Wine (contrib/wine-run.sh) from a directory, and
# passes when it exits 0 having printed a line with pattern (the line is shown).
# A program this host cannot execute (wine-run.sh's exit 77: a 32-bit one where
# the kernel runs 64-bit code only) was built but is not run: it is counted
# apart, neither passed nor failed.
check_run() { # description, pattern, directory, program [args...]
    description=$1
    pattern=$2
    directory=$3
    shift 3
    (cd "$directory" && sh "$top_srcdir/contrib/wine-run.sh" "$@") >"$work/run.out" 2>&1
    status=$?
    if [ "$status" -eq 77 ] && grep -q 'not run:' "$work/run.out"; then
        not_run=$((not_run + 1))
        echo "NOT RUN: $description: $(grep 'not run:' "$work/run.out" | head -n 1)"
    elif [ "$status" -eq 0 ] && grep -q "$pattern" "$work/run.out"; then
        pass "$description: $(grep "$pattern" "$work/run.out" | head -n 1 | tr -d '\r')"
    else
        fail "$description: exit status $status"
        tr -d '\r' <"$work/run.out" | head -n 30
    fi
}

# `make install prefix=PREFIX` of the build under test, counted as a check; it
# returns non-zero when the install failed. Run from a test, the inner make must
# not inherit the outer one's job server.
shtest_make_install() { # prefix
    if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -C "$top_builddir" install \
        prefix="$1" >"$work/install.out" 2>&1; then
        pass "make install prefix=$1"
    else
        fail "make install"
        tail -n 30 "$work/install.out"
        return 1
    fi
}

run_dropin_prog() { # name, exe: runs a build of tests/fixtures/dropin_prog.c under Wine
    check_run "$1: runs" 'checks passed' "$work" "$2"
}

# The summary line; programs built but not run, and checks skipped, get lines
# of their own, which contrib/test-all.sh reports.
shtest_finish() { # name
    [ "$not_run" -eq 0 ] || echo "slimtest-not-run: $1 $not_run"
    [ "$skipped" -eq 0 ] || echo "slimtest-skipped: $1 $skipped"
    echo "slimtest-summary: $1 $passed $failed"
    [ "$failed" -eq 0 ]
    exit
}
