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
# only the library's public function.
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

check_function() { # level, object, function, the section call its inline path makes
    level=$1 object=$2 function=$3 section_call=$4
    library_call=${function#inline_}
    symbols=$(relocations_of "$object" "$function")
    calls_section=no
    calls_library=no
    printf '%s\n' "$symbols" | grep -Eq "_imp_+$section_call(@[0-9]+)?\$" && calls_section=yes
    printf '%s\n' "$symbols" | grep -Eqx "_?slimpthreads_pthread_mutex_$library_call" && calls_library=yes
    if [ -z "$symbols" ]; then
        fail "-$level: no code of $function found in $object"
    elif [ "$level" = O0 ] && [ "$calls_library" = yes ] && [ "$calls_section" = no ]; then
        pass "-O0: $function calls the library's pthread_mutex_$library_call (not inlined)"
    elif [ "$level" != O0 ] && [ "$calls_section" = yes ] && [ "$calls_library" = no ]; then
        pass "-$level: $function is the inline path ($section_call, no library call)"
    else
        fail "-$level: $function: calls $section_call: $calls_section, calls the library: $calls_library"
        printf '%s\n' "$symbols" | head -n 10
    fi
}

for level in O0 O1 O2 Os O3; do
    object=tests/suites/mutex_inline-$level.o
    if [ ! -f "$object" ]; then
        fail "no $object (tests/tests.mk builds it for test_mutex_inline_$level)"
        continue
    fi
    check_function "$level" "$object" inline_lock TryEnterCriticalSection
    check_function "$level" "$object" inline_trylock TryEnterCriticalSection
    check_function "$level" "$object" inline_unlock LeaveCriticalSection
done

# level, object, wrapper, the slow path its inline body calls, the public call
check_slow_path() {
    level=$1 object=$2 function=$3 slow_call=$4 library_call=$5
    symbols=$(relocations_of "$object" "$function")
    calls_slow=no
    calls_library=no
    printf '%s\n' "$symbols" | grep -Eqx "_?slimpthreads_$slow_call" && calls_slow=yes
    printf '%s\n' "$symbols" | grep -Eqx "_?slimpthreads_$library_call" && calls_library=yes
    if [ -z "$symbols" ]; then
        fail "-$level: no code of $function found in $object"
    elif [ "$level" = O0 ] && [ "$calls_library" = yes ] && [ "$calls_slow" = no ]; then
        pass "-O0: $function calls the library's $library_call (not inlined)"
    elif [ "$level" != O0 ] && [ "$calls_slow" = yes ] && [ "$calls_library" = no ]; then
        pass "-$level: $function is the inline path ($slow_call past it, no $library_call)"
    else
        fail "-$level: $function: calls $slow_call: $calls_slow, calls $library_call: $calls_library"
        printf '%s\n' "$symbols" | head -n 10
    fi
}

for level in O0 O2; do
    object=tests/suites/once_cond_inline-$level.o
    if [ ! -f "$object" ]; then
        fail "no $object (tests/tests.mk builds it for test_once_cond_inline_$level)"
        continue
    fi
    check_slow_path "$level" "$object" inline_once once_slow pthread_once
    check_slow_path "$level" "$object" inline_cond_signal cond_signal_slow pthread_cond_signal
    check_slow_path "$level" "$object" inline_cond_broadcast cond_broadcast_slow pthread_cond_broadcast
    check_slow_path "$level" "$object" inline_call_once once_slow call_once
    check_slow_path "$level" "$object" inline_cnd_signal cond_signal_slow cnd_signal
    check_slow_path "$level" "$object" inline_cnd_broadcast cond_broadcast_slow cnd_broadcast
done

shtest_finish inline_levels
