# wine-arm64.sh - aarch64 Windows programs (PE Machine 0xAA64) under emulation,
# for contrib/wine-run.sh, which sources this file. Debian's arm64 Wine lives in
# its own Debian root (contrib/setup-deps.sh makes it with mmdebstrap) and runs
# through qemu-user-static, which binfmt_misc starts for every aarch64 ELF file.
#
# Mounts. Wine needs /proc in the root, and the program, its working directory
# and the prefix must be visible inside the root at their own paths. Those mounts
# are made in a private mount namespace (unshare --mount) that lives as long as
# the process run in it: nothing is ever mounted in the host's namespace, so no
# mount is left behind by a killed run, and an `rm -rf` of the root (or of a
# clone) from the host never reaches the source tree through a bind mount.
# The persistent wineserver runs in a namespace of its own; its clients find it
# through its socket in the root's /tmp, which every namespace shares.
#
# Environment:
#   SLIM_ARM64_ROOT   the root (default /opt/slimpthreads-tools/arm64-wine-root);
#                     it counts only with the stamp setup-deps.sh writes last
#   SLIM_ARM64_PREFIX the arm64 Wine prefix (default: $WINEPREFIX-arm64; an x86
#                     prefix cannot run arm64 programs)
#   SLIM_ARM64_SHARE  more host directories to show inside the root (space separated)
#   SLIM_SIMULATE_NO_ARM64=1  behave as a host that cannot emulate aarch64

: "${SLIM_ARM64_ROOT:=/opt/slimpthreads-tools/arm64-wine-root}"
: "${SLIM_ARM64_PREFIX:=$WINEPREFIX-arm64}"
export SLIM_ARM64_ROOT SLIM_ARM64_PREFIX
arm64_stamp=$SLIM_ARM64_ROOT/.slimpthreads-root-complete
arm64_pidfile=$SLIM_ARM64_PREFIX.server.pid
arm64_loader=/usr/lib/wine/wine64
# The server itself: Debian's wineserver script would add -p0 (and cost one more
# emulated shell).
arm64_server=/usr/lib/wine/wineserver64
arm64_binfmt=/proc/sys/fs/binfmt_misc/qemu-aarch64
# 0.2 s each: an emulated server has listened within a second or two.
arm64_server_start_tries=150

# Why this host cannot run aarch64 programs, in one line; nothing when it can.
arm64_why_not() {
    why=
    if [ -n "${SLIM_SIMULATE_NO_ARM64:-}" ]; then
        why="simulated: SLIM_SIMULATE_NO_ARM64 is set"
    elif [ ! -f "$arm64_stamp" ]; then
        why="no complete arm64 Wine root at $SLIM_ARM64_ROOT; contrib/setup-deps.sh makes it"
    elif ! grep -qx enabled "$arm64_binfmt" 2>/dev/null; then
        why="qemu-aarch64 is not registered with binfmt_misc"
    elif ! unshare --mount true 2>/dev/null; then
        why="no private mount namespace: unshare --mount needs root"
    elif ! output=$(chroot "$SLIM_ARM64_ROOT" /bin/true 2>&1); then
        why="the aarch64 interpreter fails: $(printf '%s\n' "$output" | tail -n 1)"
    fi
    [ -z "$why" ] || echo "this host cannot emulate aarch64 ($why)"
}

# The host directories shown inside the root, one a line, none inside another.
# "/" and "/tmp" are never covered: they would hide the root's own files and
# the wineserver's socket directory.
arm64_shared_dirs() { # program
    program_dir=$(cd "$(dirname "$1")" && pwd)
    for dir in "$(dirname "$SLIM_ARM64_PREFIX")" "$program_dir" "$(pwd)" ${SLIM_ARM64_SHARE:-}; do
        case $dir in / | /tmp | /tmp/) ;; *) echo "$dir" ;; esac
    done | sort -u | awk '{ for (k in kept) if (index($0 "/", k "/") == 1) next; kept[$0]; print }'
}

# Runs a command of the root in a private mount namespace, from a directory;
# replaces the calling shell (run it in a subshell to go on). $arm64_timeout,
# when set, bounds it. The command never holds the server lock (fd 8): the
# server, and the services wineboot leaves running, would block every later run.
arm64_in_root() { # program whose directory is shown, working directory, command...
    binds=$(arm64_shared_dirs "$1")
    shift
    # shellcheck disable=SC2086 # the timeout is a command with words
    exec ${arm64_timeout:-} env SLIM_ARM64_BINDS="$binds" \
        unshare --mount --propagation private sh "$script_dir/wine-run.sh" --arm64-inside "$@" 8>&-
}

