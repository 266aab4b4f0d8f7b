#!/usr/bin/env bash
# Builds the Debian package the way it ships: a RelWithDebInfo tree in
# build-deb/ with dpkg-buildflags' hardening (-DEB_HARDENING=ON), cpack, and
# lintian (no errors allowed; tests/deploy/deb_lintian_test.sh).
#   deploy/scripts/build-deb.sh [extra cmake -D options...]
#   -> build-deb/ebnccl_<version>_<arch>.deb
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build-deb -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEB_WERROR=ON \
  -DEB_HARDENING=ON -DEB_BUILD_TESTS=OFF "$@" >/dev/null
ninja -C build-deb -j"$(nproc)"
(cd build-deb && cpack -G DEB >/dev/null)
deb=$(ls build-deb/ebnccl_*.deb)
lintian --tag-display-limit 0 --fail-on error "$deb"
echo "$deb"
