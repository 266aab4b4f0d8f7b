#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite:
# unit, integration (real processes on loopback) and netns (several hosts
# in network namespaces; skipped unless root). .ci/run calls this.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
deploy/scripts/install-deps.sh
deploy/scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" -L 'unit|integration|netns' "$@"
