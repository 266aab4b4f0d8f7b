#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite:
# unit (with the style checks), tidy (clang-tidy over the pure cores),
# integration (real processes on loopback) and
# netns (several hosts in network namespaces; skipped unless root), the chaos
# battery, and a short run of every libFuzzer target (ASan + UBSan, from its
# committed corpus). When asked, the unit and integration tests again under
# AddressSanitizer + UBSan and under ThreadSanitizer (tests/sanitize/run.sh).
# .ci/run calls this.
#   EB_FUZZ_SECONDS=20                         per fuzz target (default); 0 skips fuzzing
#   EB_SANITIZERS="address,undefined"          ASan + UBSan run of unit + integration
#   EB_SANITIZERS="address,undefined thread"   and ThreadSanitizer
# The instrumented trees are built at idle priority (nice 19) while the plain
# tree's tests run: the tests keep the CPU whenever they want it and the
# builds take what is left (docs/DESIGN.md, "Sanitizers and static checks").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
sanitizers=${EB_SANITIZERS-}
export EB_FUZZ_SECONDS=${EB_FUZZ_SECONDS:-20}
fuzz=false
if [[ "$EB_FUZZ_SECONDS" != 0 ]] && command -v clang++-14 >/dev/null; then fuzz=true; fi
deploy/scripts/install-deps.sh
deploy/scripts/build.sh

# What the instrumented trees build, one `tests/sanitize/run.sh` argument list per line.
plan=()
for s in $sanitizers; do plan+=("$s"); done
if [[ "$fuzz" == true && " $sanitizers " != *" address,undefined "* ]]; then
  plan+=("--fuzz-only address,undefined")
fi
builder=""
stop_builder() {
  if [[ -n "$builder" ]]; then kill -TERM -- "-$builder" 2>/dev/null || true; fi
  builder=""
}
trap stop_builder EXIT
if ((${#plan[@]} > 0)); then
  # Its own process group (setsid), so that a failing test stops the whole build.
  setsid bash -c 'for args in "$@"; do nice -n 19 tests/sanitize/run.sh --build-only $args || exit 1; done' \
    build-trees "${plan[@]}" >build/sanitizer-trees.log 2>&1 &
  builder=$!
fi

(cd build && ctest --output-on-failure -j"$(nproc)" -L 'unit|integration|netns|tidy' "$@")
# The chaos battery: a short seeded run of random faults (docs/RELIABILITY.md).
(cd build && ctest --output-on-failure -L chaos "$@")

if [[ -n "$builder" ]]; then
  echo "run-all: waiting for the instrumented trees (${plan[*]})"
  status=0
  wait "$builder" || status=$?
  builder=""
  if ((status != 0)); then
    tail -n 80 build/sanitizer-trees.log
    echo "run-all: building the instrumented trees failed (build/sanitizer-trees.log)" >&2
    exit 1
  fi
  for args in "${plan[@]}"; do
    # shellcheck disable=SC2086 # one line holds an option and the sanitizer
    tests/sanitize/run.sh --test-only $args
  done
fi
