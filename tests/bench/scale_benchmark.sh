#!/usr/bin/env bash
# Benchmark (not a test): the coordinator at scale (issue 15). For each N, a
# fresh eb-coordinator on loopback and eb-load-generator with N simulated
# agents x R simulated workers, all connecting at once, then K tests over all
# of them (K=1: one test of N nodes). Prints one table row per run:
# registration time (and abandoned connection attempts), RunTest -> all
# ranks JOINED, RunTest -> verdict, the coordinator's CPU seconds for the
# test and per rank, its RSS, the generator's own CPU seconds (to show it is
# not the bottleneck) and the load average when the run started.
#
#   tests/bench/scale_benchmark.sh [--agents "16 64 256 1024 2048"] [--ranks 8]
#       [--transport nccl|gloo] [--concurrent-tests K] [--rounds R]
#       [--tls both|on|off] [--ebctl-nodes K] [--history-limit L]
#       [--history-path FILE] [--out DIR] [--compromised K] [--pairs P]
#       [--progress "off batched per-report"] [-- extra eb-load-generator options]
#
# --compromised K (issue 32): for each N, P pairs of runs, alternated: a
# clean run, then the same with K compromised agents more (bad00000...,
# eb-load-generator --compromised-agents K) that flood the coordinator at
# the edge of every per-node limit while the N honest agents run their test,
# then go over it. Each row says which; the compromised rows add whether the
# coordinator cut the compromised nodes off as docs/SECURITY.md says, and
# every row the coordinator's log size (a flood of log lines shows there).
# A summary compares the medians: the honest test's verdict time
# (compromised / clean) and the coordinator's peak RSS. One command on a
# quiet host: tests/bench/scale_benchmark.sh --agents 1024 --compromised 1 --pairs 3 --tls on
#
# --progress VARIANTS (issue 29 item 2): for each N, P rounds of the
# variants in turn (off batched per-report off batched ...), where each
# size lasts --size-ms (give it after --, with --iterations) and the ranks
# report PROGRESS every 250 ms: off, none (--progress false); batched, a
# node's reports of a period in one message, as the agent sends them;
# per-report, one message a report, as the agent did before. A summary
# gives the medians of each variant (the test's coordinator CPU, peak RSS,
# JOINED and verdict) and the CPU each PROGRESS event cost over off. One
# command on a quiet host: tests/bench/scale_benchmark.sh --agents "256 1024"
# --progress "off batched per-report" --pairs 3 -- --size-ms 5000 --iterations 1000
# --scheduler-threads 4
#
# With -- --idle-s S, the generator first measures the coordinator's CPU
# rate with only heartbeats for S seconds, and "coord ms/rank" adds "(net
# X)": the test's CPU less the fleet's heartbeats over the test's wall time
# (N agents beat every 2 s however long the test takes, so the gross figure
# per rank grows with N twice: more agents, and a longer test).
# --ebctl-nodes K times `ebctl nodes --json` K times while the generator's
# agents are registered and idle (give the generator -- --idle-s S, S long
# enough for the K listings); --rounds R with --out DIR keeps each round's
# coordinator RSS in DIR/run-*.json (rounds[].coordinator_rss_mb, and
# coordinator_rss_idle_mb before the first test). The coordinator keeps its
# history in memory (--history-path ''), the last 1,000 reports unless
# --history-limit L says otherwise: for the RSS over many rounds, L=1 leaves
# out the reports that it keeps by design. --history-path FILE keeps it in
# SQLite instead (a fresh file per run: FILE-<mode>-<N>), as a fleet's
# coordinator does: the cost of recording every verdict.
# EB_HEARTBEAT_MS and EB_HEARTBEAT_MISS (2000 and 3 by default, the figures
# before issue 29 item 6) set the heartbeat period and miss limit of the
# coordinator and of the generator's agents alike: EB_HEARTBEAT_MS=500
# EB_HEARTBEAT_MISS=6 is the shipped default's cost.
# Build first: ninja -C build eb-coordinator eb_load_generator. BIN_DIR picks
# other binaries (for a before/after comparison). --tls both runs every N in
# plaintext and over mutual TLS (certificates from
# deploy/scripts/ebnccl-certs.sh; issue 10's registration benchmark).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BIN_DIR:-$repo/build/bin}
agents_list="16 64 256 1024"
ranks=8 transport=nccl tests=1 rounds=1 tls=off out="" ebctl_nodes=0 history_limit=1000 history_path='' extra=()
compromised=0 pairs=1 progress_variants=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --agents) agents_list=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    --concurrent-tests) tests=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --tls) tls=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --ebctl-nodes) ebctl_nodes=$2; shift 2 ;;
    --history-limit) history_limit=$2; shift 2 ;;
    --history-path) history_path=$2; shift 2 ;;
    --compromised) compromised=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --progress) progress_variants=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) sed -n '2,62p' "$0"; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/ebnccl-scale-bench-XXXXXX)
