# shellcheck shell=sh disable=SC2034 # checked_problem is read by the scripts that source this
# Sourced by contrib/integration/run.sh and contrib/git/try-git.sh: the verdict
# on one run of a program built with the checked library (README.md, Checked
# build), run with SLIMPTHREADS_CHECK_FILE=REPORT_FILE.
#
# checked_verdict REPORT_FILE OUTPUT_FILE prints every report found and sets
# checked_problem to what is wrong, or to nothing when the checker ran and
# reported nothing. A report the checker could not write to its file goes to
# stderr, which OUTPUT_FILE holds. The checker opens (creates) the file at a
# process's first checked call: no file means no checking.
checked_verdict() {
    checked_problem=
    if [ -s "$1" ] || grep -q 'slimpthreads-check' "$2"; then
        cat "$1" 2>/dev/null
        grep -A 30 'slimpthreads-check' "$2"
        checked_problem="the checker reported the above (file $1)"
    elif [ ! -f "$1" ]; then
        checked_problem="no report file, so the checker never ran"
    fi
}
