#!/bin/sh
# Never a silent ABI mix (README.md, "Never a silent mix with winpthreads"): our
# headers and our library are tied by their link names, slimpthreads next to the
# winpthreads that the compiler's own libraries use works, and what cannot work
# stops the build with one message that says what to do.
#  - a program compiled against winpthreads' <pthread.h> does not link with our
#    library alone, and one compiled against ours does not link with winpthreads;
#  - abi_prog.c (_Thread_local, -fopenmp, our mutex and sem_t inside OpenMP, and a
#    winpthreads translation unit beside ours) runs under Wine, built with the
#    win32- and the posix-model gcc, dynamic and -static, through the -lpthread
#    alias and through -lslimpthreads;
#  - C++ on a posix-model libstdc++ and a winpthreads header included before ours
#    each give exactly one error, ours.
set -u
: "${top_builddir:?}" "${top_srcdir:?}" "${CC:?}" "${NM:?}"
. "$top_srcdir/tests/shell/shtest.sh"
include=$top_srcdir/include

# The libraries as `make install` lays them out.
lib=$work/lib
mkdir -p "$lib"
for file in "$top_builddir"/libpthread.a "$top_builddir"/libpthread.dll.a \
    "$top_builddir"/.libs/libslimpthreads.a "$top_builddir"/.libs/libslimpthreads.dll.a; do
    if [ -f "$file" ]; then cp "$file" "$lib/"; else fail "not built: $file"; fi
done
dll=$(ls "$top_builddir"/.libs/libslimpthreads-*.dll 2>/dev/null | head -n 1)

# The compilers: the configured one, and Debian's two thread models of it.
base=${CC%% *}
compilers=$CC
# A compiler with words of its own ("clang --target=..."): the loops below
# take one word per compiler, so it is called through a one-word script.
if [ "$base" != "$CC" ]; then
    printf '#!/bin/sh\nexec %s "$@"\n' "$CC" >"$work/configured-cc"
    chmod +x "$work/configured-cc"
    compilers=$work/configured-cc
fi
case $base in
*-gcc)
    if command -v "$base-win32" >/dev/null 2>&1; then compilers=$base-win32; fi
    if command -v "$base-posix" >/dev/null 2>&1; then compilers="$compilers $base-posix"; fi
    ;;
esac
model_of() { # compiler: win32 or posix, from what it says of itself
    if $1 -v 2>&1 | grep -q '^Thread model: posix'; then echo posix; else echo win32; fi
}

# A link that must fail for want of our or winpthreads' entry points: passes when
# the command fails and its output has an undefined reference matching symbol.
check_link_misses() { # description, symbol, command...
    description=$1
    symbol=$2
    shift 2
    if "$@" >"$work/link.out" 2>&1; then
        fail "$description: links"
    elif grep -q "undefined reference to .*$symbol" "$work/link.out"; then
        pass "$description: undefined reference to $symbol"
    else
        fail "$description: fails for another reason"
        head -n 10 "$work/link.out"
    fi
}

# Errors in a compiler's output: exactly one, and it is ours. A diagnostic is
# "FILE:LINE:COLUMN: error: ..." with GCC and clang alike; clang also echoes the
# source line and ends with "1 error generated.", which are not errors.
one_error_of_ours() { # description, file
    errors=$(grep -cE ': (fatal )?error: ' "$2")
    if [ "$errors" -eq 1 ] && grep -qE ': (fatal )?error: .*slimpthreads: ' "$2"; then
        pass "$1: one error, ours: $(grep -o 'slimpthreads: [^.]*' "$2" | head -n 1)"
    else
        fail "$1: expected only slimpthreads' #error, got $errors error lines"
        head -n 20 "$2"
    fi
}

# ---- 1. Header and library are tied by the link names ----
symbols=$($NM -g --defined-only "$lib/libslimpthreads.a" 2>/dev/null | awk 'NF == 3 {print $3}' | sed 's/^_//')
if printf '%s\n' "$symbols" | grep -qx 'slimpthreads_pthread_mutex_lock' &&
    ! printf '%s\n' "$symbols" | grep -Eq '^(pthread|sem|sched|clock|nanosleep|sig)'; then
    pass "the library defines slimpthreads_pthread_mutex_lock and no plain pthread_* name"
