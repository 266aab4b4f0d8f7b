#!/usr/bin/env bash
# Issue 29, item 6: is the right culprit named, kind and part, over the chaos
# cases? Not a CI test (minutes): a scoring run, RELIABILITY.md ("Culprit
# scoring") holds its table and what each case's right answer is.
#
# Three "hosts" in network namespaces (tests/netns/fleet.sh): the coordinator
# in host 0, an agent of 2 workers in each; every test runs on node1,node2
# (ranks 0-1 on node1, 2-3 on node2), so the coordinator's own link is never
# the one hurt. Each case runs RUNS times, a fresh fault each run, on a rank
# or node drawn at random:
#
#   healthy        no fault                                   -> culprit path
#   duty_stop      a worker SIGSTOPped 30 ms of every 100 ms  -> descheduled_rank R
#   cpu_quota      a worker in a cgroup of 10 ms CPU per 100 ms
#                  (CFS quota: it runs, slower)               -> descheduled_rank R
#   throttled_host one host's link at 100 Mbit/s (tbf, both
#                  directions)                                -> path
#   lossy_link     3 % of a host's data packets to the other
#                  lost on the path (nftables on the bridge,
#                  one direction)                             -> path, the counters
#                                                                naming that host
#   paused_rank    a worker SIGSTOPped for good mid-sweep     -> worker_hung R (hang)
#   one_way_path   node1 -> node2 data dropped mid-sweep
#                  (packets over 400 bytes; handshakes pass)  -> no_progress or too_slow,
#                                                                rank -1 (hang)
#   frozen_agent   an agent SIGSTOPped mid-sweep              -> node_lost N (hang)
#
# A failed test's culprit must not name another part than its failure
# (tests/bench/culprit_table.py says what counts as right). For a hang, the
# time to name is from the fault to ebctl's answer. The counters the
# culprit names (the hosts' TCP retransmissions, issue 29 item 6) are
# scored too: lossy_link's must name the sending host first, healthy's
# none. Each run's line (the
# report's culprit and first failure, and for cpu_quota and lossy_link what
# the fault did: CPU time throttled in the sweep, packets dropped) is kept in
# /tmp/ebnccl-culprit-<pid>.tsv, or $EB_CULPRIT_RESULTS. Several runs of the
# script at once (culprit_parallel.sh) each take a fleet of their own:
# namespaces named by pid, subnet 10.81.$EB_CULPRIT_SUBNET_INDEX (default:
# from the pid).
# Deadlines as the chaos battery's, short enough for the 5 s target: agent
# hang timeout 2.5 s, heartbeats 200 ms x 5, step deadline 4 s. With
# EB_CULPRIT_DEFAULTS=1, the shipped defaults instead (every daemon and test
# on its own defaults: docs/CONFIG.md; fleet.sh's fleet_defaults): the
# issue's 5 s as a user gets it.
#
#   sudo [EB_CULPRIT_DEFAULTS=1] tests/bench/culprit_scoring.sh BIN_DIR [RUNS] [CASES]
# prints one line per run, then the table (also in $EB_CULPRIT_TABLE when
# set). CASES: comma-separated names from the list above (default: all).
# Needs root, iproute2, tc, nft and cgroup v1's cpu controller (the
# cpu_quota case is skipped without it).
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR [RUNS] [CASES]}
runs=${2:-10}
cases=${3:-healthy,duty_stop,cpu_quota,throttled_host,lossy_link,paused_rank,one_way_path,frozen_agent}
bin=$(cd "$bin" && pwd)

if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null || ! command -v nft >/dev/null; then
  echo "needs root, iproute2 and nft"; exit 77
fi
prefix="ebq$$"
subnet="10.81.${EB_CULPRIT_SUBNET_INDEX:-$(($$ % 200 + 10))}"
work=$(mktemp -d /tmp/ebnccl-culprit-XXXXXX)
hosts=(0 1 2)
pids=()
cgroup=/sys/fs/cgroup/cpu/ebnccl-culprit-$$
results=${EB_CULPRIT_RESULTS:-/tmp/ebnccl-culprit-$$.tsv}
defaults=${EB_CULPRIT_DEFAULTS:-0}
fleet_defaults=$defaults
fleet_hang_ms=2500
# The workers read the quota's throttled time, as on a host (fleet.sh).
fleet_cgroup_cpu=0
[[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]] && fleet_cgroup_cpu=1
step_flags=(--step-timeout 4s)
[[ $defaults == 1 ]] && step_flags=()

