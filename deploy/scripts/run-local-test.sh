#!/usr/bin/env bash
# The main job on this machine: install dependencies, build, start an
# eb-coordinator and a local eb-agent in the background, run one
# `ebctl run-test` on this machine's GPUs (NCCL) or, without GPUs, on 2 CPU
# workers over Gloo, print the nccl-tests table, and stop what was started.
#
#   deploy/scripts/run-local-test.sh [extra ebctl run-test flags...]
# Exit code: ebctl's (docs/EXIT_CODES.md).
# EB_BIN_DIR=DIR: use the binaries in DIR and skip installing and building
# (a machine that cannot install packages, e.g. the GPU machine with a
# bundle built elsewhere). EB_PORT: the coordinator's port (29470).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
if [[ -n ${EB_BIN_DIR:-} ]]; then
  bin=$(cd "$EB_BIN_DIR" && pwd)
else
  deploy/scripts/install-deps.sh
  # The four programs only: the tests are the other README command's.
  EB_BUILD_TARGETS="eb-coordinator eb-agent eb-worker ebctl" deploy/scripts/build.sh
  bin=$repo/build/bin
fi
work=$(mktemp -d /tmp/ebnccl-local-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

gpus=$(ls -d /proc/driver/nvidia/gpus/*/ 2>/dev/null | wc -l || true)
if [[ "$gpus" -gt 0 ]]; then
  workers=$gpus
  transport=auto
else
  workers=2
  transport=gloo
fi
port=${EB_PORT:-29470}
node=$(hostname)

"$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" --history-path "$work/history.db" \
  --log-file "$work/coordinator.log" 2>"$work/coordinator.err" &
pids+=($!)
# wait_for LOG PATTERN WHAT: until LOG shows PATTERN (10 s), or fail with the log.
wait_for() {
  for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "run-local-test: $3 did not start; its output (${1%.log}.err):" >&2
  cat "${1%.log}.err" >&2 2>/dev/null || true
  exit 1
}
wait_for "$work/coordinator.log" "listening on" eb-coordinator
"$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name "$node" --workers "$workers" \
  --bootstrap-address 127.0.0.1 --run-dir "$work/agent" --log-file "$work/agent.log" 2>"$work/agent.err" &
pids+=($!)
wait_for "$work/agent.log" "registered with the coordinator" eb-agent

echo "# coordinator 127.0.0.1:$port, agent $node with $workers workers ($transport); logs in $work"
set +e
"$bin/ebctl" --coordinator "127.0.0.1:$port" run-test --nodes "$node" --transport "$transport" \
  --collective all_reduce -b 8 -e 64M -f 2 "$@"
code=$?
set -e
exit $code
