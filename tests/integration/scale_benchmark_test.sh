#!/usr/bin/env bash
# ctest scale_benchmark_test (label integration): the reduced benchmark of
# the coordinator at scale (issue 15; docs/BENCHMARKS.md, "Coordinator at
# scale"). A real eb-coordinator and eb-load-generator with 256 simulated
# agents x 8 workers connecting at once and one test over all 2,048 ranks;
# then 64 agents where 3 vanish mid-rendezvous; then 256 Gloo ranks, whose
# address exchange is one Set and one sliced Wait per rank (gloo's own
# connectFullMesh made ~130,800 calls and took ~12 s). The limits are about 10x
# the figures measured on a busy 2-core machine, so that noise passes and a
# cost that grows with the square of the rank count (a scan of every rank
# or node per event) fails.
#
#   tests/integration/scale_benchmark_test.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: scale_benchmark_test.sh BIN_DIR}
work=$(mktemp -d /tmp/ebnccl-scale-test-XXXXXX)
# shellcheck source=tests/integration/lib/coordinator_under_load.sh
source "$(dirname "$0")/lib/coordinator_under_load.sh"
trap 'stop_coordinator; rm -rf "$work"' EXIT

# check NAME PYTHON-EXPRESSION MESSAGE: the expression over the run's JSON
# (r, and g = its last round) must hold.
check() {
  python3 - "$work/$1.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["rounds"][-1]
ok = eval(sys.argv[2])
print(("ok:   " if ok else "FAIL: ") + sys.argv[3] + "  [" + sys.argv[2] + "]")
print("      register_s=%.3f failed_attempts=%d joined_s=%.3f verdict_s=%.3f coordinator_cpu_s=%.3f"
      % (r["register_s"], r["register_failed_attempts"], g["joined_s"], g["verdict_s"],
         g.get("coordinator_cpu_s", -1)))
sys.exit(0 if ok else 1)
PY
}

run full --agents 256 --ranks-per-agent 8
check full 'r["all_registered"] and g["passed"] == 1' "256 agents register; the 2,048-rank test passes"
check full 'r["register_s"] <= 5' "registration of 256 agents at once within 5 s"
check full '0 <= g["joined_s"] <= 5' "RunTest -> all 2,048 ranks JOINED within 5 s"
check full '0 <= g["verdict_s"] <= 6' "RunTest -> verdict within 6 s"
check full 'g.get("coordinator_cpu_s", 0) <= 2.5' "the coordinator spends at most 2.5 CPU-s on the test"

run vanish --agents 64 --ranks-per-agent 8 --vanish 3 --init-timeout-ms 20000
check vanish 'g["vanished_named_exactly"]' "3 agents vanish mid-rendezvous: the verdict names exactly them"
check vanish '0 <= g["verdict_s"] <= 10' "and it comes well before the init deadline"
run gloo --agents 32 --ranks-per-agent 8 --transport gloo
check gloo 'g["passed"] == 1' "a 256-rank Gloo test passes"
check gloo 'g["rendezvous_calls"] == 2 * 256' "the Gloo address exchange is 2 calls per rank, not 2 per peer"
check gloo '0 <= g["joined_s"] <= 3' "RunTest -> all 256 Gloo ranks JOINED within 3 s"

# Each rank reports PROGRESS every 250 ms while a size lasts: 128 ranks over
# a 1 s size send at least one each, and at most one a period (5: the
# first comes anywhere in the first period).
run progress --agents 16 --ranks-per-agent 8 --size-ms 1000 --iterations 1000
check progress 'g["passed"] == 1' "a 128-rank test whose size lasts 1 s, with PROGRESS, passes"
check progress '128 <= g["progress_events"] <= 128 * 5' "every rank reported PROGRESS, at most once a period"
# The coordinator reads them: a size that would take 10 s against a 2 s step
# deadline is judged too slow from the calls reported; without the reports
# the same size is a hang (NO_PROGRESS at the step deadline).
slow=${EB_TEST_SLOWDOWN:-1}
step_ms=$((2000 * slow)) size_ms=$((10000 * slow))
run too_slow --agents 4 --size-ms "$size_ms" --iterations 1000 --step-timeout-ms "$step_ms" \
  --expect-failure-kind FAILURE_KIND_TOO_SLOW
check too_slow 'g["first_failure_kind"] == "FAILURE_KIND_TOO_SLOW" and g["progress_events"] > 0' \
  "with PROGRESS, a size longer than the step deadline is too slow"
run no_reports --agents 4 --size-ms "$size_ms" --iterations 1000 --step-timeout-ms "$step_ms" \
  --progress false --expect-failure-kind FAILURE_KIND_NO_PROGRESS
check no_reports 'g["first_failure_kind"] == "FAILURE_KIND_NO_PROGRESS" and g["progress_events"] == 0' \
  "without PROGRESS, the same size is a hang"
echo "scale_benchmark_test: all checks hold"