else
    fail "the library's public names are not all slimpthreads_*"
fi
cat >"$work/plain.c" <<'PROGRAM'
#include <pthread.h>
static void *run(void *argument) { return argument; }
int main(void)
{
    pthread_t thread;
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mutex);
    pthread_mutex_unlock(&mutex);
    return pthread_create(&thread, 0, run, 0) || pthread_join(thread, 0);
}
PROGRAM
for cc in $compilers; do
    model=$(model_of "$cc")
    # A forgotten -I: winpthreads' header, our library only. The posix-model
    # driver adds winpthreads' -lpthread itself, so there it is simply a
    # winpthreads program; the win32 model links no winpthreads by itself.
    if [ "$model" = win32 ]; then
        check_link_misses "$cc: winpthreads' <pthread.h> + our library" pthread_create \
            $cc -static "$work/plain.c" "$lib/libslimpthreads.a" $synch_libs $configured_ldflags \
            -o "$work/plain.exe"
    fi
    # Our header, winpthreads' library only.
    check_link_misses "$cc: our <pthread.h> + winpthreads" slimpthreads_pthread_create \
        $cc -static -I"$include" "$work/plain.c" -lwinpthread $configured_ldflags -o "$work/plain.exe"
done

# -lwinpthread earlier on the link line cannot capture our callers any more.
for cc in $compilers; do
    if $cc -static -I"$include" "$work/plain.c" -lwinpthread "$lib/libslimpthreads.a" $synch_libs \
        $configured_ldflags -o "$work/first.exe" >"$work/first.out" 2>&1 &&
        $NM "$work/first.exe" | grep -q ' T _\{0,1\}slimpthreads_pthread_mutex_lock$' &&
        ! $NM "$work/first.exe" | grep -q ' T _\{0,1\}pthread_mutex_lock$'; then
        pass "$cc: -lwinpthread before our library: the program still calls only ours"
    else
        fail "$cc: -lwinpthread before our library"
        head -n 10 "$work/first.out"
    fi
done

