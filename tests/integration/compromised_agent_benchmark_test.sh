#!/usr/bin/env bash
# ctest compromised_agent_benchmark_test (label integration): the reduced
# compromised-agent benchmark (issue 32, "Tests"; docs/BENCHMARKS.md section
# 9, round 10). A real eb-coordinator and eb-load-generator on loopback: 64
# honest agents x 8 workers run one test, first alone (clean), then beside
# one compromised agent that floods the coordinator at 90 % of every
# per-node limit of docs/SECURITY.md (session items and bytes, rendezvous
# calls, keys and values, sessions that never register, free text, log
# answers nobody asked for, events for ranks it does not own) and at the
# end goes over its session budget. What must hold on a loaded 2-core
# machine, under the sanitizers too:
#  - the honest test passes, with no deadline reached (a loose bound, not a
#    timing: the flood shares the cores with everything);
#  - the compromised node is cut off as the docs say (its session ends
#    RESOURCE_EXHAUSTED "session budget", its own test fails naming it);
#  - the coordinator's peak RSS stays under the clean run's plus the
#    documented bound of what one node may make it hold (SECURITY.md,
#    "One compromised node at its limits": its share of its test's
#    rendezvous values (348 KB at 8 ranks; 256 MiB before the bounds
#    followed the test's size) and 16 MiB messages in flight; 512 MiB
#    leaves the sanitizers' quarantine room: +89 MB measured in the plain
#    tree at 279db3d);
#  - its log stays small (refused events are logged once per node and
#    reason every 10 s; free text is cut to 64 KiB before the log).
#
#   tests/integration/compromised_agent_benchmark_test.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: compromised_agent_benchmark_test.sh BIN_DIR}
work=$(mktemp -d /tmp/ebnccl-compromised-test-XXXXXX)
# shellcheck source=tests/integration/lib/coordinator_under_load.sh
source "$(dirname "$0")/lib/coordinator_under_load.sh"
trap 'stop_coordinator; rm -rf "$work"' EXIT
slowdown=${EB_TEST_SLOWDOWN:-1}

run clean --agents 64 --ranks-per-agent 8
run compromised --agents 64 --ranks-per-agent 8 --compromised-agents 1

python3 - "$work" "$slowdown" <<'PY'
import json, os, sys
work, slowdown = sys.argv[1], float(sys.argv[2])
clean = json.load(open(os.path.join(work, "clean.json")))
bad = json.load(open(os.path.join(work, "compromised.json")))
c, b = clean["rounds"][-1], bad["rounds"][-1]
k = bad["compromised"]
log_kb = os.path.getsize(os.path.join(work, "compromised-coordinator.log")) / 1024
checks = [
    (c["passed"] == 1, "the clean 512-rank test passes"),
    (b["passed"] == 1 and not b["failed_nodes"], "beside the compromised node, the honest test passes"),
    (0 <= b["verdict_s"] <= 20 * slowdown, "and reaches its verdict with no deadline reached (20 s x EB_TEST_SLOWDOWN)"),
    (k["all_cut_off"], "the compromised node's session ends RESOURCE_EXHAUSTED 'session budget' when it goes over"),
    (k["side_test"]["fails_naming_exactly_the_compromised"], "its own test fails naming it"),
    (bad["coordinator_peak_rss_mb"] <= clean["coordinator_peak_rss_mb"] + 512,
     "the coordinator's peak RSS stays under the clean run's + 512 MiB"),
    (log_kb <= 1024, "the coordinator's log stays under 1 MiB"),
]
print("clean: verdict %.3f s, peak RSS %.0f MB; compromised: verdict %.3f s, peak RSS %.0f MB, log %.0f KB"
      % (c["verdict_s"], clean["coordinator_peak_rss_mb"], b["verdict_s"],
         bad["coordinator_peak_rss_mb"], log_kb))
print("compromised node: %s" % json.dumps(k["session_end"])[:400])
ok = True
for holds, what in checks:
    print(("ok:   " if holds else "FAIL: ") + what)
    ok = ok and holds
sys.exit(0 if ok else 1)
PY
echo "compromised_agent_benchmark_test: all checks hold"
