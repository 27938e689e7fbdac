#!/bin/sh
# glibc's own C11 threads tests, built against slimpthreads' <threads.h> and
# run under Wine: tst-thrd-*, tst-mtx-*, tst-cnd-*, tst-tss-* and tst-call-once
# from sysdeps/pthread/ of Debian's glibc source package. Nothing of glibc is in
# this repository: the tests are extracted from the source package at run time
# (cached in ~/.cache/slimpthreads/glibc); what they include of glibc's test
# support (support/check.h, support/test-driver.c, driver.c) is our own small
# shim, next to this script.
#
#   make check-c11-glibc                (from a configured build tree), or
#   top_builddir=BUILD_DIR sh contrib/glibc-c11/run.sh
#
# Environment: SLIM_GLIBC_CACHE (default ~/.cache/slimpthreads/glibc),
# WINEPREFIX (default BUILD_DIR/wineprefix), CC (default: the build tree's).
# Prints PASS/FAIL per test and last "slimtest-summary: glibc-c11 P F".
set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$script_dir/../.." && pwd)}
top_builddir=$(cd "${top_builddir:-.}" && pwd)
cache=${SLIM_GLIBC_CACHE:-${HOME:-/tmp}/.cache/slimpthreads/glibc}
passed=0
failed=0
not_run=0

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() {
    [ "$not_run" -eq 0 ] || echo "slimtest-not-run: glibc-c11 $not_run"
    echo "slimtest-summary: glibc-c11 $passed $failed"
    [ "$failed" -eq 0 ]
    exit
}

host=$(sed -n 's/^host = //p' "$top_builddir/Makefile" 2>/dev/null)
cc=${CC:-$(sed -n 's/^CC = //p' "$top_builddir/Makefile" 2>/dev/null)}
library=$top_builddir/.libs/libslimpthreads.a
ldflags=$(sed -n 's/^LDFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)
synch_libs=$(sed -n "s/^SLIM_SYNCH_LIBS = //p" "$top_builddir/Makefile" 2>/dev/null)
if [ -z "$host" ] || [ ! -f "$library" ]; then
    fail "$top_builddir is not a built slimpthreads tree (no $library)"
    finish
fi
: "${WINEPREFIX:=$top_builddir/wineprefix}"
export WINEPREFIX

# ---- The tests, from Debian's glibc source package ----
mkdir -p "$cache" || exit 1
orig=$(ls "$cache"/glibc_*.orig.tar.xz 2>/dev/null | tail -n 1)
if [ -z "$orig" ]; then
    echo "== apt-get source --download-only glibc (about 20 MB, once)"
    (cd "$cache" && apt-get source --download-only glibc >download.log 2>&1) ||
        { tail -n 5 "$cache/download.log"; }
    orig=$(ls "$cache"/glibc_*.orig.tar.xz 2>/dev/null | tail -n 1)
fi
if [ -z "$orig" ]; then
    fail "no glibc source package in $cache (apt-get source needs deb-src lines)"
    finish
fi
version=$(basename "$orig" | sed 's/^glibc_\(.*\)\.orig\.tar\.xz$/\1/')
tests_dir=$cache/tests-$version
patterns="tst-thrd-*.c tst-mtx-*.c tst-cnd-*.c tst-tss-*.c tst-call-once*.c"
if [ ! -f "$tests_dir/.extracted" ]; then
    rm -rf "$tests_dir"
    mkdir -p "$tests_dir"
    wildcards=
    for pattern in $patterns; do
        wildcards="$wildcards glibc-$version/sysdeps/pthread/$pattern"
    done
    # shellcheck disable=SC2086 # one word per wildcard
    if ! tar -xJf "$orig" -C "$tests_dir" --strip-components=3 --wildcards $wildcards; then
        fail "extracting the C11 tests from $orig"
        finish
    fi
    touch "$tests_dir/.extracted"
fi

# ---- Build and run each one ----
work=$top_builddir/glibc-c11
mkdir -p "$work"
server_was_up=no
[ -f "$WINEPREFIX.server.pid" ] && kill -0 "$(cat "$WINEPREFIX.server.pid")" 2>/dev/null && server_was_up=yes
sh "$top_srcdir/contrib/wine-run.sh" --start-server
trap '[ "$server_was_up" = yes ] || sh "$top_srcdir/contrib/wine-run.sh" --stop-server' EXIT

echo "== glibc $version C11 threads tests, $host"
for source in $(cd "$tests_dir" && ls $patterns 2>/dev/null); do
    name=${source%.c}
    exe=$work/$name.exe
    # gnu11 as glibc builds them; the tests' own warnings (unused parameters) are theirs.
    # shellcheck disable=SC2086 # configure's LDFLAGS are words
    if ! $cc -std=gnu11 -O2 -I"$script_dir" -I"$top_srcdir/include" -I"$tests_dir" \
        -o "$exe" "$tests_dir/$source" "$script_dir/driver.c" "$library" $synch_libs $ldflags -static \
        >"$work/$name.build" 2>&1; then
        fail "$name: build"
        head -n 20 "$work/$name.build"
        continue
    fi
    (cd "$work" && sh "$top_srcdir/contrib/wine-run.sh" "$exe") >"$work/$name.log" 2>&1
    status=$?
    if [ "$status" -eq 77 ] && grep -q 'not run:' "$work/$name.log"; then
        # Built, but this host cannot execute its architecture (contrib/wine-run.sh).
        not_run=$((not_run + 1))
        echo "NOT RUN: $name: $(grep 'not run:' "$work/$name.log" | head -n 1)"
    elif [ "$status" -eq 0 ]; then
        pass "$name"
    else
        fail "$name (exit $status)"
        tr -d '\r' <"$work/$name.log" | tail -n 10
    fi
done
[ $((passed + failed + not_run)) -gt 0 ] || fail "no tests found in $tests_dir"
finish
