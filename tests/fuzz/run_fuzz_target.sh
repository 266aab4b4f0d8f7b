#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS from its committed corpus (ctest -L
# fuzz). New inputs go to WORKDIR/corpus, never into the source tree; a
# crash is saved as WORKDIR/crash-<sha1> (reproduce: TARGET that-file) and
# fails the test.
#   run_fuzz_target.sh TARGET CORPUS WORKDIR SECONDS
set -euo pipefail
target=$1 corpus=$2 workdir=$3 seconds=$4
mkdir -p "$workdir/corpus"
# detect_leaks: every input builds and tears down its own world, so a leak
# is ours. -timeout: one input running longer is a hang (reported as one).
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
exec "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$workdir/" "$workdir/corpus" "$corpus"
