#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the top of the tree) over our C++ sources
# with build/compile_commands.json, and fails on any finding.
#   tests/style/tidy_check.sh [BUILD_DIR] [PATH_PREFIX...]
# e.g. tests/style/tidy_check.sh build coordinator/core agent/core
# The whole tree takes ~25 min of CPU (gRPC and gtest headers are heavy); CI
# runs the pure cores (ctest style.tidy, label tidy), a developer the whole
# tree. Exit: 0 clean, 1 findings, 77 clang-tidy is not installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build}
shift || true
prefixes=("$@")
((${#prefixes[@]})) || prefixes=(agent common coordinator tests)
cd "$repo"
command -v clang-tidy >/dev/null || { echo "tidy_check: clang-tidy not installed" >&2; exit 77; }
[[ -f "$build/compile_commands.json" ]] || { echo "tidy_check: no $build/compile_commands.json" >&2; exit 1; }
# Only the files the build compiles (so their flags are known), C++ only.
mapfile -t files < <(python3 - "$build/compile_commands.json" "$repo" "${prefixes[@]}" <<'PY'
import json, os, sys
db, repo, prefixes = sys.argv[1], sys.argv[2], sys.argv[3:]
seen = set()
for entry in json.load(open(db)):
    path = os.path.relpath(os.path.join(entry["directory"], entry["file"]), repo)
    if path.endswith(".cc") and any(path.startswith(p.rstrip("/") + "/") for p in prefixes):
        if path not in seen:
            seen.add(path)
            print(path)
PY
)
echo "tidy_check: ${#files[@]} files under ${prefixes[*]}"
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null \
  | grep -E "(warning|error):" | sort -u > "$build/tidy_findings.txt" || true
if [[ -s "$build/tidy_findings.txt" ]]; then
  echo "tidy_check: $(wc -l < "$build/tidy_findings.txt") findings:" >&2
  cat "$build/tidy_findings.txt" >&2
  exit 1
fi
echo "tidy_check: clean"
