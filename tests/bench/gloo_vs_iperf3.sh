#!/usr/bin/env bash
# Benchmark (not a test): the CPU data plane (Gloo over TCP) against one
# iperf3 TCP stream, side by side in one run, through the whole product
# (eb-coordinator, eb-agent, eb-worker, ebctl run-test), over two paths:
#   loopback  one agent with 2 workers on 127.0.0.1
#   veth      two network namespaces joined by one veth pair, one agent of
#             one worker in each (needs root; skipped otherwise)
# For each path it runs iperf3 (one stream, then two at once, one each way,
# in separate processes: the traffic of a 2-rank sendrecv or all_reduce), then
# `run-test --transport gloo` for sendrecv and all_reduce at 64, 128 and
# 256 MiB, and prints busbw (best of out-of-place and in-place, nccl-tests'
# definition) and its ratio to the single stream (issue 16 targets:
# sendrecv >= 0.8x, all_reduce >= 0.5x).
#
#   tests/bench/gloo_vs_iperf3.sh [loopback|veth|both]   (default both)
#   BIN_DIR=build/bin  ITERS=10  IPERF_SECONDS=5  CPUS=0,1 (taskset, to
#   emulate a 2-core machine on a bigger one)  AGENT_ARGS="..." (extra
#   eb-agent flags, e.g. --worker-env KEY=VALUE)
set -euo pipefail
paths=${1:-both}
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$repo/build/bin}
iters=${ITERS:-10}
iperf_seconds=${IPERF_SECONDS:-5}
pin=()
read -r -a agent_args <<<"${AGENT_ARGS:-}"
[[ -n "${CPUS:-}" ]] && pin=(taskset -c "$CPUS")
command -v iperf3 >/dev/null || { echo "gloo_vs_iperf3: needs iperf3 (apt-get install iperf3)" >&2; exit 2; }
work=$(mktemp -d /tmp/ebnccl-gloo-bench-XXXXXX)
pids=()
ns_a=ebgv-a$$
ns_b=ebgv-b$$
cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  # The daemons started through `ip netns exec` in a subshell are not in
  # pids (their subshells are): stop whatever still runs in the namespaces.
  for ns in "$ns_a" "$ns_b"; do ip netns pids "$ns" 2>/dev/null | xargs -r kill -TERM; done
  sleep 0.5
  for ns in "$ns_a" "$ns_b"; do ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL; done
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# run_in NS CMD...: CMD in namespace NS, or here when NS is empty.
run_in() {
  local ns=$1
  shift
  if [[ -n "$ns" ]]; then ip netns exec "$ns" "${pin[@]}" "$@"; else "${pin[@]}" "$@"; fi
}

# iperf NS_CLIENT NS_SERVER ADDRESS: one stream, GB/s.
iperf() {
  local ns_client=$1 ns_server=$2 address=$3
  local port=$((5300 + RANDOM % 500))
  run_in "$ns_server" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  local server=$!
  sleep 0.3
  run_in "$ns_client" iperf3 -c "$address" -p "$port" -t "$iperf_seconds" -J >"$work/iperf.json"
  wait "$server" 2>/dev/null || true
  rate "$work/iperf.json"
}

# iperf_both NS_A ADDRESS_A NS_B ADDRESS_B: two streams at once, A to B and B
# to A, each its own iperf3 client and server (iperf3 3.12 runs one thread,
# so --bidir would put both directions on one thread per side): GB/s per
# direction (mean). The traffic of a 2-rank sendrecv or all_reduce.
iperf_both() {
  local ns_a=$1 address_a=$2 ns_b=$3 address_b=$4
  local port=$((5300 + RANDOM % 500))
  run_in "$ns_b" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  local server_b=$!
  run_in "$ns_a" iperf3 -s -1 -p $((port + 1)) >/dev/null 2>&1 &
  local server_a=$!
  sleep 0.3
  run_in "$ns_a" iperf3 -c "$address_b" -p "$port" -t "$iperf_seconds" -J >"$work/iperf-ab.json" &
  local client_a=$!
  run_in "$ns_b" iperf3 -c "$address_a" -p $((port + 1)) -t "$iperf_seconds" -J >"$work/iperf-ba.json"
  wait "$client_a" "$server_a" "$server_b" 2>/dev/null || true
  python3 -c "print('%.3f' % ((float('$(rate "$work/iperf-ab.json")') + float('$(rate "$work/iperf-ba.json")')) / 2))"
}

# rate FILE: the received GB/s of an iperf3 -J report.
rate() {
  python3 -c 'import json, sys; print("%.3f" % (json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"] / 8e9))' "$1"
}

# wait_idle EBCTL... COUNT: until COUNT agents are idle (10 s).
wait_idle() {
  local count=${*: -1}
  local cmd=("${@:1:$#-1}")
  for _ in $(seq 100); do
    [[ $("${cmd[@]}" nodes --json 2>/dev/null | grep -c '"idle"') -ge $count ]] && return 0
    sleep 0.1
  done
  echo "gloo_vs_iperf3: agents did not come up; logs in $work" >&2
  trap - EXIT
  exit 1
}

