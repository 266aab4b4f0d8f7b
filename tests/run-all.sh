#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite:
# unit (with the style checks), tidy (clang-tidy over the pure cores),
# integration (real processes on loopback) and
# netns (several hosts in network namespaces; skipped unless root), the chaos
# battery, and, when asked, the unit and integration tests again under
# AddressSanitizer + UBSan (with a short run of every fuzz target) and under
# ThreadSanitizer (tests/sanitize/run.sh). .ci/run calls this.
#   EB_SANITIZERS="address,undefined"          ASan + UBSan and the fuzz targets
#   EB_SANITIZERS="address,undefined thread"   and ThreadSanitizer
#   EB_FUZZ_SECONDS=30                         per fuzz target; 0 skips fuzzing
# Default: none yet. Both join CI once a full run of each is clean on a quiet
# machine (docs/DESIGN.md, "Sanitizers and static checks").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
deploy/scripts/install-deps.sh
deploy/scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" -L 'unit|integration|netns|tidy' "$@")
# The chaos battery: a short seeded run of random faults (docs/RELIABILITY.md).
(cd build && ctest --output-on-failure -L chaos "$@")
for sanitizer in ${EB_SANITIZERS-}; do
  tests/sanitize/run.sh "$sanitizer"
done
