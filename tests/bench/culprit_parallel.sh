#!/usr/bin/env bash
# Culprit scoring (culprit_scoring.sh) in JOBS fleets at once, for the run
# counts that bound a miss rate near the issue's 1 % (about 300 clean runs a
# case): on a machine with cores to spare, each fleet's 3 hosts run beside
# the others' without one's load becoming another's fault (watch the load
# average each line prints: it must stay well under the cores).
#
#   sudo [EB_CULPRIT_DEFAULTS=1] tests/bench/culprit_parallel.sh BIN_DIR JOBS RUNS [CASES]
# runs RUNS of each case in every fleet (JOBS x RUNS a case in all), then
# prints the pooled table (culprit_table.py; in $EB_CULPRIT_TABLE when set).
# Each fleet's log and lines stay in $EB_CULPRIT_DIR (default: a new
# directory under /tmp, printed).
set -euo pipefail
bin=${1:?usage: $0 BIN_DIR JOBS RUNS [CASES]}
jobs=${2:?usage: $0 BIN_DIR JOBS RUNS [CASES]}
runs=${3:?usage: $0 BIN_DIR JOBS RUNS [CASES]}
cases=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=${EB_CULPRIT_DIR:-$(mktemp -d /tmp/ebnccl-culprit-parallel-XXXXXX)}
mkdir -p "$dir"
echo "fleets: $jobs, runs a case each: $runs, logs in $dir"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
children=()
for ((j = 0; j < jobs; ++j)); do
  EB_CULPRIT_RESULTS="$dir/fleet$j.tsv" EB_CULPRIT_SUBNET_INDEX=$((20 + j)) \
    "$here/culprit_scoring.sh" "$bin" "$runs" ${cases:+"$cases"} >"$dir/fleet$j.log" 2>&1 &
  children+=($!)
done
failed=0
for child in "${children[@]}"; do wait "$child" || failed=1; done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$dir"/fleet*.tsv >"$dir/all.tsv"
python3 "$here/culprit_table.py" "$dir/all.tsv" | tee "${EB_CULPRIT_TABLE:-/dev/null}"
exit "$failed"
