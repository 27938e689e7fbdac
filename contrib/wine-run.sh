#!/bin/sh
# Run a Windows program built by slimpthreads: under Wine when cross compiling,
# directly on Windows (MSYS2). Used by `make check` as the log compiler, by the
# benchmarks, by every script that starts a Windows program, and by hand:
#   contrib/wine-run.sh tests/suites/test_mutex.exe
#
#   contrib/wine-run.sh PROGRAM [ARGS...]  run it (bounded by SLIM_TEST_TIMEOUT, 2400 s:
#                                          exit 77 when this host cannot execute its
#                                          architecture (automake's SKIP), saying why
#   contrib/wine-run.sh --start-server     create the prefix, keep a wineserver, choose the loaders
#   contrib/wine-run.sh --stop-server      stop that wineserver and the prefix's processes
#   contrib/wine-run.sh --choose           choose the loaders and print the choice as shell
#                                          assignments (`eval` them to share it with later runs)
#   contrib/wine-run.sh --can-run ARCH     exit 0 when programs for ARCH (x86_64, i686,
#                                          aarch64) run here; for aarch64, else say why
#
# The loaders. Some hosts' kernels run 64-bit code only: there the 32-bit loader
# (/usr/lib/wine/wine, which Debian's /usr/bin/wine starts for every program once
# wine32 is installed) fails with "Exec format error" while /usr/lib/wine/wine64
# runs 64-bit programs. So the choice is made from what the host does, once per
# run: a tiny 64-bit and a tiny 32-bit program (contrib/wine-probe.c) are run
# under each candidate in turn, and the first that prints the probe's line wins.
# The choice is kept beside the prefix ($WINEPREFIX.loaders) until --stop-server.
#
# aarch64 programs run under emulation: Debian's arm64 Wine in a root of its own,
# in a prefix of their own ($WINEPREFIX-arm64); see contrib/wine-arm64.sh.
#
# Environment:
#   WINE                  one loader for every program (skips the search; still checked)
#   WINE64, WINE32        the loader for 64-bit / 32-bit programs; WINE32=none says
#                         this host runs no 32-bit programs
#   SLIM_SIMULATE_64BIT_ONLY=1  behave as on a host whose kernel refuses 32-bit
#                         executables: every 32-bit program, and every loader that is
#                         (or whose script names) a 32-bit ELF executable, fails as there
#   SLIM_WINE_CANDIDATES  the loaders tried, in order (default below)
#   SLIM_ARM64_ROOT, SLIM_ARM64_PREFIX, SLIM_ARM64_SHARE, SLIM_SIMULATE_NO_ARM64:
#                         aarch64 programs (contrib/wine-arm64.sh)
#   WINEPREFIX (default: ./wineprefix in the current directory), WINESERVER.
# The prefix lives in the build tree, never in $HOME.
set -u

case "$(uname -s)" in
MINGW* | MSYS* | CYGWIN*)
    case "${1-}" in
    --start-server | --stop-server | --choose) exit 0 ;;
    --can-run) exit 0 ;;
    esac
    exec "$@"
    ;;
esac

script_dir=$(cd "$(dirname "$0")" && pwd)
: "${WINEPREFIX:=$(pwd)/wineprefix}"
: "${WINESERVER:=wineserver}"
: "${WINEDEBUG:=-all}"
# No Mono or Gecko installer dialogs while the prefix is made.
: "${WINEDLLOVERRIDES:=mscoree,mshtml=}"
# Debian's wrapper first (what a host with 32-bit support has always used), then
# the 64-bit loader itself, then the 32-bit one.
: "${SLIM_WINE_CANDIDATES:=wine wine64 /usr/lib/wine/wine64 /usr/lib64/wine/wine64 /usr/lib/wine/wine}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
pidfile=$WINEPREFIX.server.pid
choice_file=$WINEPREFIX.loaders
probe_dir=$WINEPREFIX.probe
# shellcheck source=contrib/wine-arm64.sh
. "$script_dir/wine-arm64.sh"
simulated_refusal="exit 126: Exec format error (SLIM_SIMULATE_64BIT_ONLY: the kernel refuses 32-bit executables)"

say() { echo "wine-run: $*" >&2; }

# ---- What a file is ----

# The first five bytes of an ELF file as hex: "7f 45 4c 46 02" is a 64-bit one.
elf_header() { # file
    od -An -tx1 -N5 "$1" 2>/dev/null | tr -s ' ' | sed 's/^ //'
}

is_elf32() { [ "$(elf_header "$1")" = "7f 45 4c 46 01" ]; }

# A Windows program's PE Machine field as four hex digits (8664, 014c, aa64).
program_machine() { # program
    pe_offset=$(od -An -tu4 -j60 -N4 "$1" 2>/dev/null | tr -d ' ')
    od -An -tx2 -j$((${pe_offset:-0} + 4)) -N2 "$1" 2>/dev/null | tr -d ' '
}

