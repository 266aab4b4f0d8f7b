#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite:
# unit (with the style checks), tidy (clang-tidy over the pure cores),
# integration (real processes on loopback) and
# netns (several hosts in network namespaces; skipped unless root), and, when
# asked, the unit and integration tests again under AddressSanitizer + UBSan
# and under ThreadSanitizer (tests/sanitize/run.sh). .ci/run calls this.
#   EB_SANITIZERS="address,undefined thread" runs them (default: none yet:
#   they join CI once a full run of each is clean: docs/DESIGN.md, "Sanitizers")
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
deploy/scripts/install-deps.sh
deploy/scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" -L 'unit|integration|netns|tidy' "$@")
for sanitizer in ${EB_SANITIZERS-}; do
  tests/sanitize/run.sh "$sanitizer"
done
