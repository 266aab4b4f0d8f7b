#!/usr/bin/env bash
# Issue 29, item 1: a data path that carries nothing must never read healthy.
# Four "hosts" in network namespaces (tests/netns/fleet.sh); the path from
# node1 to node3 drops every packet longer than 400 bytes, in that direction
# only (nftables in node1's namespace): connections open, the communicator
# joins (its handshakes are small), and the first size makes no progress.
# Round 1 of `validate` pairs node0-node2 and node1-node3 (node i with node
# i + n/2), so the broken pair is tested at once.
#
# Expected: the stuck pair is a network fault, not "no information": both
# nodes are re-tested with partners that did well, the pair is re-tested,
# fails again, and the report names the path node1-node3 as `failed`,
# confirmed; every node is healthy (each did well with others); exit 7. The
# report's state badge agrees (never a green "done").
# Then (item 2) one host shaped so slow that a size overruns its step: a
# measurement (too_slow, with the busbw of the calls done), found from the
# ranks' per-call progress before the deadline, never "no progress".
#
# Needs root, iproute2 and nft; exits 77 (ctest: skipped) otherwise.
#   tests/netns/netns_stuck_path_test.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR}

if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null || ! command -v nft >/dev/null; then
  echo "SKIP: needs root, iproute2 and nft"; exit 77
fi
prefix="ebs$$"
subnet="10.79.$(($$ % 200 + 10))"
work=$(mktemp -d /tmp/ebnccl-netns-stuck-XXXXXX)
hosts=(0 1 2 3)
pids=()

source "$(dirname "$0")/fleet.sh"
netns_fleet_up
coordinator="$subnet.1:29471"
netns_fleet_certs netns-stuck operator

declare -A agent_pid
netns_fleet_coordinator
netns_fleet_agents 1
# shellcheck disable=SC2046
ebctl() { ip netns exec "$prefix-h1" "$bin/ebctl" --coordinator "$coordinator" $(tls clients/netns-stuck) "$@"; }
for _ in $(seq 150); do
  [[ $(ebctl nodes --json 2>/dev/null | grep -c '"state": "idle"') == "${#hosts[@]}" ]] && break
  sleep 0.1
done

# Every host's link at 200 Mbit/s (tbf, a burst of 20 ms at that rate): a
# rate the 2 CPUs carry easily, so that the link, not the CPU, sets a pair's
# busbw, and healthy pairs agree (unshaped, Gloo's CPU-bound pairs spread
# 2.5x under load, and a healthy node was once graded slow).
for h in "${hosts[@]}"; do
  tc -n "$prefix-h$h" qdisc add dev eth0 root tbf rate 200mbit burst 500kb latency 100ms
done

# node1 -> node3: data dropped, small packets (handshakes, ACKs) pass.
ip netns exec "$prefix-h1" nft -f - <<EOF
table inet ebstuck {
  chain out {
    type filter hook output priority 0;
    ip daddr $subnet.4 meta length > 400 drop
  }
}
EOF

echo "== validate 4 hosts: the path node1 -> node3 carries no data"
start=$(date +%s)
set +e
ebctl validate --json --nodes node0,node1,node2,node3 --suite pairs --tolerance 0.5 \
  -b 1M -e 1M -n 3 -w 1 -c 1 --step-timeout 3s >"$work/stuck.out" 2>"$work/stuck.err"
code=$?
set -e
elapsed=$(($(date +%s) - start))
cat "$work/stuck.err"
python3 - "$work/stuck.out" "$code" "$elapsed" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
code, elapsed = int(sys.argv[2]), sys.argv[3]
for r in report.get("rounds", []):
    for t in r["tests"]:
        print("round", r["number"], t["node_names"], t["outcome"], t.get("busbw_gbps"), t.get("message", "")[:120])