coordinator_pid=""
cleanup() {
  [[ -n $coordinator_pid ]] && kill -TERM "$coordinator_pid" 2>/dev/null && wait "$coordinator_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
[[ -n $out ]] && mkdir -p "$out"
modes=(off)
[[ $tls == on ]] && modes=(on)
[[ $tls == both ]] && modes=(off on)

max_agents=0
for n in $agents_list; do (( n > max_agents )) && max_agents=$n; done
if [[ " ${modes[*]} " == *" on "* ]]; then
  certs=$work/tls
  "$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" ca >/dev/null
  "$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" coordinator localhost >/dev/null
  "$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" client bench operator >/dev/null
  names=()
  for ((i = 0; i < max_agents; i++)); do names+=("$(printf 'sim%05d' "$i")"); done
  for ((i = 0; i < compromised; i++)); do names+=("$(printf 'bad%05d' "$i")"); done
  echo "making $max_agents node certificates..." >&2
  printf '%s\n' "${names[@]}" | xargs -n 64 -P 2 "$repo/deploy/scripts/ebnccl-certs.sh" --dir "$certs" node >/dev/null
fi

variants=(clean)
(( compromised > 0 )) && variants=(clean compromised)
# shellcheck disable=SC2206 # the variants are words
[[ -n $progress_variants ]] && variants=($progress_variants)
echo "| agents | ranks | tls | run | register s (abandoned) | coord CPU-s (register) | JOINED s | verdict s | passed | coord CPU-s (test) | coord ms/rank | coord RSS MB | generator CPU-s | coord log KB | load avg |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
port=$((31000 + $$ % 2000))
for mode in "${modes[@]}"; do
  for n in $agents_list; do
  for ((pair = 0; pair < pairs; pair++)); do
  for variant in "${variants[@]}"; do
    port=$((port + 1))
    tag=$mode-$n-$pair-$variant
    vextra=()
    case $variant in
      compromised) vextra=(--compromised-agents "$compromised") ;;
      off) vextra=(--progress false) ;;
      batched) vextra=(--progress true --progress-together true) ;;
      per-report) vextra=(--progress true --progress-together false) ;;
    esac
    ctls=() gtls=()
    if [[ $mode == on ]]; then
      ctls=(--tls-ca "$certs/ca.pem" --tls-cert "$certs/coordinator.pem" --tls-key "$certs/coordinator.key")
      gtls=(--tls --tls-dir "$certs")
    fi
    history_file=""
    if [[ -n $history_path ]]; then
      history_file="$history_path-$tag"
      rm -f "$history_file" "$history_file-wal" "$history_file-shm"
    fi
    "$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path "$history_file" \
      --history-limit "$history_limit" --log-level warn "${ctls[@]}" \
      --heartbeat-period-ms "${EB_HEARTBEAT_MS:-2000}" --heartbeat-miss-limit "${EB_HEARTBEAT_MISS:-3}" \
      >"$work/coordinator-$tag.log" 2>&1 &
    coordinator_pid=$!
    for _ in $(seq 50); do
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
      sleep 0.1
    done
    load=$(cut -d' ' -f1 /proc/loadavg)
    json=$work/run-$tag.json
    rc=0
    "$bin/eb-load-generator" --coordinator "127.0.0.1:$port" --coordinator-pid "$coordinator_pid" \
      --heartbeat-ms "${EB_HEARTBEAT_MS:-2000}" \
      --agents "$n" --ranks-per-agent "$ranks" --transport "$transport" \
      --concurrent-tests "$tests" --rounds "$rounds" --json "$json" "${gtls[@]}" "${vextra[@]}" \
      "${extra[@]}" >"$work/generator-$tag.log" 2>&1 &
    generator_pid=$!
    if (( ebctl_nodes > 0 )); then
      ectl=()
      [[ $mode == on ]] && ectl=(--tls-ca "$certs/ca.pem" --tls-cert "$certs/clients/bench.pem" --tls-key "$certs/clients/bench.key")
      until grep -q '^registered' "$work/generator-$tag.log" 2>/dev/null; do
        kill -0 "$generator_pid" 2>/dev/null || break
        sleep 0.2
      done
      for ((k = 0; k < ebctl_nodes; k++)); do
        t0=$(date +%s.%N)
        "$bin/ebctl" --coordinator "127.0.0.1:$port" "${ectl[@]}" nodes --json >"$work/nodes.json"
        t1=$(date +%s.%N)
        echo "ebctl nodes --json ($(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["nodes"]) if isinstance(d, dict) else len(d))' "$work/nodes.json") nodes, $(stat -c %s "$work/nodes.json") bytes): $(python3 -c "print('%.1f' % (1000 * ($t1 - $t0)))") ms, load $(cut -d' ' -f1 /proc/loadavg)"
      done
    fi
    wait "$generator_pid" || rc=$?
    kill -TERM "$coordinator_pid" 2>/dev/null || true
    wait "$coordinator_pid" 2>/dev/null || true
    coordinator_pid=""
    log_kb=$(( $(stat -c %s "$work/coordinator-$tag.log") / 1024 ))
    [[ -n $out ]] && cp "$json" "$out/" 2>/dev/null && cp "$work/generator-$tag.log" "$out/"
    if [[ ! -s $json ]]; then
      echo "| $n | $((n * ranks)) | $mode | $variant | generator failed (rc $rc): $(tail -1 "$work/generator-$tag.log") |"
      continue
    fi
    python3 - "$json" "$load" "$variant" "$log_kb" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["coordinator_log_kb"] = int(sys.argv[4])
