#!/usr/bin/env bash
# Benchmark (not a test): time-to-first-result of `ebctl run-test` with and
# without mutual TLS, on the same machine in the same run: a coordinator and
# 2 agents x 4 workers on loopback, plaintext, then the same over mTLS with
# certificates from deploy/scripts/ebnccl-certs.sh. Each ebctl run opens a
# new connection, so the TLS figure includes the full handshake (client
# certificate verified) besides every RPC of the test.
#
#   tests/bench/tls_benchmark.sh [RUNS]      (build first: ninja -C build)
set -euo pipefail
runs=${1:-15}
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$repo/build/bin}
work=$(mktemp -d /tmp/ebnccl-tls-bench-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
certs=$work/tls
"$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" ca >/dev/null
"$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" coordinator localhost >/dev/null
"$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" node bench0 bench1 >/dev/null
"$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" client bench operator >/dev/null

# start MODE PORT: a coordinator and two agents, plaintext or mTLS; sets
# cmd_MODE to the ebctl run-test command line of that cluster.
start() {
  local mode=$1 port=$2 ctls=() atls=() etls=()
  if [[ $mode == tls ]]; then
    ctls=(--tls-ca "$certs/ca.pem" --tls-cert "$certs/coordinator.pem" --tls-key "$certs/coordinator.key")
    etls=(--tls-ca "$certs/ca.pem" --tls-cert "$certs/clients/bench.pem" --tls-key "$certs/clients/bench.key")
  fi
  "$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path '' \
    --log-level warn "${ctls[@]}" >"$work/c-$mode.log" 2>&1 &
  pids+=($!)
  sleep 0.5
  for n in 0 1; do
    atls=()
    [[ $mode == tls ]] && atls=(--tls-ca "$certs/ca.pem" --tls-cert "$certs/nodes/bench$n.pem" --tls-key "$certs/nodes/bench$n.key")
    "$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name "bench$n" --workers 4 \
      --bootstrap-address 127.0.0.1 --run-dir "$work/run-$mode-$n" --log-level warn "${atls[@]}" \
      >"$work/a-$mode-$n.log" 2>&1 &
    pids+=($!)
  done
  local ebctl=("$bin/ebctl" --coordinator "127.0.0.1:$port" "${etls[@]}")
  for _ in $(seq 100); do
    [[ $("${ebctl[@]}" nodes --json 2>/dev/null | grep -c '"idle"') == 2 ]] && break
    sleep 0.1
  done
  eval "cmd_$mode=(\"\${ebctl[@]}\" run-test --nodes bench0,bench1 --collective all_reduce -b 8 -e 8 -n 1 -w 1 -c 1)"
}

# measure MODE: one run; appends the ms to the first table row and to the end.
measure() {
  local mode=$1 t0 t1
  local -n cmd="cmd_$mode"
  t0=$(date +%s%N)
  "${cmd[@]}" | while IFS= read -r line; do
    if [[ "$line" =~ ^[[:space:]]+8[[:space:]] ]]; then echo $(( ($(date +%s%N) - t0) / 1000000 )); fi
  done >>"$work/first-$mode"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 )) >>"$work/whole-$mode"
}

start plain $((29500 + $$ % 400))
start tls $((29900 + $$ % 400))
measure plain; measure tls; : >"$work/first-plain"; : >"$work/whole-plain"; : >"$work/first-tls"; : >"$work/whole-tls"
# Alternate the two, so that the machine's load drifts alike for both.
for _ in $(seq "$runs"); do measure plain; measure tls; done
echo "| mode | measured | median | mean | min | max |"
echo "|---|---|---|---|---|---|"
for mode in plain tls; do
  for what in first whole; do
    sort -n "$work/$what-$mode" | awk -v m="$mode" -v w="$what" \
      '{a[NR]=$1; s+=$1} END {printf "| %s | %s | %d ms | %.0f ms | %d ms | %d ms |\n", m, w, a[int((NR+1)/2)], s/NR, a[1], a[NR]}'
  done
done
