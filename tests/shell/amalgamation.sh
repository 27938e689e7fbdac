#!/bin/sh
# The two-file drop-in (contrib/amalgamate.sh): a program built from nothing but
# the amalgamated pthread.h and pthread.c, the synchronization import library
# configure found (-lsynchronization) and the compiler's own headers, with the
# flags different projects use, runs under Wine and owes nothing to
# winpthreads. The header also compiles as C++ and -pedantic, and
# the include order it documents is enforced with a clear #error. The sched.h
# and semaphore.h written next to it give a file that includes only those our
# types; and the header takes git's stand-in signal definitions as they are.
set -u
: "${top_srcdir:?}" "${CC:?}" "${OBJDUMP:?}" "${NM:?}"
. "$top_srcdir/tests/shell/shtest.sh"
drop=$work/vendor
program=$top_srcdir/tests/fixtures/dropin_prog.c

if sh "$top_srcdir/contrib/amalgamate.sh" "$top_srcdir" "$drop" >"$work/out" 2>&1 &&
    [ -f "$drop/pthread.h" ] && [ -f "$drop/pthread.c" ] && [ -f "$drop/threads.h" ]; then
    pass "contrib/amalgamate.sh writes pthread.h, pthread.c and threads.h"
else
    fail "contrib/amalgamate.sh"
    cat "$work/out"
    shtest_finish amalgamation
fi
if [ "$(ls "$drop" | tr '\n' ' ')" = "pthread.c pthread.h sched.h semaphore.h threads.h " ]; then
    pass "the drop-in is pthread.h, pthread.c, threads.h and the one-line sched.h and semaphore.h"
else
    fail "the drop-in holds other files: $(ls "$drop")"
fi

# The library object alone, built warning-free, defines nothing outside our names.
check "pthread.c compiles with -O2 -Wall -Wextra -Werror" \
    $CC -O2 -Wall -Wextra -Werror -I"$drop" -c "$drop/pthread.c" -o "$work/pthread.o"
# git's DEVELOPER=1 compiles its compat/win32/pthread.c as gnu99 -pedantic -Werror.
check "pthread.c compiles with -std=gnu99 -pedantic -Werror (git's DEVELOPER flags)" \
    $CC -O2 -std=gnu99 -pedantic -Wall -Wextra -Werror -I"$drop" -c "$drop/pthread.c" \
    -o "$work/pthread_pedantic.o"
symbols=$($NM -g --defined-only "$work/pthread.o" 2>/dev/null | awk 'NF == 3 {print $3}' | sed 's/^_//')
link_prefix=$(sed -n 's/^#define SLIMPTHREADS_LINK_PREFIX \(slimpthreads_[A-Za-z0-9_]*\)$/\1/p' "$drop/pthread.h" | head -n 1)
stray=$(echo "$symbols" | grep -v "^${link_prefix:-none}" | head -5)
if [ -z "$link_prefix" ] || [ "$link_prefix" = slimpthreads_ ]; then
    fail "the drop-in has no link prefix of its own (found: '$link_prefix')"
elif ! echo "$symbols" | grep -qx "${link_prefix}pthread_create"; then
    fail "nm shows no ${link_prefix}pthread_create in pthread.o"
elif [ -n "$stray" ]; then
    fail "pthread.c defines symbols without the prefix $link_prefix: $stray"
else
    pass "every external symbol of pthread.c is ${link_prefix}*, the slim_* helpers are static"
fi

# Programs built the way different projects build: each flag set compiles
# pthread.c and the program together, as a vendoring project would.
build_and_run() { # name, flags...
    name=$1
    shift
    exe=$work/$name.exe
    if ! $CC "$@" -I"$drop" "$program" "$drop/pthread.c" $synch_libs $configured_ldflags -o "$exe" \
        >"$work/$name.build" 2>&1; then
        fail "$name: build failed with: $*"
        head -n 30 "$work/$name.build"
        return
    fi
    pass "$name: builds with: $*"
    if "$OBJDUMP" -p "$exe" | grep -qi 'DLL Name: *lib\(win\|slim\)pthread'; then
        fail "$name: imports a pthreads DLL"
    else
        pass "$name: imports no pthreads DLL"
    fi
    run_dropin_prog "$name" "$exe"
}
build_and_run default -O2 -Wall -Wextra -Werror
build_and_run system-headers-first -DINCLUDE_ORDER=1 -O2 -Wall -Wextra -Werror
build_and_run gnu99-debug -std=gnu99 -O0 -g -Wall -Werror
build_and_run project-defines -std=c11 -O2 -DUNICODE -D_UNICODE -DWIN32_LEAN_AND_MEAN \
    -D_WIN32_WINNT=0x0600 -DNOMINMAX -Wall -Werror

