#!/usr/bin/env bash
# The packaging step of deploy/scripts/build-deb.sh: the Debian package of a
# built tree, byte-reproducible. cpack installs the tree into its staging
# directory and archives it. cpack (CMake >= 3.25's DEB generator) stamps
# every member of the data and control tarballs and of the .deb's ar archive
# with SOURCE_DATE_EPOCH when it is set, and help2man dates the man pages
# by it: set here (the caller's, else the last commit's time, else the
# changelog's mtime), two runs over the same tree give the same bytes
# (tests/deploy/deb_lintian_test.sh compares two). Without it every member
# carries the time of the run.
#
#   deploy/scripts/package-deb.sh BUILD_DIR OUT_DIR
#   -> OUT_DIR/ebnccl_<version>_<arch>.deb (its path on stdout)
set -euo pipefail
build=$(realpath "${1:?usage: package-deb.sh BUILD_DIR OUT_DIR}")
out=${2:?usage: package-deb.sh BUILD_DIR OUT_DIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
[[ -f "$build/CPackConfig.cmake" ]] || { echo "package-deb: $build is not a configured tree" >&2; exit 2; }
if [[ -z "${SOURCE_DATE_EPOCH:-}" ]]; then
  SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2>/dev/null ||
                      stat -c %Y "$repo/deploy/debian/changelog")
fi
[[ "$SOURCE_DATE_EPOCH" =~ ^[0-9]+$ ]] || {
  echo "package-deb: SOURCE_DATE_EPOCH must be seconds since 1970, not '$SOURCE_DATE_EPOCH'" >&2; exit 2; }
export SOURCE_DATE_EPOCH
mkdir -p "$out"
out=$(realpath "$out")
# The staging directory is cpack's own, under OUT_DIR; a stale one from an
# earlier run would mix into the archive.
rm -rf "$out/_CPack_Packages"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$log" 2>&1 || {
  cat "$log" >&2; echo "package-deb: cpack failed" >&2; exit 1; }
rm -rf "$out/_CPack_Packages"
debs=("$out"/ebnccl_*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || {
  echo "package-deb: cpack made no single ebnccl_*.deb in $out: ${debs[*]}" >&2; exit 1; }
echo "${debs[0]}"
