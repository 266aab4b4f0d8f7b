#!/usr/bin/env bash
# Several "hosts" in Linux network namespaces: three namespaces (one agent
# each, the coordinator in the first) joined by a bridge that lives in a
# fourth namespace, so nothing touches the host's own network. Each host's
# NIC is called eth0 and the agents bind the workers to it
# (--bootstrap-interface eth0), as on a real node.
#
# Every connection is mutual TLS, as on a fleet (certificates made by
# deploy/scripts/ebnccl-certs.sh; docs/SECURITY.md).
#
# 1. all_reduce across the 3 hosts passes and the rank map is right;
#    then the seed's two-node check: all_reduce,broadcast on two hosts in
#    one command (one table each, one verdict, -J JSON with -I times);
# 2. a host whose data path is throttled (tc htb at 20 mbit on its NIC, the
#    coordinator's port left out so that its control plane stays healthy):
#    the sweep stops at the first size that cannot finish within the step
#    deadline and reports a `too_slow` measurement (exit 7), not a timeout
#    that blames a rank;
# 3. a host cut off from the network (its link set down) is declared lost
#    from missed heartbeats, and the test fails naming it.
#
# Needs root and iproute2; exits 77 (ctest: skipped) otherwise.
#   tests/netns/netns_cluster_test.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR}

if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null; then
  echo "SKIP: needs root and iproute2"; exit 77
fi
prefix="ebt$$"
subnet="10.77.$(( $$ % 200 + 10 ))"
work=$(mktemp -d /tmp/ebnccl-netns-XXXXXX)
hosts=(0 1 2)
pids=()

source "$(dirname "$0")/fleet.sh"
netns_fleet_up
coordinator="$subnet.1:29470"

netns_fleet_certs netns-test operator

ip netns exec "$prefix-h0" "$bin/eb-coordinator" --config /dev/null --listen "$coordinator" --history-path "$work/history.db" \
  $(tls coordinator) \
  --heartbeat-period-ms 200 --heartbeat-miss-limit 5 --stop-timeout-ms 5000 \
  --stall-timeout-ms $((8000 * ${EB_TEST_SLOWDOWN:-1})) >"$work/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/coordinator.log" && break; sleep 0.1; done
for h in "${hosts[@]}"; do
  ip netns exec "$prefix-h$h" "$bin/eb-agent" --config /dev/null --coordinator "$coordinator" --node-name "node$h" \
    --workers 2 --bootstrap-interface eth0 --run-dir "$work/run-node$h" $(tls "nodes/node$h") \
    --worker-grace-ms 1000 --worker-heartbeat-ms 200 \
    --worker-hang-timeout-ms $((4000 * ${EB_TEST_SLOWDOWN:-1})) >"$work/agent-node$h.log" 2>&1 &
  pids+=($!)
done
ebctl() { ip netns exec "$prefix-h1" "$bin/ebctl" --coordinator "$coordinator" $(tls clients/netns-test) "$@"; }
for _ in $(seq 100); do
  [[ $(ebctl nodes --json 2>/dev/null | grep -c '"state": "idle"') == 3 ]] && break; sleep 0.1
done
ebctl nodes

echo "== 1. all_reduce across 3 hosts"
ebctl run-test --json --nodes node0,node1,node2 --collective all_reduce -b 8 -e 1M -f 4 -n 5 \
  >"$work/run1.out" 2>"$work/run1.err" || { echo "FAIL: exit $?"; cat "$work/run1.err"; exit 1; }
python3 - "$work/run1.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["state"] == "passed", r["summary"]
assert r["config"]["nranks"] == 6
nodes = [d["node"] for d in r["devices"]]
assert nodes == ["node0", "node0", "node1", "node1", "node2", "node2"], nodes
assert all(row["out_of_place"]["nwrong"] == 0 for row in r["results"])
print("ok:", r["summary"])
PY

echo "== 1b. the seed's two-node check in one command: all_reduce then broadcast"
# README "On a fleet": two nodes, both collectives on one communicator, one
# table each, one verdict; -J writes nccl-tests' JSON beside the table and
# -I 1 the per-iteration times that nccl-tests' analyze_perf_json.py reads.
ebctl run-test --nodes node0,node1 --collective all_reduce,broadcast -b 8 -e 1M -f 4 -n 5 -I 1 \
  -J "$work/seed.json" >"$work/seed.out" 2>"$work/seed.err" \
  || { echo "FAIL: exit $?"; cat "$work/seed.out" "$work/seed.err"; exit 1; }
