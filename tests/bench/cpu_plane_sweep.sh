#!/usr/bin/env bash
# Benchmark (not a CI test): the CPU data plane's time per byte across sizes
# (issue 33 item 17). Starts an eb-coordinator and one eb-agent of WORKERS
# workers (2) on 127.0.0.1, then runs `ebctl run-test --transport gloo -I 1`
# RUNS times for every collective over 32 KiB-64 MiB (x2 steps): both lanes
# of the CPU plane, our ring links (sendrecv, all_reduce) and Gloo's pairs
# (the others). Per collective, variant (out-of-place, in-place) and size it
# takes the median over the runs of the time per call (nccl-tests' mean of
# the timed calls). It fails (exit 1) when any size's median time per byte
# is more than RATIO times either neighbour's (a stall at one size that the
# large-size ratios hide), naming the size and both neighbours' figures.
# The table also shows the slowest single call of all runs (`-I 1`), which
# the median hides: a call that sleeps to a timeout shows there first.
# Each run starts one size below MIN (LEAD_IN, 16K) and that size is not
# judged: a run's first measurement is slower than the ones after it (on
# the quiet 16-core host every collective's first 32 KiB out-of-place took
# 3-48 % longer than its in-place call measured right after), and at a
# latency-bound size that alone comes near the 3x bar.
#
#   tests/bench/cpu_plane_sweep.sh
#   BIN_DIR=build/bin RUNS=5 ITERS=20 WARMUP=5 MIN=32K MAX=64M RATIO=3
#   WORKERS=2 COLLECTIVES="sendrecv all_reduce" (default: all seven)
#   LEAD_IN=16K (empty: none)
#   CPUS=0-3 (taskset) AGENT_ARGS="..."
#   OUT_DIR=dir (keep every run's JSON there; default a temporary folder)
# Exit: 0 no stall, 1 a stall, 2 the set-up failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$repo/build/bin}
runs=${RUNS:-5}
iters=${ITERS:-20}
warmup=${WARMUP:-5}
min_size=${MIN:-32K}
lead_in=${LEAD_IN-16K}
max_size=${MAX:-64M}
ratio=${RATIO:-3}
workers=${WORKERS:-2}
collectives=${COLLECTIVES:-sendrecv all_reduce all_gather reduce_scatter broadcast reduce alltoall}
pin=()
[[ -n "${CPUS:-}" ]] && pin=(taskset -c "$CPUS")
read -r -a agent_args <<<"${AGENT_ARGS:-}"
command -v python3 >/dev/null || { echo "cpu_plane_sweep: needs python3" >&2; exit 2; }
work=$(mktemp -d /tmp/ebnccl-cpu-sweep-XXXXXX)
out=${OUT_DIR:-$work/runs}
mkdir -p "$out"
pids=()
cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  [[ -n "${KEEP:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

echo "# cpu_plane_sweep $(date -u +%FT%TZ) on $(hostname) ($(nproc) cores${CPUS:+, pinned to CPUs $CPUS}); $(uptime | sed 's/.*load/load/')"
echo "# commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown); kernel $(uname -r)"
echo "# reproduce: BIN_DIR=$bin RUNS=$runs ITERS=$iters WARMUP=$warmup MIN=$min_size MAX=$max_size RATIO=$ratio WORKERS=$workers LEAD_IN=$lead_in COLLECTIVES=\"$collectives\"${CPUS:+ CPUS=$CPUS} $repo/tests/bench/cpu_plane_sweep.sh"

port=$((29800 + $$ % 150))
"${pin[@]}" "$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path '' \
  --log-level warn >"$work/coordinator.log" 2>&1 &
pids+=($!)
"${pin[@]}" "$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name sweep0 \
  --workers "$workers" --bootstrap-address 127.0.0.1 --run-dir "$work/run" --log-level warn "${agent_args[@]}" \
  >"$work/agent.log" 2>&1 &
pids+=($!)
ebctl=("$bin/ebctl" --coordinator "127.0.0.1:$port")
up=0
for _ in $(seq 200); do
  if [[ $("${ebctl[@]}" nodes --json 2>/dev/null | grep -c '"idle"') -ge 1 ]]; then up=1; break; fi
  sleep 0.1
done
if [[ $up -ne 1 ]]; then
  echo "cpu_plane_sweep: the agent did not come up; logs:" >&2
  cat "$work/coordinator.log" "$work/agent.log" >&2
  exit 2
fi

for run in $(seq "$runs"); do
  for collective in $collectives; do
    json=$out/$collective-$run.json
    if ! "${ebctl[@]}" run-test --nodes sweep0 --transport gloo --collective "$collective" \
      -b "${lead_in:-$min_size}" -e "$max_size" -f 2 -n "$iters" -w "$warmup" -I 1 --json >"$json" 2>"$json.err"; then
      echo "cpu_plane_sweep: run $run of $collective failed:" >&2
      cat "$json.err" >&2
      exit 2
    fi
  done
  echo "# run $run of $runs done ($(uptime | sed 's/.*load/load/'))"
done

python3 - "$out" "$ratio" "$collectives" "$min_size" <<'EOF'
import glob, json, os, re, statistics, sys

out, ratio, collectives = sys.argv[1], float(sys.argv[2]), sys.argv[3].split()
# MIN as ebctl reads it: a number with an optional K, M or G (powers of 1024).
number, unit = re.fullmatch(r"(\d+)\s*([KMG]?)i?B?", sys.argv[4].strip(), re.I).groups()
min_bytes = int(number) * 1024 ** " KMG".index(unit.upper() or " ")
stalls = []
for collective in collectives:
    for variant in ("out_of_place", "in_place"):
        times = {}  # size -> [time per call, us]
        worst = {}  # size -> the slowest single call of all runs, us (-I 1)
        for path in sorted(glob.glob(os.path.join(out, f"{collective}-*.json"))):
            for row in json.load(open(path))["results"]:
                if row["size"] < min_bytes:
                    continue  # the lead-in size
                times.setdefault(row["size"], []).append(row[variant]["time"])
                per_iter = row.get(f"{variant}_per_iter") or {}
                worst[row["size"]] = max(worst.get(row["size"], 0.0), per_iter.get("max_us", 0.0))
        sizes = sorted(times)
        med = {s: statistics.median(times[s]) for s in sizes}
        per_byte = {s: med[s] * 1e3 / s for s in sizes}  # ns per byte
        print(f"\n### {collective}, {variant.replace('_', '-')}: median of {len(times[sizes[0]])} runs\n")
        print("| size | median time (us) | min-max (us) | slowest call (us) | ns/byte | algbw (GB/s) | vs neighbours |")
        print("|---|---|---|---|---|---|---|")
        for i, s in enumerate(sizes):
            flags = []
            for j in (i - 1, i + 1):
                if 0 <= j < len(sizes) and per_byte[s] > ratio * per_byte[sizes[j]]:
                    flags.append(f"{per_byte[s] / per_byte[sizes[j]]:.1f}x of {sizes[j] // 1024} KiB")
            if flags:
                left = f"{sizes[i - 1] // 1024} KiB {per_byte[sizes[i - 1]]:.3f}" if i > 0 else "none"
                right = f"{sizes[i + 1] // 1024} KiB {per_byte[sizes[i + 1]]:.3f}" if i + 1 < len(sizes) else "none"
                stalls.append(f"{collective} {variant}: {s // 1024} KiB at {per_byte[s]:.3f} ns/byte "
                              f"(neighbours: {left}; {right} ns/byte)")
            print(f"| {s // 1024} KiB | {med[s]:.1f} | {min(times[s]):.1f}-{max(times[s]):.1f} | "
                  f"{worst[s]:.0f} | {per_byte[s]:.3f} | {s / med[s] / 1e3:.2f} | {'**STALL** ' + ', '.join(flags) if flags else 'ok'} |")
print()
if stalls:
    for line in stalls:
        print(f"FAIL: time per byte more than {ratio:g}x a neighbour's: {line}")
    sys.exit(1)
print(f"PASS: no size's time per byte is more than {ratio:g}x either neighbour's")
EOF
