#!/usr/bin/env bash
# The man pages (deploy/scripts/make-man-pages.sh, from --help and
# deploy/man/*.h2m) have the sections an operator looks for: EXIT STATUS,
# ENVIRONMENT, FILES and EXAMPLES, besides help2man's own; and the exit
# codes they list are the programs' own: ebctl's those of docs/EXIT_CODES.md,
# eb-worker's the kExit* constants of agent/worker/worker_runtime.h.
#   tests/deploy/man_pages_test.sh BIN_DIR
# Exit 0 pass, 1 fail, 77 skipped (no help2man).
set -euo pipefail
bin=$(realpath "${1:?usage: man_pages_test.sh BIN_DIR}")
repo=$(realpath "$(dirname "$0")/../..")
command -v help2man >/dev/null || { echo "SKIP: help2man not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$repo/deploy/scripts/make-man-pages.sh" "$bin" "$work" >/dev/null
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The codes a page's EXIT STATUS lists (".TP" then ".B CODE"), sorted.
page_codes() {
  zcat "$work/$1.1.gz" | sed -n '/^\.SH "EXIT STATUS"/,/^\.SH/p' |
    awk 'previous == ".TP" && $1 == ".B" { print $2 } { previous = $1 }' | sort -n | paste -sd ' '
}
for binary in eb-coordinator eb-agent eb-worker ebctl; do
  sections=$(zcat "$work/$binary.1.gz" | sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' | paste -sd ',')
  for wanted in NAME SYNOPSIS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
    [[ ",$sections," == *",$wanted,"* ]] || fail "$binary.1 has no $wanted section (has $sections)"
  done
  [[ -n "$(page_codes "$binary")" ]] || fail "$binary.1 lists no exit code"
done
documented=$(sed -n 's/^| \([0-9]\{1,3\}\) | `kExit.*/\1/p' "$repo/docs/EXIT_CODES.md" | sort -n | paste -sd ' ')
[[ -n "$documented" && "$(page_codes ebctl)" == "$documented" ]] ||
  fail "ebctl.1 lists exit codes '$(page_codes ebctl)', docs/EXIT_CODES.md '$documented'"
worker=$(sed -n 's/^inline constexpr int kExit[A-Za-z]* = \([0-9]*\);/\1/p' \
  "$repo/agent/worker/worker_runtime.h" | sort -n | paste -sd ' ')
[[ -n "$worker" && "$(page_codes eb-worker)" == "$worker" ]] ||
  fail "eb-worker.1 lists exit codes '$(page_codes eb-worker)', worker_runtime.h '$worker'"
((failures == 0)) || exit 1
echo "man_pages_test: ok (EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES in all four; ebctl: $documented)"
