#!/bin/sh
# git for Windows, built twice from one source tree: once with git's own
# compat/win32/pthread.[ch], once with the slimpthreads drop-in in their place
# (contrib/amalgamate.sh) and one config.mak line (EXTLIBS += -lsynchronization).
# Both with the same flags, DEVELOPER=1 included, by the win32-model MinGW-w64
# compiler; then a threaded workload under Wine on a generated repository,
# every step's output compared byte for byte between the two builds, and every
# step's wall time compared. git's own build runs a second time in every round
# ("own again"): the same program twice gives the run-to-run noise of each
# step, and a step counts as slower or faster with the drop-in only when the
# difference lies beyond that noise (the table's last columns).
#
#   sh contrib/git/try-git.sh [GIT_SOURCE_TREE]      (or: make check-git)
#
# Without a tree it uses Debian's `git` source package (apt-get source, once).
# Environment: SLIM_GIT_CACHE (default ~/.cache/slimpthreads/git: sources, zlib,
# builds, the repository; nothing of git lands in our tree), SLIM_GIT_REPS
# (repetitions of the workload, default 5; status runs 8 times in each and grep
# 3), SLIM_GIT_SIZE (files in the repository, default 4000; commits are 3/4 of
# it), JOBS (default 2), WINEPREFIX (default: a prefix in the cache),
# SLIM_GIT_COUNT=1 (also build a counting git.exe and print the calls each step
# makes into the drop-in, see count-calls.c, and time those calls in git's
# shapes against git's own layer, see git-calls.c), SLIM_GIT_CHECKED=1 (make
# check-git-checked: in place of the two builds and the timed workload, install
# the build tree top_builddir (default .), build git.exe with the checked
# library and run every step once; passes when git succeeds with no report).
# Prints PASS/FAIL lines, a timing table, and last "slimtest-summary: git P F".
# Timings are reported, never asserted: the machine is shared.
set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
top_srcdir=$(cd "$script_dir/../.." && pwd)
cache=${SLIM_GIT_CACHE:-${HOME:-/tmp}/.cache/slimpthreads/git}
reps=${SLIM_GIT_REPS:-5}
files=${SLIM_GIT_SIZE:-4000}
commits=$((files * 3 / 4))
jobs=${JOBS:-2}
host=x86_64-w64-mingw32
# The win32 thread model: its libgcc and libstdc++ use no winpthreads, so that
# the only pthreads in git.exe are the ones under test (see README.md).
cc=$host-gcc-win32
command -v "$cc" >/dev/null 2>&1 || cc=$host-gcc
passed=0
failed=0
started=$(date +%s)

pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
say() { printf '== %s\n' "$*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
finish() {
    say "done in $(($(date +%s) - started)) s"
    echo "slimtest-summary: git $passed $failed"
    [ "$failed" -eq 0 ]
    exit
}

missing=
for tool in wineserver git awk cmp md5sum make dpkg-source "$cc" "$host-ar" "$host-windres"; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    fail "missing tools:$missing (contrib/setup-deps.sh installs them)"
    finish
fi
mkdir -p "$cache/src" "$cache/build" || exit 1
: "${WINEPREFIX:=$cache/wineprefix}"
export WINEPREFIX
server_was_up=no
[ -f "$WINEPREFIX.server.pid" ] && kill -0 "$(cat "$WINEPREFIX.server.pid")" 2>/dev/null && server_was_up=yes
stop_server() {
    [ "$server_was_up" = yes ] || sh "$top_srcdir/contrib/wine-run.sh" --stop-server
}
trap stop_server EXIT

# ---- Sources: Debian's git (unless a tree is given) and zlib ----
fetch() { # source package, directory
    [ -d "$cache/src/$2" ] && return 0
    say "apt-get source $1"
    (cd "$cache/src" && apt-get source --download-only "$1" >"$2.fetch.log" 2>&1 &&
        dsc=$(ls -t "$1"_*.dsc | head -n 1) &&
        dpkg-source -x "$dsc" "$2.tmp" >>"$2.fetch.log" 2>&1 && mv "$2.tmp" "$2")
}
if [ $# -ge 1 ]; then
    git_src=$(cd "$1" && pwd) || { fail "no git tree at $1"; finish; }
else
    fetch git git || { tail -n 5 "$cache/src/git.fetch.log"; fail "apt-get source git"; finish; }
    git_src=$cache/src/git
fi
if [ ! -f "$git_src/compat/win32/pthread.c" ] || [ ! -f "$git_src/git.c" ]; then
    fail "$git_src is not a git source tree with compat/win32/pthread.c"
    finish
fi
git_version=$(sed -n 's/^DEF_VER=v*//p' "$git_src/GIT-VERSION-GEN")
pass "git $git_version source in $git_src"

# zlib for MinGW-w64, from Debian's source, and the two Windows SDK headers
# git names in mixed case (Debian's MinGW-w64 ships them in lower case).
deps=$cache/zlib
if [ ! -f "$deps/libz.a" ]; then
    fetch zlib zlib || { tail -n 5 "$cache/src/zlib.fetch.log"; fail "apt-get source zlib"; finish; }
    say "building zlib for $host"
    rm -rf "$deps" && mkdir -p "$deps/obj" || exit 1
    for unit in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast \
        inflate inftrees trees uncompr zutil; do
        "$cc" -O2 -c "$cache/src/zlib/$unit.c" -o "$deps/obj/$unit.o" || { fail "zlib: $unit.c"; finish; }
    done
    cp "$cache/src/zlib/zlib.h" "$cache/src/zlib/zconf.h" "$deps/" &&
        "$host-ar" rcs "$deps/libz.a.tmp" "$deps"/obj/*.o && mv "$deps/libz.a.tmp" "$deps/libz.a" || exit 1
fi
for header in NTSecAPI.h Psapi.h tlHelp32.h; do
    lower=$(echo "$header" | tr A-Z a-z)
    # Written once: the file is a dependency of what includes it.
    [ -f "$deps/$header" ] || printf '/* MinGW-w64 ships <%s>; a case-sensitive file system needs this name too. */\n#include <%s>\n' \
        "$lower" "$lower" >"$deps/$header"
done

# ---- The two builds ----
# uname_* say "MinGW" to git's config.mak.uname (uname_R=1.0: the plain MinGW
# branch, not MSYS2's, which would pick CC=gcc and libraries we do not have).
make_git() { # build directory, make arguments...
    dir=$1
    shift
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$dir" -j"$jobs" \
        uname_S=MINGW uname_O=MINGW uname_R=1.0 uname_M=x86_64 "$@"
}
# git's detect-compiler cannot read "12-win32" as a version and would drop the
# DEVELOPER flags that depend on it (-std=gnu99, -Wextra, -Wpedantic): say it.
gcc_major=$("$cc" -dumpversion | sed 's/[^0-9].*//')
compiler_features=$(v=$gcc_major; while [ "$v" -gt 0 ]; do printf 'gcc%s ' "$v"; v=$((v - 1)); done)
write_config() { # build directory
    cat >"$1/config.mak" <<EOF
CC = $cc
AR = $host-ar
RC = $host-windres -O coff
CFLAGS = -O2 -I$deps
LDFLAGS = -L$deps
DEVELOPER = 1
COMPILER_FEATURES = $compiler_features
NO_CURL = 1
NO_EXPAT = 1
NO_GETTEXT = 1
NO_ICONV = 1
NO_OPENSSL = 1
NO_PERL = 1
NO_PYTHON = 1
NO_TCLTK = 1
EOF
}
recipe=1
source_stamp="recipe $recipe, $cc, git $git_version in $git_src"
built() { [ -f "$1/.slim-built" ] && [ "$(cat "$1/.slim-built")" = "$2" ] && [ -f "$1/git.exe" ]; }
timed_build() { # name, directory, stamp, make log
    begin=$(date +%s)
    if make_git "$2" git.exe >"$4" 2>&1; then
        echo "$3" >"$2/.slim-built"
        pass "$1: git.exe builds with DEVELOPER=1 in $(($(date +%s) - begin)) s"
    else
        grep -B2 -A8 'error' "$4" | head -n 40
        fail "$1: build failed (log: $4)"
        finish
    fi
}
# amalgamate DIRECTORY FILES: writes the drop-in into DIRECTORY and prints the
# checksum of its FILES (a pattern) without the banner line naming our
# revision: a new commit that changes no code keeps a cached build. Called in
# $(...): it fails, the caller finishes.
amalgamate() {
    rm -rf "$1"
    sh "$top_srcdir/contrib/amalgamate.sh" "$top_srcdir" "$1" >/dev/null 2>&1 || return 1
    # shellcheck disable=SC2086 # the pattern is expanded here
    cat "$1"/$2 | grep -v '^ \* [a-z.]* - slimpthreads ' | cksum
}
build_native_and_dropin() {
    native=$cache/build/native slim=$cache/build/slimpthreads
    drop=$cache/build/dropin
    drop_sum=$(amalgamate "$drop" '*.[ch]') || { fail "contrib/amalgamate.sh"; finish; }
    drop_stamp="$source_stamp, drop-in $drop_sum"

    if built "$native" "$source_stamp"; then
        pass "git's own layer: cached build in $native"
    else
        say "building git.exe with git's own compat/win32/pthread.[ch] in $native"
        rm -rf "$native" "$slim"
        cp -a "$git_src" "$native" && write_config "$native" || exit 1
        timed_build "git's own layer" "$native" "$source_stamp" "$native.log"
    fi
    if built "$slim" "$drop_stamp"; then
        pass "slimpthreads drop-in: cached build in $slim"
    else
        # The drop-in build starts from a copy of the first, objects included: git's
        # header dependencies (.depend) make it recompile every file that sees
        # pthread.h, with the same flags, and reuse the rest.
        say "building git.exe with the slimpthreads drop-in in $slim"
        rm -rf "$slim"
        cp -a "$native" "$slim" && rm -f "$slim/.slim-built" "$slim/git.exe" || exit 1
        cp "$drop"/*.[ch] "$slim/compat/win32/" || exit 1
        echo 'EXTLIBS += -lsynchronization' >>"$slim/config.mak"
        timed_build "slimpthreads drop-in" "$slim" "$drop_stamp" "$slim.log"
    fi
    # The change to git, as a reader would apply it: the drop-in's files and one
    # line of config.mak. Build products are left out of the comparison.
    changed=$(cd "$cache/build" && diff -rq native slimpthreads 2>/dev/null |
        sed -n -e 's|^Files native/\([^ ]*\) and .*|\1|p' -e 's|^Only in slimpthreads/*\([^:]*\): \(.*\)|\1/\2|p' \
            -e 's|^Only in native/*\([^:]*\): \(.*\)|removed \1/\2|p' |
        sed 's|^/||' | grep -Ev '\.(o|o\.d|a|exe|res|log)$|^GIT-|^\.slim-built$|-list\.h$' | sort | tr '\n' ' ')
    expected="compat/win32/pthread.c compat/win32/pthread.h compat/win32/sched.h compat/win32/semaphore.h compat/win32/threads.h config.mak "
    if [ "$changed" = "$expected" ]; then
        pass "the drop-in changes git in compat/win32 (pthread.[ch] replaced, sched.h, semaphore.h and threads.h added) and one config.mak line"
    else
        fail "the drop-in build differs from git's own in: $changed (expected: $expected)"
    fi
    if cmp -s "$native/GIT-CFLAGS" "$slim/GIT-CFLAGS" &&
        grep -q -- '-Werror .*-pedantic .*-std=gnu99 .*-Wextra' "$slim/GIT-CFLAGS"; then
        pass "both builds compiled with the same flags, DEVELOPER's -Werror -pedantic -std=gnu99 -Wextra among them"
    else
        fail "the builds' flags differ, or lack DEVELOPER's (see GIT-CFLAGS in $native and $slim)"
    fi
    for variant in native slimpthreads; do
        dlls=$("$host-objdump" -p "$cache/build/$variant/git.exe" | sed -n 's/^.*DLL Name: *//p' | tr '\n' ' ')
        case "$dlls" in
        *winpthread* | *slimpthreads*) fail "git.exe ($variant) imports a pthreads DLL: $dlls" ;;
        esac
    done
}

# ---- The checked build (SLIM_GIT_CHECKED=1) ----
# git linked with the installed libslimpthreads-checked (its DLL beside
# git.exe), every file compiled with -DSLIMPTHREADS_CHECKED. The headers are
# the drop-in's, not the installed ones: with the installed directory on the
# include path MinGW-w64's <signal.h> pulls in our pthread_signal.h before
# git's compat/mingw.h, whose static sigaddset and sigprocmask and SIG_UNBLOCK
# 0 then clash with ours; the drop-in's pthread.h is not on the path under that
# name (README.md, Vendoring). It is made of the same public headers, so the
# objects have the same layouts; SLIMPTHREADS_LINK_PREFIX gives the calls the
# checked library's link names in place of the drop-in's own. git's pthread.c,
# which its Makefile compiles on Windows, becomes an include of that header.
# -g lets addr2line name the call sites of a report.
checked_prefix=$cache/prefix
build_checked() {
    checked_build=$cache/build/checked
    say "make install into $checked_prefix"
    rm -rf "$checked_prefix"
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "${top_builddir:-.}" install prefix="$checked_prefix" \
        >"$cache/install.log" 2>&1 || { tail -n 20 "$cache/install.log"; fail "make install"; finish; }
    checked_dll=$(ls "$checked_prefix"/bin/libslimpthreads-checked-*.dll 2>/dev/null | head -n 1)
    [ -n "$checked_dll" ] || { fail "the install has no libslimpthreads-checked DLL"; finish; }
    headers=$checked_build.headers
    # A change to the headers rebuilds git; one to the library needs only its DLL.
    headers_sum=$(amalgamate "$headers" '*.h') || { fail "contrib/amalgamate.sh"; finish; }
    checked_stamp="$source_stamp, checked, headers $headers_sum"
    if built "$checked_build" "$checked_stamp"; then
        pass "checked build: cached in $checked_build"
    else
        say "building git.exe with the checked library in $checked_build"
        rm -rf "$checked_build"
        cp -a "$git_src" "$checked_build" && write_config "$checked_build" &&
            cp "$headers"/*.h "$checked_build/compat/win32/" &&
            printf '%s\n' '/* The checked build: the threads are libslimpthreads-checked. */' \
                '#include "pthread.h"' >"$checked_build/compat/win32/pthread.c" &&
            printf 'CFLAGS += -g %s\nEXTLIBS += -L%s -lslimpthreads-checked\n' \
                '-DSLIMPTHREADS_CHECKED -DSLIMPTHREADS_LINK_PREFIX=slimpthreads_checked_' \
                "$checked_prefix/lib" >>"$checked_build/config.mak" || exit 1
        timed_build "checked build" "$checked_build" "$checked_stamp" "$checked_build.log"
    fi
    cp "$checked_dll" "$checked_build/" || exit 1
    dlls=$("$host-objdump" -p "$checked_build/git.exe" | sed -n 's/^.*DLL Name: *//p' | tr '\n' ' ')
    case "$dlls" in
    *winpthread* | *libslimpthreads-[0-9]*) fail "git.exe (checked) imports another pthreads DLL: $dlls" ;;
    *libslimpthreads-checked-*) pass "git.exe (checked) imports $dlls" ;;
    *) fail "git.exe (checked) does not import the checked DLL: $dlls" ;;
    esac
}
if [ "${SLIM_GIT_CHECKED:-0}" = 1 ]; then
    build_checked