# The width of a Windows program: 32 or 64 from its PE header's Machine field,
# 64 for anything else (a Wine builtin such as wineboot).
program_bits() { # program
    [ -f "$1" ] || { echo 64; return; }
    case $(program_machine "$1") in 014c) echo 32 ;; *) echo 64 ;; esac
}

# The file a loader command starts: its first word, found on PATH, links followed.
loader_file() { # loader command
    set -- $1
    path=$(command -v "$1" 2>/dev/null) || return 1
    readlink -f "$path" 2>/dev/null || echo "$path"
}

# Under the simulation, a loader the kernel would refuse: a 32-bit ELF file, or a
# script that names one (Debian's /usr/bin/wine starts /usr/lib/wine/wine).
refused_by_simulation() { # loader file
    is_elf32 "$1" && return 0
    [ "$(head -c 2 "$1" 2>/dev/null)" = "#!" ] || return 1
    for named in $(grep -o '/[A-Za-z0-9_./-]*' "$1" 2>/dev/null | sort -u); do
        [ -f "$named" ] && is_elf32 "$named" && return 0
    done
    return 1
}

# ---- Choosing the loaders ----

# Builds the probe for one width once per prefix; prints its path.
probe_program() { # bits
    exe=$probe_dir/probe$1.exe
    if [ ! -f "$exe" ]; then
        case $1 in
        64) cc=${SLIM_PROBE_CC64:-x86_64-w64-mingw32-gcc} ;;
        *) cc=${SLIM_PROBE_CC32:-i686-w64-mingw32-gcc} ;;
        esac
        mkdir -p "$probe_dir"
        "$cc" -O1 -o "$exe.tmp" "$script_dir/wine-probe.c" >"$probe_dir/build$1.log" 2>&1 &&
            mv "$exe.tmp" "$exe" || return 1
    fi
    echo "$exe"
}

# Runs the probe under one loader: 0 when it printed its line; otherwise prints why not.
try_loader() { # loader command, bits, probe program
    file=$(loader_file "$1") || { echo "not found"; return 1; }
    if [ -n "${SLIM_SIMULATE_64BIT_ONLY:-}" ] && refused_by_simulation "$file"; then
        echo "$simulated_refusal"
        return 1
    fi
    # The first run in a new prefix makes it (tens of seconds), hence the long bound.
    output=$(timeout --kill-after=10 300 $1 "$3" 2>&1)
    rc=$?
    case $output in *"wine probe: $2-bit"*) return 0 ;; esac
    echo "exit $rc: $(printf '%s\n' "$output" | tr -d '\r' | grep -v '^[[:space:]]*$' | tail -n 1)"
    return 1
}

# Sets loader_<bits> (a command, or "none") and why_<bits>: the given loader if
# there is one (checked), else the first candidate that runs the probe.
choose_for() { # bits, loader given by the environment or ""
    bits=$1
    given=$2
    eval "loader_$bits=none; why_$bits="
    if [ "$given" = none ]; then
        # An outer run's choice passes its reason on with it (see --choose).
        eval "why_$bits=\"\${SLIM_WINE${bits}_WHY:-WINE$bits=none}\""
        return
    fi
    if [ -n "${SLIM_SIMULATE_64BIT_ONLY:-}" ] && [ "$bits" = 32 ]; then
        eval "why_$bits='this host cannot execute 32-bit code (simulated: SLIM_SIMULATE_64BIT_ONLY is set)'"
        return
    fi
    if ! exe=$(probe_program "$bits"); then
        eval "why_$bits='no $bits-bit compiler to build the probe (see $probe_dir/build$bits.log)'"
        return
    fi
    tried=
    for candidate in ${given:-$SLIM_WINE_CANDIDATES}; do
        [ -n "$given" ] && candidate=$given
        if reason=$(try_loader "$candidate" "$bits" "$exe"); then
            eval "loader_$bits=\$candidate"
            return
        fi
        [ "$reason" = "not found" ] || tried="$tried${tried:+; }$candidate ($reason)"
        [ -z "$given" ] || break
    done
    case $tried in
    *"Exec format error"*) host_says="this host cannot execute $bits-bit code" ;;
    *) host_says="no Wine loader runs a $bits-bit Windows program here" ;;
    esac
    eval "why_$bits=\"\$host_says: tried \${tried:-no loader found}\""
}

write_choice() { # file
    {
        echo "WINE64='$loader_64'"
        echo "WINE32='$loader_32'"
        echo "SLIM_WINE64_WHY='$why_64'"
        echo "SLIM_WINE32_WHY='$why_32'"
    } >"$1.tmp" && mv "$1.tmp" "$1"
}

