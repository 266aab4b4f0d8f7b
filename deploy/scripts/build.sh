#!/usr/bin/env bash
# Configures and builds ebnccl into build/ (binaries in build/bin).
#   deploy/scripts/build.sh [extra cmake -D options...]
#   EB_BUILD_TARGETS="eb-coordinator ebctl"  build only these (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=$(nproc)
# EB_UNIT_TESTS=all and EB_INTEGRATION_TESTS=ON unless the caller says
# otherwise (tests/run-all.sh builds neither here when the sanitizer trees run
# them): a tree configured by CI once must not keep building without its tests.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEB_WERROR=ON -DEB_UNIT_TESTS=all \
  -DEB_INTEGRATION_TESTS=ON "$@" >/dev/null
read -r -a targets <<<"${EB_BUILD_TARGETS:-}"
ninja -C build -j"$jobs" "${targets[@]}"