source "$(dirname "$0")/../netns/fleet.sh"
scoring_cleanup() {
  set +e
  for h in "${hosts[@]}"; do
    ip netns exec "$prefix-h$h" nft delete table inet ebculprit 2>/dev/null
  done
  ip netns exec "$prefix-br" nft delete table bridge ebculprit 2>/dev/null
  if [[ -d $cgroup ]]; then
    while read -r t; do echo "$t" >/sys/fs/cgroup/cpu/tasks; done <"$cgroup/tasks"
    rmdir "$cgroup"
  fi
  netns_fleet_cleanup
}
netns_fleet_up
trap scoring_cleanup EXIT
coordinator="$subnet.1:29471"
netns_fleet_certs culprit-scoring operator
declare -A agent_pid
netns_fleet_coordinator
netns_fleet_agents 2
# shellcheck disable=SC2046
ebctl() { ip netns exec "$prefix-h0" "$bin/ebctl" --coordinator "$coordinator" $(tls clients/culprit-scoring) "$@"; }
wait_idle() {
  for _ in $(seq 300); do
    [[ $(ebctl nodes --json 2>/dev/null | grep -c '"state": "idle"') == "${#hosts[@]}" ]] && return 0
    sleep 0.1
  done
  echo "nodes not idle"; ebctl nodes || true
}
wait_idle

# The pid of the worker of global rank $1 (0-1 on node1, 2-3 on node2),
# once it exists; empty after 20 s.
worker_pid() {
  local h=$((1 + $1 / 2)) pid
  for _ in $(seq 400); do
    for pid in $(ip netns pids "$prefix-h$h"); do
      if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -- "eb-worker.* --rank=$1 " >/dev/null; then
        echo "$pid"; return 0
      fi
    done
    sleep 0.05
  done
}

# The Gloo sweep of the integration test: 1-8 MiB x 20 calls, a few seconds.
short_sweep=(-b 1M -e 8M -f 2 -n 20 -w 1)
# Over a link at 100 Mbit/s: 256 KiB-2 MiB x 10 calls, about 10 s.
net_sweep=(-b 256K -e 2M -f 2 -n 10 -w 1)
# Long enough to be running when the hang is made: 1 MiB more each size.
long_sweep=(-b 1M -e 64M -i 1M -n 10 -w 1 "${step_flags[@]+"${step_flags[@]}"}")

shape_host() {  # both directions of node $1's link through tbf
  netns_fleet_shape "$1" rate 100mbit burst 256kb latency 50ms
}
unshape_host() {
  tc -n "$prefix-h$1" qdisc del dev eth0 root 2>/dev/null || true
  tc -n "$prefix-br" qdisc del dev "${prefix}p$1" root 2>/dev/null || true
}
nft_drop() {  # node $1 drops its packets to node $2 matching "$3"
  ip netns exec "$prefix-h$1" nft -f - <<EOF
table inet ebculprit {
  chain out {
    type filter hook output priority 0;
    ip daddr $subnet.$(($2 + 1)) $3 counter drop
  }
}
EOF
}
# The bridge (the fleet's "switch") loses packets from node $1 to node $2
# matching "$3": the sender's TCP sees them lost and retransmits (a drop in
# the sender's own output hook is a local send error, sent again as new).
bridge_drop() {
  ip netns exec "$prefix-br" nft -f - <<EOF
table bridge ebculprit {
  chain forward {
    type filter hook forward priority 0;
    ip saddr $subnet.$(($1 + 1)) ip daddr $subnet.$(($2 + 1)) $3 counter drop
  }
}
EOF
}
bridge_dropped() {
  { ip netns exec "$prefix-br" nft list table bridge ebculprit 2>/dev/null || true; } |
    sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | awk '{n += $1} END {print n + 0}'
}
bridge_clear() { ip netns exec "$prefix-br" nft delete table bridge ebculprit 2>/dev/null || true; }
# CPU time the quota's cgroup was throttled, milliseconds.
throttled_ms() { awk '/^throttled_time/ {print int($2 / 1000000)}' "$cgroup/cpu.stat"; }
nft_clear() { ip netns exec "$prefix-h$1" nft delete table inet ebculprit 2>/dev/null || true; }

