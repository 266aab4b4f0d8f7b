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
bad=()
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! "$clang_format" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  echo "format_check: ${#bad[@]} of ${#files[@]} files are not formatted ($("$clang_format" --version)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files formatted"