json.dump(r, open(sys.argv[1], "w"), indent=2)
run = sys.argv[3]
if "compromised" in r:
    run += " (%d; cut off as documented: %s)" % (
        len(r["compromised"]["agents"]), "yes" if r["compromised"]["cut_off_as_documented"] else "NO")
last = r["rounds"][-1] if r.get("rounds") else {}
def f(v, fmt="%.3f"):
    return "-" if v is None or v < 0 else fmt % v
print("| %d | %d | %s | %s | %s (%d) | %s | %s | %s | %s/%s | %s | %s | %s | %s | %s | %s |" % (
    r["agents"], r["ranks"], "mTLS" if r["tls"] else "plain", run,
    f(r["register_s"]), r["register_failed_attempts"], f(r.get("coordinator_register_cpu_s")),
    f(last.get("joined_s")), f(last.get("verdict_s")),
    last.get("passed", 0), last.get("tests", 0),
    f(last.get("coordinator_cpu_s")),
    f(last.get("coordinator_cpu_ms_per_rank"), "%.4f") +
    (" (net %s)" % f(last["coordinator_net_cpu_ms_per_rank"], "%.4f")
     if "coordinator_net_cpu_ms_per_rank" in last else ""),
    f(r.get("coordinator_peak_rss_mb"), "%.0f"),
    f(r.get("generator_cpu_s_total"), "%.2f"), r["coordinator_log_kb"], sys.argv[2]))
