#!/bin/sh
# The inline-vs-library agreement (tests/suites/test_mutex_inline.c, one program
# per optimisation level) compares what it says it compares. In each level's
# object, inline_lock, inline_trylock and inline_unlock are read: at -O1, -O2,
# -Os and -O3 each calls the critical section itself (kernel32's
# TryEnterCriticalSection or LeaveCriticalSection: pthread.h's inline path) and
# never the library's public function; at -O0, where GCC and clang inline no
# GNU inline function, each calls the library's function and no section call.
# The same for the inline once and signalling paths
# (tests/suites/test_once_cond_inline.c, -O0 and -O2): at -O2 inline_once,
# inline_cond_signal, inline_cond_broadcast, inline_call_once,
# inline_cnd_signal and inline_cnd_broadcast call only the library's slow path
# (slimpthreads_once_slow, _cond_signal_slow, _cond_broadcast_slow), at -O0
# only the library's public function. The same for the inline rwlock write
# paths (tests/suites/test_rwlock_inline.c, -O0 and -O2): inline_rwlock_wrlock,
# inline_rwlock_trywrlock and inline_rwlock_unlock call only
# slimpthreads_rwlock_wrlock_slow, _trywrlock_slow and _unlock_slow at -O2.
set -u
: "${top_builddir:?}" "${OBJDUMP:?}"
cd "$top_builddir" || exit 1
. "$top_srcdir/tests/shell/shtest.sh"

# The symbols named by the relocations in one function's code, one a line:
# objdump -dr prints each on a line of its own that starts with three tabs,
# whatever the type's name (IMAGE_REL_AMD64_REL32, i686's dir32 and DISP32).
# i686 names carry a leading underscore, and its imports an @N suffix.
relocations_of() { # object, function
    $OBJDUMP -dr "$1" | awk -v name="$2" '
        /^[0-9a-f]+ <[^>]*>:$/ { inside = ($2 == "<" name ">:" || $2 == "<_" name ">:"); next }
        inside && /^\t\t\t[0-9a-f]+: / { print $NF }'
}

# One wrapper of a level's object: at -O0 it must call the library's public
# function and not the inline path's call, at every other level the other way
# round. The two calls are given as extended regular expressions of the
# relocation's whole symbol.
check_wrapper() { # level, object, wrapper, the inline path's call, its name, the public call
    level=$1 object=$2 function=$3 inline_symbol=$4 inline_name=$5 library_call=$6
    symbols=$(relocations_of "$object" "$function")
    calls_inline=no
    calls_library=no
    printf '%s\n' "$symbols" | grep -Eqx "$inline_symbol" && calls_inline=yes
    printf '%s\n' "$symbols" | grep -Eqx "_?slimpthreads_$library_call" && calls_library=yes
    if [ -z "$symbols" ]; then
        fail "-$level: no code of $function found in $object"
    elif [ "$level" = O0 ] && [ "$calls_library" = yes ] && [ "$calls_inline" = no ]; then
        pass "-O0: $function calls the library's $library_call (not inlined)"
    elif [ "$level" != O0 ] && [ "$calls_inline" = yes ] && [ "$calls_library" = no ]; then
        pass "-$level: $function is the inline path ($inline_name, no $library_call)"
    else
        fail "-$level: $function: calls $inline_name: $calls_inline, calls $library_call: $calls_library"
        printf '%s\n' "$symbols" | head -n 10
    fi
}

# The inline mutex path calls kernel32's section itself (an import: __imp_,
# i686's with @N).
check_mutex_wrapper() { # level, object, wrapper, the section call its inline path makes
    check_wrapper "$1" "$2" "$3" "_*imp_+$4(@[0-9]+)?" "$4" "pthread_mutex_${3#inline_}"
}

# The inline once and signalling paths call the library's slow path past them.
check_slow_path_wrapper() { # level, object, wrapper, the slow path, the public call
    check_wrapper "$1" "$2" "$3" "_?slimpthreads_$4" "$4 past it" "$5"
}

for level in O0 O1 O2 Os O3; do
    object=tests/suites/mutex_inline-$level.o
    if [ ! -f "$object" ]; then
        fail "no $object (tests/tests.mk builds it for test_mutex_inline_$level)"
        continue
    fi
    check_mutex_wrapper "$level" "$object" inline_lock TryEnterCriticalSection
    check_mutex_wrapper "$level" "$object" inline_trylock TryEnterCriticalSection
    check_mutex_wrapper "$level" "$object" inline_unlock LeaveCriticalSection
done

for level in O0 O2; do
    object=tests/suites/once_cond_inline-$level.o
    if [ ! -f "$object" ]; then
        fail "no $object (tests/tests.mk builds it for test_once_cond_inline_$level)"
        continue
    fi
    check_slow_path_wrapper "$level" "$object" inline_once once_slow pthread_once
    check_slow_path_wrapper "$level" "$object" inline_cond_signal cond_signal_slow pthread_cond_signal
    check_slow_path_wrapper "$level" "$object" inline_cond_broadcast cond_broadcast_slow \
        pthread_cond_broadcast
    check_slow_path_wrapper "$level" "$object" inline_call_once once_slow call_once
    check_slow_path_wrapper "$level" "$object" inline_cnd_signal cond_signal_slow cnd_signal
    check_slow_path_wrapper "$level" "$object" inline_cnd_broadcast cond_broadcast_slow cnd_broadcast
done

for level in O0 O2; do
    object=tests/suites/rwlock_inline-$level.o
    if [ ! -f "$object" ]; then
        fail "no $object (tests/tests.mk builds it for test_rwlock_inline_$level)"
        continue
    fi
    for call in wrlock trywrlock unlock; do
        check_slow_path_wrapper "$level" "$object" "inline_rwlock_$call" "rwlock_${call}_slow" \
            "pthread_rwlock_$call"
    done
done

shtest_finish inline_levels
