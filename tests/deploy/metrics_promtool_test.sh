#!/usr/bin/env bash
# The /metrics endpoints pass Prometheus' own checks: a real eb-coordinator
# and eb-agent (Gloo, loopback) serve their metrics, a tiny test runs so that
# every family has series (verdicts, busbw, durations), and both scrapes go
# through `promtool check metrics` (format and naming lint). The alert rules
# in deploy/prometheus pass `promtool check rules`, and `promtool test rules`
# runs tests/deploy/ebnccl-alerts.test.yml (an 8-byte test does not trip the
# bandwidth alert). The scrapes must also hold the families docs/METRICS.md
# promises, with the label values the exporter uses, after a test of two
# collectives and a fleet validation; every metric that the Grafana dashboard
# (deploy/grafana) and the alert rules query must be in them
# (metric_names_check.py), and every alert has a summary and a description.
#
#   tests/deploy/metrics_promtool_test.sh BIN_DIR REPO_ROOT
#
# Exit 0 pass, 1 fail, 77 skipped (no promtool: Debian's `prometheus`).
set -euo pipefail
bin=$(realpath "${1:?usage: metrics_promtool_test.sh BIN_DIR REPO_ROOT}")
repo=$(realpath "${2:?usage: metrics_promtool_test.sh BIN_DIR REPO_ROOT}")
command -v promtool >/dev/null || { echo "SKIP: promtool not found (apt install prometheus)"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

promtool check rules "$repo/deploy/prometheus/ebnccl-alerts.yml" || fail "promtool check rules"
promtool test rules "$repo/tests/deploy/ebnccl-alerts.test.yml" || fail "promtool test rules"

work=$(mktemp -d /tmp/eb-metrics-test-XXXXXX)
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
base=$((31000 + $$ % 400 * 3))
port=$base coordinator_metrics=$((base + 1)) agent_metrics=$((base + 2))
"$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:$port" \
  --metrics-listen "127.0.0.1:$coordinator_metrics" --history-path "$work/history.db" \
  >"$work/coordinator.log" 2>&1 &
pids+=($!)
"$bin/eb-agent" --config /dev/null --coordinator "127.0.0.1:$port" --node-name mnode \
  --workers 2 --transport gloo --bootstrap-address 127.0.0.1 --run-dir "$work/run" \
  --metrics-listen "127.0.0.1:$agent_metrics" >"$work/agent.log" 2>&1 &
pids+=($!)
ebctl=("$bin/ebctl" --coordinator "127.0.0.1:$port")
for _ in $(seq 150); do
  "${ebctl[@]}" nodes --json 2>/dev/null | grep '"idle"' >/dev/null && break
  sleep 0.2
done
"${ebctl[@]}" nodes --json 2>/dev/null | grep '"idle"' >/dev/null ||
  { cat "$work/coordinator.log" "$work/agent.log" >&2; fail "the agent did not register"; }
"${ebctl[@]}" run-test --nodes mnode --collective alltoall,all_reduce -b 8 -e 1K -f 4 \
  >"$work/run.txt" 2>&1 || { cat "$work/run.txt" >&2; fail "ebctl run-test failed"; }
# A validation, so that its families and the per-node verdicts have series:
# the preflight suite alone (under a second; one node matches its fleet of
# one: healthy).
"${ebctl[@]}" validate --nodes mnode --suite preflight >"$work/validate.txt" 2>&1 ||
  { cat "$work/validate.txt" >&2; fail "ebctl validate failed"; }

scrape() {  # scrape PORT FILE
  python3 - "$1" "$2" <<'PY'
import sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=10) as r:
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4"), r.headers["Content-Type"]
    open(sys.argv[2], "wb").write(r.read())
PY
}
scrape "$coordinator_metrics" "$work/coordinator.prom" || fail "scraping the coordinator"
scrape "$agent_metrics" "$work/agent.prom" || fail "scraping the agent"

for daemon in coordinator agent; do
  out=$(promtool check metrics <"$work/$daemon.prom" 2>&1) || {
    cat "$work/$daemon.prom" >&2; fail "promtool check metrics ($daemon): $out"; }
  [[ -z "$out" ]] || { echo "$out" >&2; fail "promtool check metrics ($daemon) has findings"; }
  echo "ok: $daemon /metrics passes promtool check metrics"
done

