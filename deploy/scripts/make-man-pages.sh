#!/usr/bin/env bash
# Writes the man pages of the four binaries, generated from their --help and
# --version by help2man, gzipped as Debian wants them (gzip -9n: no name, no
# time stamp, so that the package is reproducible). ebctl's page also holds
# every subcommand's --help, in a SUBCOMMANDS section.
#
#   deploy/scripts/make-man-pages.sh BIN_DIR OUT_DIR
#   -> OUT_DIR/{eb-coordinator,eb-agent,eb-worker,ebctl}.1.gz
#
# Run by `cmake --install` (cmake/EbPackaging.cmake), so by cpack too.
set -euo pipefail
bin=$(realpath "${1:?usage: make-man-pages.sh BIN_DIR OUT_DIR}")
out=${2:?usage: make-man-pages.sh BIN_DIR OUT_DIR}
command -v help2man >/dev/null || { echo "make-man-pages: help2man not found" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Invoked by name through PATH, so that the usage lines say "ebctl", not a path.
export PATH="$bin:$PATH"

declare -A names=(
  [eb-coordinator]="ebnccl coordinator: registers agents and runs NCCL network tests"
  [eb-agent]="ebnccl node agent: spawns one eb-worker per GPU for each test"
  [eb-worker]="one rank of an ebnccl test (started by eb-agent)"
  [ebctl]="run and inspect ebnccl NCCL network tests"
)
# Each page's EXIT STATUS, ENVIRONMENT, FILES and EXAMPLES sections are
# written by hand in deploy/man/BINARY.h2m (help2man's include format).
sections=$(cd "$(dirname "$0")/../man" && pwd)
for binary in eb-coordinator eb-agent eb-worker ebctl; do
  include=$work/$binary.h2m
  [[ -f "$sections/$binary.h2m" ]] || { echo "make-man-pages: no $sections/$binary.h2m" >&2; exit 1; }
  cp "$sections/$binary.h2m" "$include"
  cat >>"$include" <<H2M

[SEE ALSO]
.BR eb-coordinator (1),
.BR eb-agent (1),
.BR eb-worker (1),
.BR ebctl (1).
The full documentation is in
.IR /usr/share/doc/ebnccl/ .
H2M
  if [[ $binary == ebctl ]]; then
    {
      echo "[SUBCOMMANDS]"
      "$binary" --help | sed -n '/^Subcommands:/,$ s/^  \([a-z][a-z-]*\).*/\1/p' |
        while read -r sub; do
          echo ".SS $sub"
          echo ".nf"
          # Lines that start with a dot or quote are roff requests: escape them.
          "$binary" "$sub" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
          echo ".fi"
        done
    } >>"$include"
  fi
  help2man --no-info --no-discard-stderr --section 1 --source "ebnccl" \
    --name "${names[$binary]}" --include "$include" --output "$work/$binary.1" "$binary"
  gzip -9n <"$work/$binary.1" >"$out/$binary.1.gz"
done
