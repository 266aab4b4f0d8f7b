#!/usr/bin/env bash
# Fails when a shell script under `set -o pipefail` reads only the start of a
# pipe (`| grep -q`, `| grep -m N`, `| head`), naming file:line.
# Why: the reader exits at its first match, the writer's next write gets
# SIGPIPE, and under pipefail the pipeline then fails although the match was
# found: a check that fails on a correct product, depending on timing (CI:
# deb_lintian_test's `build-deb.sh --print-cmake-options | grep -qx ...`
# failed once where it had always passed). Read the whole pipe instead:
# `| grep PATTERN >/dev/null`, `| sed -n 1p`, `| sed -n 1,20p`.
# Run by ctest as style.pipefail.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
mapfile -t scripts < <(find . -path ./build -prune -o -path './build-*' -prune -o -path ./.git -prune \
                         -o -type f \( -name '*.sh' -o -path ./.ci/run \) -print | sort)
hits=""
for script in "${scripts[@]}"; do
  grep -q pipefail "$script" || continue
  found=$(grep -nE '\|[[:space:]]*(grep[[:space:]]+(-[A-Za-z]*[qm]|--quiet|--max-count)|head([[:space:]]|$|\)))' \
            "$script" | grep -vE '^[0-9]+:[[:space:]]*#' || true)
  [[ -z "$found" ]] || hits+=$(sed "s|^|${script#./}:|" <<<"$found")$'\n'
done
if [[ -n "$hits" ]]; then
  printf 'a pipe read only in part under pipefail (the writer may die of SIGPIPE and fail the pipeline):\n%s' "$hits" >&2
  exit 1
fi
echo "pipefail_check: ${#scripts[@]} scripts, no pipe read only in part"