# One run of case $1: starts the test, makes the fault, waits; writes
# a JSON line to $results: the case, the right culprit (path, rank:R or
# node:N), when the fault was made (0: from the start), ebctl's exit and
# what the report said (culprit, primary failure).
run_case() {
  local name=$1 victim=$((RANDOM % 4)) node=$((1 + RANDOM % 2)) fault_at=0 expect
  local out=$work/run.json sweep=("${short_sweep[@]}") stopper="" throttled_before=0
  local counters=none  # the node the culprit's counters must name first; any: not scored
  case $name in
    healthy) expect=path ;;
    duty_stop|cpu_quota) expect=rank:$victim ;;
    throttled_host) expect=path sweep=("${net_sweep[@]}") counters=any; shape_host "$node" ;;
    lossy_link)
      expect=path sweep=("${net_sweep[@]}") counters=node$node
      bridge_drop "$node" $((3 - node)) "meta length > 400 numgen random mod 100 < 3"
      ;;
    paused_rank) expect=rank:$victim sweep=("${long_sweep[@]}") ;;
    one_way_path) expect=path sweep=("${long_sweep[@]}") ;;
    frozen_agent) expect=node:node$node sweep=("${long_sweep[@]}") ;;
  esac
  ebctl run-test --json --nodes node1,node2 "${sweep[@]}" >"$out" 2>"$work/run.err" &
  local ebctl_pid=$!
  local pid
  pid=$(worker_pid "$victim")
  case $name in
    duty_stop)
      ( while kill -STOP "$pid" 2>/dev/null; do
          sleep 0.03; kill -CONT "$pid"; sleep 0.07
        done ) &
      stopper=$!
      ;;
    cpu_quota)
      mkdir -p "$cgroup"
      echo 100000 >"$cgroup/cpu.cfs_period_us"
      echo 10000 >"$cgroup/cpu.cfs_quota_us"
      for t in /proc/"$pid"/task/*; do echo "${t##*/}" >"$cgroup/tasks" 2>/dev/null || true; done
      # Counted from the sweep's start: a quota that bites only while the
      # worker starts (it is CPU-bound then) slows no measured call.
      while kill -0 "$ebctl_pid" 2>/dev/null && ! grep -q "running the sweep" "$work/run.err"; do
        sleep 0.02
      done
      throttled_before=$(throttled_ms)
      ;;
    paused_rank|one_way_path|frozen_agent)
      sleep 1.5  # inside the timed calls (init takes well under a second)
      fault_at=$(date +%s.%N)
      case $name in
        paused_rank) kill -STOP "$pid" ;;
        one_way_path) nft_drop 1 2 "meta length > 400" ;;
        frozen_agent) kill -STOP "${agent_pid[$node]}" ;;
      esac
      ;;
  esac
  local code=0 effect=""
  wait "$ebctl_pid" || code=$?
  # Whether the fault bit: a quota the worker never reached slows nothing.
  case $name in
    cpu_quota) effect="throttled $(($(throttled_ms) - throttled_before)) ms in the sweep" ;;
    lossy_link) effect="dropped $(bridge_dropped) packets" ;;
  esac
  local exit_at
  exit_at=$(date +%s.%N)
  if [[ -n $stopper ]]; then
    kill "$stopper" 2>/dev/null || true
    wait "$stopper" 2>/dev/null || true
  fi
  kill -CONT "$pid" 2>/dev/null || true
  if [[ $name == frozen_agent ]]; then kill -CONT "${agent_pid[$node]}"; fi
  nft_clear 1; nft_clear 2; bridge_clear; unshape_host 1; unshape_host 2
  [[ -s $out ]] || echo '{}' >"$out"
  python3 - "$name" "$expect" "$fault_at" "$exit_at" "$code" "$out" "$effect" "$counters" \
    >>"$results" <<'PY'
import json, sys
name, expect, fault_at, exit_at, code, path, effect, counters = sys.argv[1:]
r = json.load(open(path))
print(json.dumps({"case": name, "expect": expect, "counters": counters, "effect": effect,
                  "tcp": {t["node"]: [t["counters"].get(k, {}).get("delta") for k in
                                      ("Tcp:OutSegs", "Tcp:RetransSegs")]
                          for t in r.get("tcp_counters", [])},
                  "fault_at": float(fault_at),
                  "exit_at": float(exit_at), "exit": int(code), "culprit": r.get("culprit"),
                  "failures": r.get("failures", [])[:1]}))
PY
  tail -n 1 "$results" | cut -c 1-400
  if [[ $name == frozen_agent ]]; then
    # The thawed agent registers again (its session was ended).
    sleep 1
  fi
  wait_idle
}

echo "deadlines: $([[ $defaults == 1 ]] && echo "shipped defaults" || echo "the battery's short ones")"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
IFS=, read -r -a chosen <<<"$cases"
for name in "${chosen[@]}"; do
  if [[ $name == cpu_quota && ! -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
    echo "skip cpu_quota: no cgroup v1 cpu controller"; continue
  fi
  for ((i = 0; i < runs; ++i)); do
    echo "== $name run $i (load $(cut -d' ' -f1 /proc/loadavg))"
    run_case "$name"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$(dirname "$0")/culprit_table.py" "$results" | tee "${EB_CULPRIT_TABLE:-/dev/null}"
failed=0
