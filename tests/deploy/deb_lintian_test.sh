#!/usr/bin/env bash
# lintian accepts the Debian package: builds ebnccl_*.deb from a built tree
# with the packaging step of deploy/scripts/build-deb.sh (package-deb.sh; no
# root needed: nothing is installed) and runs lintian on it. That step runs
# twice and must give the same bytes (reproducible: SOURCE_DATE_EPOCH), the
# recipe must configure the hardening, and check-hardening.sh must judge
# this tree's binaries by whether it was built hardened.
# Any error fails the test; warnings are printed, and each one must be listed
# in EXPECTED_WARNINGS below with the reason it cannot be fixed (a new
# warning fails the test until it is fixed or listed).
#
#   tests/deploy/deb_lintian_test.sh BUILD_DIR
#
# Exit 0 pass, 1 fail, 77 skipped (no lintian, cpack or dpkg-deb).
set -euo pipefail
build=$(realpath "${1:?usage: deb_lintian_test.sh BUILD_DIR}")
repo=$(cd "$(dirname "$0")/../.." && pwd)
for tool in lintian cpack dpkg-deb readelf ar; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }
for b in eb-coordinator eb-agent eb-worker ebctl; do
  [[ -x "$build/bin/$b" ]] || fail "$build/bin/$b missing: build the tree before this test"
done

# Warnings lintian gives that this package cannot avoid, with why:
declare -A EXPECTED_WARNINGS=(
  # A development tree configured without -DEB_HARDENING=ON (the package
  # build, deploy/scripts/build-deb.sh, sets it) lacks dpkg-buildflags'
  # hardening; lintian says so in warnings and infos, never errors.
  [hardening-no-bindnow]="development tree without EB_HARDENING"
  [hardening-no-fortify-functions]="development tree without EB_HARDENING"
  [hardening-no-relro]="development tree without EB_HARDENING"
)

work=$(mktemp -d /tmp/eb-lintian-test-XXXXXX)
trap 'rm -rf "$work"' EXIT
# The packaging step of the documented recipe (deploy/scripts/build-deb.sh),
# twice over this tree: the same bytes both times (SOURCE_DATE_EPOCH; the
# tree is not compiled again).
deb=$("$repo/deploy/scripts/package-deb.sh" "$build" "$work/pkg") || fail "package-deb.sh failed"
again=$("$repo/deploy/scripts/package-deb.sh" "$build" "$work/again") || fail "package-deb.sh failed"
cmp "$deb" "$again" || {
  diffoscope_hint=$(command -v diffoscope >/dev/null && echo " (diffoscope $deb $again)" || true)
  fail "two packaging runs of the same tree differ$diffoscope_hint"; }
echo "ok: two packaging runs give the same bytes ($(sha256sum <"$deb" | cut -c1-16))"
# Without SOURCE_DATE_EPOCH cpack would stamp every member with the time of
# the run: the packaging step sets it, the members carry it.
epoch=$(git -C "$repo" log -1 --format=%ct 2>/dev/null || stat -c %Y "$repo/deploy/debian/changelog")
dpkg-deb --fsys-tarfile "$deb" >"$work/data.tar"
dates=$(TZ=UTC tar -tvf "$work/data.tar" --full-time | awk '{print $4, $5}' | sort -u)
expected=$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
[[ "$dates" == "$expected" ]] || fail "the package's files are dated $dates, not SOURCE_DATE_EPOCH $expected"

# The documented command builds hardened binaries and checks them: its
# configure options hold EB_HARDENING=ON, and check-hardening.sh (which it
# runs on what it built) tells hardened binaries from others. This tree is
# compiled once for CI: when it is hardened its binaries must pass, when it
# is not they must fail (so the check is not vacuous).
"$repo/deploy/scripts/build-deb.sh" --print-cmake-options | grep -x -- '-DEB_HARDENING=ON' >/dev/null ||
  fail "deploy/scripts/build-deb.sh does not configure with -DEB_HARDENING=ON"
grep -q 'check-hardening.sh' "$repo/deploy/scripts/build-deb.sh" ||
  fail "deploy/scripts/build-deb.sh does not check the hardening of what it built"
binaries=("$build"/bin/{eb-coordinator,eb-agent,eb-worker,ebctl})
if grep -q '^EB_HARDENING:BOOL=ON$' "$build/CMakeCache.txt"; then
  "$repo/deploy/scripts/check-hardening.sh" "${binaries[@]}" || fail "a hardened tree fails check-hardening.sh"
  echo "ok: this tree is hardened, and check-hardening.sh agrees"
else
  ! "$repo/deploy/scripts/check-hardening.sh" "${binaries[@]}" 2>"$work/hardening.txt" ||
    fail "check-hardening.sh passes the binaries of a tree built without EB_HARDENING"
  grep -q 'lacks: .*BIND_NOW' "$work/hardening.txt" || fail "check-hardening.sh: $(cat "$work/hardening.txt")"
  echo "ok: the recipe configures EB_HARDENING=ON; check-hardening.sh refuses this unhardened tree"
fi

# The contents lintian does not judge but the issue asks for.
contents=$(dpkg-deb -c "$deb")
for path in ./usr/share/doc/ebnccl/copyright ./usr/share/doc/ebnccl/changelog.gz \
            ./usr/share/bash-completion/completions/ebctl \
            ./usr/share/man/man1/eb-coordinator.1.gz ./usr/share/man/man1/eb-agent.1.gz \
            ./usr/share/man/man1/eb-worker.1.gz ./usr/share/man/man1/ebctl.1.gz \
            ./usr/share/doc/ebnccl/examples/ebnccl-alerts.yml \
            ./usr/share/doc/ebnccl/examples/ebnccl-dashboard.json; do
  grep -q " $path\$" <<<"$contents" || fail "the package lacks $path"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./prerm >"$work/prerm"
! grep -Eq '^[^#]*systemctl' "$work/prerm" || fail "prerm calls systemctl"
grep -q 'deb-systemd-invoke stop' "$work/prerm" || fail "prerm does not stop through deb-systemd-invoke"
echo "ok: copyright, changelog, man pages, bash completion, alerts, dashboard; prerm uses deb-systemd-invoke"

# Info tags shown but not judged; the verdict is ours, from the output.
lintian --tag-display-limit 0 --display-info --fail-on error "$deb" >"$work/lintian.txt" 2>&1 || true
cat "$work/lintian.txt"
errors=$(grep -E '^E: ' "$work/lintian.txt" || true)
[[ -z "$errors" ]] || fail "lintian reports errors:
$errors"
unexpected=()
while read -r tag; do
  [[ -n "$tag" ]] || continue
  [[ -n "${EXPECTED_WARNINGS[$tag]:-}" ]] || unexpected+=("$tag")
done < <(sed -n 's/^W: ebnccl[^:]*: \([a-z0-9-]*\).*/\1/p' "$work/lintian.txt" | sort -u)
((${#unexpected[@]} == 0)) ||
  fail "lintian warnings not fixed and not listed in EXPECTED_WARNINGS: ${unexpected[*]}"
echo "PASS: lintian reports no errors and no warning outside EXPECTED_WARNINGS"
