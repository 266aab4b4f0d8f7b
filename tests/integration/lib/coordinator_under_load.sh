# shellcheck shell=bash
# Sourced by the tests that drive a real eb-coordinator with
# eb-load-generator (scale_benchmark_test.sh, concurrent_sessions_test.sh).
# The caller sets $bin (the build's bin directory) and $work (a scratch
# directory it removes), and calls stop_coordinator in its EXIT trap.
#
#   run NAME GENERATOR-OPTIONS...
# starts a fresh coordinator, runs the generator against it and stops the
# coordinator; the figures land in $work/NAME.json. It fails (exit 1) when
# the generator fails, when the coordinator dies during the run (a sanitizer
# halts it with exit code 66) or does not stop cleanly on SIGTERM, or when
# its log holds a sanitizer finding; the coordinator's findings come first,
# then its log's tail.

# shellcheck disable=SC2154 # $bin and $work come from the caller.
# A sanitizer's headline or summary line (as LocalCluster's IsSanitizerFinding).
sanitizer_finding='^SUMMARY: |WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|ThreadSanitizer: CHECK failed|: runtime error: '
coordinator_pid=""
generator_pid=""

stop_coordinator() {
  if [[ -n $generator_pid ]]; then
    kill -TERM "$generator_pid" 2>/dev/null || true
    wait "$generator_pid" 2>/dev/null || true
    generator_pid=""
  fi
  if [[ -n $coordinator_pid ]]; then
    kill -TERM "$coordinator_pid" 2>/dev/null || true
    wait "$coordinator_pid" 2>/dev/null || true
    coordinator_pid=""
  fi
}

# fail_run NAME WHAT: says what went wrong, the sanitizer findings in the
# coordinator's log, and its tail; exits 1.
fail_run() {
  local log="$work/$1-coordinator.log"
  echo "FAIL: $1: $2"
  grep -E "$sanitizer_finding" "$log" | head -8 | sed 's/^/===== finding in the coordinator'"'"'s log: /' || true
  echo "===== the coordinator's log ends:"
  tail -40 "$log"
  exit 1
}

run() {
  local name=$1; shift
  local log="$work/$name-coordinator.log"
  # Port 0: the kernel picks a free one and the coordinator says which (a
  # fixed or random port could be another test's under ctest -j). The log
  # exists before the coordinator starts: the background shell opens it
  # for its redirection only when it gets to run, and a sed of a missing
  # file would end this script under `set -e` (CI's ASan stage once did).
  : >"$log"
  # The generator's agents heartbeat every 2 s whatever the coordinator
  # asks (tests/bench/load_generator/main.cc): the coordinator is given the
  # period and limit they keep (2 s x 3), not its default (500 ms x 6).
  "$bin/eb-coordinator" --config /dev/null --listen "127.0.0.1:0" --history-path '' \
    --heartbeat-period-ms 2000 --heartbeat-miss-limit 3 >"$log" 2>&1 &
  coordinator_pid=$!
  local port=""
  for _ in $(seq 300); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
    [[ -n $port ]] && break
    kill -0 "$coordinator_pid" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n $port ]] || fail_run "$name" "the coordinator did not say its port"

  timeout 50 "$bin/eb-load-generator" --coordinator "127.0.0.1:$port" \
    --coordinator-pid "$coordinator_pid" --json "$work/$name.json" "$@" &
  generator_pid=$!
  # A coordinator that dies leaves the generator waiting for its deadlines:
  # end the run at once instead.
  while kill -0 "$generator_pid" 2>/dev/null && kill -0 "$coordinator_pid" 2>/dev/null; do
    sleep 0.1
  done
  if ! kill -0 "$coordinator_pid" 2>/dev/null; then
    local status=0
    wait "$coordinator_pid" || status=$?
    coordinator_pid=""
    fail_run "$name" "the coordinator exited during the run (exit status $status)"
  fi
  local rc=0
  wait "$generator_pid" || rc=$?
  generator_pid=""
  [[ $rc -eq 0 ]] || fail_run "$name" "eb-load-generator exited with $rc"

  local status=0
  kill -TERM "$coordinator_pid" 2>/dev/null || true
  wait "$coordinator_pid" || status=$?
  coordinator_pid=""
  [[ $status -eq 0 ]] || fail_run "$name" "the coordinator exited with $status on SIGTERM"
  if grep -qE "$sanitizer_finding" "$log"; then
    fail_run "$name" "the coordinator's log holds a sanitizer finding"
  fi
}