else
    build_native_and_dropin
fi

# ---- The repository, made once by the Linux git ----
# fast-import of a generated history: $files text files in 50 directories, a
# first commit adding them all, then $commits commits that each append a line
# to three files. Packed single-threaded so that the pack's bytes (and
# index-pack's statistics about it) are the same on every machine.
repo=$cache/repo-$files
if [ ! -f "$repo/.slim-made" ]; then
    say "generating $repo ($files files, $commits commits)"
    rm -rf "$repo" && git init -q -b master "$repo" || exit 1
    awk -v files="$files" -v commits="$commits" 'BEGIN {
        seed = 20261201
        for (i = 0; i < 2048; i++) {
            seed = (seed * 48271) % 2147483647; len = 3 + seed % 8; word = ""
            for (j = 0; j < len; j++) { seed = (seed * 48271) % 2147483647; word = word sprintf("%c", 97 + seed % 26) }
            vocabulary[i] = word
        }
        for (f = 0; f < files; f++) {
            path[f] = sprintf("dir%02d/file%05d.txt", f % 50, f); text = ""
            seed = (seed * 48271) % 2147483647; lines = 20 + seed % 60
            for (l = 0; l < lines; l++) text = text line() "\n"
            content[f] = text
        }
        printf "commit refs/heads/master\ncommitter A U Thor <author@example.com> 1700000000 +0000\n"
        printf "data <<EOT\nthe first %d files\nEOT\n", files
        for (f = 0; f < files; f++) blob(f)
        for (c = 1; c <= commits; c++) {
            printf "commit refs/heads/master\ncommitter A U Thor <author@example.com> %d +0000\n", 1700000000 + 60 * c
            printf "data <<EOT\nchange %d: %s %s\nEOT\n", c, vocabulary[c % 2048], vocabulary[(7 * c) % 2048]
            for (k = 0; k < 3; k++) {
                seed = (seed * 48271) % 2147483647; f = seed % files
                content[f] = content[f] line() "\n"; blob(f)
            }
        }
    }
    function line(   n, w, s) {
        seed = (seed * 48271) % 2147483647; n = 4 + seed % 10; s = ""
        for (w = 0; w < n; w++) {
            seed = (seed * 48271) % 2147483647; s = s (w ? " " : "") vocabulary[int((seed % 4096) * (seed % 4096) / 8192) % 2048]
        }
        return s
    }
    function blob(f) { printf "M 100644 inline %s\ndata %d\n%s\n", path[f], length(content[f]), content[f] }' |
        git -C "$repo" fast-import --quiet || { fail "git fast-import"; finish; }
    git -C "$repo" repack -a -d -f -q --threads=1 && git -C "$repo" prune-packed &&
        rm -f "$repo/.git/index" && touch "$repo/.slim-made" || { fail "repository"; finish; }