# Chooses both loaders once per prefix, under a lock so that parallel runs share one
# choice; WINE64/WINE32 (or WINE) given by the environment are checked, not searched.
choose_loaders() {
    mkdir -p "$(dirname "$WINEPREFIX")"
    exec 9>"$choice_file.lock"
    command -v flock >/dev/null 2>&1 && flock 9
    if [ ! -f "$choice_file" ]; then
        [ -f "$WINEPREFIX/system.reg" ] || say "choosing the loaders in a new Wine prefix $WINEPREFIX"
        choose_for 64 "${WINE64:-${WINE:-}}"
        choose_for 32 "${WINE32:-${WINE:-}}"
        # Apostrophes would end the quoted values the file keeps.
        why_64=$(printf '%s' "$why_64" | tr "'" '"')
        why_32=$(printf '%s' "$why_32" | tr "'" '"')
        write_choice "$choice_file"
    fi
    exec 9>&-
    . "$choice_file"
}

# The loader for programs of one width: the environment's, else the choice.
loader_for() { # bits
    eval "given=\${WINE$1:-\${WINE:-}}"
    if [ -n "$given" ]; then
        echo "$given"
        return
    fi
    [ -f "$choice_file" ] || choose_loaders >/dev/null
    . "$choice_file"
    eval "echo \"\$WINE$1\""
}

# Why programs of one width do not run here, in one line.
why_not() { # bits
    [ -f "$choice_file" ] && . "$choice_file"
    eval "echo \"\${SLIM_WINE$1_WHY:-WINE$1=none}\""
}

require_64() {
    [ "$(loader_for 64)" != none ] && return 0
    say_no_64
}

say_no_64() {
    say "$(why_not 64)"
    say "install Wine's 64-bit loader (contrib/setup-deps.sh) or name one with WINE64=..."
    exit 2
}

# ---- The server ----

server_alive() {
    [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start_server() {
    server_alive && return 0
    mkdir -p "$WINEPREFIX"
    # Each Wine thread holds server file descriptors: a test with 500 threads
    # alive needs more than the usual soft limit of 1024 (root often has more).
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    # -f keeps it in the foreground so that $! is the server's own pid. -p60 keeps
    # it across the gaps between tests, and lets it exit by itself 60 s after its
    # last client should a failed run never reach --stop-server.
    "$WINESERVER" -f -p60 </dev/null >/dev/null 2>&1 &
    echo $! >"$pidfile"
    # The 64-bit probe makes the prefix (about 20 s once), now rather than in a test's time.
    choose_loaders
    require_64
    [ "$WINE32" != none ] || say "32-bit programs will not run: $SLIM_WINE32_WHY"
}

stop_server() {
    if server_alive; then
        # -k ends the prefix's own services (services.exe, plugplay.exe, ...)
        # with it; killing the server alone left them running.
        "$WINESERVER" -k 2>/dev/null || kill "$(cat "$pidfile")" 2>/dev/null || true
    fi
    # The next run chooses again: the host may not be the same machine.
    rm -f "$pidfile" "$choice_file" "$choice_file.lock"
    arm64_stop_server
}

case "${1-}" in
--start-server) start_server; exit 0 ;;
--stop-server) stop_server; exit 0 ;;
--choose)
    choose_loaders
    printf "WINE64='%s'; WINE32='%s'; SLIM_WINE32_WHY='%s'; export WINE64 WINE32 SLIM_WINE32_WHY\n" \
        "$WINE64" "$WINE32" "$SLIM_WINE32_WHY"
    [ "$WINE64" != none ] || say_no_64
    [ "$WINE32" != none ] || say "32-bit programs will not run: $SLIM_WINE32_WHY"
    exit 0
    ;;
--can-run)
    case "${2-}" in
    x86_64) bits=64 ;;
    i686) bits=32 ;;
    aarch64)
        why=$(arm64_why_not)
        [ -z "$why" ] || say "$why"
        [ -z "$why" ]
        exit
        ;;
    *) echo "usage: $0 --can-run x86_64|i686|aarch64" >&2; exit 2 ;;
    esac
    [ "$(loader_for $bits)" != none ]
    exit
    ;;
--arm64-inside) shift; arm64_inside "$@" ;;
"") echo "usage: $0 PROGRAM [ARGS...] | --start-server | --stop-server | --choose | --can-run ARCH" >&2; exit 2 ;;
esac

[ "$(program_machine "$1")" != aa64 ] || arm64_run "$@"
bits=$(program_bits "$1")
loader=$(loader_for "$bits")
if [ "$loader" = none ]; then
    [ "$bits" = 64 ] && require_64
    why=$(why_not "$bits")
    say "$1 not run: ${why%%: tried*}"
    exit 77
fi
# shellcheck disable=SC2086 # a loader may be a command with words (WINE="box64 wine64")
exec timeout --kill-after=10 "${SLIM_TEST_TIMEOUT:-2400}" $loader "$@"
