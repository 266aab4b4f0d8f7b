#!/usr/bin/env bash
# ctest concurrent_sessions_test (label integration): a real eb-coordinator
# under many sessions and tests at once, for the sanitizer trees above all.
# The other integration tests start one or two agents; gRPC's threads then
# rarely hand one call between them, and ThreadSanitizer never saw the
# orderings of the callback API that CI's runs hit twice (common/rpc/
# reactor_order.h; tests/sanitize/tsan.supp). Here hundreds of sessions
# start at once, tests run side by side, agents vanish mid-rendezvous and
# the Gloo exchange runs, each against a fresh coordinator that must stay
# up, stop cleanly and log no sanitizer finding. There are no time limits:
# scale_benchmark_test measures, this one looks for races, leaks and
# undefined behaviour.
#
#   tests/integration/concurrent_sessions_test.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: concurrent_sessions_test.sh BIN_DIR}
work=$(mktemp -d /tmp/ebnccl-sessions-test-XXXXXX)
# shellcheck source=tests/integration/lib/coordinator_under_load.sh
source "$(dirname "$0")/lib/coordinator_under_load.sh"
trap 'stop_coordinator; rm -rf "$work"' EXIT

# Each run is a fresh coordinator: a race at a session's start happened in
# about half of such runs before it was understood, so four give a
# regression four chances.
for i in 1 2 3 4; do
  run "sessions-$i" --agents 512 --ranks-per-agent 1 --concurrent-tests 64 --rounds 2
  echo "ok:   512 sessions at once, 2 rounds of 64 tests side by side (coordinator $i of 4)"
done
run vanish --agents 64 --ranks-per-agent 2 --concurrent-tests 4 --vanish 3 --init-timeout-ms 5000
echo "ok:   3 agents vanish mid-rendezvous; the verdict names exactly them"
run slow --agents 32 --ranks-per-agent 2 --concurrent-tests 8 --slow-agents 4 --slow-ms 300
echo "ok:   slow agents among 8 tests side by side"
run gloo --agents 32 --ranks-per-agent 4 --transport gloo --concurrent-tests 4 --rounds 2
echo "ok:   4 Gloo tests side by side, 2 rounds"
echo "concurrent_sessions_test: the coordinator stayed up, stopped cleanly and logged no finding"
