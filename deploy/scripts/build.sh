#!/usr/bin/env bash
# Configures and builds ebnccl into build/ (binaries in build/bin).
#   deploy/scripts/build.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEB_WERROR=ON "$@" >/dev/null
ninja -C build -j"$jobs"
