#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the whole test suite: in the
# plain tree the style and deploy checks, tidy (clang-tidy over the pure
# cores), netns (several hosts in network namespaces; skipped unless root),
# the integration tests that need the product build (HTML reports in
# Chromium, the load generator's) and the chaos battery; then the unit and
# integration tests (real processes on loopback) under AddressSanitizer +
# UndefinedBehaviorSanitizer and under ThreadSanitizer (tests/sanitize/run.sh),
# and a short run of every libFuzzer target (from its committed corpus, in the
# ASan + UBSan tree). Without the ASan+UBSan tree (EB_SANITIZERS below), the
# plain tree builds and runs the unit and integration tests itself.
# .ci/run calls this.
#   EB_SANITIZERS="address,undefined thread"   the default
#   EB_TSAN_LABELS='unit|integration'          what the TSan tree runs (default)
#   EB_SANITIZERS="thread"                     TSan only (the fuzz targets then
#                                              get a tree of their own: only them)
#   EB_SANITIZERS=""                           neither (fuzzing still runs)
#   EB_FUZZ_SECONDS=10                         per fuzz target (default); 0 skips fuzzing
# The instrumented trees are unity builds, built one after the other, at idle
# priority (nice 19), while the plain tree's tests run: the tests keep the CPU
# whenever they want it and the builds take what is left. Each tree's tests
# start as soon as it is built, while the next one builds (docs/DESIGN.md,
# "Sanitizers and static checks", and "Build time").
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
sanitizers=${EB_SANITIZERS-address,undefined thread}
tsan_labels=${EB_TSAN_LABELS-unit|integration}
export EB_FUZZ_SECONDS=${EB_FUZZ_SECONDS:-10}
fuzz=false
if [[ "$EB_FUZZ_SECONDS" != 0 ]] && command -v clang++-14 >/dev/null; then fuzz=true; fi
started=$SECONDS
# A line per stage with the time since the start: where CI's minutes go.
stage() { printf 'run-all: [%2d:%02d] %s\n' $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60)) "$*"; }
stage "installing the dependencies"
deploy/scripts/install-deps.sh
# The unit tests are built and run in the ASan+UBSan tree (and those that
# start threads in the TSan tree too): the plain tree then builds none of
# them (EB_UNIT_TESTS, tests/CMakeLists.txt), 40 % of its compile time.
# So are the integration tests (integration_test, EB_INTEGRATION_TESTS): the
# plain tree keeps the tests that need the product build (netns, chaos,
# package, HTML report, load generator), and gives its CPU to the builds.
unit_tests=all
integration_tests=ON
if [[ " $sanitizers " == *" address,undefined "* ]]; then unit_tests=none integration_tests=OFF; fi
# The plain tree with line tables only (-g1) instead of full debug info:
# the same code (GCC's -g never changes what is generated), a faster
# compile and link; and at -O1, which compiles in 27 % less CPU than -O2
# (eb_validation's unity file: 11.1 against 15.3 user-s): no test of this
# tree measures the CPU (the netns hosts' links are shaped far below what
# the CPUs carry, the scale benchmark's limits are generous). The package,
# and the README's run command on a fresh clone, keep -O2 -g. No GPU tests (CI runs none: label gpu) and the programs'
# main.cc at -O0, as the instrumented trees do (CMakeLists.txt).
stage "building the plain tree (unit tests: $unit_tests, integration_test: $integration_tests)"
deploy/scripts/build.sh -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DEB_UNIT_TESTS="$unit_tests" \
  -DEB_INTEGRATION_TESTS="$integration_tests" -DEB_GPU_TESTS=OFF -DEB_PROGRAM_MAINS_AT_O0=ON

# What the instrumented trees build, one `tests/sanitize/run.sh` argument list per line.
plan=()
for s in $sanitizers; do plan+=("$s"); done
if [[ "$fuzz" == true && " $sanitizers " != *" address,undefined "* ]]; then
  plan+=("--fuzz-only address,undefined")
fi
# The builder appends "built <args>" (or "failed <args>") to this file after each tree.
progress=build/sanitizer-trees.progress
: >"$progress"
builder=""
stop_builder() {
  if [[ -n "$builder" ]]; then kill -TERM -- "-$builder" 2>/dev/null || true; fi
  builder=""
}
trap stop_builder EXIT
if ((${#plan[@]} > 0)); then
  # Its own process group (setsid), so that a failing test stops the whole build.
  setsid bash -c 'progress=$1; shift
    for args in "$@"; do
      if ! nice -n 19 tests/sanitize/run.sh --build-only $args; then
        echo "failed $args" >>"$progress"
        exit 1
      fi
      echo "built $args" >>"$progress"
    done' build-trees "$progress" "${plan[@]}" >build/sanitizer-trees.log 2>&1 &
  builder=$!
fi

stage "plain tree: unit (style, deploy), integration (integration_test: $integration_tests), sim, netns and tidy tests"
(cd build && ctest --output-on-failure -j"$(nproc)" -L 'unit|integration|sim|netns|tidy' "$@")
# The chaos battery: a short seeded run of random faults (docs/RELIABILITY.md).
stage "plain tree: the chaos battery"
(cd build && ctest --output-on-failure -L chaos "$@")

# Waits until the builder has built the tree of `args`; fails if it stopped first.
wait_for_tree() {
  local args=$1
  until grep -qxF "built $args" "$progress"; do
    if grep -qxF "failed $args" "$progress" || ! kill -0 "$builder" 2>/dev/null; then
      tail -n 80 build/sanitizer-trees.log
      echo "run-all: building the instrumented tree ($args) failed (build/sanitizer-trees.log)" >&2
      exit 1
    fi
    sleep 2
  done
}
for args in "${plan[@]}"; do
  stage "waiting for the instrumented tree ($args)"
  wait_for_tree "$args"
  stage "testing in the instrumented tree ($args)"
  labels=()
  if [[ "$args" == thread ]]; then labels=(-L "$tsan_labels"); fi
  # shellcheck disable=SC2086 # one line holds an option and the sanitizer
  tests/sanitize/run.sh --test-only $args "${labels[@]}"
done
if [[ -n "$builder" ]]; then wait "$builder" || true; fi
builder=""
stage "done"
