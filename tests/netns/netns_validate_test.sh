#!/usr/bin/env bash
# `ebctl validate` over six "hosts" in network namespaces, with real faults on
# the network: one host's link throttled with `tc tbf` (a bad cable or a port
# that trained down), one host's agent killed while the validation runs.
# Each host has one NIC, eth0, on a bridge that lives in a namespace of its
# own, so nothing touches the machine's network. Workers use Gloo over eth0.
# Every connection is mutual TLS, as on a fleet (certificates made by
# deploy/scripts/ebnccl-certs.sh).
#
# A healthy run first: exit 0, every node healthy. Then the faults.
# Expected: exit 7; the throttled host degraded, and every pair it was in a
# bad path; the killed host untestable (never degraded: an infrastructure
# failure is not a hardware verdict); the four others healthy. Last, that
# validation as `ebctl report`'s HTML page, drawn in headless Chromium with
# no script error and its pair matrix (issue 13; skipped without chromium).
#
# Needs root, iproute2 and tc; exits 77 (ctest: skipped) otherwise.
#   tests/netns/netns_validate_test.sh BIN_DIR
# With EB_RESULTS_DIR set, both validations' JSON reports are kept there.
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR}

if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "SKIP: needs root, iproute2 and tc"; exit 77
fi
prefix="ebv$$"
subnet="10.78.$(($$ % 200 + 10))"
work=$(mktemp -d /tmp/ebnccl-netns-validate-XXXXXX)
hosts=(0 1 2 3 4 5)
throttled=3
killed=5
pids=()
declare -A agent_pid

source "$(dirname "$0")/fleet.sh"
netns_fleet_up
coordinator="$subnet.1:29470"

netns_fleet_certs netns-validate operator

netns_fleet_coordinator
netns_fleet_agents 2
ebctl() { ip netns exec "$prefix-h1" "$bin/ebctl" --coordinator "$coordinator" $(tls clients/netns-validate) "$@"; }
for _ in $(seq 150); do
  [[ $(ebctl nodes --json 2>/dev/null | grep -c '"state": "idle"') == "${#hosts[@]}" ]] && break
  sleep 0.1
done
ebctl nodes

nodes=$(printf 'node%s,' "${hosts[@]}")
nodes=${nodes%,}
# Thresholds: a result is slow below (1 - 0.5) x the fleet
# median (no baseline exists for CPU ranks over veth), and a verdict needs two
# slow observations (a node slow once is re-tested with another partner).
# Measured in 12 runs of this script with the machine's 2 cores loaded 11
# times over by parallel builds (the worst case we could make): healthy
# pairs 0.10-0.38 GB/s busbw, median 0.21 (4 MiB, Gloo: the CPU sets the
# pace); throttled pairs 0.0109-0.0115 GB/s, < 0.11 x the slowest healthy
# pair. A healthy node would have to fall below half the median twice in a
# row to be blamed; the throttled host would need 9 x its link rate to pass.
# 0.5 is the widest tolerance `validate` takes. Other tests running beside
# this one still made a healthy node fall that low twice (CI, 2026-12-03:
# node1's pairs at 0.098 and 0.160 GB/s against a median near 0.3), so the
# test runs alone (RUN_SERIAL, tests/netns/CMakeLists.txt).
validate() {
  ebctl validate --json --nodes "$nodes" --suite preflight,intra,pairs --tolerance 0.5 \
    -b 4M -e 4M -n 5 -w 1 -c 1
}

# keep NAME: with EB_RESULTS_DIR set, the JSON report is kept there (for
# docs/BENCHMARKS.md's wall-time figures, and to look at a failure).
keep() {
  [[ -z ${EB_RESULTS_DIR:-} ]] || cp "$work/$1.out" "$EB_RESULTS_DIR/netns_validate_$1.json"
}
# explain NAME: every node's verdict and reason, and every test's busbw.
explain() {
  python3 - "$work/$1.out" <<'PY' || true
import json, sys
report = json.load(open(sys.argv[1]))
for n in report.get("nodes", []):
    print(n["node_name"], n["verdict"], n["confidence"], n.get("reason", ""))
for r in report.get("rounds", []):
    for t in r["tests"]:
        print("round", r["number"], t["kind"], t["node_names"], t["outcome"], t.get("busbw_gbps"))
PY
}