PY
  done
  done
  done
done
if [[ -n $progress_variants ]]; then
  # The medians of each N and variant, and what a PROGRESS event cost the
  # coordinator over the runs without them.
  python3 - "$work" <<'PY'
import glob, json, os, statistics, sys
runs = {}
for path in glob.glob(os.path.join(sys.argv[1], "run-*.json")):
    mode, n, _, variant = os.path.basename(path)[4:-5].split("-", 3)
    r = json.load(open(path))
    if r.get("rounds"):
        runs.setdefault((mode, int(n)), {}).setdefault(variant, []).append(r)
print()
print("| agents | ranks | variant | runs | PROGRESS events | coord CPU-s (test), median | over off | per event, µs | coord peak RSS MB (max) | JOINED s | verdict s | passed | generator CPU-s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (mode, n), v in sorted(runs.items()):
    med = lambda rs, f: statistics.median(f(r) for r in rs)
    base = med(v["off"], lambda r: r["rounds"][-1]["coordinator_cpu_s"]) if "off" in v else None
    for variant in ("off", "batched", "per-report"):
        rs = v.get(variant, [])
        if not rs:
            continue
        cpu = med(rs, lambda r: r["rounds"][-1]["coordinator_cpu_s"])
        events = med(rs, lambda r: r["rounds"][-1]["progress_events"])
        over = "-" if base is None or variant == "off" else "+%.3f" % (cpu - base)
        per = "-" if base is None or not events else "%.1f" % (1e6 * (cpu - base) / events)
        print("| %d | %d | %s | %d | %d | %.3f | %s | %s | %.0f | %.3f | %.3f | %d/%d | %.2f |" % (
            n, rs[0]["ranks"], variant, len(rs), events, cpu, over, per,
            max(r["coordinator_peak_rss_mb"] for r in rs),
            med(rs, lambda r: r["rounds"][-1]["joined_s"]), med(rs, lambda r: r["rounds"][-1]["verdict_s"]),
            sum(r["rounds"][-1]["passed"] for r in rs), len(rs),
            med(rs, lambda r: r["generator_cpu_s_total"])))
PY
fi
if (( compromised > 0 )); then
  # The medians of each N and mode: the honest test with K compromised
  # nodes against the clean runs.
  python3 - "$work" <<'PY'
import glob, json, os, statistics, sys
runs = {}
for path in glob.glob(os.path.join(sys.argv[1], "run-*.json")):
    mode, n, _, variant = os.path.basename(path)[4:-5].split("-")
    r = json.load(open(path))
    if not r.get("rounds"):
        continue
    runs.setdefault((mode, int(n)), {}).setdefault(variant, []).append(r)
print()
print("| agents | tls | pairs | verdict s clean / compromised (median) | ratio | JOINED s clean / compromised | coord peak RSS MB clean / compromised (max) | honest tests passed | cut off as documented |")
print("|---|---|---|---|---|---|---|---|---|")
for (mode, n), v in sorted(runs.items()):
    clean, bad = v.get("clean", []), v.get("compromised", [])
    if not clean or not bad:
        continue
    med = lambda rs, key: statistics.median(r["rounds"][-1][key] for r in rs)
    vc, vb = med(clean, "verdict_s"), med(bad, "verdict_s")
    print("| %d | %s | %d | %.3f / %.3f | %.2f | %.3f / %.3f | %.0f / %.0f | %d/%d | %d/%d |" % (
        n, "mTLS" if mode == "on" else "plain", min(len(clean), len(bad)), vc, vb, vb / vc if vc > 0 else -1,
        med(clean, "joined_s"), med(bad, "joined_s"),
        max(r["coordinator_peak_rss_mb"] for r in clean), max(r["coordinator_peak_rss_mb"] for r in bad),
        sum(r["rounds"][-1]["passed"] for r in clean + bad), len(clean + bad),
        sum(r["compromised"]["cut_off_as_documented"] for r in bad), len(bad)))
PY
fi
