#!/usr/bin/env bash
# ebctl's bash completion (deploy/bash-completion/ebctl) completes what an
# operator types: subcommands and flags from the real ebctl's --help, the
# item after the last comma of a list, node names after --nodes, test and
# validation ids after show/cancel/logs/report, files after -J; and the
# listings ask the coordinator the command line names, giving up after 1 s.
# The listings come from a stand-in ebctl that prints the tables' real
# headers (NODE, TEST, VALIDATION) and forwards --help to the real one.
#   tests/deploy/bash_completion_test.sh BIN_DIR
# Exit 0 pass, 1 fail.
set -euo pipefail
bin=$(realpath "${1:?usage: bash_completion_test.sh BIN_DIR}")
completion=$(realpath "$(dirname "$0")/../../deploy/bash-completion/ebctl")
[[ -x "$bin/ebctl" ]] || { echo "FAIL: $bin/ebctl missing: build the tree first"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/ebctl" <<FAKE
#!/usr/bin/env bash
# Records its arguments; prints a listing's table, or the real ebctl's help.
printf '%s\n' "\$*" >>"$work/calls"
for arg in "\$@"; do [[ \$arg == --help || \$arg == -h ]] && exec "$bin/ebctl" "\$@"; done
for arg in "\$@"; do
  case \$arg in
    nodes) printf 'coordinator: INSECURE (plaintext)\nNODE   ADDRESS  STATE\nnode-a ipv4:1 idle\n  drained: reason\nnode-b ipv4:2 busy\n\nlast validation v-1: healthy\n'; exit 0 ;;
    tests) printf 'TEST                        START\nt-20261207-0001  2026\nt-20261207-0002  2026\n'; exit 0 ;;
    validations) printf 'VALIDATION                  START\nv-20261207-0009  2026\n'; exit 0 ;;
  esac
done
exit 8
FAKE
chmod +x "$work/ebctl"
touch "$work/result.json" "$work/other.txt"

# complete WORDS... : COMPREPLY for the last word, space-separated.
complete_line() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ebctl
           printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd " "' complete "$completion" "$@"
}
failures=0
expect() {  # expect WANT WORDS...
  local want=$1 got
  shift
  got=$(complete_line "$@")
  if [[ "$got" == "$want" ]]; then echo "ok: ${*:2} -> $got"
  else echo "FAIL: '${*:2}' completed to '$got', expected '$want'"; failures=$((failures + 1)); fi
}
e="$work/ebctl"
expect "validate validations" "$e" vali
expect "--collective" "$e" run-test --collec
expect "all_reduce,broadcast" "$e" run-test --collective all_reduce,broad
expect "all_reduce,reduce all_reduce,reduce_scatter" "$e" run-test --collective all_reduce,reduce
expect "all_reduce,broadcast,reduce all_reduce,broadcast,reduce_scatter" "$e" run-test --collective all_reduce,broadcast,re
expect "preflight,intra,pairs" "$e" validate --suite preflight,intra,pa
expect "node-a node-b" "$e" run-test --nodes ""
expect "node-a,node-b" "$e" validate --nodes node-a,node-
expect "node-b" "$e" report --node node-b
expect "t-20261207-0001 t-20261207-0002" "$e" logs t-
expect "t-20261207-0002" "$e" cancel t-20261207-0002
expect "t-20261207-0001 t-20261207-0002 v-20261207-0009" "$e" show ""
expect "v-20261207-0009" "$e" report v-
expect "$work/result.json" "$e" run-test -J "$work/res"
expect "failed,passed" "$e" tests --state failed,pa
# The listings asked the coordinator the command line named, with a 1 s limit.
: >"$work/calls"
complete_line "$e" --coordinator node0:29470 --tls-ca /ca.pem show "" >/dev/null
grep -qxF -- "--coordinator node0:29470 --tls-ca /ca.pem --connect-timeout 1 tests" "$work/calls" ||
  { echo "FAIL: the listing did not ask the named coordinator:"; cat "$work/calls"; failures=$((failures + 1)); }
# An unreachable coordinator completes nothing, and says nothing.
printf '#!/bin/sh\ncase "$*" in *--help*) exec %q "$@";; esac\necho "unreachable" >&2; exit 8\n' "$bin/ebctl" >"$work/ebctl"
expect "" "$e" show ""
((failures == 0)) || { echo "bash_completion_test: $failures failures"; exit 1; }
echo "bash_completion_test: ok"
