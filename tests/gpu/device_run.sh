#!/usr/bin/env bash
# Everything that needs the GPU machine, batched into as few calls as
# possible (its time is scarce). Run from the repository root with the
# bundle in .device and nccl-tests' source in .nccl-tests (never committed):
#   export LD_LIBRARY_PATH=$PWD/.device/lib; tests/gpu/device_run.sh PHASE...
# Bundle (here) with the debug info stripped, else it is ~200 MiB, far over
# the 64 MiB a device call carries:
#   ../shared/device/bundle.sh .device build/bin/* \
#     build/tests/nccl_{host_logic,bus_id,gpu,cluster}_test && strip --strip-debug .device/bin/*
# Phases (output under $RES, default /tmp/ebres; when $OUT is set, as on the
# device tool, the end of the run copies device_run.log and gpu_tests.log
# into $OUT and everything else as $OUT/ebres.tgz, since at most 8 files
# come back from the machine):
#   tests    every test `ctest -L gpu` runs, i.e. the four gpu-labelled binaries
#            (ctest itself needs the build tree, which does not travel):
#            nccl_host_logic_test, nccl_bus_id_test (the worker's PCI bus id
#            check), nccl_gpu_test (NcclCommunicator, its failure
#            and abort paths) and nccl_cluster_test (ebctl --transport nccl end
#            to end, and a rank that never joins or never starts); log in
#            gpu_tests.log, gtest XML per binary, one PASS/FAIL line each in
#            device_run.log. Fits one device call (at most 60 + 60 + 240 + 240 s).
#   build    build nccl-tests in the background (later phases wait for it; a
#            second call on the still-warm machine reuses the binaries)
#   bench1   every collective, -b 8 -e 8G -f 2, world size 1: ebctl vs nccl-tests -g 1
#   bench    the same at world size = all GPUs: ebctl vs nccl-tests -g N (one process)
#   rerun    sendrecv and alltoall at world size = all GPUs with -n 100, ebctl (table,
#            then its JSON with per-rank times) vs nccl-tests -g N -n 100
#   known_bug  NVIDIA/nccl#1950 through ebctl (exit 7, the worker log names it) and
#            nccl-tests, reduce_scatter double avg 65560 B at world size 1
#   repeat   ours and nccl-tests alternated $REPEATS times on one sweep (see the phase)
#   main     deploy/scripts/run-local-test.sh (the README's main command) from the bundle
#   graphs   CUDA-graph mode, all_reduce and sendrecv: ebctl vs nccl-tests, -G 1 and -G 10
#   no_tcp_fallback  configured HCAs NCCL cannot open: the test fails, naming NCCL_NET=IB
#   nodes2   two agents with distinct NCCL_HOSTID, half the GPUs each, NCCL_ALGO=Ring
#   faults   SIGKILL one worker mid-sweep, SIGSTOP another; GPU memory after; next test
#   compat   issue 14: --collective all_reduce,broadcast with -I 1 -J over 2 agents on GPU 0
#            (the per-iteration CUDA events), and --collective all -a 3 -I 1 --json
#   idle     issue 15: an idle agent owning the GPUs, CPU over 120 s and memory (RSS, PSS,
#            private), before and after one NCCL test
#   init     communicator init time (ours and NCCL's "Init timings") at 2..N ranks
#   rails    run-test --split-rails over 2 agents on GPU 0 (distinct host ids): the per-rail
#            block and the arrival-based straggler, healthy and with rank 1 paused 30 ms
#            before each timed call (EB_WORKER_FAULT=slow=30:rank=1)
#   evidence issue 12 on the GPU, 2 agents on GPU 0 (distinct host ids): `ebctl nodes
#            --gpus` (the GPU-HCA affinity this machine's sysfs gives), the per-rail block
#            with NCCL_DEBUG=INFO (rails named with their HCA; NIC use), and rank 1 killed
#            mid-sweep: `ebctl show` of the failed test with the ranks' NCCL warnings and
#            the port counters
#   ras      issue 12's NCCL RAS status on the GPU, 2 agents on GPU 0 (distinct host ids,
#            RAS port ranges 28100 and 28200): the raw `VERBOSE STATUS` of the test's own
#            port while it runs (ras_raw.txt, bash /dev/tcp), then rank 1 SIGSTOPped
#            (a hang: the step timeout stops the test) and SIGKILLed mid-sweep; `ebctl
#            show` and --json of each failed test carry `NCCL RAS status (node, port)`:
#            nodeA's RAS answers (the missing or dead process), nodeB's port, held only
#            by the stopped rank, says it did not answer
#   waits8   issue 32 item 11: the rendezvous calls of one real 8-process NCCL test (8 agents
#            on GPU 0, distinct host ids), whole and with --split-rails: the coordinator's
#            "rendezvous: N waits and M sets" line of each test, in waits8.txt
#   validate ebctl validate (preflight, intra, pairs) over 4 agents that all use GPU 0, each
#            told it is a host of its own (--host-id, NCCL_HOSTID: the one-GPU set-up the
#            GPU tests use); once healthy (exit 0), once with nodeD's workers slowed by the
#            worker fault hook (exit 7, nodeD named); table, JSON and wall time each
set -uo pipefail
out=${RES:-/tmp/ebres}
mkdir -p "$out" "$out/graph1" "$out/graph10"
bin=$PWD/.device/bin
work=$(mktemp -d)
gpus=$(nvidia-smi -L | wc -l)
export NCCL_NVLS_ENABLE=0   # NVLink multicast is off on these machines: keep it off
collectives="all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv"
log() { echo "[$(date +%T)] $*" | tee -a "$out/device_run.log"; }
ebctl() { "$bin/ebctl" --coordinator 127.0.0.1:29470 "$@"; }
pids=()
stop_cluster() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
}
trap stop_cluster EXIT
# start_cluster AGENT_SPEC...: each spec is NAME:GPU_LIST[:EXTRA_FLAG...]
start_cluster() {
  stop_cluster
  rm -f "$work"/*.log
  "$bin/eb-coordinator" --config /dev/null --listen 127.0.0.1:29470 --heartbeat-period-ms 500 --history-path "" \
    --log-file "$work/coordinator.log" 2>/dev/null &
  pids+=($!)
  sleep 0.5
  for spec in "$@"; do
    IFS=: read -r name list extra <<<"$spec"
    # shellcheck disable=SC2086
    "$bin/eb-agent" --config /dev/null --coordinator 127.0.0.1:29470 --node-name "$name" --gpus "$list" \
      --transport nccl --run-dir "$work/run-$name" --worker-grace-ms 2000 \
      --log-file "$work/agent-$name.log" $extra 2>/dev/null &
    pids+=($!)
  done
  for _ in $(seq 100); do
    [[ $(ebctl nodes --json 2>/dev/null | grep -c '"idle"') == "$#" ]] && return 0
    sleep 0.1
  done
  log "cluster did not come up"; return 1
}
# start_then_signal SIG RANK CMD...: CMD (a long ebctl run-test) in the
# background; once the coordinator logs the test RUNNING (and 1 s more), SIG
# to rank RANK's worker. Sets run (CMD's pid, to wait for), victim (the
# worker's pid) and signal_time (just before the signal). Redirections of
# the call apply to CMD. before_signal=FUNCTION (set for the call) runs
# FUNCTION just before the signal.
start_then_signal() {
  local sig=$1 rank=$2 before
  shift 2
  before=$(grep -c "state TEST_STATE_RUNNING" "$work/coordinator.log" || true)
  "$@" &
  run=$!
  for _ in $(seq 300); do
    (( $(grep -c "state TEST_STATE_RUNNING" "$work/coordinator.log") > before )) && break
    sleep 0.1
  done
  sleep 1
  if [[ -n ${before_signal:-} ]]; then "$before_signal"; fi
  victim=$(pgrep -f "eb-worker.*--rank=$rank" | sed -n 1p)
  signal_time=$(date +%s.%N)
  kill -"$sig" "$victim"
}
all_gpus=$(seq -s, 0 $((gpus - 1)))
built=$PWD/.nccl-tests/build.done
build_pid=
wait_for_nccl_tests() {
  if [[ ! -f $built && -z $build_pid ]]; then
    log "nccl-tests not built (no build phase before this one)"; return 1
  fi
  while [[ ! -f $built ]]; do sleep 1; done
  log "nccl-tests build $(cat "$built")"
}

nvidia-smi >"$out/nvidia-smi.txt" 2>&1
nvidia-smi topo -m >>"$out/nvidia-smi.txt" 2>&1
log "gpus=$gpus phases=$*"

for phase in "$@"; do
  case $phase in
  tests)
    # Full gtest output (every test's OK or SKIPPED line), not --gtest_brief:
    # a skipped test must be visible as such in the evidence.
    : >"$out/gpu_tests.log"
    for spec in nccl_host_logic_test:60 nccl_bus_id_test:60 nccl_gpu_test:240 nccl_cluster_test:240; do
      t=${spec%%:*}; limit=${spec##*:}
      if [[ ! -x "$bin/$t" ]]; then
        log "$t MISSING from $bin (bundle build/tests/nccl_*test too)"; continue
      fi
      EB_BIN_DIR=$bin timeout "$limit" "$bin/$t" --gtest_output="xml:$out/$t.xml" >"$work/$t.out" 2>&1
      rc=$?
      { echo "===== $t (timeout ${limit}s): rc=$rc ====="; cat "$work/$t.out"; } >>"$out/gpu_tests.log"
      count() { grep -oE "^\[  $1 +\] [0-9]+ test" "$work/$t.out" | grep -oE '[0-9]+' | sed -n 1p; }
      passed=$(count PASSED); skipped=$(count SKIPPED); failed=$(count FAILED)
      verdict=FAIL
      [[ $rc == 0 ]] && verdict=PASS
      [[ $rc == 0 && ${passed:-0} == 0 ]] && verdict="NOTHING RAN (all skipped)"
      log "$t rc=$rc $verdict: passed=${passed:-0} skipped=${skipped:-0} failed=${failed:-0}"
    done
    ;;
  build)
    # The marker lives in the checkout, not in $work, so a later device call on
    # the same (still warm) machine reuses the binaries instead of rebuilding.
    if [[ -f $built ]] && grep -q rc=0 "$built"; then
      log "nccl-tests already built"; continue
    fi
    rm -f "$built"
    (make -C .nccl-tests/src -j"$(nproc)" NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda \
       BIN_FILES_LIST="all_reduce all_gather broadcast reduce_scatter reduce alltoall sendrecv" \
       NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$out/nccl-tests-build.log" 2>&1;
     echo "rc=$?" >"$built.tmp"; mv "$built.tmp" "$built") &
    build_pid=$!
    ;;
  bench1 | bench)
    n=$([[ $phase == bench1 ]] && echo 1 || echo "$gpus")
    start_cluster "gpu0:$all_gpus" || continue
    # The agent's inventory (NVML names, bus ids, memory; NCCL and driver
    # versions; HCAs) as the coordinator sees it.
    ebctl nodes --json >"$out/nodes.json" 2>&1
    for c in $collectives; do
      timeout 200 "$bin/ebctl" --coordinator 127.0.0.1:29470 run-test --nodes gpu0 \
        --workers-per-node "$n" --transport nccl --collective "$c" -b 8 -e 8G -f 2 \
        --timeout 190 >"$out/ours_${n}_$c.txt" 2>&1
      log "ebctl $c world=$n rc=$?"
    done
    stop_cluster
    wait_for_nccl_tests || continue
    for c in $collectives; do
      CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((n - 1))) timeout 200 ".nccl-tests/build/${c}_perf" \
        -b 8 -e 8G -f 2 -g "$n" >"$out/nccltests_${n}_$c.txt" 2>&1
      log "nccl-tests $c -g $n rc=$?"
    done
    ;;
  rerun)
    # The N=2 outliers of 2026-11-29 (sendrecv 8 B and 16 KiB, alltoall 32 B,
    # all out-of-place) with 5x the iterations, after the spin-only barrier.
    n=$gpus
    start_cluster "gpu0:$all_gpus" || continue
    for c in sendrecv alltoall; do
      timeout 200 "$bin/ebctl" --coordinator 127.0.0.1:29470 run-test --nodes gpu0 \
        --workers-per-node "$n" --transport nccl --collective "$c" -b 8 -e 8G -f 2 -n 100 \
        --timeout 190 >"$out/ours_n100_${n}_$c.txt" 2>&1
      log "ebctl $c world=$n -n 100 rc=$?"
      id=$(grep -o 'test t-[^ ]*' "$out/ours_n100_${n}_$c.txt" | sed -n 1p | cut -d' ' -f2)
      [[ -n $id ]] && ebctl show "$id" --json >"$out/ours_n100_${n}_$c.json" 2>&1
    done
    stop_cluster
    wait_for_nccl_tests || continue
    for c in sendrecv alltoall; do
      CUDA_VISIBLE_DEVICES=$all_gpus timeout 200 ".nccl-tests/build/${c}_perf" \
        -b 8 -e 8G -f 2 -g "$n" -n 100 >"$out/nccltests_n100_${n}_$c.txt" 2>&1
      log "nccl-tests $c -g $n -n 100 rc=$?"
    done
    ;;
  known_bug)
    # NVIDIA/nccl#1950 (one-rank avg leaves the last elements unwritten; fixed
    # in 2.29.7), which nccl_gpu_test found here on NCCL 2.28.3: ebctl must
    # fail it with exit 7 and the worker log must name the bug; nccl-tests on
    # the same call for comparison.
    start_cluster "gpu0:0" || continue
    ebctl run-test --nodes gpu0 --transport nccl --collective reduce_scatter -d double -o avg \
      -b 65560 -e 65560 --json >"$out/known_bug.json" 2>"$out/known_bug.err"
    log "known_bug ebctl rc=$?"
    id=$(grep -o '"test_id": "[^"]*"' "$out/known_bug.json" | cut -d'"' -f4)
    ebctl logs "$id" --rank 0 >"$out/known_bug_rank0.log" 2>&1
    stop_cluster
    wait_for_nccl_tests || continue
    CUDA_VISIBLE_DEVICES=0 timeout 60 .nccl-tests/build/reduce_scatter_perf -b 65560 -e 65560 \
      -d double -o avg -g 1 >"$out/known_bug_nccltests.txt" 2>&1
    log "known_bug nccl-tests rc=$?"
    ;;
  repeat)
    # Run-to-run spread: ours and nccl-tests alternated $REPEATS times on the
    # same sweep, so that a gap seen once can be told from noise (compare
    # the per-size medians: tests/bench/compare_tables.py --all). Settings:
    # REPEATS (3), REPEAT_COLLECTIVES ("sendrecv all_reduce"), REPEAT_ITERS
    # (100); files repeatR_ours_N_C.txt and repeatR_nccltests_N_C.txt.
    n=$gpus
    start_cluster "gpu0:$all_gpus" || continue
    wait_for_nccl_tests || continue
    for rep in $(seq "${REPEATS:-3}"); do
      for c in ${REPEAT_COLLECTIVES:-sendrecv all_reduce}; do
        timeout 200 "$bin/ebctl" --coordinator 127.0.0.1:29470 run-test --nodes gpu0 \
          --workers-per-node "$n" --transport nccl --collective "$c" -b 8 -e 8G -f 2 \
          -n "${REPEAT_ITERS:-100}" --timeout 190 >"$out/repeat${rep}_ours_${n}_$c.txt" 2>&1
        log "repeat $rep ebctl $c world=$n -n ${REPEAT_ITERS:-100} rc=$?"
        CUDA_VISIBLE_DEVICES=$all_gpus timeout 200 ".nccl-tests/build/${c}_perf" \
          -b 8 -e 8G -f 2 -g "$n" -n "${REPEAT_ITERS:-100}" \
          >"$out/repeat${rep}_nccltests_${n}_$c.txt" 2>&1
        log "repeat $rep nccl-tests $c -g $n -n ${REPEAT_ITERS:-100} rc=$?"
      done
    done
    stop_cluster
    ;;
  main)
    # The README's main command on this machine's GPUs (transport auto, one
    # worker per GPU), from the bundle instead of a build.
    EB_BIN_DIR=$bin EB_PORT=29471 timeout 120 deploy/scripts/run-local-test.sh \
      >"$out/run_local_test.txt" 2>&1
    log "run-local-test.sh rc=$?"
    ;;
  graphs)
    # CUDA-graph mode, both tools with -G G (the timed iterations captured
    # once, the graph launched G times per measurement, the time divided by G).
    start_cluster "gpu0:$all_gpus" || continue
    for g in 1 10; do
      for c in all_reduce sendrecv; do
        timeout 200 "$bin/ebctl" --coordinator 127.0.0.1:29470 run-test --nodes gpu0 \
          --workers-per-node "$gpus" --transport nccl --collective "$c" -b 8 -e 8G -f 2 -G "$g" \
          --timeout 190 >"$out/graph$g/ours_${gpus}_$c.txt" 2>&1
        log "ebctl $c -G $g rc=$?"
      done
    done
    stop_cluster
    wait_for_nccl_tests || continue
    for g in 1 10; do
      for c in all_reduce sendrecv; do
        CUDA_VISIBLE_DEVICES=$all_gpus timeout 200 ".nccl-tests/build/${c}_perf" \
          -b 8 -e 8G -f 2 -g "$gpus" -G "$g" >"$out/graph$g/nccltests_${gpus}_$c.txt" 2>&1
        log "nccl-tests $c -G $g rc=$?"
      done
    done
    ;;
  no_tcp_fallback)
    # Configured HCAs that NCCL cannot open (a fake sysfs tree lists an
    # ACTIVE ebnccl_fake_0): the test must fail naming NCCL_NET=IB, not run
    # over TCP sockets; with NCCL_IB_DISABLE=1 from the test it runs.
    fake=$work/infiniband/ebnccl_fake_0/ports/1
    mkdir -p "$fake"
    echo "4: ACTIVE" >"$fake/state"; echo "400 Gb/sec (4X NDR)" >"$fake/rate"
    echo InfiniBand >"$fake/link_layer"
    start_cluster "gpu0:0:--sysfs-infiniband=$work/infiniband --ib-hca=ebnccl_fake_0" || continue
    ebctl nodes >"$out/no_tcp_fallback_nodes.txt" 2>&1
    ebctl run-test --nodes gpu0 --transport nccl -b 8 -e 64K -f 8 >"$out/no_tcp_fallback.txt" 2>&1
    log "no_tcp_fallback rc=$?"
    ebctl run-test --nodes gpu0 --transport nccl -b 8 -e 64K -f 8 --nccl-env NCCL_IB_DISABLE=1 \
      >"$out/no_tcp_fallback_ib_disabled.txt" 2>&1
    log "no_tcp_fallback with NCCL_IB_DISABLE=1 rc=$?"
    stop_cluster
    ;;
  nodes2)
    # Half the GPUs each: with one GPU nodeA would own none.
    if ((gpus < 2)); then log "nodes2 skipped: needs 2 GPUs, this machine has $gpus"; continue; fi
    half=$((gpus / 2))
    start_cluster "nodeA:$(seq -s, 0 $((half - 1))):--worker-env=NCCL_HOSTID=ebnccl-nodeA" \
                  "nodeB:$(seq -s, $half $((gpus - 1))):--worker-env=NCCL_HOSTID=ebnccl-nodeB" || continue
    ebctl run-test --nodes nodeA,nodeB --transport nccl --collective all_reduce -b 8 -e 1G -f 4 \
      --nccl-env NCCL_ALGO=Ring --nccl-env NCCL_DEBUG=INFO --nccl-env NCCL_DEBUG_SUBSYS=INIT,NET \
      --json >"$out/nodes2.json" 2>"$out/nodes2.err"
    log "nodes2 rc=$?"
    id=$(grep -o '"test_id": "[^"]*"' "$out/nodes2.json" | cut -d'"' -f4)
    ebctl logs "$id" --rank 0 >"$out/nodes2_rank0.log" 2>&1
    ebctl run-test --nodes nodeA,nodeB --transport nccl --collective all_reduce -b 8 -e 1G -f 4 \
      --nccl-env NCCL_ALGO=Ring >"$out/nodes2.txt" 2>&1
    stop_cluster
    ;;
  faults)
    start_cluster "gpu0:$all_gpus" || continue
    for sig in KILL STOP; do
      start_then_signal "$sig" $((gpus - 1)) ebctl run-test --nodes gpu0 --transport nccl \
        --collective all_reduce -b 1G -e 1G -i 1 -n 100000 -w 0 -c 0 --step-timeout 10s --json \
        >"$out/fault_$sig.json" 2>"$out/fault_$sig.err"
      t0=$signal_time
      wait $run; rc=$?
      t1=$(date +%s.%N)
      log "fault SIG$sig rank $((gpus - 1)) pid $victim: ebctl rc=$rc after $(awk "BEGIN {print $t1 - $t0}") s"
      sleep 1
      { echo "== after SIG$sig"; pgrep -fa eb-worker; nvidia-smi --query-compute-apps=pid,used_memory --format=csv; } \
        >>"$out/fault_after.txt" 2>&1
      ebctl run-test --nodes gpu0 --transport nccl --collective all_reduce -b 8 -e 64M -f 4 \
        >"$out/fault_next_$sig.txt" 2>&1
      log "next test after SIG$sig rc=$?"
    done
    stop_cluster
    ;;
  rails)
    for case in healthy slow_rank1; do
      extra=""
      [[ $case == slow_rank1 ]] && extra=" --worker-env=EB_WORKER_FAULT=slow=30:rank=1"
      start_cluster "nodeA:0:--host-id=hostA --worker-env=NCCL_HOSTID=hostA$extra" \
                    "nodeB:0:--host-id=hostB --worker-env=NCCL_HOSTID=hostB$extra" || continue
      ebctl run-test --nodes nodeA,nodeB --transport nccl --split-rails --collective all_reduce \
        -b 1M -e 64M -f 4 -n 10 --nccl-env NCCL_NVLS_ENABLE=0 >"$out/rails_$case.txt" 2>&1
      log "rails $case rc=$?"
      ebctl run-test --nodes nodeA,nodeB --transport nccl --split-rails --collective all_reduce \
        -b 1M -e 64M -f 4 -n 10 --nccl-env NCCL_NVLS_ENABLE=0 --json >"$out/rails_$case.json" 2>&1
      log "rails $case (json) rc=$?"
      stop_cluster
    done
    ;;
  evidence)
    start_cluster "nodeA:0:--host-id=hostA --worker-env=NCCL_HOSTID=hostA" \
                  "nodeB:0:--host-id=hostB --worker-env=NCCL_HOSTID=hostB" || continue
    ebctl nodes --gpus >"$out/evidence_nodes.txt" 2>&1
    ls -l /sys/class/infiniband >>"$out/evidence_nodes.txt" 2>&1
    ebctl run-test --nodes nodeA,nodeB --transport nccl --split-rails --collective all_reduce \
      -b 1M -e 64M -f 4 -n 10 --nccl-env NCCL_NVLS_ENABLE=0 --nccl-env NCCL_DEBUG=INFO \
      --nccl-env NCCL_DEBUG_SUBSYS=INIT,NET >"$out/evidence_rails.txt" 2>&1
    log "evidence rails rc=$?"
    start_then_signal KILL 1 ebctl run-test --nodes nodeA,nodeB --transport nccl \
      --collective all_reduce -b 256M -e 256M -i 1 -n 100000 -w 0 -c 0 --step-timeout 20s \
      --nccl-env NCCL_NVLS_ENABLE=0 --json >"$out/evidence_kill.json" 2>"$out/evidence_kill.err"
    wait $run
    log "evidence kill rank 1 pid $victim: ebctl rc=$?"
    id=$(grep -o '"test_id": "[^"]*"' "$out/evidence_kill.json" | sed -n 1p | cut -d'"' -f4)
    ebctl show "$id" >"$out/evidence_kill.txt" 2>&1
    stop_cluster
    ;;
  ras)
    start_cluster "nodeA:0:--host-id=hostA --worker-env=NCCL_HOSTID=hostA --nccl-ras-port-base=28100" \
                  "nodeB:0:--host-id=hostB --worker-env=NCCL_HOSTID=hostB --nccl-ras-port-base=28200" || continue
    # What NCCL's RAS says on the test's own port (NCCL_RAS_ADDR from the
    # agent) while every rank is alive: the reference for the report.
    ask_ras_by_hand() {
      sleep 1
      { echo "== $sig: before the signal, 127.0.0.1:28100"; grep -ao "NCCL_RAS_ADDR=[^ ]*" \
          /proc/"$(pgrep -f 'eb-worker.*--rank=0' | sed -n 1p)"/environ; \
        timeout 15 bash -c 'exec 3<>/dev/tcp/127.0.0.1/28100; printf "VERBOSE STATUS\n" >&3; cat <&3'; } \
        >>"$out/ras_raw.txt" 2>&1
    }
    for sig in STOP KILL; do
      before_signal=ask_ras_by_hand start_then_signal "$sig" 1 ebctl run-test --nodes nodeA,nodeB --transport nccl \
        --collective all_reduce -b 256M -e 256M -i 1 -n 100000 -w 0 -c 0 --step-timeout 20s \
        --nccl-env NCCL_NVLS_ENABLE=0 --json >"$out/ras_$sig.json" 2>"$out/ras_$sig.err"
      wait $run
      log "ras SIG$sig rank 1 pid $victim: ebctl rc=$? after $(awk "BEGIN {print $(date +%s.%N) - $signal_time}") s"
      id=$(grep -o '"test_id": "[^"]*"' "$out/ras_$sig.json" | sed -n 1p | cut -d'"' -f4)
      ebctl show "$id" >"$out/ras_$sig.txt" 2>&1
      log "ras SIG$sig: $(grep -c '^# NCCL RAS status' "$out/ras_$sig.txt") RAS blocks; $(grep '^# NCCL RAS status' "$out/ras_$sig.txt" | tr '\n' ' ')"
      grep -h "NCCL RAS" "$work"/agent-node*.log >>"$out/ras_agents.txt" 2>&1
      kill -CONT "$victim" 2>/dev/null
      sleep 1
    done
    stop_cluster
    ;;
  waits8)
    fleet=()
    for n in 1 2 3 4 5 6 7 8; do
      fleet+=("node$n:0:--host-id=host$n --worker-env=NCCL_HOSTID=host$n")
    done
    start_cluster "${fleet[@]}" || continue
    for rails in "" --split-rails; do
      # shellcheck disable=SC2086
      ebctl run-test --nodes node1,node2,node3,node4,node5,node6,node7,node8 --transport nccl \
        -b 8 -e 1M -f 4 -n 5 $rails --nccl-env NCCL_NVLS_ENABLE=0 >>"$out/waits8.txt" 2>&1
      log "waits8 ${rails:-whole} rc=$?"
    done
    grep -h "rendezvous:" "$work/coordinator.log" >>"$out/waits8.txt"
    stop_cluster
    ;;
  validate)
    # Four "hosts" on GPU 0: NCCL sees four hosts (NCCL_HOSTID) and talks over
    # its socket transport, as between nodes without InfiniBand.
    fleet=()
    for n in A B C D; do
      fleet+=("node$n:0:--host-id=host$n --worker-env=NCCL_HOSTID=host$n --worker-env=NCCL_NVLS_ENABLE=0")
    done
    for case in healthy slow_nodeD; do
      specs=("${fleet[@]}")
      [[ $case == slow_nodeD ]] && specs[3]+=" --worker-env=EB_WORKER_FAULT=slow=200"
      start_cluster "${specs[@]}" || continue
      t0=$(date +%s.%N)
      ebctl validate --nodes nodeA,nodeB,nodeC,nodeD --suite preflight,intra,pairs -b 1M -e 64M -f 4 \
        --json >"$out/validate_$case.json" 2>"$out/validate_$case.err"
      rc=$?
      t1=$(date +%s.%N)
      log "validate $case rc=$rc wall $(awk "BEGIN {print $t1 - $t0}") s"
      id=$(grep -o '"validation_id": "[^"]*"' "$out/validate_$case.json" | sed -n 1p | cut -d'"' -f4)
      ebctl show "$id" >"$out/validate_$case.txt" 2>&1
      ebctl validations >>"$out/validate_$case.txt" 2>&1
      stop_cluster
    done
    ;;
  compat)
    # Issue 14 on NCCL: the seed's check in one command (all_reduce then
    # broadcast on one communicator) over 2 agents on GPU 0 (distinct host
    # ids), with -I 1 (a CUDA event pair per call) and -J; then -a 3.
    start_cluster "nodeA:0:--host-id=hostA --worker-env=NCCL_HOSTID=hostA" \
                  "nodeB:0:--host-id=hostB --worker-env=NCCL_HOSTID=hostB" || continue
    rm -f "$out/compat.json"
    ebctl run-test --nodes nodeA,nodeB --transport nccl --collective all_reduce,broadcast \
      -b 8 -e 64M -f 4 -n 10 -I 1 -J "$out/compat.json" --nccl-env NCCL_NVLS_ENABLE=0 \
      >"$out/compat.txt" 2>&1
    log "compat all_reduce,broadcast -I 1 -J rc=$?"
    ebctl run-test --nodes nodeA,nodeB --transport nccl --collective all -b 1M -e 1M -n 5 -a 3 \
      -I 1 --json --nccl-env NCCL_NVLS_ENABLE=0 >"$out/compat_all.json" 2>&1
    log "compat all -a 3 -I 1 rc=$?"
    stop_cluster
    ;;
  idle)
    # Issue 15's idle agent on a GPU host: one coordinator (default 2 s
    # heartbeats) and one agent owning every GPU, default 30 s socket linger;
    # 45 s after start (past the linger and the page return), the agent's CPU
    # over 120 s (the first field of each thread's schedstat) and its memory;
    # then one NCCL test and, once idle again, its memory.
    stop_cluster
    "$bin/eb-coordinator" --config /dev/null --listen 127.0.0.1:29470 --history-path "" \
      --log-file "$work/coordinator.log" 2>/dev/null &
    pids+=($!)
    sleep 0.5
    "$bin/eb-agent" --config /dev/null --coordinator 127.0.0.1:29470 --node-name gpu0 \
      --gpus "$all_gpus" --run-dir "$work/run-idle" --log-file "$work/agent-idle.log" 2>/dev/null &
    agent=$!
    pids+=($agent)
    cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {print s}'; }
    memory() { grep -E '^(Rss|Pss|Private_Clean|Private_Dirty|Anonymous):' /proc/"$1"/smaps_rollup | tr -s ' ' | paste -sd' '; }
    sleep 45
    { echo "after start + 45 s: $(memory $agent)"; ls /proc/$agent/task | wc -l | sed 's/^/threads: /'; } >"$out/idle.txt"
    c0=$(cpu_ns $agent); sleep 120; c1=$(cpu_ns $agent)
    echo "cpu over 120 s: $(( (c1 - c0) / 1000000 )) ms = $(awk "BEGIN {printf \"%.4f\", ($c1 - $c0) / 1.2e9}") % of a core; load $(cat /proc/loadavg)" >>"$out/idle.txt"
    echo "after 165 s: $(memory $agent)" >>"$out/idle.txt"
    ebctl nodes >>"$out/idle.txt" 2>&1
    ebctl run-test --nodes gpu0 --transport nccl --collective all_reduce -b 8 -e 64M -f 4 >"$out/idle_test.txt" 2>&1
    log "idle: test rc=$?"
    echo "right after a test: $(memory $agent)" >>"$out/idle.txt"
    sleep 35
    echo "35 s after the test: $(memory $agent)" >>"$out/idle.txt"
    grep -E "idle: gave back" "$work/agent-idle.log" >>"$out/idle.txt"
    log "idle: $(grep -E '^cpu' "$out/idle.txt")"
    stop_cluster
    ;;
  init)
    for n in 2 4 8; do
      [[ $n -le $gpus ]] || continue
      start_cluster "gpu0:$(seq -s, 0 $((n - 1)))" || continue
      ebctl run-test --nodes gpu0 --transport nccl --collective all_reduce -b 8 -e 8 --json \
        --nccl-env NCCL_DEBUG=INFO --nccl-env NCCL_DEBUG_SUBSYS=INIT,PROFILE >"$out/init_$n.json" 2>&1
      id=$(grep -o '"test_id": "[^"]*"' "$out/init_$n.json" | cut -d'"' -f4)
      for r in $(seq 0 $((n - 1))); do
        ebctl logs "$id" --rank "$r" 2>/dev/null | grep -E "joined the nccl|Init timings|ready:" >>"$out/init_$n.txt"
      done
      log "init n=$n done"
      stop_cluster
    done
    ;;
  esac
done
# A build still running is finished, so that its binaries outlive this call.
[[ -n $build_pid ]] && wait_for_nccl_tests
cp "$work"/*.log "$out/" 2>/dev/null
log "done in ${SECONDS}s"
if [[ -n ${OUT:-} && -d $OUT ]]; then
  cp "$out/device_run.log" "$OUT/" 2>/dev/null
  [[ -f "$out/gpu_tests.log" ]] && cp "$out/gpu_tests.log" "$OUT/"
  tar -czf "$OUT/ebres.tgz" -C "$out" .
fi