verdicts = {n["node_name"]: n["verdict"] for n in report["nodes"]}
paths = [(p["node_a"], p["node_b"], p["verdict"], p["confidence"]) for p in report.get("paths", [])]
print("exit", code, "in", elapsed, "s; verdicts", verdicts, "; paths", paths)
print("findings", [(f["kind"], f["text"][:100]) for f in report.get("findings", [])])
assert code == 7, f"expected exit 7, got {code}"
assert paths == [("node1", "node3", "failed", "confirmed")], paths
assert all(v == "healthy" for v in verdicts.values()), verdicts
assert report.get("exit_code") == 7, report.get("exit_code")
stuck = [t for r in report["rounds"] for t in r["tests"] if sorted(t["node_names"]) == ["node1", "node3"]]
assert len(stuck) == 2 and all(t["outcome"] == "hardware_failure" for t in stuck), stuck
print("ok: the stuck path is a confirmed failed path; every node healthy")
PY

echo "== the report's HTML page: its state badge is not a green done"
vid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["validation_id"])' "$work/stuck.out")
ebctl report "$vid" -o "$work/stuck.html"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chromium" ]]; then
  echo "note: no chromium: the page was written but not drawn"
else
  HOME=$work timeout 120 "$chromium" --headless --disable-gpu --no-sandbox \
    --user-data-dir="$work/chromium-profile" --dump-dom "file://$work/stuck.html" \
    >"$work/stuck.dom" 2>"$work/chromium.err"
  status=$(grep -o '<div id="eb-status"[^>]*>' "$work/stuck.dom" || true)
  [[ "$status" == *'data-state="ok"'* && "$status" == *'data-errors="0"'* ]] ||
    { echo "FAIL: the report did not draw cleanly: $status"; exit 1; }
  grep -q 'done: bad (exit 7)' "$work/stuck.dom" ||
    { echo "FAIL: the state badge does not say exit 7"; exit 1; }
  echo "ok: the page draws; its badge reads 'done: bad (exit 7)'"
fi
ip netns exec "$prefix-h1" nft delete table inet ebstuck

# Item 2: a host so slow that one size cannot finish within the step
# deadline. node2's egress at 20 Mbit/s (htb; the coordinator's port kept
# fast so that heartbeats pass), one size of 4 MiB: each call takes about
# 1.6 s, the size's 10 calls about 16 s, the step deadline is 10 s. With
# one size, no earlier row predicts it: the ranks' per-call progress must.
# Expected: exit 7, too_slow with the busbw of the calls done, stopped as
# soon as two timed calls predict the overrun (well before 10 s); never a
# hang ("no progress").
echo "== run-test over a host shaped so slow that the size overruns its step"
for _ in $(seq 100); do
  [[ $(ebctl nodes --json 2>/dev/null | grep -c '"state": "idle"') == "${#hosts[@]}" ]] && break
  sleep 0.1
done
tc -n "$prefix-h2" qdisc del dev eth0 root
tc -n "$prefix-h2" qdisc add dev eth0 root handle 1: htb default 20 r2q 1000
tc -n "$prefix-h2" class add dev eth0 parent 1: classid 1:10 htb rate 1gbit
tc -n "$prefix-h2" class add dev eth0 parent 1: classid 1:20 htb rate 20mbit ceil 20mbit
tc -n "$prefix-h2" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
  match ip dport "${coordinator##*:}" 0xffff flowid 1:10
start=$(date +%s.%N)
set +e
ebctl run-test --json --nodes node0,node2 --collective all_reduce -b 4M -e 4M -n 3 -w 0 -c 1 \
  --step-timeout 10s >"$work/slow.out" 2>"$work/slow.err"
code=$?
set -e
elapsed=$(python3 -c "import sys; print(round($(date +%s.%N) - $start, 1))")
tc -n "$prefix-h2" qdisc del dev eth0 root
python3 - "$work/slow.out" "$code" "$elapsed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
code, elapsed = int(sys.argv[2]), float(sys.argv[3])
first = r["failures"][0] if r["failures"] else {}
print("exit", code, "in", elapsed, "s:", r["summary"])
assert code == 7, f"expected exit 7, got {code}"
assert first.get("kind") == "too_slow" and first.get("rank") == -1, r["failures"]
assert first["measured_busbw_gbps"] > 0, first
assert "would not finish" in first["message"], first["message"]
assert elapsed < 10, f"took {elapsed} s: it waited for the step deadline"
print("ok: too slow at", round(first["measured_busbw_gbps"], 4), "GB/s busbw, stopped early")
PY
failed=0
echo "PASS"
