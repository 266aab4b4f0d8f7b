# shellcheck shell=bash
# Sourced by the Slurm netns tests, after fleet.sh's netns_fleet_up: a real
# Slurm 22.05 (Debian's slurmctld, slurmd, munge) over the namespace hosts,
# as docs/SLURM_NETNS.md (shared docs) verified it: munged of its own (its
# socket under $work, named by AuthInfo),
# slurmctld in host 0's namespace (the bridge lives in a namespace of its
# own, so the root namespace cannot reach the hosts; host 0 runs the
# coordinator too), one slurmd per host with `nsenter --net` (not `ip netns
# exec`, which remounts /sys and hides the cgroups slurmd needs), each with
# its own node name node<i> and its host's eth0 address. Every process is
# added to `pids` (fleet.sh's cleanup kills them by pid; PID 1 here reaps no
# orphan). Needs: prefix, subnet, hosts, work, pids.
#   slurm_cluster_up PARTITION   write the config, start, wait for idle;
#                                the caller's slurm_extra_conf array (if
#                                set) adds lines after the partition's:
#                                preemption, more partitions
#   slurm CMD ARGS...            a Slurm client command, in host 0's namespace
#   $slurmctld_pid               the controller (to take it away)
# Exits 77 (skipped) when Slurm or munge is not installed.

slurm_cluster_check() {
  local tool
  for tool in slurmctld slurmd sinfo scontrol sbatch munged nsenter; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (deploy/scripts/install-deps.sh)"; exit 77; }
  done
  [[ -r /etc/munge/munge.key ]] || { echo "SKIP: no /etc/munge/munge.key"; exit 77; }
}

slurm() { SLURM_CONF="$work/slurm/slurm.conf" nsenter --net="/run/netns/$prefix-h0" "$@"; }

slurm_cluster_up() {
  local partition=$1 h
  slurm_cluster_check
  local dir=$work/slurm
  mkdir -p "$dir/state" "$dir/spool"
  local ctld_port=$((17000 + $$ % 4000 * 2))
  {
    echo "ClusterName=eb$$"
    echo "SlurmctldHost=$(hostname -s)($subnet.1)"
    echo "SlurmctldPort=$ctld_port"
    echo "SlurmdPort=$((ctld_port + 1))"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$dir/munge/munge.socket"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "SelectType=select/linear"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "ReturnToService=2"
    echo "MailProg=/bin/true"
    echo "SlurmdParameters=config_overrides"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmdPidFile=$dir/slurmd-%n.pid"
    echo "SlurmdLogFile=$dir/slurmd-%n.log"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmctldPidFile=$dir/slurmctld.pid"
    echo "SlurmctldLogFile=$dir/slurmctld.log"
    echo "JobCompType=jobcomp/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "MpiDefault=none"
    # Quick to notice a node back, quick to clean up a job.
    echo "SlurmdTimeout=30"
    echo "KillWait=2"
    for h in "${hosts[@]}"; do
      echo "NodeName=node$h NodeAddr=$subnet.$((h + 1)) CPUs=1 State=UNKNOWN"
      mkdir -p "$dir/spool/node$h"
    done
    echo "PartitionName=$partition Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    if [[ -n "${slurm_extra_conf+set}" ]]; then printf '%s\n' "${slurm_extra_conf[@]}"; fi
  } >"$dir/slurm.conf"
  printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\n' >"$dir/cgroup.conf"

  # munged: one of the test's own, on a socket under $work (AuthInfo above):
  # a machine-wide one shared between tests would be stopped by whichever
  # test started it, under the others running beside it (CI runs them so).
  mkdir -p "$dir/munge"
  chmod 700 "$dir/munge"
  munged --foreground --force --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed" >"$work/munged.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do [[ -S "$dir/munge/munge.socket" ]] && break; sleep 0.1; done
  SLURM_CONF="$dir/slurm.conf" nsenter --net="/run/netns/$prefix-h0" \
    slurmctld -D -f "$dir/slurm.conf" >"$work/slurmctld.out" 2>&1 &
  pids+=($!)
  slurmctld_pid=$!
  for h in "${hosts[@]}"; do
    SLURM_CONF="$dir/slurm.conf" nsenter --net="/run/netns/$prefix-h$h" \
      slurmd -D -N "node$h" -f "$dir/slurm.conf" >"$work/slurmd-node$h.out" 2>&1 &
    pids+=($!)
  done
  local idle=0
  for _ in $(seq 300); do
    idle=$(slurm sinfo -h -N -p "$partition" -o '%N %T' 2>/dev/null | grep -c ' idle$' || true)
    [[ $idle == "${#hosts[@]}" ]] && break
    sleep 0.1
  done
  if [[ $idle != "${#hosts[@]}" ]]; then
    echo "FAIL: Slurm: only $idle of ${#hosts[@]} nodes idle"
    slurm sinfo -N || true
    tail -n 30 "$dir/slurmctld.log" "$dir"/slurmd-*.log 2>/dev/null || true
    exit 1
  fi
  echo "slurm: ${#hosts[@]} nodes idle in partition $partition"
}