# Two libraries that each vendor the drop-in, in one program: with the same
# copy (they share it), and with a private copy each (-DSLIMPTHREADS_LINK_PREFIX).
vendor_library() { # name, flags...: lib<name>.a = <name>.o + its own pthread.o
    vendor_name=$1
    shift
    printf '#include <pthread.h>\nstatic pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nstatic int n;\nstatic void *add(void *a) { pthread_mutex_lock(&m); n++; pthread_mutex_unlock(&m); return a; }\nint %s_run(void);\nint %s_run(void) { pthread_t t[3]; for (int i = 0; i < 3; i++) if (pthread_create(&t[i], 0, add, 0)) return -1; for (int i = 0; i < 3; i++) pthread_join(t[i], 0); return n; }\n' \
        "$vendor_name" "$vendor_name" >"$work/$vendor_name.c"
    rm -f "$work/lib$vendor_name.a"
    $CC -std=gnu11 -O2 "$@" -I"$drop" -c "$work/$vendor_name.c" -o "$work/$vendor_name.o" &&
        $CC -O2 "$@" -I"$drop" -c "$drop/pthread.c" -o "$work/$vendor_name-pthread.o" &&
        ar rc "$work/lib$vendor_name.a" "$work/$vendor_name.o" "$work/$vendor_name-pthread.o"
}
printf '#include <stdio.h>\nint liba_run(void);\nint libb_run(void);\nint main(void) { int a = liba_run(), b = libb_run(); printf("two vendors: %%d %%d\\n", a, b); return !(a == 3 && b == 3); }\n' \
    >"$work/two_vendors.c"
for variant in shared-copy private-copies; do
    if [ "$variant" = shared-copy ]; then
        vendor_library liba >"$work/vendor.out" 2>&1 && vendor_library libb >>"$work/vendor.out" 2>&1
    else
        vendor_library liba -DSLIMPTHREADS_LINK_PREFIX=liba_pthreads_ >"$work/vendor.out" 2>&1 &&
            vendor_library libb -DSLIMPTHREADS_LINK_PREFIX=libb_pthreads_ >>"$work/vendor.out" 2>&1
    fi || { fail "$variant: the vendoring libraries do not build"; head -n 20 "$work/vendor.out"; continue; }
    if $CC "$work/two_vendors.c" -L"$work" -lliba -llibb $synch_libs $configured_ldflags \
        -o "$work/two-$variant.exe" >"$work/two.out" 2>&1; then
        pass "$variant: two libraries that vendor slimpthreads link into one program"
        check_run "$variant: and both run" 'two vendors: 3 3' "$work" "./two-$variant.exe"
    else
        fail "$variant: two vendoring libraries do not link together"
        head -n 20 "$work/two.out"
    fi
done
if [ -f "$work/libliba.a" ] && $NM "$work/two-private-copies.exe" 2>/dev/null | grep -q 'liba_pthreads_pthread_create' &&
    $NM "$work/two-private-copies.exe" 2>/dev/null | grep -q 'libb_pthreads_pthread_create'; then
    pass "private-copies: each library keeps its own copy"
else
    fail "private-copies: the program does not hold both copies"
fi

# The header on its own: pedantic C, and C++.
printf '#include <pthread.h>\n#include <semaphore.h>\n#include <sched.h>\nstatic pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nstatic pthread_rwlock_t r = PTHREAD_RWLOCK_INITIALIZER;\nstatic pthread_cond_t c = PTHREAD_COND_INITIALIZER;\nint use(void);\nint use(void) { return pthread_mutex_lock(&m) + pthread_rwlock_rdlock(&r) + pthread_cond_signal(&c); }\n' \
    >"$work/header_only.c"
