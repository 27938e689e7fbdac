#!/bin/sh
# Run a Windows program built by slimpthreads: under Wine when cross compiling,
# directly on Windows (MSYS2). Used by `make check` as the log compiler, by the
# benchmarks, and by hand:  contrib/wine-run.sh tests/test_mutex.exe
#
#   contrib/wine-run.sh PROGRAM [ARGS...]   run it (bounded by SLIM_TEST_TIMEOUT, 600 s)
#   contrib/wine-run.sh --start-server      create the prefix and keep a wineserver
#   contrib/wine-run.sh --stop-server       stop that wineserver and the prefix's processes
#
# Environment: WINEPREFIX (default: ./wineprefix in the current directory), WINE,
# WINESERVER. The prefix lives in the build tree, never in $HOME.
set -u

case "$(uname -s)" in
MINGW* | MSYS* | CYGWIN*)
    case "${1-}" in --start-server | --stop-server) exit 0 ;; esac
    exec "$@"
    ;;
esac

: "${WINEPREFIX:=$(pwd)/wineprefix}"
: "${WINE:=wine}"
: "${WINESERVER:=wineserver}"
: "${WINEDEBUG:=-all}"
# No Mono or Gecko installer dialogs while the prefix is made.
: "${WINEDLLOVERRIDES:=mscoree,mshtml=}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
pidfile=$WINEPREFIX.server.pid

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
    # Making the prefix takes ~20 s once; do it now rather than in a test's time.
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
        echo "wine-run: creating Wine prefix $WINEPREFIX"
        "$WINE" wineboot --init >/dev/null 2>&1 || true
    fi
}

stop_server() {
    if server_alive; then
        # -k ends the prefix's own services (services.exe, plugplay.exe, ...)
        # with it; killing the server alone left them running.
        "$WINESERVER" -k 2>/dev/null || kill "$(cat "$pidfile")" 2>/dev/null || true
    fi
    rm -f "$pidfile"
}

case "${1-}" in
--start-server) start_server; exit 0 ;;
--stop-server) stop_server; exit 0 ;;
"") echo "usage: $0 PROGRAM [ARGS...] | --start-server | --stop-server" >&2; exit 2 ;;
esac

exec timeout --kill-after=10 "${SLIM_TEST_TIMEOUT:-600}" "$WINE" "$@"