echo "== 1. a healthy fleet of 6 hosts: exit 0, every node healthy"
start=$(date +%s)
set +e
validate >"$work/healthy.out" 2>"$work/healthy.err"
code=$?
set -e
keep healthy
[[ $code == 0 ]] || { echo "FAIL: exit $code"; explain healthy; exit 1; }
python3 - "$work/healthy.out" "$(($(date +%s) - start))" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
verdicts = {n["node_name"]: n["verdict"] for n in report["nodes"]}
assert all(v == "healthy" for v in verdicts.values()), verdicts
print("ok: healthy fleet,", len(report["rounds"]), "rounds in", sys.argv[2], "s")
PY

# The throttled host: 100 Mbit/s in both directions (its own egress, and the
# bridge port's egress towards it), versus several Gbit/s on the others.
netns_fleet_shape "$throttled" rate 100mbit burst 32kbit latency 400ms

echo "== 2. validate 6 hosts: node$throttled throttled to 100 Mbit/s, node$killed's agent killed"
start=$(date +%s)
validate >"$work/faults.out" 2>"$work/faults.err" &
run=$!
# Kill node5's agent once its first test runs (the validation is under way).
for _ in $(seq 300); do
  pgrep -f "eb-worker.*$work/run-node$killed" >/dev/null && break
  sleep 0.05
done
kill -KILL "${agent_pid[$killed]}"
set +e
wait $run
code=$?
set -e
elapsed=$(($(date +%s) - start))
keep faults
cat "$work/faults.err"
[[ $code == 7 ]] || { echo "FAIL: expected exit 7, got $code"; explain faults; exit 1; }
explain faults
python3 - "$work/faults.out" "$throttled" "$killed" "$elapsed" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
throttled, killed = "node" + sys.argv[2], "node" + sys.argv[3]
verdicts = {n["node_name"]: n["verdict"] + "/" + n["confidence"] for n in report["nodes"]}
print("verdicts:", verdicts, "in", sys.argv[4], "s,", len(report["rounds"]), "rounds")
assert verdicts.pop(throttled) == "degraded/confirmed", verdicts
verdicts = {node: v.split("/")[0] for node, v in verdicts.items()}
assert verdicts.pop(killed) == "untestable", verdicts
assert all(v == "healthy" for v in verdicts.values()), verdicts
bad_paths = report.get("paths", [])
for path in bad_paths:
    assert throttled in (path["node_a"], path["node_b"]), path
print("ok: bad paths", [(p["node_a"], p["node_b"]) for p in bad_paths])
PY

echo "== 3. the faulty validation as one HTML page (ebctl report), drawn by headless Chromium"
vid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["validation_id"])' "$work/faults.out")
ebctl report "$vid" -o "$work/fleet.html"
[[ -z ${EB_RESULTS_DIR:-} ]] || cp "$work/fleet.html" "$EB_RESULTS_DIR/netns_validate_report.html"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chromium" ]]; then
  echo "note: no chromium: the page was written but not drawn"
else
  HOME=$work timeout 120 "$chromium" --headless --disable-gpu --no-sandbox \
    --user-data-dir="$work/chromium-profile" --dump-dom "file://$work/fleet.html" \
    >"$work/fleet.dom" 2>"$work/chromium.err"
  status=$(grep -o '<div id="eb-status"[^>]*>' "$work/fleet.dom" || true)
  echo "report status: $status"
  [[ "$status" == *'data-state="ok"'* && "$status" == *'data-errors="0"'* ]] ||
    { echo "FAIL: the report did not draw cleanly"; exit 1; }
  # The pair matrix: one cell per pair tested, of the 15 pairs of 6 nodes.
  [[ "$status" =~ data-heatmap-cells=\"([0-9]+)\" ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 15)) ||
    { echo "FAIL: expected the pairs tested in the pair matrix"; exit 1; }
  for node in "node$throttled" "node$killed"; do
    grep -q "$node" "$work/fleet.dom" || { echo "FAIL: $node is not on the page"; exit 1; }
  done
  echo "ok: the validation's report draws with no error, ${BASH_REMATCH[1]} pairs in its matrix"
fi
failed=0
echo "PASS"
