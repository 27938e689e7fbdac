#!/bin/sh
# bench/run.sh - run the three benchmark programs, interleaved, and compare them.
#
#   bench/run.sh [--quick] [--reps N] [--only CASE[,CASE...]] [--load N] [--peer NAME=PROGRAM.exe ...]
#   bench/run.sh --report     tables, CSV and chart again from the last run's outputs
#
# Runs bench_slim, bench_winpthreads and bench_raw (built by `make bench`) under
# Wine through contrib/wine-run.sh, N repetitions (5, or 1 with --quick), the
# order of the three rotating from one repetition to the next. Takes the median
# of each measurement, prints one table per case (slimpthreads | winpthreads |
# raw | slim/winpthreads | slim/raw), the targets of targets.txt marked met or
# NOT met, and writes results.txt, results.csv, targets.csv and the chart,
# results.svg and results.png (gnuplot, when installed: one panel per case,
# each measurement relative to raw) next to the programs; runs/ keeps every output.
#
# Load: --load N runs each case that contends for a lock (lockperf, mutex rows
# only; cond2010, queue, handoff, sweep) twice in every program run, quiet and
# then with N busy threads of normal priority in the same process; the loaded
# rows' variants end in -loadN, and the load targets of targets.txt compare them
# with the quiet rows of the same run. Without --load nothing changes.
#
# Exit status: 0 when every program ran to its end with every checksum right,
# whatever the timings; 1 otherwise. CI uses --quick as a smoke test.
#
# Peers (optional, bench/peers.md): --peer NAME=PROGRAM.exe, or BENCH_PEERS="NAME=PROGRAM.exe
# ...", adds another build of bench_posix.c (winpthreads v14, pthreads4w, from
# contrib/peers/) to the rotation, and a column NAME and a column slim/NAME per
# peer to the tables, a bar per peer to the chart. NAME: letters, digits, . _ -;
# no spaces in the path. Without peers nothing changes.
#
# Environment: BENCH_DIR (the programs; default ./bench), WINEPREFIX (default
# the build tree's wineprefix, next to BENCH_DIR), WINE, WINESERVER,
# BENCH_TIMEOUT (seconds per program run, default 300), BENCH_CC and
# BENCH_WINPTHREADS_CC (only to record their versions).
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
quick=
reps=
only=
load=
report_only=
peers=${BENCH_PEERS:-}
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=--quick ;;
    --reps) reps=$2; shift ;;
    --only) only=$2; shift ;;
    --load) load=$2; shift ;;
    --peer) peers="$peers $2"; shift ;;
    --report) report_only=1 ;;
    *) echo "usage: $0 [--quick] [--reps N] [--only CASE[,CASE...]] [--load N] [--peer NAME=PROGRAM.exe ...] | --report" >&2; exit 2 ;;
    esac
    shift
done
case $load in
*[!0-9]*) echo "run.sh: --load takes a number of threads, not '$load'" >&2; exit 2 ;;
esac
[ -n "$reps" ] || { [ -n "$quick" ] && reps=1 || reps=5; }

: "${BENCH_DIR:=$(pwd)/bench}"
BENCH_DIR=$(cd "$BENCH_DIR" 2>/dev/null && pwd) || { echo "run.sh: no directory $BENCH_DIR" >&2; exit 1; }
: "${WINEPREFIX:=$(dirname "$BENCH_DIR")/wineprefix}"
export WINEPREFIX
out=$BENCH_DIR/runs
wine_run=$srcdir/contrib/wine-run.sh
programs="slimpthreads winpthreads raw"
status=0

