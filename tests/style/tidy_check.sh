#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy at the top of the tree) over our C++ sources
# with BUILD_DIR/compile_commands.json, and fails on any finding.
#   tests/style/tidy_check.sh [BUILD_DIR] [PATH_PREFIX...]
# e.g. tests/style/tidy_check.sh build coordinator/core agent/core
# Without prefixes: the whole tree, tests included.
#
# clang-tidy parses each file as the compiler does, and gRPC's, protobuf's
# and gtest's headers make that ~7 s of CPU per file. So the files are
# checked the way the build compiles them, in unity batches (EB_UNITY): each
# of the build's unity files that includes one of our files under the
# prefixes is checked as it is, with the header filter widened to our .cc
# files so that a finding in any of them is reported under its own path.
# In a build without unity files (-DEB_UNITY=OFF) the script makes its own
# batches: the files of one target (same flags), 16 at a time. A batch that
# does not compile as one (clang-diagnostic-error) is checked again file by
# file, so a unity clash can never hide a finding.
# Exit: 0 clean, 1 findings, 77 clang-tidy is not installed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
shift || true
prefixes=("$@")
((${#prefixes[@]})) || prefixes=(agent common coordinator tests)
cd "$repo"
command -v clang-tidy >/dev/null || { echo "tidy_check: clang-tidy not installed" >&2; exit 77; }
[[ -f "$build/compile_commands.json" ]] || { echo "tidy_check: no $build/compile_commands.json" >&2; exit 1; }
batches=$build/tidy-batches
rm -rf "$batches"
mkdir -p "$batches"

# Writes $batches/compile_commands.json (one entry per batch file) and prints
# "<batch file> <member files...>" per line.
python3 - "$build/compile_commands.json" "$repo" "$batches" "${prefixes[@]}" >"$batches/plan" <<'PY'
import json, os, re, sys
db, repo, out, prefixes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
BATCH = 16

def ours(path):
    rel = os.path.relpath(path, repo)
    return any(rel.startswith(p.rstrip("/") + "/") for p in prefixes)

groups = {}   # target -> (command template, [sources])
unity = []    # CMake's own unity files whose sources are ours
for entry in json.load(open(db)):
    path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    command = entry["command"]
    target = re.search(r"CMakeFiles/([^/ ]+)\.dir/", command)
    if path.endswith(".cxx") and "/Unity/" in path:
        members = re.findall(r'#include "([^"]+)"', open(path).read())
        if any(ours(m) for m in members):
            unity.append((entry, members))
    elif path.endswith(".cc") and ours(path) and target:
        template = command.replace(entry["file"], "@SOURCE@")
        template = re.sub(r" -o \S+", " -o @OBJECT@", template)
        group = groups.setdefault(target.group(1), (template, []))
        if path not in group[1]:
            group[1].append(path)

entries, lines = [], []
for target, (template, sources) in sorted(groups.items()):
    for start in range(0, len(sources), BATCH):
        members = sources[start:start + BATCH]
        name = os.path.join(out, f"{target}_{start // BATCH}.cc")
        with open(name, "w") as f:
            f.writelines(f'#include "{m}"\n' for m in members)
        entries.append({"directory": os.path.dirname(db), "file": name,
                        "command": template.replace("@SOURCE@", name)
                                           .replace("@OBJECT@", name + ".o")})
        lines.append(" ".join([name] + members))
for entry, members in unity:
    entries.append(entry)
    lines.append(" ".join([os.path.join(entry["directory"], entry["file"])] + members))
json.dump(entries, open(os.path.join(out, "compile_commands.json"), "w"), indent=1)
print("\n".join(lines))
PY
echo "tidy_check: $(cut -d' ' -f2- "$batches/plan" | wc -w) files under ${prefixes[*]}, in $(wc -l <"$batches/plan") batches"

# Prints the findings of one batch: <batch file> <its member files...>.
check_batch() {
  # Our sources are "headers" of a batch; the batch file's own #include "x.cc"
  # lines are what bugprone-suspicious-include would flag.
  local tidy=(clang-tidy --quiet "--header-filter=/(agent|common|coordinator|tests)/.*\.(h|cc)$"
    --checks=-bugprone-suspicious-include)
  local batch=$1 out
  shift
  out=$("${tidy[@]}" -p "$batches" "$batch" 2>/dev/null || true)
  if grep -q 'clang-diagnostic-error' <<<"$out"; then
    # Not compilable as one: each member alone, with the build's own flags.
    local member
    for member in "$@"; do "${tidy[@]}" -p "$build" "$member" 2>/dev/null || true; done
  else
    printf '%s\n' "$out"
  fi
}
export -f check_batch
export batches build
# One batch per core at a time; each line of the plan is one batch.
# shellcheck disable=SC2016 # expanded by the inner shell
tr '\n' '\0' <"$batches/plan" | xargs -0 -P "$(nproc)" -n 1 bash -c 'check_batch $0' |
  grep -E "(warning|error):" | sort -u >"$build/tidy_findings.txt" || true
if [[ -s "$build/tidy_findings.txt" ]]; then
  echo "tidy_check: $(wc -l <"$build/tidy_findings.txt") findings:" >&2
  cat "$build/tidy_findings.txt" >&2
  exit 1
fi
echo "tidy_check: clean"
