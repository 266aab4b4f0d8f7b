#!/usr/bin/env bash
# Benchmark (not a test): time-to-first-result of `ebctl run-test` for a small
# all_reduce on 2 agents x 4 workers on loopback, beside the launch-plus-
# barrier time of `mpirun -np 8` running a trivial MPI barrier program, on
# the same machine in the same run. Results go to stdout (markdown) and
# hyperfine's JSON under $OUT_DIR (default build/bench).
#
#   tests/bench/launch_benchmark.sh [RUNS]
set -euo pipefail
runs=${1:-15}
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
deploy/scripts/install-deps.sh --bench
[[ -x build/bin/ebctl ]] || deploy/scripts/build.sh
bin=$repo/build/bin
out=${OUT_DIR:-$repo/build/bench}
mkdir -p "$out"
mpicc -O2 -o "$out/mpi_barrier" tests/bench/mpi_barrier.c

work=$(mktemp -d /tmp/ebnccl-bench-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
port=$((29500 + $$ % 1000))
"$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path "$work/history.db" --log-level warn >"$work/c.log" 2>&1 &
pids+=($!)
sleep 0.5
for n in 0 1; do
  "$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name "bench$n" --workers 4 \
    --bootstrap-address 127.0.0.1 --run-dir "$work/run$n" --log-level warn >"$work/a$n.log" 2>&1 &
  pids+=($!)
done
for _ in $(seq 100); do
  [[ $("$bin/ebctl" --coordinator "127.0.0.1:$port" nodes --json | grep -c '"idle"') == 2 ]] && break
  sleep 0.1
done

ebctl_cmd="$bin/ebctl --coordinator 127.0.0.1:$port run-test --nodes bench0,bench1 --collective all_reduce -b 8 -e 8 -n 1 -w 1 -c 1"
mpi_flags="--oversubscribe"
[[ $(id -u) -eq 0 ]] && mpi_flags+=" --allow-run-as-root"
mpi_cmd="mpirun $mpi_flags -np 8 $out/mpi_barrier"
$ebctl_cmd >/dev/null   # one untimed run: page cache, first connections

# Time to the first table row, measured by ebctl's own clock, over $runs runs.
first_row=()
for _ in $(seq "$runs"); do
  t0=$(date +%s%N)
  $ebctl_cmd | while IFS= read -r line; do
    if [[ "$line" =~ ^[[:space:]]+8[[:space:]] ]]; then echo $(( ($(date +%s%N) - t0) / 1000000 )); fi
  done >>"$work/first_row_ms"
done
sort -n "$work/first_row_ms" > "$work/sorted"
median_first=$(awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' "$work/sorted")

hyperfine --warmup 2 --runs "$runs" --export-json "$out/launch.json" \
  -n "ebctl run-test (2 agents x 4 workers, all_reduce 8 B)" "$ebctl_cmd" \
  -n "mpirun -np 8 MPI_Barrier" "$mpi_cmd"

echo
echo "median time to the first table row (ebctl): ${median_first} ms over $runs runs"
python3 - "$out/launch.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print("| command | median (ms) | mean ± sd (ms) | min (ms) | max (ms) |")
print("|---|---|---|---|---|")
for x in r:
    print("| %s | %.0f | %.0f ± %.0f | %.0f | %.0f |" % (x["command"], x["median"]*1e3, x["mean"]*1e3,
          x["stddev"]*1e3, x["min"]*1e3, x["max"]*1e3))
print("ratio ebctl / mpirun (median): %.2f" % (r[0]["median"] / r[1]["median"]))
PY