# ---- 2. C next to the winpthreads of libgcc (emutls) and libgomp ----
run_abi_prog() { # name, directory, exe
    check_run "$1: runs" 'checks passed' "$2" "./$3"
}
case $base in *-gcc) gcc_family=yes ;; *) gcc_family=no ;; esac
for cc in $compilers; do
    [ "$gcc_family" = yes ] || break
    model=$(model_of "$cc")
    name=${cc##*/}
    dir=$work/run-$name
    mkdir -p "$dir"
    # The compiler's own DLLs (libgomp, libgcc_s), winpthreads' and ours, for the dynamic runs.
    runtime=$(dirname "$($cc -print-libgcc-file-name)")
    cp "$runtime"/*.dll "$dir/" 2>/dev/null
    winpthread_dll=$($cc -print-file-name=libwinpthread-1.dll)
    [ -f "$winpthread_dll" ] && cp "$winpthread_dll" "$dir/"
    [ -n "$dll" ] && cp "$dll" "$dir/"
    if ! $cc -std=gnu11 -O2 -c "$top_srcdir/tests/fixtures/abi_winpthreads.c" -o "$work/winp-$name.o" \
        >"$work/winp.out" 2>&1; then
        fail "$cc: abi_winpthreads.c does not compile"
        head -n 10 "$work/winp.out"
        continue
    fi
    for linkage in dynamic static; do
        static=
        [ "$linkage" = static ] && static=-static
        # Everything at once, through the -lpthread alias (-fopenmp adds -pthread).
        exe=omp-$linkage.exe
        rm -f "$dir/$exe"
        check "$cc ($model model) -fopenmp $linkage, with a winpthreads unit: builds" \
            $cc $static -std=gnu11 -O2 -fopenmp -DWITH_WINPTHREADS -I"$include" \
            "$top_srcdir/tests/fixtures/abi_prog.c" "$work/winp-$name.o" -L"$lib" $configured_ldflags \
            -o "$dir/$exe"
        [ -f "$dir/$exe" ] && run_abi_prog "$name-omp-$linkage" "$dir" "$exe"
        # Both libraries are in the static program, each under its own names.
        if [ "$linkage" = static ] && [ -f "$dir/$exe" ]; then
            linked=$($NM "$dir/$exe" 2>/dev/null | awk '$2 == "T" {print $3}' | sed 's/^_//')
            if printf '%s\n' "$linked" | grep -qx pthread_mutex_lock &&
                printf '%s\n' "$linked" | grep -qx slimpthreads_pthread_mutex_lock; then
                pass "$name-omp-static: winpthreads' pthread_mutex_lock and ours side by side"
            else
                fail "$name-omp-static: not both pthread_mutex_lock and slimpthreads_pthread_mutex_lock"
            fi
        fi
        # _Thread_local and our threads only, through -lslimpthreads (pkg-config's way).
        exe=tls-$linkage.exe
        rm -f "$dir/$exe"
        check "$cc ($model model) _Thread_local $linkage, -lslimpthreads: builds" \
            $cc $static -std=gnu11 -O2 -I"$include" "$top_srcdir/tests/fixtures/abi_prog.c" \
            -L"$lib" -lslimpthreads $synch_libs $configured_ldflags -o "$dir/$exe"
        [ -f "$dir/$exe" ] && run_abi_prog "$name-tls-$linkage" "$dir" "$exe"
    done
done

# ---- 3. C++: a posix-model libstdc++ stops the build; the win32 model builds ----
cxx_base=$(printf '%s' "$base" | sed 's/-gcc$/-g++/')
cat >"$work/cxx.cpp" <<'PROGRAM'
#include <pthread.h>
#include <mutex>
static std::mutex library_mutex;
int main()
{
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    library_mutex.lock();
    library_mutex.unlock();
    return pthread_mutex_lock(&mutex);
}
PROGRAM
if command -v "$cxx_base-posix" >/dev/null 2>&1; then
    for order in pthread-first mutex-first; do
        src=$work/cxx.cpp
        if [ "$order" = mutex-first ]; then
            { echo '#include <mutex>'; cat "$work/cxx.cpp"; } >"$work/cxx2.cpp"
            src=$work/cxx2.cpp
        fi
        if "$cxx_base-posix" -I"$include" -c "$src" -o "$work/cxx.o" >"$work/cxx.out" 2>&1; then
            fail "$cxx_base-posix ($order): C++ on a posix-model libstdc++ compiles with our headers"
        else
            one_error_of_ours "$cxx_base-posix ($order)" "$work/cxx.out"
        fi
    done
fi
if command -v "$cxx_base-win32" >/dev/null 2>&1; then
    sed '/<mutex>/d; /library_mutex/d' "$work/cxx.cpp" >"$work/cxx-win32.cpp"
    for std in c++98 c++11 c++14 c++17 c++20; do
        check "$cxx_base-win32 -std=$std -pedantic: a C++ program builds" \
            "$cxx_base-win32" -std=$std -pedantic -Wall -Wextra -Werror -static -I"$include" \
            "$work/cxx-win32.cpp" -L"$lib" -lslimpthreads $synch_libs $configured_ldflags \
            -o "$work/cxx-$std.exe"
    done
fi

# ---- 6. A winpthreads header before ours: one message ----
winpthreads_header=$(echo '#include <pthread.h>' | $CC -E -x c - 2>/dev/null |
    sed -n 's|^# [0-9]* "\(.*/pthread\.h\)".*|\1|p' | head -n 1)
sysroot_include=$(dirname "${winpthreads_header:-/none/pthread.h}")
if [ -f "$sysroot_include/pthread.h" ]; then
    for header in pthread semaphore; do
        printf '#include "%s/%s.h"\n#include <pthread.h>\n#include <semaphore.h>\nint main(void) { return 0; }\n' \
            "$sysroot_include" "$header" >"$work/order.c"
        if $CC -I"$include" -c "$work/order.c" -o "$work/order.o" >"$work/order.out" 2>&1; then
            fail "winpthreads' <$header.h> before ours compiles"
        else
            one_error_of_ours "winpthreads' <$header.h> before ours" "$work/order.out"
        fi
    done
else
    fail "MinGW-w64's own pthread.h not found"
fi

shtest_finish abi