# The peers' names, in their order. A name becomes a file name (runs/NAME.1.tsv)
# and a column, so it is kept simple; the path is made absolute now, as the
# runs start elsewhere.
peer_names=
peer_specs=
for spec in $peers; do
    name=${spec%%=*}
    file=${spec#*=}
    case $name in
    "" | *[!A-Za-z0-9._-]* | slimpthreads | winpthreads | raw | "$spec")
        echo "run.sh: bad peer '$spec': NAME=PROGRAM.exe, NAME of letters, digits, . _ -, not one of the three" >&2
        exit 2 ;;
    esac
    case " $peer_names " in *" $name "*) echo "run.sh: peer $name given twice" >&2; exit 2 ;; esac
    case $file in /*) ;; *) file=$(pwd)/$file ;; esac
    peer_names="$peer_names${peer_names:+ }$name"
    peer_specs="$peer_specs${peer_specs:+ }$name=$file"
done
programs="$programs${peer_names:+ }$peer_names"

program_file() {
    case $1 in
    slimpthreads) echo "$BENCH_DIR/bench_slim.exe" ;;
    winpthreads) echo "$BENCH_DIR/bench_winpthreads.exe" ;;
    raw) echo "$BENCH_DIR/bench_raw.exe" ;;
    *) for spec in $peer_specs; do [ "${spec%%=*}" != "$1" ] || echo "${spec#*=}"; done ;;
    esac
}

# The machine, the tools and the run, for the record.
describe_run() {
    cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    # The 64-bit loader this run chose (contrib/wine-run.sh --choose).
    wine_version=$(eval "$(sh "$wine_run" --choose 2>/dev/null)" && $WINE64 --version 2>/dev/null)
    cc_version=$(${BENCH_CC:-x86_64-w64-mingw32-gcc} --version 2>/dev/null | head -n 1)
    posix_cc_version=$(${BENCH_WINPTHREADS_CC:-x86_64-w64-mingw32-gcc-posix} --version 2>/dev/null | head -n 1)
    mingw_version=$(dpkg-query -W -f '${Version}' mingw-w64-common 2>/dev/null)
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc 2>/dev/null) cpus, ${cpu_model:-unknown CPU}, $(uname -sr)"
    echo "wine: ${wine_version:-unknown}; compilers: ${cc_version:-unknown} (slimpthreads, raw), ${posix_cc_version:-unknown} (winpthreads); mingw-w64 ${mingw_version:-unknown}"
    echo "run: ${quick:+quick, }$reps repetition(s), interleaved, medians${only:+, only $only}${load:+, load $load busy threads}"
    [ -z "${BENCH_SWEEP_RATE:-}" ] || echo "sweep: the busy loop at $BENCH_SWEEP_RATE iterations per us in every program"
    [ -z "$peer_specs" ] || echo "peers: $peer_specs"
}

# Runs program $1 for repetition $2; keeps its output as runs/$1.$2.tsv only
# when it ran to its end with every checksum right.
run_one() {
    file=$out/$1.$2.tsv
    printf 'run %s/%s %-13s ' "$2" "$reps" "$1"
    t0=$(date +%s)
    SLIM_TEST_TIMEOUT=${BENCH_TIMEOUT:-300} sh "$wine_run" "$(program_file "$1")" \
        $quick ${only:+--only "$only"} ${load:+--load "$load"} >"$file.crlf" 2>"$out/$1.$2.err"
    rc=$?
    tr -d '\r' <"$file.crlf" >"$file" && rm -f "$file.crlf" # Windows ends lines with CR LF
    t1=$(date +%s)
    done_line=$(awk -F'\t' '$1 == "done"' "$file")
    claimed=$(echo "$done_line" | awk -F'\t' '{print $4}')
    lines=$(awk -F'\t' '$1 != "done" && $1 !~ /^#/ && NF >= 6' "$file" | wc -l)
    bad=$(awk -F'\t' '$1 !~ /^#/ && $6 ~ /^BAD/' "$file" | wc -l)
    if [ "$rc" -ne 0 ] || [ -z "$done_line" ] || [ "$bad" -ne 0 ] || [ "$lines" != "$claimed" ]; then
        echo "FAILED (exit $rc, $lines lines, ${claimed:-no} done line, $bad bad checksums)"
        sed 's/^/    /' "$out/$1.$2.err" | tail -n 5
        mv "$file" "$file.failed"
        status=1
    else
        echo "ok ($lines lines, $((t1 - t0)) s)"
    fi
}

# The sweep's busy loop holds the lock for a time in loop iterations; every
# program of the run gets the same rate (BENCH_SWEEP_RATE, iterations per us),
# the fastest of a few calibrations by the raw program, so that the programs
# hold it equally long even when the machine slows down while one of them
# calibrates.
measure_sweep_rate() {
    case ",$only," in
    ,, | *,sweep,*) ;;
    *) return 0 ;;
    esac
    BENCH_SWEEP_RATE=
    for attempt in 1 2 3; do
        rate=$(sh "$wine_run" "$(program_file raw)" --quick --only sweep 2>/dev/null | tr -d '\r' |
            sed -n 's/^#info\tsweep\tcalibration\tloops_per_us=\([0-9.]*\).*/\1/p')
        BENCH_SWEEP_RATE=$(echo "$rate ${BENCH_SWEEP_RATE:-0}" | awk '{print ($1 + 0 > $2 + 0) ? $1 : $2}')
    done
    export BENCH_SWEEP_RATE
    [ "$BENCH_SWEEP_RATE" != 0 ] || unset BENCH_SWEEP_RATE
}