# Inside the new namespace: the mounts, then the command in the root.
arm64_inside() { # working directory, command...
    wd=$1
    shift
    mount -t proc proc "$SLIM_ARM64_ROOT/proc" || exit 1
    old_ifs=$IFS
    IFS='
'
    for dir in $SLIM_ARM64_BINDS; do
        mkdir -p "$SLIM_ARM64_ROOT$dir" && mount --bind "$dir" "$SLIM_ARM64_ROOT$dir" || exit 1
    done
    IFS=$old_ifs
    exec unshare --root="$SLIM_ARM64_ROOT" --wd="$wd" \
        env WINEPREFIX="$SLIM_ARM64_PREFIX" WINESERVER="$arm64_server" "$@"
}

# The server's socket in the root: wine names its directory after the prefix's
# device and inode numbers, in hex, under a directory of /tmp that Debian's Wine
# makes with a random name and writes into the prefix's file "wineserver".
arm64_socket() {
    [ -f "$SLIM_ARM64_PREFIX/wineserver" ] || return 0
    set -- "$(cat "$SLIM_ARM64_PREFIX/wineserver")" $(stat -L -c '%D %i' "$SLIM_ARM64_PREFIX")
    printf '%s/tmp/%s/server-%s-%x/socket' "$SLIM_ARM64_ROOT" "$1" "$2" "$3"
}

# Waits (sleeping) until the server listens; a client that came sooner would start
# a second server of its own.
arm64_wait_for_server() {
    tries=$arm64_server_start_tries
    while [ "$tries" -gt 0 ] && [ ! -S "$(arm64_socket)" ] && arm64_server_alive; do
        sleep 0.2
        tries=$((tries - 1))
    done
    [ -S "$(arm64_socket)" ]
}

arm64_server_alive() {
    [ -f "$arm64_pidfile" ] && kill -0 "$(cat "$arm64_pidfile")" 2>/dev/null
}

# The persistent wineserver (-p60, as for x86), and the prefix made once, under
# a lock so that parallel tests share them.
arm64_start_server() {
    mkdir -p "$SLIM_ARM64_PREFIX"
    exec 8>"$SLIM_ARM64_PREFIX.lock"
    command -v flock >/dev/null 2>&1 && flock 8
    if ! arm64_server_alive; then
        ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
        (arm64_in_root "$SLIM_ARM64_PREFIX" / "$arm64_server" -f -p60 </dev/null >/dev/null 2>&1) &
        echo $! >"$arm64_pidfile"
        arm64_wait_for_server || say "the arm64 wineserver did not start; each program starts its own"
    fi
    # The persistent server writes system.reg late: a stamp of our own says the
    # prefix is made.
    if [ ! -f "$SLIM_ARM64_PREFIX.made" ]; then
        say "making the arm64 Wine prefix $SLIM_ARM64_PREFIX (once, emulated: 10-20 s)"
        (arm64_in_root "$SLIM_ARM64_PREFIX" / "$arm64_loader" wineboot >/dev/null 2>&1) &&
            touch "$SLIM_ARM64_PREFIX.made"
    fi
    exec 8>&-
}

arm64_stop_server() {
    if arm64_server_alive; then
        # -k ends the prefix's services with the server.
        (arm64_in_root "$SLIM_ARM64_PREFIX" / "$arm64_server" -k >/dev/null 2>&1) ||
            kill "$(cat "$arm64_pidfile")" 2>/dev/null || true
    fi
    rm -f "$arm64_pidfile" "$SLIM_ARM64_PREFIX.lock"
}

# Runs an aarch64 program (wine-run.sh's last step), or exits 77 saying why not.
arm64_run() { # program, args...
    if [ -n "${SLIM_SIMULATE_NO_ARM64:-}" ] || ! arm64_server_alive; then
        why=$(arm64_why_not)
        if [ -n "$why" ]; then
            say "$1 not run: $why"
            exit 77
        fi
    fi
    arm64_start_server
    arm64_timeout="timeout --kill-after=10 ${SLIM_TEST_TIMEOUT:-2400}"
    arm64_in_root "$1" "$(pwd)" "$arm64_loader" "$@"
}