[[ $(grep -c '^# Collective test starting: ' "$work/seed.out") == 2 ]] \
  || { echo "FAIL: expected two tables"; cat "$work/seed.out"; exit 1; }
[[ $(grep -c '^# Result: ' "$work/seed.out") == 1 ]] || { echo "FAIL: one verdict"; exit 1; }
grep -q '^# Result: PASSED' "$work/seed.out" || { cat "$work/seed.out"; exit 1; }
python3 - "$work/seed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["version"] == 3 and r["state"] == "passed", r["summary"]
# What analyze_perf_json.py reads: config.devices (hosts), results[].size
# and *_per_iter{avg_us, max_us, cv_pct, times_us, per_process_max_times_us}.
# (The namespaces share the machine's host name; the node names differ.)
devices = r["config"]["devices"]
assert [d["node"] for d in devices] == ["node0", "node0", "node1", "node1"], devices
assert all(isinstance(d["hostname"], str) and d["hostname"] for d in devices), devices
colls = [row["collective"] for row in r["results"]]
n = len(colls) // 2
assert n > 0 and colls == ["all_reduce"] * n + ["broadcast"] * n, colls
for row in r["results"]:
    for p in ("out_of_place_per_iter", "in_place_per_iter"):
        it = row[p]
        assert len(it["times_us"]) == 5 and len(it["per_process_max_times_us"]) == 4, it
        assert it["min_us"] <= it["avg_us"] <= it["max_us"], it
    assert row["out_of_place"]["nwrong"] == 0
assert [c["collective"] for c in r["collectives"]] == ["all_reduce", "broadcast"]
print("ok:", r["summary"])
PY

echo "== 2. a throttled data path is measured as too slow, not timed out"
dev=eth0
# htb (this kernel has tbf and htb, not prio or netem): everything to 20 mbit
# except the coordinator's port, so that heartbeats still pass.
tc -n "$prefix-h1" qdisc add dev $dev root handle 1: htb default 20 r2q 1000
tc -n "$prefix-h1" class add dev $dev parent 1: classid 1:10 htb rate 1gbit
tc -n "$prefix-h1" class add dev $dev parent 1: classid 1:20 htb rate 20mbit ceil 20mbit
tc -n "$prefix-h1" filter add dev $dev parent 1: protocol ip prio 1 u32 \
  match ip dport "${coordinator##*:}" 0xffff flowid 1:10
set +e
ebctl run-test --json --nodes node0,node1 --collective all_reduce -b 256K -e 16M -f 2 -n 2 -w 0 \
  -c 0 --step-timeout 3s >"$work/run2.out" 2>"$work/run2.err"
code=$?
set -e
tc -n "$prefix-h1" qdisc del dev $dev root
[[ $code == 7 ]] || { echo "FAIL: expected exit 7, got $code"; cat "$work/run2.out" "$work/run2.err"; exit 1; }
python3 - "$work/run2.out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
first = r["failures"][0]
assert first["kind"] == "too_slow", r["failures"]
assert first["rank"] == -1, first
assert 0 < len(r["results"]) < 7, len(r["results"])
print("ok:", r["summary"])
PY
for _ in $(seq 100); do
  [[ $(ebctl nodes --json 2>/dev/null | grep -c '"state": "idle"') == 3 ]] && break; sleep 0.1
done

echo "== 3. a host cut off from the network is named"
ebctl run-test --json --nodes node0,node1,node2 --collective all_reduce -b 1M -e 1M -i 1 \
  -n 100000 -w 0 -c 0 --step-timeout 1h >"$work/run3.out" 2>"$work/run3.err" &
run=$!
for _ in $(seq 200); do grep -q "state TEST_STATE_RUNNING" "$work/coordinator.log" && break; sleep 0.05; done
ip -n "$prefix-h2" link set eth0 down
start=$(date +%s)
set +e
wait $run
code=$?
set -e
elapsed=$(( $(date +%s) - start ))
[[ $code == 3 ]] || { echo "FAIL: expected exit 3, got $code"; cat "$work/run3.err"; exit 1; }
python3 - "$work/run3.out" "$elapsed" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
first = r["failures"][0]
assert first["kind"] == "node_lost" and first["node"] == "node2", r["failures"]
assert int(sys.argv[2]) <= 12, "detection took %s s" % sys.argv[2]
print("ok:", r["summary"], "after", sys.argv[2], "s")
PY
failed=0
echo "PASS"