check "pthread.h compiles as C99 -pedantic -Werror" \
    $CC -std=c99 -pedantic -Wall -Wextra -Werror -I"$drop" -c "$work/header_only.c" -o "$work/h.o"
if [ -n "${CXX_FOR_HOST:-}" ]; then
    check "pthread.h compiles as C++11 -pedantic -Werror" \
        $CXX_FOR_HOST -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$drop" \
        -c "$work/header_only.c" -o "$work/hxx.o"
else
    fail "no C++ compiler for the host was found by configure"
fi

# <time.h> and <signal.h> first must still give our pthread_sigmask, not the macro.
printf '#include <time.h>\n#include <signal.h>\n#include <pthread.h>\n#ifdef pthread_sigmask\n#error macro\n#endif\nint f(void);\nint f(void) { sigset_t s; sigfillset(&s); return pthread_sigmask(SIG_BLOCK, &s, 0); }\n' \
    >"$work/signal_first.c"
check "after <signal.h>, pthread_sigmask is our function" \
    $CC -Wall -Werror -I"$drop" -c "$work/signal_first.c" -o "$work/s.o"

# C11: a program on the drop-in threads.h and the same pthread.c, and the
# header alone as pedantic C11 and C17.
cat >"$work/c11_prog.c" <<'EOF'
#include <stdio.h>
#include "threads.h"
static mtx_t mutex;
static cnd_t cond;
static int posted;
static int post(void *argument)
{
    mtx_lock(&mutex);
    posted = 1;
    cnd_signal(&cond);
    mtx_unlock(&mutex);
    return *(int *)argument;
}
int main(void)
{
    thrd_t thread;
    int value = 7, result = 0;
    if (mtx_init(&mutex, mtx_plain) != thrd_success || cnd_init(&cond) != thrd_success ||
        thrd_create(&thread, post, &value) != thrd_success)
        return 1;
    mtx_lock(&mutex);
    while (!posted)
        cnd_wait(&cond, &mutex);
    mtx_unlock(&mutex);
    if (thrd_join(thread, &result) != thrd_success || result != 7)
        return 2;
    printf("c11 drop-in: joined %d\n", result);
    return 0;
}
EOF
if $CC -std=c11 -O2 -Wall -Wextra -Werror -I"$drop" "$work/c11_prog.c" "$drop/pthread.c" \
    $synch_libs $configured_ldflags -o "$work/c11_prog.exe" >"$work/c11.build" 2>&1; then
    pass "a C11 program on the drop-in threads.h builds -std=c11 -Werror"
    check_run "the C11 program on the drop-in threads.h runs" 'c11 drop-in: joined 7' "$work" "$work/c11_prog.exe"
else
    fail "the C11 program on the drop-in threads.h does not build"
    head -n 20 "$work/c11.build"
fi
for std in c11 c17; do
    check "threads.h compiles as $std -pedantic -Werror" \
        $CC -std=$std -pedantic -Wall -Wextra -Werror -I"$drop" -c "$top_srcdir/tests/fixtures/headers_c11.c" \
        -o "$work/h11.o"
done

# A file that includes only <semaphore.h> or <sched.h> finds the drop-in's: the
# sem_t it embeds is ours (MinGW-w64's is one pointer), and a semaphore used
# from it with pthread.c leaves the canaries around it alone.
cat >"$work/semaphore_only.c" <<'EOF'
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#ifndef SLIMPTHREADS_AMALGAMATED_H
#error "<semaphore.h> is MinGW-w64's"
#endif
struct guarded { unsigned char before[16]; sem_t sem; unsigned char after[16]; };
int main(void)
{
    struct guarded g;
    int value = -1, ok, i;
    memset(&g, 0x5a, sizeof g);
    ok = sem_init(&g.sem, 0, 1) == 0 && sem_wait(&g.sem) == 0 && sem_post(&g.sem) == 0 &&
        sem_post(&g.sem) == 0 && sem_getvalue(&g.sem, &value) == 0 && value == 2 &&
        sem_destroy(&g.sem) == 0;
    for (i = 0; i < 16; i++)
        ok = ok && g.before[i] == 0x5a && g.after[i] == 0x5a;
    printf("%s (sizeof(sem_t) %u)\n", ok ? "checks passed" : "FAILED", (unsigned)sizeof(sem_t));
    return !ok;
}
EOF
printf '#include <sched.h>\n#ifndef SLIMPTHREADS_AMALGAMATED_H\n#error MinGW-w64 sched.h\n#endif\nint yield(void);\nint yield(void) { return sched_yield() + sched_get_priority_max(SCHED_OTHER); }\n' \
    >"$work/sched_only.c"
