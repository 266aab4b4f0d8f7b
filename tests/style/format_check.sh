#!/usr/bin/env bash
# Fails when a tracked C++ or CUDA file differs from what .clang-format makes
# of it, and names the files. Fix with:
#   git ls-files '*.cc' '*.h' '*.cu' '*.c' | xargs clang-format -i
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null || { echo "format_check: $clang_format not installed" >&2; exit 1; }
if git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.cu' '*.c')
else
  mapfile -t files < <(find agent common coordinator tests -name '*.cc' -o -name '*.h' -o -name '*.cu' -o -name '*.c')
fi
# One clang-format process per batch of files, not per file: ~800 process
# starts took over the test's 120 s on a loaded 2-core CI machine. Each
# unformatted file is named in its "code should be clang-formatted" errors.
existing=()
for f in "${files[@]}"; do [[ -f "$f" ]] && existing+=("$f"); done
status=0
output=$(printf '%s\0' "${existing[@]}" |
  xargs -0 -n 200 "$clang_format" --dry-run -Werror 2>&1 >/dev/null) || status=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' \
  <<<"$output" | sort -u)
if ((status != 0 && ${#bad[@]} == 0)); then
  # It failed for another reason (a file it cannot read, a bad .clang-format).
  printf '%s\n' "$output" | sed -n 1,20p >&2
  echo "format_check: $clang_format failed (status $status)" >&2
  exit 1
fi
if ((${#bad[@]})); then
  echo "format_check: ${#bad[@]} of ${#files[@]} files are not formatted ($("$clang_format" --version)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files formatted"
