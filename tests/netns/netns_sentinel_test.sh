#!/usr/bin/env bash
# The sentinel yields to a tenant job (issue 30, part 3), on a real Slurm:
# Debian's slurmctld, slurmd and munge over two "hosts" in network
# namespaces (slurm_cluster.sh), our agents in the same namespaces, and the
# coordinator with `--scheduler slurm --sentinel`. Slurm preempts by
# partition priority (preempt/partition_prio, PreemptMode=CANCEL,
# GraceTime=0: QOS preemption needs slurmdbd, which the test does not run):
# the probe jobs go to partition `probe` (PriorityTier=1), tenant jobs to
# `batch` (PriorityTier=10).
# Expected:
#   - the sentinel borrows node0+node1 with an `ebnccl-probe` job and runs a
#     validation of the pair (its workers run in the namespaces);
#   - a tenant job (`sbatch -p batch -w node1 --wrap "sleep 30"`) submitted
#     then starts within 5 s;
#   - the probe's validation is recorded `preempted` and no worker is left
#     in either namespace within 5 s of the tenant's start.
# Needs root, iproute2, and Slurm + munge (deploy/scripts/install-deps.sh);
# exits 77 (ctest: skipped) otherwise.
#   tests/netns/netns_sentinel_test.sh BIN_DIR
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR}

if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null; then
  echo "SKIP: needs root and iproute2"; exit 77
fi
source "$(dirname "$0")/slurm_cluster.sh"
slurm_cluster_check
prefix="ebp$$"
subnet="10.78.$(($$ % 200 + 10))"
work=$(mktemp -d /tmp/ebnccl-netns-sentinel-XXXXXX)
hosts=(0 1)
pids=()
# The batch partition (slurm_cluster_up's) preempts the probe partition.
slurm_extra_conf=(
  "PreemptType=preempt/partition_prio"
  "PreemptMode=CANCEL"
  "PartitionName=probe Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=CANCEL GraceTime=0"
)

source "$(dirname "$0")/fleet.sh"
netns_fleet_up
slurm_cluster_up batch
# Tenant jobs outrank probes (the partition line slurm_cluster_up wrote).
slurm scontrol update PartitionName=batch PriorityTier=10
coordinator="$subnet.1:29470"
netns_fleet_certs netns-sentinel admin

netns_fleet_coordinator --scheduler slurm --scheduler-partition batch \
  --slurm-conf "$work/slurm/slurm.conf" --scheduler-command-timeout-ms 5000 \
  --sentinel --sentinel-partition probe --sentinel-max-idle-percent 100 \
  --sentinel-probe-duration-ms 120000
declare -A agent_pid
netns_fleet_agents 2
# shellcheck disable=SC2046
ebctl() { ip netns exec "$prefix-h1" "$bin/ebctl" --coordinator "$coordinator" $(tls clients/netns-sentinel) "$@"; }

# workers NS: how many eb-worker processes run in host NS's namespace.
workers() {
  local n=0 pid
  for pid in $(ip netns pids "$prefix-h$1" 2>/dev/null); do
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == eb-worker ]] && n=$((n + 1))
  done
  echo "$n"
}

echo "== 1. the sentinel borrows the idle pair and runs a probe on it"
probe=""
for _ in $(seq 300); do
  probe=$(slurm squeue -h -n ebnccl-probe -t RUNNING -o '%i' | sed -n 1p)
  [[ -n "$probe" && $(workers 1) -gt 0 ]] && break
  sleep 0.1
done
[[ -n "$probe" ]] || { echo "FAIL: no probe job runs"; slurm squeue || true; exit 1; }
[[ $(workers 1) -gt 0 ]] || { echo "FAIL: probe job $probe runs, but no worker on node1"; exit 1; }
[[ $(slurm squeue -h -j "$probe" -o '%P|%N') == "probe|node[0-1]" ]] ||
  { echo "FAIL: probe job $probe: $(slurm squeue -h -j "$probe" -o '%P|%N')"; exit 1; }
echo "probe job $probe runs on node[0-1], workers running"

echo "== 2. a tenant job on node1: it starts within 5 s, the probe yields"
submitted=$(date +%s.%N)
tenant=$(slurm sbatch --parsable -p batch -J tenant -w node1 -o /dev/null --wrap 'sleep 30')
for _ in $(seq 100); do
  [[ $(slurm squeue -h -j "$tenant" -o %T) == RUNNING ]] && break
  sleep 0.1
done
started=$(date +%s.%N)
[[ $(slurm squeue -h -j "$tenant" -o %T) == RUNNING ]] ||
  { echo "FAIL: the tenant job did not start within 10 s"; slurm squeue || true; exit 1; }
# seconds A B: B - A, two decimals; within LIMIT A: exits 0 when A <= LIMIT.
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
within() { awk -v l="$1" -v a="$2" 'BEGIN { exit !(a <= l) }'; }
wait_s=$(seconds "$submitted" "$started")
echo "tenant job $tenant started after ${wait_s}s"
within 5 "$wait_s" || { echo "FAIL: the tenant waited ${wait_s}s (> 5 s)"; exit 1; }

# The probe's validation is recorded preempted, its workers gone, within 5 s.
state=""
for _ in $(seq 50); do
  state=$(ebctl validations --json 2>/dev/null | grep -o '"state": "[a-z_]*"' | sed -n 1p || true)
  [[ "$state" == '"state": "preempted"' && $(workers 0) == 0 && $(workers 1) == 0 ]] && break
  sleep 0.1
done
yielded=$(date +%s.%N)
[[ "$state" == '"state": "preempted"' ]] ||
  { echo "FAIL: the probe was recorded $state, not preempted"; ebctl validations || true; exit 1; }
[[ $(workers 0) == 0 && $(workers 1) == 0 ]] ||
  { echo "FAIL: workers left: node0 $(workers 0), node1 $(workers 1)"; exit 1; }
yield_s=$(seconds "$started" "$yielded")
echo "probe recorded preempted, no worker left, ${yield_s}s after the tenant started"
within 5 "$yield_s" || { echo "FAIL: the probe yielded after ${yield_s}s (> 5 s)"; exit 1; }
# Never a hardware verdict: no node drained.
for n in node0 node1; do
  [[ $(slurm sinfo -h -N -p batch -n "$n" -o '%E') == none ]] ||
    { echo "FAIL: $n drained: $(slurm sinfo -h -N -p batch -n "$n" -o '%E')"; exit 1; }
done
grep -q "sentinel: probe .* preempted" "$work/coordinator.log" ||
  { echo "FAIL: the coordinator's log says nothing of the preemption"; exit 1; }

failed=0
echo "PASS: tenant started after ${wait_s}s; probe preempted, workers gone ${yield_s}s later"
