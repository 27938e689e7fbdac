#!/bin/sh
# Set up the emulation that runs aarch64 Windows programs (contrib/wine-arm64.sh):
# qemu-user-static registered with binfmt_misc, and Debian's arm64 Wine in a
# Debian root of its own made by mmdebstrap. Debian packages only; the host's own
# Wine and dpkg architectures are left alone. Idempotent; run as root (from
# contrib/setup-deps.sh). Where this host cannot emulate, one line says so and
# the aarch64 programs will be built, not run; that is not an error.
#
#   SLIM_ARM64_ROOT          where the root goes (default below)
#   SLIM_SIMULATE_NO_ARM64=1 behave as a host that cannot emulate aarch64
set -eu

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
root=${SLIM_ARM64_ROOT:-/opt/slimpthreads-tools/arm64-wine-root}
# Written last into a complete root: a root without it is half made (a killed run).
stamp_name=.slimpthreads-root-complete
binfmt=/proc/sys/fs/binfmt_misc
mirror=http://deb.debian.org/debian

cannot() { # reason
    echo "setup-deps: no aarch64 emulation: $*; aarch64 test programs will be built, not run"
    exit 0
}

# Unmounts whatever a killed mmdebstrap (or a chroot by hand) left mounted under a
# directory, deepest first; fails when something stays mounted, so that no
# `rm -rf` ever runs through a mount into another tree.
unmount_under() { # directory
    for mount_point in $(awk -v d="$1/" 'index($2 "/", d) == 1 { print $2 }' /proc/mounts | sort -r); do
        $SUDO umount "$mount_point" 2>/dev/null || $SUDO umount -l "$mount_point" || true
    done
    [ -z "$(awk -v d="$1/" 'index($2 "/", d) == 1' /proc/mounts)" ]
}

remove_tree() { # directory
    [ -e "$1" ] || return 0
    unmount_under "$1" || return 1
    $SUDO rm -rf --one-file-system "$1"
}

# The root is made beside its place and moved there once complete.
make_root() {
    new=$root.new
    log=$(dirname "$root")/arm64-wine-root.log
    remove_tree "$new" || return 1
    echo "setup-deps: making the arm64 Wine root $root (mmdebstrap, a few minutes; log: $log)"
    $SUDO mkdir -p "$(dirname "$root")"
    $SUDO mmdebstrap --arch=arm64 --variant=minbase --include=wine,wine64 \
        --aptopt='Apt::Install-Recommends "false"' --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
        bookworm "$new" "$mirror" >"$log" 2>&1 || return 1
    [ -x "$new/usr/lib/wine/wine64" ] || return 1
    date -u '+made by contrib/setup-arm64.sh on %Y-%m-%d %H:%M UTC' | $SUDO tee "$new/$stamp_name" >/dev/null
    remove_tree "$root" || return 1
    $SUDO mv "$new" "$root"
}

if [ -n "${SLIM_SIMULATE_NO_ARM64:-}" ]; then
    cannot "simulated: SLIM_SIMULATE_NO_ARM64 is set"
fi

export DEBIAN_FRONTEND=noninteractive
# arch-test must be named: mmdebstrap needs it and recommends are off. llvm-14
# gives the aarch64 leg nm, objdump and windres that read and write aarch64 files.
$SUDO apt-get install -y -q --no-install-recommends qemu-user-static mmdebstrap arch-test binfmt-support llvm-14

if ! grep -q " $binfmt binfmt_misc " /proc/mounts; then
    $SUDO mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null ||
        cannot "binfmt_misc cannot be mounted here"
fi
if [ ! -f "$binfmt/qemu-aarch64" ]; then
    # The F flag (POF) opens the interpreter now, so that it also works inside the root.
    $SUDO sh -c "cat /usr/lib/binfmt.d/qemu-aarch64.conf >$binfmt/register" 2>/dev/null ||
        cannot "the kernel refused to register qemu-aarch64 with binfmt_misc"
fi
grep -qx enabled "$binfmt/qemu-aarch64" || cannot "qemu-aarch64 is registered but disabled"

if [ ! -f "$root/$stamp_name" ]; then
    make_root || cannot "the arm64 Wine root could not be made (see $(dirname "$root")/arm64-wine-root.log)"
fi
if ! output=$($SUDO chroot "$root" /bin/true 2>&1); then
    cannot "the aarch64 interpreter fails in $root: $(printf '%s\n' "$output" | tail -n 1)"
fi
echo "setup-deps: aarch64 programs run under emulation (arm64 Wine in $root)"
