# shtest.sh - what the shell tests share; sourced, after `set -u`, as
#   . "$top_srcdir/tests/shtest.sh"
# It gives a scratch directory $work (removed on exit), the link flags configure
# was given ($configured_ldflags: a clang build needs -fuse-ld=lld and MinGW-w64's
# libgcc directory), pass/fail/check that count, and shtest_finish NAME, which
# prints the "slimtest-summary: NAME PASSED FAILED" line contrib/test-all.sh adds
# up and exits non-zero on any failure.
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configured_ldflags=$(sed -n 's/^LDFLAGS = //p' "${top_builddir:-.}/Makefile" 2>/dev/null)

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

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

run_dropin_prog() { # name, exe: runs a build of tests/dropin_prog.c under Wine
    if (cd "$work" && sh "$top_srcdir/contrib/wine-run.sh" "$2") >"$work/$1.run" 2>&1 &&
        grep -q 'checks passed' "$work/$1.run"; then
        pass "$1: runs: $(grep 'checks passed' "$work/$1.run" | tr -d '\r')"
    else
        fail "$1: run failed"
        cat "$work/$1.run"
    fi
}

shtest_finish() { # name
    echo "slimtest-summary: $1 $passed $failed"
    [ "$failed" -eq 0 ]
    exit
}