check "a file that includes only <sched.h> gets the drop-in's" \
    $CC -Wall -Werror -I"$drop" -c "$work/sched_only.c" -o "$work/so.o"
if $CC -O2 -Wall -Werror -I"$drop" "$work/semaphore_only.c" "$drop/pthread.c" $synch_libs \
    $configured_ldflags -o "$work/semaphore_only.exe" >"$work/out" 2>&1; then
    check_run "a file that includes only <semaphore.h> uses our sem_t" 'checks passed' "$work" ./semaphore_only.exe
else
    fail "a file that includes only <semaphore.h> does not build with the drop-in"
    head -n 20 "$work/out"
fi

# git's MinGW layer (compat/mingw.h, 2.39; compat/mingw-posix.h later) defines
# sigset_t, SIG_BLOCK and SIG_UNBLOCK (both 0), a sigemptyset macro that does
# nothing and static sigaddset/sigprocmask stubs, then includes <pthread.h>.
# With git's DEVELOPER flags that must compile clean, and the never-filled set
# that git hands to pthread_sigmask must not be read (GCC says so at -O2).
cat >"$work/gitlike.c" <<'EOF'
#include <sys/types.h>
#include <stdint.h>
typedef _sigset_t sigset_t;
#include <signal.h>
#include <time.h>
typedef void (*sig_handler_t)(int);
struct sigaction { sig_handler_t sa_handler; unsigned sa_flags; };
#define sigemptyset(x) (void)0
static inline int sigaddset(sigset_t *set, int signum) { (void)set; (void)signum; return 0; }
#define SIG_BLOCK 0
#define SIG_UNBLOCK 0
static inline int sigprocmask(int how, const sigset_t *set, sigset_t *oldset)
{ (void)how; (void)set; (void)oldset; return 0; }
#include <pthread.h>
int git_like(void);
int git_like(void)
{
    struct sigaction sa;
    sigset_t mask;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    return (int)sa.sa_flags + pthread_sigmask(SIG_BLOCK, &mask, NULL) + sigprocmask(SIG_SETMASK, &mask, NULL);
}
EOF
sed -i 's/^#include <time.h>$/#include <time.h>\n#include <string.h>/' "$work/gitlike.c"
check "after git's stand-in signal definitions, pthread.h compiles with git's DEVELOPER flags" \
    $CC -O2 -std=gnu99 -pedantic -Wpedantic -Wall -Wextra -Werror -Wdeclaration-after-statement \
    -Wstrict-prototypes -Wold-style-definition -Wmissing-prototypes -Wvla -fno-common \
    -I"$drop" -c "$work/gitlike.c" -o "$work/git.o"

# The documented include order is enforced, with our message, for a project
# that copied pthread.h without the sched.h next to it.
mkdir -p "$work/header_alone"
cp "$drop/pthread.h" "$work/header_alone/"
printf '#include <sched.h>\n#include "pthread.h"\n' >"$work/wrong_order.c"
if $CC -I"$work/header_alone" -c "$work/wrong_order.c" -o "$work/w.o" >"$work/out" 2>&1; then
    fail "<sched.h> before the drop-in pthread.h compiled: the include-order #error is missing"
elif grep -q 'slimpthreads: include this pthread.h before' "$work/out"; then
    pass "<sched.h> before the drop-in pthread.h stops with our #error"
else
    fail "<sched.h> before the drop-in pthread.h failed, but not with our #error"
    head -n 10 "$work/out"
fi

shtest_finish amalgamation
