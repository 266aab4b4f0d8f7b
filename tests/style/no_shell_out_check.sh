#!/usr/bin/env bash
# Fails when C++ code calls system() or popen(), naming file:line.
# Why: every program that spawns children does it through
# common::PosixProcessLauncher, whose reaper reaps each child it does not
# track (orphans handed to a PR_SET_CHILD_SUBREAPER). A system() or popen()
# child can be reaped under the caller's feet, which then sees -1 (ECHILD):
# a flaky failure that blames the wrong thing. Tests run shell commands with
# LocalCluster::Shell. Run by ctest as style.no_shell_out.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
# Comments are not calls: lines whose code part starts with // are skipped.
hits=$(grep -rnE --include='*.cc' --include='*.h' --include='*.cu' \
         '(^|[^A-Za-z0-9_.>])(std::|::)?(system|popen)[[:space:]]*\(' \
         agent coordinator common tests |
       grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [[ -n "$hits" ]]; then
  printf 'system()/popen() is not allowed (use common::ProcessLauncher, or LocalCluster::Shell in tests):\n%s\n' "$hits" >&2
  exit 1
fi
echo "no system() or popen() calls"