fi
pack=$(ls "$repo"/.git/objects/pack/*.pack | head -n 1)
pass "repository: $(git -C "$repo" rev-list --count HEAD) commits, $(git -C "$repo" ls-tree -r HEAD | wc -l) files, pack $(($(wc -c <"$pack") / 1024)) KiB"

# ---- The workload ----
# Each run of each build gets a fresh copy of the repository without a work
# tree; the steps run in this order on it. A step's "output" is what git wrote
# to stdout and stderr, plus for checkout the checksums of every file it wrote
# and for repack the list of objects in the new pack.
steps="checkout status grep log index-pack repack fsck"
work=$cache/work
# The variants timed: the two builds, and git's own build once more.
variants="native slimpthreads native-again"
build_of() { # variant
    case $1 in native-again) echo native ;; *) echo "$1" ;; esac
}
# SUPPRESS_HANDLE_INHERITANCE_WARNING: git's mingw.c restricts the handles a
# child inherits and, when Wine's CreateProcess refuses that list (error 1359,
# now and then, with either threads layer), retries without it and prints a
# warning into the output this script compares. The warning says to set this.
wine_git() { # variant, args...
    git_build=$cache/build/$(build_of "$1")
    shift
    GIT_EXEC_PATH="Z:$git_build" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="Z:$work/gitconfig" \
        SUPPRESS_HANDLE_INHERITANCE_WARNING=1 \
        HOME="$work" sh "$top_srcdir/contrib/wine-run.sh" "$git_build/git.exe" "$@"
}
run_step() { # variant, step: runs in the variant's repository, writes $work/out/$variant-$step
    out=$work/out/$1-$2
    case $2 in
    checkout) wine_git "$1" -c checkout.workers=4 -c checkout.thresholdForParallelism=1 checkout -f master ;;
    status) wine_git "$1" -c core.preloadIndex=true status --porcelain ;;
    grep) wine_git "$1" grep --threads=4 -n -e 'qu[aeiou]' --and --not -e ' zz' ;;
    log) wine_git "$1" log --stat --format='%H %ct %s' ;;
    index-pack) wine_git "$1" index-pack --threads=4 --verify-stat ../check.pack ;;
    repack) wine_git "$1" repack -a -d -f -q --threads=4 ;;
    fsck) wine_git "$1" fsck --full --strict --no-dangling ;;
    esac >"$out" 2>&1
    echo "exit status $?" >>"$out"
}
# What each step leaves behind that its output alone does not show.
after_step() { # variant, step
    out=$work/out/$1-$2
    case $2 in
    checkout) find . -path ./.git -prune -o -type f -print | LC_ALL=C sort | xargs md5sum >>"$out" ;;
    repack) git cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype) %(objectsize)' >>"$out" 2>&1 ;;
    esac
}
# Between checkout and status: a tenth of the files change on disk, so that
# status has contents to compare, not only stat data.
before_step() { # step
    case $1 in
    status) git ls-files | awk 'NR % 10 == 0' | while read -r f; do echo "edited" >>"$f"; done ;;
    esac
}

mkdir -p "$work/out" || exit 1
printf '[safe]\n\tdirectory = *\n[core]\n\tautocrlf = false\n[gc]\n\tauto = 0\n[user]\n\tname = A U Thor\n\temail = author@example.com\n' \
    >"$work/gitconfig"
sh "$top_srcdir/contrib/wine-run.sh" --start-server

# ---- The checked build: every step once, no report allowed ----
. "$top_srcdir/contrib/checked-verdict.sh"
run_checked_steps() {
    say "running every step once with the checked build"
    checked_started=$(date +%s)
    rm -rf "$work/repo-checked" "$work/check.pack" "$work/check.idx"
    cp -a "$repo" "$work/repo-checked" && cp "$pack" "$work/check.pack" &&
        cp "${pack%.pack}.idx" "$work/check.idx" || exit 1
    for step in $steps; do
        out=$work/out/checked-$step report=$work/out/checked-$step.report
        rm -f "$report"
        (cd "$work/repo-checked" && before_step "$step" && SLIMPTHREADS_CHECK_FILE="Z:$report" &&
            export SLIMPTHREADS_CHECK_FILE && run_step checked "$step")
        checked_verdict "$report" "$out"
        if [ -n "$checked_problem" ]; then
            fail "checked: $step: $checked_problem"
        elif ! grep -q '^exit status 0$' "$out"; then
            fail "checked: $step: $(head -c 300 "$out")"
        else
            pass "checked: $step succeeds ($(wc -c <"$out") bytes of output), no report"
        fi
    done
    say "the checked steps took $(($(date +%s) - checked_started)) s"
}
if [ "${SLIM_GIT_CHECKED:-0}" = 1 ]; then
    run_checked_steps
    finish
fi
for variant in native slimpthreads; do # once untimed: no timed run pays a cold start
    (cd "$work" && wine_git "$variant" version) >/dev/null 2>&1
done
rm -f "$work/times" "$work/failures"
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
# The three variants take turns step by step, each in its own copy of the
# repository, so that the runs compared in one round lie seconds apart, not a
# whole workload: the machine's load changes less between them. Which variant
# goes first changes from one round to the next. A short step runs several
# times in a repetition (each run a round of its own): one round of a 0.2 s
# step says little, and checkout and repack change the repository they run on.
repeats_of() { # step
    case $1 in
    status) echo 8 ;;
    grep) echo 3 ;;
    *) echo 1 ;;
    esac
}
order_of() { # round number
    case $(($1 % 3)) in
    1) echo "native slimpthreads native-again" ;;
    2) echo "slimpthreads native-again native" ;;
    *) echo "native-again native slimpthreads" ;;
    esac
}
say "running the workload $reps times per build under Wine, the builds taking turns at every step"
rep=1
turn=1
while [ "$rep" -le "$reps" ]; do
    for variant in $variants; do
        rm -rf "$work/repo-$variant"
        cp -a "$repo" "$work/repo-$variant" || exit 1
    done
    rm -f "$work/check.pack" "$work/check.idx"
    cp "$pack" "$work/check.pack" && cp "${pack%.pack}.idx" "$work/check.idx" || exit 1
    for step in $steps; do
        for variant in $variants; do
            (cd "$work/repo-$variant" && before_step "$step")
        done
        repeat=1
        while [ "$repeat" -le "$(repeats_of "$step")" ]; do
            round=$rep.$repeat
            for variant in $(order_of "$turn"); do
                begin=$(now_ms)
                (cd "$work/repo-$variant" && run_step "$variant" "$step")
                echo "$round $variant $step $(($(now_ms) - begin))" >>"$work/times"
                (cd "$work/repo-$variant" && after_step "$variant" "$step")
                mv "$work/out/$variant-$step" "$work/out/$variant-$step.$round"
            done
            turn=$((turn + 1))
            repeat=$((repeat + 1))
        done
    done
    rep=$((rep + 1))
done

# Parallel checkout did run: one untimed checkout traced (GIT_TRACE) shows the
# worker processes it started.
rm -rf "$work/repo" "$work/trace"
cp -a "$repo" "$work/repo" || exit 1
(cd "$work/repo" && GIT_TRACE="Z:$work/trace" wine_git slimpthreads -c checkout.workers=4 \
    -c checkout.thresholdForParallelism=1 checkout -f master) >/dev/null 2>&1
workers=$(grep -c 'run_command:.*checkout--worker' "$work/trace" 2>/dev/null)
if [ "${workers:-0}" -ge 2 ]; then
    pass "checkout ran in parallel: $workers checkout--worker processes (GIT_TRACE)"
else
    fail "checkout did not start parallel workers (trace: $work/trace)"
fi

# The rounds each step ran, in order: 1.1 1.2 ... 2.1 ...
rounds_of() { # step
    awk -v step="$1" '$2 == "native" && $3 == step { print $1 }' "$work/times"
}
for step in $steps; do
    problem=
    rounds=0
    for round in $(rounds_of "$step"); do
        rounds=$((rounds + 1))
        for variant in $variants; do
            grep -q '^exit status 0$' "$work/out/$variant-$step.$round" ||
                problem="${problem:-$variant round $round: $(head -c 300 "$work/out/$variant-$step.$round")}"
        done
        for variant in slimpthreads native-again; do
            cmp -s "$work/out/native-$step.$round" "$work/out/$variant-$step.$round" ||
                problem="${problem:-round $round: the outputs differ (diff $work/out/native-$step.$round $work/out/$variant-$step.$round)}"
        done
    done
    size=$(wc -c <"$work/out/native-$step.1.1")
    if [ -z "$problem" ]; then
        pass "$step: output identical to git's own layer in $rounds runs ($size bytes)"
    else
        fail "$step: $problem"
    fi
done

# ---- Timing table ----
# Per round (the three variants' runs of one step, seconds apart), two ratios:
# the drop-in against git's own layer (the mean of its two runs in the round),
# and git's own build against itself (own again / own), which is what the
# same program measures as against itself: the noise. Each column is the
# median of its per-round ratios with the distribution-free interval of that
# median (order statistics, at least 90% coverage; with 5 rounds it is the
# lowest and highest ratio). A step is slower or faster only when the
# drop-in's whole interval lies on one side of 1 and its ratio lies beyond the
# interval of own again / own; otherwise it is the same within the noise.
# Below 1: the drop-in is faster.
results=$cache/results.md
{
    echo "git $git_version under Wine, $host, $files files / $commits commits, $reps repetitions, $(date -u +%Y-%m-%d)."
    echo "Load average before / after: $load_before / $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)."
    echo
    echo "| step | rounds | git's own layer | slimpthreads | drop-in / own (interval) | own again / own (noise) | verdict |"
    echo "|---|---|---|---|---|---|---|"
    for step in $steps; do
        awk -v step="$step" '
            function sort(list, n,   i, j, t) {
                for (i = 2; i <= n; i++) {
                    t = list[i]
                    for (j = i - 1; j >= 1 && list[j] > t; j--) list[j + 1] = list[j]
                    list[j + 1] = t
                }
            }
            function median(list, n) {
                return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
            }
            # The largest k whose [list[k], list[n + 1 - k]] covers the
            # median with probability >= 90%: P(Binomial(n, 1/2) < k) <= 5%.
            function interval_rank(n,   k, p, below) {
                p = 0.5 ^ n; below = p; k = 1
                while (k < (n + 1) / 2) {
                    p = p * (n - k + 1) / k
                    if (below + p > 0.05) break
                    below += p; k++
                }
                return k
            }
            $3 == step { ms[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; order[++rounds] = $1 } }
            END {
                n = 0
                for (r = 1; r <= rounds; r++) {
                    round = order[r]
                    own = ms[round, "native"]; again = ms[round, "native-again"]; slim = ms[round, "slimpthreads"]
                    if (own <= 0 || again <= 0 || slim <= 0) continue
                    n++
                    own_ms[n] = own; again_ms[n] = again; slim_ms[n] = slim
                    drop_in[n] = slim / ((own + again) / 2); noise[n] = again / own
                }
                if (n == 0) { printf "| %s | 0 | | | | | |\n", step; exit }
                sort(own_ms, n); sort(slim_ms, n); sort(again_ms, n); sort(drop_in, n); sort(noise, n)
                k = interval_rank(n)
                ratio = median(drop_in, n); low = drop_in[k]; high = drop_in[n + 1 - k]
                null = median(noise, n); null_low = noise[k]; null_high = noise[n + 1 - k]
                verdict = "same within noise"
                if (low > 1 && ratio > null_high) verdict = "SLOWER"
                if (high < 1 && ratio < null_low) verdict = "faster"
                printf "| %s | %d | %.2f s | %.2f s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s |\n", step, n,
                    median(own_ms, n) / 1000, median(slim_ms, n) / 1000, ratio, low, high,
                    null, null_low, null_high, verdict
            }' "$work/times"
    done
} >"$results"
echo
cat "$results"
echo
# ---- Where the calls go (SLIM_GIT_COUNT=1) ----
# A third git.exe, from the drop-in build's objects: its callers see
# SLIMPTHREADS_NO_INLINE (every pthread call enters the library), its
# pthread.c is compiled with -finstrument-functions, and count-calls.c counts
# each function's entries and writes them at each process's exit. The
# workload runs once with it; per step: git's processes, the threads they
# created, the calls git made into the library (its public functions), the
# mutex locks that went past the inline path (a busy mutex, mostly), and the
# waits that went to sleep.
count_build() {
    counting=$cache/build/counting
    count_stamp="$drop_stamp, counting $(cksum <"$script_dir/count-calls.c")"
    if built "$counting" "$count_stamp"; then
        pass "counting build: cached in $counting"
    else
        say "building a counting git.exe in $counting"
        rm -rf "$counting"
        cp -a "$slim" "$counting" && rm -f "$counting/.slim-built" "$counting/git.exe" || exit 1
        { echo '#define SLIMPTHREADS_NO_INLINE 1 /* the counting build: every call enters the library */'
            cat "$slim/compat/win32/pthread.h"; } >"$counting/compat/win32/pthread.h" &&
            "$cc" -O2 -c "$script_dir/count-calls.c" -o "$counting/count-calls.o" &&
            printf 'EXTLIBS += %s\ncompat/win32/pthread.o: EXTRA_CPPFLAGS += -finstrument-functions\n' \
                "$counting/count-calls.o" >>"$counting/config.mak" || exit 1
        timed_build "counting build" "$counting" "$count_stamp" "$counting.log"
    fi
}
count_table() {
    counting=$cache/build/counting
    counts=$cache/counts
    rm -rf "$counts" "$work/repo-counting" && mkdir -p "$counts" || exit 1
    cp -a "$repo" "$work/repo-counting" || exit 1
    for step in $steps; do
        (cd "$work/repo-counting" && before_step "$step" &&
            SLIM_COUNT_FILE="Z:$counts/$step.raw" run_step counting "$step")
    done
    "$host-nm" "$counting/git.exe" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' >"$counts/symbols"
    prefix=$(sed -n 's/^[0-9a-f]* \(.*\)pthread_create$/\1/p' "$counts/symbols" | head -n 1)
    echo
    echo "Calls into the drop-in, one run of each step (SLIM_GIT_COUNT=1; per process and function: $counts):"
    echo
    echo "| step | processes | threads created | calls into the library | the most frequent | locks past the inline path | waits that slept |"
    echo "|---|---|---|---|---|---|---|"
    for step in $steps; do
        awk -v prefix="$prefix" -v step="$step" -v details="$counts/$step.txt" '
            NR == FNR { name[$1] = $2; next }
            /^process/ { processes++; sub(/^process [0-9]+ /, ""); print "process:", $0 >details; next }
            /^fn/ {
                function_name = ($2 in name) ? name[$2] : $2
                print "  ", function_name, $3 >details
                if (index(function_name, prefix) == 1) {
                    short = substr(function_name, length(prefix) + 1)
                    if (short ~ /_slow$/) {
                        if (short == "mutex_lock_slow") contended += $3
                    } else {
                        calls += $3; per_call[short] += $3
                    }
                }
                if (function_name == "slim_wait") slept += $3
            }
            END {
                top = ""
                for (shown = 0; shown < 3; shown++) {
                    best = ""
                    for (f in per_call) if (!(f in used) && (best == "" || per_call[f] > per_call[best])) best = f
                    if (best == "") break
                    used[best] = 1
                    top = top (shown ? ", " : "") best " " per_call[best]
                }
                printf "| %s | %d | %d | %d | %s | %d | %d |\n", step, processes,
                    per_call["pthread_create"], calls, top, contended, slept
            }' "$counts/symbols" "$counts/$step.raw"
    done
}
# git-calls.c, built against git's own compat/win32/pthread.[ch] and against
# the drop-in: the calls that dominate those counts, timed in git's shapes.
# git's pthread.c includes git-compat-util.h for err_win_to_posix only.
calls_build() {
    calls=$cache/calls
    rm -rf "$calls" && mkdir -p "$calls/git/compat/win32" || exit 1
    cp "$git_src/compat/win32/pthread.c" "$git_src/compat/win32/pthread.h" "$calls/git/compat/win32/" &&
        printf '%s\n' '#include <windows.h>' '#include <process.h>' '#include <errno.h>' \
            'static inline int err_win_to_posix(DWORD error) { (void)error; return EINVAL; }' \
            >"$calls/git/git-compat-util.h" &&
        "$cc" -O2 -DNORETURN='__attribute__((__noreturn__))' -I"$calls/git/compat/win32" \
            "$script_dir/git-calls.c" "$calls/git/compat/win32/pthread.c" -o "$calls/own.exe" \
            >"$calls/build.log" 2>&1 &&
        "$cc" -O2 -I"$drop" "$script_dir/git-calls.c" "$drop/pthread.c" -o "$calls/drop-in.exe" \
            -lsynchronization >>"$calls/build.log" 2>&1 ||
        { fail "git-calls.c does not build (log: $calls/build.log)"; return 1; }
    pass "git-calls.c built against git's own layer and the drop-in"
}
calls_table() {
    calls=$cache/calls
    : >"$calls/times"
    for round in 1 2 3; do # the two programs take turns
        for program in own drop-in; do
            sh "$top_srcdir/contrib/wine-run.sh" "$calls/$program.exe" | tr -d '\r' |
                sed "s/^/$program /" >>"$calls/times"
        done
    done
    echo
    echo "git's calls timed in git's shapes (git-calls.c), median of 3 runs of each build:"
    echo
    echo "| row | git's own layer | drop-in | drop-in / own |"
    echo "|---|---|---|---|"
    awk '
        function median(list, n,   i, j, t) {
            for (i = 2; i <= n; i++) {
                t = list[i]
                for (j = i - 1; j >= 1 && list[j] > t; j--) list[j + 1] = list[j]
                list[j + 1] = t
            }
            return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
        }
        { if (!(($2) in unit)) order[++rows] = $2; unit[$2] = $4; value[$1, $2, ++seen[$1, $2]] = $3 }
        END {
            for (r = 1; r <= rows; r++) {
                row = order[r]
                for (side = 1; side <= 2; side++) {
                    program = side == 1 ? "own" : "drop-in"
                    n = seen[program, row]
                    for (i = 1; i <= n; i++) list[i] = value[program, row, i]
                    result[side] = n ? median(list, n) : 0
                }
                ratio = result[1] > 0 ? result[2] / result[1] : 0
                printf "| %s | %s %s | %s %s | %.2f |\n", row, result[1], unit[row], result[2], unit[row], ratio
            }
        }' "$calls/times"
}
if [ "${SLIM_GIT_COUNT:-0}" = 1 ]; then
    count_build
    count_table >"$cache/counts.md"
    calls_build && calls_table >>"$cache/counts.md"
    cat "$cache/counts.md"
fi

slower=$(grep -c '| SLOWER |$' "$results")
say "timing: $slower of the $(echo $steps | wc -w) steps slower with the drop-in beyond the noise (reported, not asserted: the machine is shared)"
finish
