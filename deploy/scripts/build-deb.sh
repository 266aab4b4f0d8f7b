#!/usr/bin/env bash
# Builds the Debian package the way it ships, in one command: a
# RelWithDebInfo tree in build-deb/ with dpkg-buildflags' hardening
# (-DEB_HARDENING=ON), the binaries checked for it (check-hardening.sh), the
# package made byte-reproducible by package-deb.sh (SOURCE_DATE_EPOCH: the
# caller's, else the last commit's time), and lintian (no errors allowed;
# tests/deploy/deb_lintian_test.sh).
#   deploy/scripts/build-deb.sh [extra cmake -D options...]
#   -> build-deb/ebnccl_<version>_<arch>.deb (its path on the last line)
#   deploy/scripts/build-deb.sh --print-cmake-options   the configure options, one a line
#     (tests/deploy/deb_lintian_test.sh checks the hardening is among them)
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake_options=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEB_WERROR=ON -DEB_HARDENING=ON
               -DEB_BUILD_TESTS=OFF)
if [[ "${1:-}" == --print-cmake-options ]]; then
  printf '%s\n' "${cmake_options[@]}"
  exit 0
fi
cmake -S . -B build-deb "${cmake_options[@]}" "$@" >/dev/null
ninja -C build-deb -j"$(nproc)"
deploy/scripts/check-hardening.sh build-deb/bin/{eb-coordinator,eb-agent,eb-worker,ebctl}
deb=$(deploy/scripts/package-deb.sh build-deb build-deb)
lintian --tag-display-limit 0 --fail-on error "$deb"
echo "$deb"
