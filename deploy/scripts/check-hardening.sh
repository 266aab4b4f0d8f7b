#!/usr/bin/env bash
# Checks that ELF binaries carry the hardening of dpkg-buildflags
# (-DEB_HARDENING=ON, cmake/EbHardening.cmake), as Debian's hardening-check
# does, with readelf only (binutils): position-independent (PIE), read-only
# relocations (GNU_RELRO) bound at load time (BIND_NOW: full RELRO), the
# stack protector (__stack_chk_fail) and _FORTIFY_SOURCE (a __*_chk libc
# call; a binary that makes no protectable call cannot show it, so its
# absence is reported, not failed, as hardening-check does).
#
#   deploy/scripts/check-hardening.sh BINARY...
#
# Exit 0 when every binary has them all, 1 naming each one that lacks one,
# 2 on a usage error. deploy/scripts/build-deb.sh runs it on what it built.
set -euo pipefail
(($# > 0)) || { echo "usage: check-hardening.sh BINARY..." >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-hardening: readelf not found (binutils)" >&2; exit 2; }
status=0
for binary in "$@"; do
  [[ -f "$binary" ]] || { echo "check-hardening: $binary: no such file" >&2; exit 2; }
  header=$(readelf -hW "$binary") || { echo "check-hardening: $binary: not ELF" >&2; exit 2; }
  dynamic=$(readelf -dW "$binary")
  segments=$(readelf -lW "$binary")
  symbols=$(readelf --dyn-syms -W "$binary")
  missing=()
  grep -Eq 'Type: +DYN' <<<"$header" && grep -Eq 'FLAGS_1.*\bPIE\b' <<<"$dynamic" ||
    missing+=("PIE")
  grep -q 'GNU_RELRO' <<<"$segments" || missing+=("RELRO")
  grep -Eq '\bBIND_NOW\b|FLAGS_1.*\bNOW\b' <<<"$dynamic" || missing+=("BIND_NOW")
  grep -q '__stack_chk_fail' <<<"$symbols" || missing+=("stack protector")
  if ((${#missing[@]} > 0)); then
    echo "check-hardening: $binary lacks: ${missing[*]}" >&2
    status=1
    continue
  fi
  if grep -Eq '__[a-z0-9_]+_chk@' <<<"$(grep -v __stack_chk_fail <<<"$symbols")"; then
    echo "check-hardening: $binary: PIE, full RELRO, stack protector, fortified calls"
  else
    echo "check-hardening: $binary: PIE, full RELRO, stack protector (no fortifiable call seen)"
  fi
done
exit "$status"
