#!/bin/sh
# Regenerate the build system: ./autogen.sh && ./configure --host=x86_64-w64-mingw32
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
