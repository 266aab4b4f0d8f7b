#!/usr/bin/env bash
# deploy/slurm/ebnccl-validate.sbatch end to end with the real daemons, under
# stand-ins for srun and scontrol (tests/deploy/slurm_shim: every "node" of
# the allocation runs on this machine): an ephemeral CA, a coordinator, one
# agent per node over mutual TLS, `ebctl validate` over the allocation, the
# job's exit code = ebctl's and an outcome of validate (0 or 7, or 3: on
# shared loaded cores a 1 MiB Gloo pair can measure slow or fail; which
# verdict is the fleet's business, the recipe's is to reach one), every node
# with a verdict and at least two measured, nothing left running and the
# job's files removed afterwards.
set -euo pipefail
bin=${1:?usage: slurm_recipe_test.sh BIN_DIR REPO_ROOT}
repo=${2:?usage: slurm_recipe_test.sh BIN_DIR REPO_ROOT}
command -v openssl >/dev/null || { echo "SKIP: no openssl"; exit 77; }
work=$(mktemp -d /tmp/ebnccl-slurm-test-XXXXXX)
trap 'pkill -f "$work" 2>/dev/null || true; rm -rf "$work"' EXIT
export PATH="$(cd "$(dirname "$0")" && pwd)/slurm_shim:$PATH"
export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=slurmA,slurmB,slurmC
export EBNCCL_BIN=$bin EBNCCL_CERTS=$repo/deploy/scripts/ebnccl-certs.sh
export EBNCCL_WORK=$work/job EBNCCL_PORT=$((30100 + $$ % 500))
# The stand-in nodes are all this machine: dial it by address (the
# coordinator's certificate always names 127.0.0.1).
export EBNCCL_COORDINATOR_HOST=127.0.0.1 EBNCCL_AGENT_CONFIG=/dev/null EBNCCL_UP_TIMEOUT=30
set +e
# Tolerance 0.5 (slow below half the median, the most ebctl takes): a verdict on busy shared cores
# must not turn on timing noise; what is tested is the recipe, not the fleet.
"$repo/deploy/slurm/ebnccl-validate.sbatch" --suite preflight,pairs -b 1M -e 1M -n 3 --tolerance 0.5 \
  >"$work/out.txt" 2>"$work/err.txt"
code=$?
set -e
cat "$work/out.txt" "$work/err.txt"
ebctl_code=$(sed -n 's/^ebnccl-validate: ebctl validate exited \([0-9]*\)$/\1/p' "$work/err.txt")
[[ "$code" == "$ebctl_code" ]] || { echo "FAIL: the job exited $code, ebctl $ebctl_code"; exit 1; }
# 0 or 7, or 3 when one node's test failed for an infrastructure reason (a
# loaded machine); but tests must have run: at least two nodes measured.
[[ $code == 0 || $code == 7 || $code == 3 ]] || {
  echo "FAIL: the job exited $code, expected an outcome of validate (0, 3 or 7)"; exit 1; }
measured=$(grep -Ec "^slurm[ABC] +(healthy|degraded) " "$work/out.txt" || true)
((measured >= 2)) || { echo "FAIL: only $measured nodes were measured"; exit 1; }
for node in slurmA slurmB slurmC; do
  grep -Eq "^$node +(healthy|degraded|failed|unfit|untestable) " "$work/out.txt" || {
    echo "FAIL: $node has no verdict"; exit 1; }
done
grep -q "all 3 agents registered" "$work/err.txt" || { echo "FAIL: no registration line"; exit 1; }
[[ ! -e "$work/job" ]] || { echo "FAIL: the job's files were left in $work/job"; exit 1; }
if pgrep -f "$work/job" >/dev/null; then
  echo "FAIL: processes of the job are still running:"; pgrep -af "$work/job"; exit 1
fi
echo "slurm_recipe_test: ok"