expect() {  # expect FILE REGEX: a line of the scrape matches
  grep -Eq "$2" "$1" || { cat "$1" >&2; fail "$(basename "$1") has no line matching: $2"; }
}
c=$work/coordinator.prom
expect "$c" '^ebnccl_build_info\{component="coordinator",version="[^"]+"\} 1$'
expect "$c" '^ebnccl_tests_total\{verdict="passed"\} [1-9][0-9]*$'
expect "$c" '^ebnccl_test_last_verdict\{collective="alltoall",node="mnode",size_class="small",verdict="passed"\} 1$'
expect "$c" '^ebnccl_test_busbw_bytes_per_second\{collective="alltoall",node="mnode",size_class="small"\} [0-9.e+]+$'
expect "$c" '^ebnccl_test_last_timestamp_seconds\{collective="alltoall",node="mnode",size_class="small"\} [0-9.e+]+$'
expect "$c" '^ebnccl_test_duration_seconds_count\{collective="alltoall"\} 1$'
# The multi-collective test counts under each of its collectives.
expect "$c" '^ebnccl_test_duration_seconds_count\{collective="all_reduce"\} [1-9][0-9]*$'
expect "$c" '^ebnccl_test_last_verdict\{collective="all_reduce",node="mnode",size_class="small",verdict="passed"\} [01]$'
expect "$c" '^ebnccl_validations_total\{state="done"\} 1$'
expect "$c" '^ebnccl_validation_duration_seconds_count\{state="done"\} 1$'
expect "$c" '^ebnccl_node_validation_verdict\{node="mnode",verdict="healthy"\} 1$'
expect "$c" '^ebnccl_node_validation_verdict\{node="mnode",verdict="failed"\} 0$'
expect "$c" '^ebnccl_node_repeat_offender\{node="mnode"\} 0$'
expect "$c" '^ebnccl_validations_running 0$'
expect "$c" '^process_resident_memory_bytes [0-9.e+]+$'
expect "$c" '^process_cpu_seconds_total [0-9.e+]+$'
a=$work/agent.prom
expect "$a" '^ebnccl_build_info\{component="agent",version="[^"]+"\} 1$'
expect "$a" '^ebnccl_agent_connected 1$'
expect "$a" '^process_open_fds [0-9]+$'
# docs/METRICS.md spells collectives as the exporter does (alltoall, not all_to_all).
! grep -Eq 'all_to_all|send_recv' "$repo/docs/METRICS.md" ||
  fail "docs/METRICS.md names all_to_all or send_recv; the exporter writes alltoall and sendrecv"
grep -q '`alltoall`' "$repo/docs/METRICS.md" || fail "docs/METRICS.md does not list alltoall"

# Every metric the Grafana dashboard and the alert rules query is in these
# real scrapes, and every alert has a summary and a description; a
# dashboard query with a misspelt metric is caught (the check is not vacuous).
dashboard=$repo/deploy/grafana/ebnccl-dashboard.json
alerts=$repo/deploy/prometheus/ebnccl-alerts.yml
check=("$repo/tests/deploy/metric_names_check.py")
"${check[@]}" --dashboard "$dashboard" --alerts "$alerts" "$c" "$a" ||
  fail "the dashboard or the alerts query metrics no daemon exports"
sed 's/ebnccl_node_repeat_offender/ebnccl_node_repeat_offendr/' "$dashboard" >"$work/mutant.json"
! "${check[@]}" --dashboard "$work/mutant.json" "$c" "$a" >/dev/null ||
  fail "metric_names_check.py accepted a dashboard query of a metric that does not exist"
# An alert without a description is caught (the check is not vacuous).
sed '0,/^ *description:/{/^ *description:/d}' "$alerts" >"$work/mutant.yml"
! "$repo/tests/deploy/metric_names_check.py" --alerts "$work/mutant.yml" "$c" "$a" >/dev/null ||
  fail "metric_names_check.py accepted an alert rule without a description"
# Each metric family the docs table lists is in a scrape (and the reverse
# is what promtool's naming lint and the checks above hold).
for name in $(grep -oE '^\| `(ebnccl|process)_[a-z_]+`' "$repo/docs/METRICS.md" | tr -d '|` '); do
  grep -Eq "^# TYPE $name " "$c" "$a" || fail "docs/METRICS.md lists $name; no daemon exports it"
done
echo "PASS"