run_all() {
    for p in $programs; do
        [ -f "$(program_file $p)" ] || {
            case " $peer_names " in
            *" $p "*) echo "run.sh: peer $p: no file $(program_file $p) (bench/peers.md)" >&2 ;;
            *) echo "run.sh: $(program_file $p) is missing: run 'make bench' in the build directory" >&2 ;;
            esac
            exit 1
        }
    done
    rm -rf "$out"
    mkdir -p "$out"
    [ -z "$peer_names" ] || echo "$peer_names" >"$out/peers.txt" # for --report
    # One wineserver for all the runs, stopped at the end if this script started it.
    started_server=
    if [ ! -f "$WINEPREFIX.server.pid" ] || ! kill -0 "$(cat "$WINEPREFIX.server.pid")" 2>/dev/null; then
        started_server=1
        trap '[ -z "$started_server" ] || sh "$wine_run" --stop-server' EXIT
        trap 'exit 1' INT TERM
    fi
    sh "$wine_run" --start-server
    measure_sweep_rate
    describe_run >"$out/machine.txt"
    cat "$out/machine.txt"

    start_time=$(date +%s)
    rep=1
    while [ "$rep" -le "$reps" ]; do
        # The order rotates by one program per repetition (for the three:
        # slim winp raw, winp raw slim, raw slim winp, ...).
        order=$programs
        shift_by=$(((rep - 1) % $(echo $programs | wc -w)))
        while [ "$shift_by" -gt 0 ]; do
            order="${order#* } ${order%% *}"
            shift_by=$((shift_by - 1))
        done
        for p in $order; do
            run_one "$p" "$rep"
        done
        rep=$((rep + 1))
    done
    echo "total: $(($(date +%s) - start_time)) s"
}

# Medians, tables, targets and chart, from the runs that completed.
report() {
    for p in $programs; do
        r=1
        while [ "$r" -le "$reps" ]; do
            [ -f "$out/$p.$r.tsv" ] && awk -v p="$p" -v r="$r" '{print p "\t" r "\t" $0}' "$out/$p.$r.tsv"
            r=$((r + 1))
        done
    done >"$out/all.tsv"
    awk -F'\t' -v csv="$BENCH_DIR/results.csv" -v targets_csv="$BENCH_DIR/targets.csv" \
        -v chart="$out/chart.dat" -v reps="$reps" -v peers="$peer_names" -f "$srcdir/bench/report.awk" \
        "$srcdir/bench/targets.txt" "$out/all.tsv" >"$out/tables.txt" || status=1
    { cat "$out/machine.txt"; echo; cat "$out/tables.txt"; } >"$BENCH_DIR/results.txt"
    echo
    cat "$out/tables.txt"
    if command -v gnuplot >/dev/null 2>&1 && [ -s "$out/chart.dat" ]; then
        subtitle=$(head -n 2 "$out/machine.txt" | tr "'\n" '  ')
        # The SVG is the chart; the PNG, where gnuplot has cairo, is for a quick look.
        charts=
        for chart in results.svg results.png; do
            rm -f "$BENCH_DIR/$chart"
            [ "$chart" = results.svg ] || gnuplot -e 'set terminal pngcairo' 2>/dev/null || continue
            if gnuplot -e "datafile='$out/chart.dat'; outfile='$BENCH_DIR/$chart'; subtitle='$subtitle'; peers='$peer_names'" \
                "$srcdir/bench/chart.gp" 2>"$out/gnuplot.err"; then
                charts="$charts $BENCH_DIR/$chart"
            else
                echo "run.sh: gnuplot failed on $chart (see $out/gnuplot.err)" >&2
                rm -f "$BENCH_DIR/$chart"
                break
            fi
        done
        [ -z "$charts" ] || echo "chart:$charts"
    else
        echo "run.sh: gnuplot not found; no chart"
    fi
    echo "results: $BENCH_DIR/results.txt, $BENCH_DIR/results.csv, $BENCH_DIR/targets.csv"
}

if [ -n "$report_only" ]; then
    [ -f "$out/machine.txt" ] || { echo "run.sh: no earlier run in $out" >&2; exit 1; }
    reps=$(sed -n 's/^run: \(quick, \)\{0,1\}\([0-9][0-9]*\) repetition.*/\2/p' "$out/machine.txt")
    # The peers of that run, not of this command line.
    peer_names=$(cat "$out/peers.txt" 2>/dev/null || true)
    programs="slimpthreads winpthreads raw${peer_names:+ }$peer_names"
    cat "$out/machine.txt"
else
    run_all
fi
report
[ "$status" -eq 0 ] || echo "run.sh: some runs FAILED (see above and $out/*.err)" >&2
exit "$status"
