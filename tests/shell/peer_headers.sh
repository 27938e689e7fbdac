#!/bin/sh
# The peers' header contract: a program written for winpthreads or pthreads4w
# that includes only <pthread.h>, <sched.h> or <semaphore.h> finds there every
# function and macro the peer's same header gives it (their internals aside:
# README.md, "The peers' headers"). For each header, tests/peer_*.c uses all of
# them and includes nothing else; it is compiled with
# -Werror=implicit-function-declaration -Werror=implicit-int, linked with our
# static library and run under Wine, where it checks what the static
# initializers give (the kind of each mutex, a usable spinlock) and calls the
# rest. peer_pthread.c is built twice: -O2 (the inline lock paths) and -O0
# (the library's). Each program's list of names is checked against the
# toolchain's own winpthreads headers, so a name they gain shows up here.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${CC:?}"
. "$top_srcdir/tests/shell/shtest.sh"
library=$top_builddir/.libs/libslimpthreads.a
strict="-Wall -Wextra -Werror -Werror=implicit-function-declaration -Werror=implicit-int"

# ---- Every name of the toolchain's winpthreads headers is used ----
# Left out on purpose (README.md): winpthreads' internals and the names that
# would claim to be winpthreads, its misspelt pthread_attr_setgaurdsize, and
# pthread_timechange_handler_np.
left_out='pthread_create_wrapper pthread_tls_init pthread_getclean pthread_getevent
pthread_timechange_handler_np pthread_attr_setgaurdsize
GENERIC_INITIALIZER GENERIC_ERRORCHECK_INITIALIZER GENERIC_RECURSIVE_INITIALIZER
GENERIC_NORMAL_INITIALIZER PTHREAD_DEFAULT_ATTR PTHREAD_PRIO_MULT RWLS_PER_THREAD MAX_READ_LOCKS
_PTHREAD_NULL_THREAD _GTHREAD_USE_MUTEX_INIT_FUNC USE_SEM_CriticalSection_SpinCount _MODE_T_
__WINPTHREADS_VERSION __WINPTHREADS_VERSION_MAJOR __WINPTHREADS_VERSION_MINOR
__WINPTHREADS_VERSION_PATCHLEVEL __clockid_t_defined __pthread_MemoryBarrier WINPTHREAD_API WINPTHREAD_SCHED_API
WINPTHREAD_SEMA_API WIN_PTHREADS_H WIN_PTHREADS_SCHED_H WIN_PTHREADS_SEMAPHORE_H
WIN_PTHREADS_TIME_H WIN_PTHREADS_SIGNAL_H WIN_PTHREADS_UNISTD_H'

system_header() { # name: where the compiler finds it without our include/
    printf '#include <%s>\n' "$1" | $CC -E -x c - 2>/dev/null |
        sed -n "s|^# [0-9]* \"\\(.*/$1\\)\".*|\\1|p" | head -n 1
}

without_comments() { # file
    tr '\n' '\001' <"$1" | sed 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' | tr '\001' '\n'
}

names_of() { # header: its functions and macros, up to the opt-in cancellation wrappers
    without_comments "$1" | sed '/ENABLE_WRAP_API/,$d' >"$work/names.h"
    grep -o '\<\(pthread\|sched\|sem\|clock\)_[A-Za-z0-9_]*[[:space:]]*(\|\<nanosleep[[:space:]]*(' \
        "$work/names.h" | sed 's/[[:space:]]*($//'
    sed -n 's/^#[[:space:]]*define[[:space:]]\{1,\}\([A-Z_][A-Za-z0-9_]*\).*/\1/p' "$work/names.h"
}

check_names() { # program, headers...: every name of theirs is in the program
    program=$1
    shift
    without_comments "$top_srcdir/tests/fixtures/$program.c" >"$work/program.c"
    missing= found_headers= checked=0
    for header in "$@"; do
        path=$(system_header "$header")
        [ -n "$path" ] && [ -f "$path" ] || continue
        found_headers="$found_headers $header"
        for name in $(names_of "$path" | sort -u); do
            case " $(echo $left_out) " in *" $name "*) continue ;; esac
            checked=$((checked + 1))
            grep -qw "$name" "$work/program.c" || missing="$missing $name"
        done
    done
    if [ -z "$found_headers" ]; then
        echo "SKIP: $program: the compiler shows no winpthreads$*"
    elif [ -z "$missing" ]; then
        pass "$program uses all $checked names of winpthreads'$found_headers"
    else
        fail "$program lacks names of winpthreads'$found_headers:$missing"
    fi
}

check_names peer_pthread pthread.h pthread_time.h pthread_signal.h pthread_unistd.h
check_names peer_sched sched.h
check_names peer_semaphore semaphore.h

# ---- Each compiles from its one header, links with our library, runs ----
run_peer() { # exe [argument]: passes when the program reports all its checks passed
    check_run "$1${2:+ $2}: runs" 'checks passed' "$work" "$work/$1" ${2:-}
}

build_peer() { # program, exe, flags...
    program=$1 exe=$2
    shift 2
    check "$program.c ($*): compiles from its one header and links" \
        $CC "$@" $strict -I"$top_srcdir/include" "$top_srcdir/tests/fixtures/$program.c" \
        "$top_srcdir/tests/fixtures/peer_report.c" "$library" $synch_libs -static $configured_ldflags \
        -o "$work/$exe"
}

build_peer peer_pthread peer_pthread_O2.exe -std=gnu11 -O2
build_peer peer_pthread peer_pthread_O0.exe -std=c99 -pedantic -O0
build_peer peer_sched peer_sched.exe -std=gnu11 -O2
build_peer peer_semaphore peer_semaphore.exe -std=gnu11 -O2
# PTHREAD_THREADS_MAX threads at once, in one of the two builds only: the
# thousands of threads take Wine seconds.
[ -f "$work/peer_pthread_O2.exe" ] && run_peer peer_pthread_O2.exe threads
[ -f "$work/peer_pthread_O0.exe" ] && run_peer peer_pthread_O0.exe
[ -f "$work/peer_sched.exe" ] && run_peer peer_sched.exe
[ -f "$work/peer_semaphore.exe" ] && run_peer peer_semaphore.exe

shtest_finish peer_headers
