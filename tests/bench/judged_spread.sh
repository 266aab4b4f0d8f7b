#!/usr/bin/env bash
# Benchmark (not a CI test): how far the judged figure (the larger of a
# row's shown time and the slowest node's median rank time; docs/
# VALIDATION.md, "What a node's ranks cannot change") lies below the shown
# one on honest ranks. Starts an eb-coordinator and NODES eb-agents of
# WORKERS workers each on 127.0.0.1, runs `ebctl run-test --transport gloo`
# RUNS times over MIN-MAX (x2 steps), and prints per size the ratio judged
# busbw / shown busbw (out-of-place and in-place together: min, median over
# the runs), and each run's footer ratio (judged avg / shown avg), which is
# what --min-busbw compares.
#
#   tests/bench/judged_spread.sh
#   BIN_DIR=build/bin NODES=2 WORKERS=2 RUNS=5 ITERS=20 WARMUP=5 MIN=8 MAX=64M AVERAGE=1
# Exit: 0 printed, 2 the set-up or a run failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$repo/build/bin}
nodes=${NODES:-2}
workers=${WORKERS:-2}
runs=${RUNS:-5}
iters=${ITERS:-20}
warmup=${WARMUP:-5}
min_size=${MIN:-8}
max_size=${MAX:-64M}
average=${AVERAGE:-1}
work=$(mktemp -d /tmp/ebnccl-judged-spread-XXXXXX)
pids=()
cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  [[ -n "${KEEP:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

echo "# judged_spread $(date -u +%FT%TZ) on $(hostname) ($(nproc) cores); $(uptime | sed 's/.*load/load/')"
echo "# commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# reproduce: BIN_DIR=$bin NODES=$nodes WORKERS=$workers RUNS=$runs ITERS=$iters WARMUP=$warmup MIN=$min_size MAX=$max_size AVERAGE=$average $repo/tests/bench/judged_spread.sh"

port=$((29950 + $$ % 40))
"$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path '' \
  --log-level warn >"$work/coordinator.log" 2>&1 &
pids+=($!)
names=()
for node in $(seq 0 $((nodes - 1))); do
  names+=("spread$node")
  "$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name "spread$node" \
    --workers "$workers" --bootstrap-address 127.0.0.1 --run-dir "$work/run$node" --log-level warn \
    >"$work/agent$node.log" 2>&1 &
  pids+=($!)
done
ebctl=("$bin/ebctl" --coordinator "127.0.0.1:$port")
up=0
for _ in $(seq 300); do
  if [[ $("${ebctl[@]}" nodes --json 2>/dev/null | grep -c '"idle"') -ge "$nodes" ]]; then up=1; break; fi
  sleep 0.1
done
if [[ $up -ne 1 ]]; then
  echo "judged_spread: the agents did not come up; logs:" >&2
  cat "$work"/*.log >&2
  exit 2
fi
node_list=$(IFS=,; echo "${names[*]}")
for run in $(seq "$runs"); do
  if ! "${ebctl[@]}" run-test --nodes "$node_list" --transport gloo -b "$min_size" -e "$max_size" \
    -f 2 -n "$iters" -w "$warmup" -a "$average" --json >"$work/run$run.json" 2>"$work/run$run.err"; then
    echo "judged_spread: run $run failed:" >&2
    cat "$work/run$run.err" >&2
    exit 2
  fi
done

python3 - "$work" "$runs" <<'EOF'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
docs = [json.load(open(f"{work}/run{r}.json")) for r in range(1, runs + 1)]
print("| size (B) | judged / shown busbw, min | median |")
print("|---:|---:|---:|")
for i, row in enumerate(docs[0]["results"]):
    ratios = []
    for doc in docs:
        for variant in ("out_of_place", "in_place"):
            v = doc["results"][i][variant]
            if v["bus_bw"] > 0:
                ratios.append(v["judged_bus_bw"] / v["bus_bw"])
    print(f"| {row['size']} | {min(ratios):.4f} | {statistics.median(ratios):.4f} |")
footers = [d["average_bus_bandwidth"]["judged"] / d["average_bus_bandwidth"]["bandwidth"] for d in docs]
print("footer judged/shown per run:", " ".join(f"{f:.4f}" for f in footers))
print("findings:", sum(1 for d in docs if d["rank_times_finding"]), "of", len(docs))
EOF
