#!/usr/bin/env bash
# Records the NCCL INFO output of the fixtures in
# tests/unit/agent/testdata/nccl_logs/ on the GPU machine (issue 29, item 4):
# one folder per case under $OUT/nccl_logs (each rank's log, its topology
# dump, the case's environment), tarred as $OUT/nccl_logs.tgz. Run from the
# repository root on the GPU machine (the device tool):
#   tests/gpu/nccl_use_record.sh
# Every case runs ranks as processes on GPU 0, each with its own
# NCCL_HOSTID (two "hosts": NCCL's network path), except world1 and
# same_host (one host hash: NCCL refuses two ranks on one GPU). One GPU
# cannot show P2P or SHM between two ranks (p2p_shm_off shows that the
# network path is then all there is). The device tool sends the session's
# own checkout: from another worktree, send these two files inside the
# command (e.g. a base64 tarball unpacked into /tmp), as the recording in
# tests/unit/agent/testdata/nccl_logs/recorded was made.
set -uo pipefail
out=${OUT:-/tmp}/nccl_logs
mkdir -p "$out"
work=$(mktemp -d)
nvcc -O2 -o "$work/rec" tests/gpu/nccl_use_record.cu -lnccl 2>&1 | tail -5 || exit 1
{ nvidia-smi -L; ls /sys/class/infiniband 2>&1; ls /sys/class/net; \
  ls -l /usr/lib/x86_64-linux-gnu/libnccl.so*; } > "$out/machine.txt" 2>&1
export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH,ENV NCCL_NVLS_ENABLE=0
# run_case NAME NRANKS [VAR=VALUE...]: the ranks in parallel, 40 s at most
run_case() {
  local name=$1 n=$2; shift 2
  local dir="$out/$name"; mkdir -p "$dir"; rm -f "$work/id"
  echo "NCCL_DEBUG=$NCCL_DEBUG NCCL_DEBUG_SUBSYS=$NCCL_DEBUG_SUBSYS NCCL_NVLS_ENABLE=0 $*" > "$dir/env.txt"
  local pids=()
  for ((r = 0; r < n; r++)); do
    env NCCL_HOSTID="host$r" NCCL_TOPO_DUMP_FILE="$dir/topo-rank$r.xml" "$@" \
      timeout 40 "$work/rec" "$r" "$n" "$work/id" > "$dir/rank$r.log" 2>&1 &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  echo "$name: exit $rc" | tee -a "$out/cases.txt"
}
run_case world1 1
run_case socket2 2
run_case net_socket 2 NCCL_NET=Socket
run_case one_channel 2 NCCL_MAX_NCHANNELS=1
run_case p2p_shm_off 2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
run_case wrong_hca 2 NCCL_IB_HCA==mlx5_bogus
run_case net_ib 2 NCCL_NET=IB NCCL_IB_HCA==mlx5_0
run_case missing_nic 2 NCCL_SOCKET_IFNAME==eth9
run_case ifname_lo 2 NCCL_SOCKET_IFNAME==lo
run_case same_host 2 NCCL_HOSTID=samehost
tar -C "${OUT:-/tmp}" -czf "${OUT:-/tmp}/nccl_logs.tgz" nccl_logs && rm -rf "$out"
