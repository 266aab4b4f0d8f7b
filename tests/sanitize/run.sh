#!/usr/bin/env bash
# Builds ebnccl with a sanitizer into build-<name>/ and runs the unit and
# integration tests under it (the real coordinator, agents and workers, all
# instrumented). tests/run-all.sh (and so CI) runs it twice:
#   tests/sanitize/run.sh address,undefined   # + the fuzz targets (ctest -L fuzz)
#   tests/sanitize/run.sh thread
# Extra arguments go to ctest. The NCCL transport is left out (it needs a GPU
# to run, and nvcc does not take these flags); so are the packaging test and
# the style checks, which the plain build already ran, the reduced scale
# benchmark, whose limits are for an uninstrumented coordinator, the HTML
# report pages drawn in Chromium (2-4 minutes of a slowed validation and a
# browser; the report writer's code runs under the sanitizers in
# ebctl_report_test). The simulated fleets (label sim) are not built here:
# the plain tree runs them (tests/CMakeLists.txt).
#
# The trees are built with clang-14 at -g1, address,undefined at -O0 and
# thread at -O1 (docs/DESIGN.md, "Sanitizers and static checks" and "Build
# time", has the figures): line numbers in every report. The address,undefined tree
# also carries libFuzzer's instrumentation (-DEB_FUZZ=ON) and the targets of
# tests/fuzz, which then run for EB_FUZZ_SECONDS each (default 30; 0 skips
# them). Without clang it falls back to the default compiler, without fuzzing.
#
# --build-only builds the tree and stops; --test-only runs the tests of a
# tree built before (tests/run-all.sh builds at idle priority while the
# plain tree's tests run, then tests). --fuzz-only (address,undefined)
# builds only the fuzz targets and what they link, and runs only them.
set -euo pipefail
step=all
fuzz_only=false
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --build-only | --test-only) step=${1#--} ;;
    --fuzz-only) fuzz_only=true ;;
    *) echo "tests/sanitize/run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
sanitizer=${1:?usage: tests/sanitize/run.sh [--build-only|--test-only] [--fuzz-only] address,undefined|thread [ctest args...]}
shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
name=${sanitizer//,/-}
build=build-$name
fuzz_seconds=${EB_FUZZ_SECONDS:-30}

# ThreadSanitizer can only find a race where there are threads: its tree
# builds the unit tests that start threads (THREADS in tests/unit; 15 of 71
# executables) and leaves out the single-threaded rest, which the
# address,undefined tree runs. EB_TSAN_UNIT_TESTS=all builds them all.
unit_tests=all
if [[ "$sanitizer" == thread ]]; then unit_tests=${EB_TSAN_UNIT_TESTS:-threads}; fi
# The address,undefined tree at -O0: clang's -O1 with ASan+UBSan costs 2.4
# times the compile of -O0 (eb_scheduler_core's unity file: 42.6 against
# 17.7 CPU-s), which was the bulk of CI's time, and -O0 hides nothing from
# either sanitizer (-O1 may fold a load or a check away). Its tests run
# somewhat slower; EB_TEST_SLOWDOWN already allows for that. TSan keeps -O1:
# there -O0 saves a third of the compile (22.4 against 15.9 CPU-s) and
# slows every instrumented access of the tests it runs last.
opt=-O1
if [[ "$sanitizer" == address* ]]; then opt=${EB_SANITIZE_OPT:--O0}; fi
options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DEB_WERROR=ON -DEB_WITH_NCCL=OFF
  -DEB_SANITIZE="$sanitizer" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt -g1"
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt -g1" -DEB_UNIT_TESTS="$unit_tests")
fuzz=OFF
if command -v clang++-14 >/dev/null; then
  options+=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14)
  if [[ "$sanitizer" == "address,undefined" && "$fuzz_seconds" != 0 ]]; then
    fuzz=ON
  fi
fi
options+=(-DEB_FUZZ=$fuzz -DEB_FUZZ_SECONDS="$fuzz_seconds")
if command -v ccache >/dev/null; then
  options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [[ "$fuzz_only" == true && "$fuzz" != ON ]]; then
  echo "sanitize: --fuzz-only needs clang-14, address,undefined and EB_FUZZ_SECONDS > 0" >&2
  exit 2
fi
if [[ "$step" != test-only ]]; then
  # A tree configured before with another compiler makes CMake delete its
  # cache and configure again WITHOUT the -D options of this command line
  # (the tree would silently be built uninstrumented, or fail to configure):
  # start such a tree anew, as one configured without this sanitizer.
  compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
  if [[ -f "$build/CMakeCache.txt" ]] &&
    { ! grep -qx "EB_SANITIZE:STRING=$sanitizer" "$build/CMakeCache.txt" ||
      { command -v clang++-14 >/dev/null && [[ "$compiler" != *clang++-14 ]]; }; }; then
    rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
  fi
  cmake -S . -B "$build" -G Ninja "${options[@]}" >/dev/null
  if ! grep -qx "EB_SANITIZE:STRING=$sanitizer" "$build/CMakeCache.txt"; then
    echo "sanitize: $build is not configured with EB_SANITIZE=$sanitizer" >&2
    exit 1
  fi
  if [[ "$fuzz_only" == true ]]; then
    ninja -C "$build" -j"$(nproc)" eb_fuzz_targets
  else
    ninja -C "$build" -j"$(nproc)"
  fi
fi
[[ "$step" == build-only ]] && exit 0

supp="$repo/tests/sanitize"
# halt_on_error: a finding fails the test that made it, in whichever process
# (coordinator, agent, worker) it happened: the daemons exit non-zero and
# the test sees it. Findings go to stderr, which the tests keep in the
# process logs they print on failure.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# ignore_noninstrumented_modules: Debian's gRPC, Abseil and Gloo are not
# built with TSan; they pass buffers between their own threads through
# synchronization TSan cannot see, yet their memcpy/free calls would be
# checked against our threads' accesses. Our code's accesses stay checked.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:suppressions=$supp/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
# Instrumented daemons run 2 (ASan) to 5-15 (TSan) times slower: the
# integration tests' clusters tolerate that many more missed heartbeats
# (tests/testutil/local_cluster.cc).
if [[ "$sanitizer" == thread ]]; then export EB_TEST_SLOWDOWN=${EB_TEST_SLOWDOWN:-5}; fi
if [[ "$sanitizer" == address* ]]; then export EB_TEST_SLOWDOWN=${EB_TEST_SLOWDOWN:-3}; fi
cd "$build"
if [[ "$fuzz_only" == true ]]; then
  echo "sanitize: running each fuzz target for ${fuzz_seconds}s"
  ctest --output-on-failure -j"$(nproc)" -L fuzz
  exit 0
fi
# The fuzz targets (${fuzz_seconds}s of CPU each) run in the same ctest as the
# tests: they fill the time the real-process tests spend waiting, instead of
# running after them on an otherwise idle machine.
labels='unit|integration'
if [[ "$fuzz" == ON ]]; then
  labels='unit|integration|fuzz'
  echo "sanitize: running the unit and integration tests under $sanitizer, and each fuzz target for ${fuzz_seconds}s"
else
  echo "sanitize: running the unit and integration tests under $sanitizer"
fi
ctest --output-on-failure -j"$(nproc)" -L "$labels" -LE static \
  -E '^(scale_benchmark_test$|html_report_test\.)' "$@"