# sweep EBCTL_NS ADDRESS NODES COLLECTIVE: "size busbw" lines.
sweep() {
  local ns=$1 address=$2 nodes=$3 collective=$4
  run_in "$ns" "$bin/ebctl" --coordinator "$address" run-test --nodes "$nodes" --transport gloo \
    --collective "$collective" -b 64M -e 256M -f 2 -n "$iters" -w 2 --json >"$work/run.json"
  python3 - "$work/run.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
for row in report["results"]:
    print(row["size"], max(row["out_of_place"]["bus_bw"], row["in_place"]["bus_bw"]))
EOF
}

# table PATH SINGLE BIDIR SENDRECV_FILE ALLREDUCE_FILE
table() {
  local path=$1 single=$2 two=$3
  echo
  echo "### $path: iperf3 one stream $single GB/s; two streams at once (one each way) $two GB/s per direction"
  echo
  echo "| size | sendrecv busbw | / iperf3 | all_reduce busbw | / iperf3 |"
  echo "|---|---|---|---|---|"
  paste "$4" "$5" | awk -v s="$single" \
    '{printf "| %d MiB | %.2f GB/s | %.2fx | %.2f GB/s | %.2fx |\n", $1/1048576, $2, $2/s, $4, $4/s}'
}

loopback() {
  local port=$((29700 + $$ % 200))
  "${pin[@]}" "$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path '' \
    --log-level warn >"$work/coordinator-lo.log" 2>&1 &
  pids+=($!)
  "${pin[@]}" "$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name lo0 \
    --workers 2 --bootstrap-address 127.0.0.1 --run-dir "$work/run-lo" --log-level warn "${agent_args[@]}" \
    >"$work/agent-lo.log" 2>&1 &
  pids+=($!)
  wait_idle "$bin/ebctl" --coordinator "127.0.0.1:$port" 1
  local single two
  single=$(iperf "" "" 127.0.0.1)
  two=$(iperf_both "" 127.0.0.1 "" 127.0.0.1)
  sweep "" "127.0.0.1:$port" lo0 sendrecv >"$work/lo-sendrecv"
  sweep "" "127.0.0.1:$port" lo0 all_reduce >"$work/lo-allreduce"
  table "loopback, 2 ranks on one agent" "$single" "$two" "$work/lo-sendrecv" "$work/lo-allreduce"
}

veth() {
  if [[ $(id -u) -ne 0 ]]; then
    echo "gloo_vs_iperf3: veth path skipped (needs root)"
    return
  fi
  ip netns add "$ns_a"
  ip netns add "$ns_b"
  ip link add "gv$$a" type veth peer name "gv$$b"
  ip link set "gv$$a" netns "$ns_a"
  ip link set "gv$$b" netns "$ns_b"
  ip -n "$ns_a" addr add 10.77.0.1/24 dev "gv$$a"
  ip -n "$ns_b" addr add 10.77.0.2/24 dev "gv$$b"
  for ns in "$ns_a" "$ns_b"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$ns_a" link set "gv$$a" up
  ip -n "$ns_b" link set "gv$$b" up
  local port=29470
  # Plaintext off loopback needs --insecure: acceptable in a namespace pair
  # that only this script can reach.
  run_in "$ns_a" "$bin/eb-coordinator" --config /dev/null --listen "10.77.0.1:$port" --insecure \
    --history-path '' --log-level warn >"$work/coordinator-veth.log" 2>&1 &
  pids+=($!)
  run_in "$ns_a" "$bin/eb-agent" --config /dev/null --coordinator "10.77.0.1:$port" --node-name va \
    --workers 1 --bootstrap-address 10.77.0.1 --run-dir "$work/run-va" --log-level warn "${agent_args[@]}" \
    >"$work/agent-va.log" 2>&1 &
  pids+=($!)
  run_in "$ns_b" "$bin/eb-agent" --config /dev/null --coordinator "10.77.0.1:$port" --node-name vb \
    --workers 1 --bootstrap-address 10.77.0.2 --run-dir "$work/run-vb" --log-level warn "${agent_args[@]}" \
    >"$work/agent-vb.log" 2>&1 &
  pids+=($!)
  wait_idle ip netns exec "$ns_a" "$bin/ebctl" --coordinator "10.77.0.1:$port" 2
  local single two
  single=$(iperf "$ns_a" "$ns_b" 10.77.0.2)
  two=$(iperf_both "$ns_a" 10.77.0.1 "$ns_b" 10.77.0.2)
  sweep "$ns_a" "10.77.0.1:$port" va,vb sendrecv >"$work/veth-sendrecv"
  sweep "$ns_a" "10.77.0.1:$port" va,vb all_reduce >"$work/veth-allreduce"
  table "veth pair between two namespaces, 1 rank each" "$single" "$two" \
    "$work/veth-sendrecv" "$work/veth-allreduce"
}

echo "# gloo_vs_iperf3 $(date -u +%FT%TZ) on $(nproc) cores${CPUS:+ (pinned to CPUs $CPUS)}; $(uptime | sed 's/.*load/load/')"
echo "# commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown), ITERS=$iters"
case "$paths" in
  loopback) loopback ;;
  veth) veth ;;
  both) loopback; veth ;;
  *) echo "usage: $0 [loopback|veth|both]" >&2; exit 2 ;;
esac
