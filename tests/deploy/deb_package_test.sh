#!/usr/bin/env bash
# The Debian package installs and uninstalls cleanly: builds ebnccl_*.deb
# with cpack from a built tree, installs it with apt (nothing to download:
# the runtime libraries are here when the tree was built here), checks
# binaries, units, conffiles, docs, man pages, bash completion and the
# ebnccl user, that the maintainer scripts list every unit, enables every
# unit, reinstalls over a local config edit, then removes and purges it and
# checks nothing is left (no unit's enablement link either) but the system
# user (kept on purge, as Debian
# keeps system users). Whatever happens, the package is purged again on exit,
# and the user this test caused to be created is deleted.
#
#   tests/deploy/deb_package_test.sh BUILD_DIR [SOURCE_DIR]
#
# Exit 0 pass, 1 fail, 77 skipped: not root, no dpkg/apt-get/cpack, or this
# machine already has an ebnccl package, user or /var/lib/ebnccl that the
# test must not touch.
set -euo pipefail

build=$(realpath "${1:?usage: deb_package_test.sh BUILD_DIR [SOURCE_DIR]}")
src=$(realpath "${2:-$(dirname "$0")/../..}")
binaries=(eb-coordinator eb-agent eb-worker ebctl)

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
package_state() { dpkg-query -W -f='${db:Status-Status}' ebnccl 2>/dev/null || true; }

[[ $(id -u) -eq 0 ]] || skip "needs root: it installs and purges a package"
for tool in dpkg dpkg-deb dpkg-query apt-get cpack getent; do
  command -v "$tool" >/dev/null || skip "$tool not found"
done
state=$(package_state)
if [[ -n "$state" && "$state" != "not-installed" ]] || getent passwd ebnccl >/dev/null ||
   getent group ebnccl >/dev/null || [[ -e /var/lib/ebnccl || -e /etc/ebnccl ]]; then
  skip "this machine already has the ebnccl package (${state:-none}), user, group," \
       "/var/lib/ebnccl or /etc/ebnccl; not touching them"
fi

[[ -f "$build/CPackConfig.cmake" ]] ||
  fail "$build/CPackConfig.cmake missing: the top-level CMakeLists.txt must include(EbPackaging)"
for b in "${binaries[@]}"; do
  [[ -x "$build/bin/$b" ]] || fail "$build/bin/$b missing: build the tree before this test"
done
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
[[ -n "$version" ]] || fail "no CPACK_PACKAGE_VERSION in $build/CPackConfig.cmake"

# apt runs its download step as the _apt user, which must be able to read
# the .deb: a world-readable directory.
work=$(mktemp -d /tmp/eb-deb-test-XXXXXX)
chmod 755 "$work"
daemons=()  # pids of the installed daemons this test starts; killed on any exit
cleanup() {
  local status=$?
  for pid in "${daemons[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  if [[ -n "$(package_state)" && "$(package_state)" != "not-installed" ]]; then
    echo "cleanup: purging ebnccl"
    apt-get purge -y -q ebnccl >"$work/cleanup.log" 2>&1 || dpkg --purge ebnccl || true
  fi
  # The package keeps its system user on purge; the test made it, the test
  # removes it (it did not exist before: checked above).
  if getent passwd ebnccl >/dev/null; then userdel ebnccl 2>/dev/null || true; fi
  if getent group ebnccl >/dev/null; then groupdel ebnccl 2>/dev/null || true; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export DEBIAN_FRONTEND=noninteractive
# Not --no-download: apt 2.6 then fails on a local .deb ("Pathname to install
# is not absolute"). Nothing is downloaded anyway when the runtime libraries
# are installed, as they are where the tree was built.
apt_opts=(-y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
run() {  # run LOG CMD...: quiet unless it fails
  local log=$1
  shift
  local code=0
  "$@" >"$log" 2>&1 || code=$?
  if ((code != 0)); then
    cat "$log" >&2
    fail "$* (exit $code)"
  fi
}

# --- Build ---------------------------------------------------------------------
run "$work/cpack.log" cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg"
debs=("$work"/pkg/ebnccl_*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || fail "cpack made no single ebnccl_*.deb: ${debs[*]}"
deb=${debs[0]}
arch=$(dpkg --print-architecture)
[[ $(basename "$deb") == "ebnccl_${version}_${arch}.deb" ]] || fail "file name $(basename "$deb")"
pass "built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

depends=$(dpkg-deb -f "$deb" Depends)
for dep in adduser libgrpc++1.51 libprotobuf32 libspdlog1.10 libc6; do
  [[ "$depends" == *"$dep"* ]] || fail "Depends lacks $dep: $depends"
done
if grep -qiE '(^|, )(libnccl|libcudart|cuda-|libcuda|libnvidia)' <<<"$depends"; then
  fail "Depends names CUDA/NCCL packages: $depends"
fi
pass "Depends: $depends"

# --- Install ---------------------------------------------------------------------
run "$work/install.log" apt-get install "${apt_opts[@]}" "$deb"
[[ $(package_state) == installed ]] || fail "ebnccl is '$(package_state)' after install"
pass "apt-get install"

for b in "${binaries[@]}"; do
  [[ -x /usr/bin/$b ]] || fail "/usr/bin/$b missing"
  out=$("/usr/bin/$b" --version 2>&1) || fail "/usr/bin/$b --version: $out"
  [[ "$out" == *"$version"* ]] || fail "/usr/bin/$b --version printed '$out', not $version"
  if ldd "/usr/bin/$b" | grep "not found" >/dev/null; then
    fail "/usr/bin/$b has unresolved libraries: $(ldd "/usr/bin/$b" | grep "not found")"
  fi
done
pass "binaries run (--version $version, every library resolved)"

shopt -s nullglob
units=("$src"/deploy/systemd/*.service "$src"/deploy/systemd/*.timer)
configs=("$src"/deploy/config/*.toml)
shopt -u nullglob
for unit in "${units[@]}"; do
  name=$(basename "$unit")
  [[ -f /lib/systemd/system/$name ]] || fail "/lib/systemd/system/$name missing"
  cmp -s "$unit" "/lib/systemd/system/$name" || fail "/lib/systemd/system/$name differs from $unit"
  compgen -G "/etc/systemd/system/*.wants/$name" >/dev/null && fail "$name was enabled by the package"
done
pass "${#units[@]} unit(s) in /lib/systemd/system, none enabled"

# The maintainer scripts act on every installed unit (their list is made
# from deploy/systemd at build time): removal stops the timer too, and purge
# removes its enablement links.
run "$work/control.log" dpkg-deb -e "$deb" "$work/control"
for unit in "${units[@]}"; do
  name=$(basename "$unit")
  for script in postinst prerm postrm; do
    grep -Eq "^units=\"([^\"]* )?${name//./\\.}( [^\"]*)?\"$" "$work/control/$script" ||
      fail "the package's $script does not list $name in its units"
  done
done
# An operator enables every unit (systemctl works offline without a running
# systemd); each unit with an [Install] section gets its link.
unit_names=()
for unit in "${units[@]}"; do unit_names+=("$(basename "$unit")"); done
run "$work/enable.log" systemctl enable "${unit_names[@]}"
for unit in "${units[@]}"; do
  name=$(basename "$unit")
  grep -q '^WantedBy=' "$unit" || continue
  compgen -G "/etc/systemd/system/*.wants/$name" >/dev/null || fail "systemctl enable $name made no link"
done
pass "the maintainer scripts list all ${#units[@]} units; systemctl enable linked them"

conffiles=$(dpkg-query -W -f='${Conffiles}\n' ebnccl)
for config in "${configs[@]}"; do
  name=$(basename "$config")
  cmp -s "$config" "/etc/ebnccl/$name" || fail "/etc/ebnccl/$name missing or different"
  cmp -s "$config" "/usr/share/doc/ebnccl/examples/$name" || fail "examples/$name missing"
  grep -q " /etc/ebnccl/$name " <<<"$conffiles" || fail "/etc/ebnccl/$name is not a conffile"
done
pass "${#configs[@]} config(s) in /etc/ebnccl as conffiles and in the examples"
[[ -f /usr/share/doc/ebnccl/README.md ]] || fail "/usr/share/doc/ebnccl/README.md missing"
for b in "${binaries[@]}"; do
  man -w "$b" 2>/dev/null | grep "/usr/share/man/man1/$b.1.gz" >/dev/null ||
    [[ -f /usr/share/man/man1/$b.1.gz ]] || fail "no man page for $b"
done
bash -c 'source /usr/share/bash-completion/completions/ebctl
  COMP_WORDS=(/usr/bin/ebctl run-test --json-l); COMP_CWORD=2; _ebctl
  [[ "${COMPREPLY[*]}" == "--json-lines" ]]' || fail "ebctl's bash completion"
pass "man pages of the ${#binaries[@]} binaries, ebctl's bash completion"

getent passwd ebnccl >/dev/null || fail "user ebnccl missing"
[[ $(id -gn ebnccl) == ebnccl ]] || fail "user ebnccl's group is $(id -gn ebnccl)"
[[ $(getent passwd ebnccl | cut -d: -f6) == /var/lib/ebnccl ]] || fail "ebnccl's home"
[[ -d /var/lib/ebnccl && $(stat -c %U:%G /var/lib/ebnccl) == ebnccl:ebnccl ]] ||
  fail "/var/lib/ebnccl missing or not owned by ebnccl"
pass "system user ebnccl and /var/lib/ebnccl"

# --- The installed binaries work end to end (the issue's "done means") -------------------
# The coordinator runs as the ebnccl user from the installed config (flags
# override its listen address), an installed agent joins over Gloo, a test
# passes, the coordinator restarts, and the test is still in `ebctl jobs`.
port=$((29600 + $$ % 300))
start_coordinator() {
  # setpriv execs, so $! is the coordinator itself.
  setpriv --reuid=ebnccl --regid=ebnccl --init-groups -- /usr/bin/eb-coordinator \
    --config /etc/ebnccl/coordinator.toml --listen "127.0.0.1:$port" \
    --tls-ca '' --tls-cert '' --tls-key '' \
    --history-path /var/lib/ebnccl/history.db --heartbeat-period-ms 200 \
    >>"$work/coordinator.log" 2>&1 &
  coordinator=$!
  daemons+=("$coordinator")
  for _ in $(seq 100); do /usr/bin/ebctl --coordinator "127.0.0.1:$port" nodes >/dev/null 2>&1 && return; sleep 0.1; done
  cat "$work/coordinator.log" >&2; fail "the installed eb-coordinator did not come up"
}
stop_pid() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
wait_idle() {
  for _ in $(seq 150); do
    /usr/bin/ebctl --coordinator "127.0.0.1:$port" nodes --json 2>/dev/null | grep '"idle"' >/dev/null && return
    sleep 0.1
  done
  fail "the installed agent did not register"
}
if command -v setpriv >/dev/null; then
  start_coordinator
  /usr/bin/eb-agent --config /dev/null --coordinator "127.0.0.1:$port" --node-name debtest \
    --workers 2 --transport gloo --bootstrap-address 127.0.0.1 --run-dir "$work/run" \
    >"$work/agent.log" 2>&1 &
  agent=$!
  daemons+=("$agent")
  wait_idle
  /usr/bin/ebctl --coordinator "127.0.0.1:$port" run-test --json --nodes debtest -b 8 -e 1K -f 4 \
    >"$work/run.json" 2>"$work/run.err" || { cat "$work/run.err" "$work/agent.log" >&2; fail "ebctl run-test failed"; }
  test_id=$(grep -o '"test_id": "[^"]*"' "$work/run.json" | cut -d'"' -f4)
  [[ -s /var/lib/ebnccl/history.db ]] || fail "eb-coordinator as ebnccl made no history.db"
  stop_pid "$coordinator"
  start_coordinator
  wait_idle
  /usr/bin/ebctl --coordinator "127.0.0.1:$port" jobs | grep "$test_id" >/dev/null ||
    fail "test $test_id is not in ebctl jobs after the coordinator restarted"
  stop_pid "$agent"
  stop_pid "$coordinator"
  pass "installed binaries: a test passed, the coordinator restarted, ebctl jobs still lists it"
fi

# --- Reinstall over a local edit: dpkg keeps it ----------------------------------------
if [[ -f /etc/ebnccl/agent.toml ]]; then
  echo "# local edit by deb_package_test" >>/etc/ebnccl/agent.toml
  run "$work/reinstall.log" apt-get install --reinstall "${apt_opts[@]}" "$deb"
  grep -q "local edit by deb_package_test" /etc/ebnccl/agent.toml ||
    fail "reinstalling lost the local edit of /etc/ebnccl/agent.toml"
  pass "reinstall keeps the edited /etc/ebnccl/agent.toml"
fi

# --- Remove: binaries go, configuration, data and user stay ------------------------------
run "$work/remove.log" apt-get remove "${apt_opts[@]}" ebnccl
[[ $(package_state) == config-files ]] || fail "ebnccl is '$(package_state)' after remove"
for b in "${binaries[@]}"; do [[ ! -e /usr/bin/$b ]] || fail "/usr/bin/$b left after remove"; done
for unit in "${units[@]}"; do
  [[ ! -e /lib/systemd/system/$(basename "$unit") ]] || fail "$(basename "$unit") left after remove"
done
for config in "${configs[@]}"; do
  [[ -f /etc/ebnccl/$(basename "$config") ]] || fail "remove deleted /etc/ebnccl/$(basename "$config")"
done
getent passwd ebnccl >/dev/null || fail "remove deleted user ebnccl"
pass "apt-get remove (configuration, /var/lib/ebnccl and user kept)"

# --- Purge: nothing left ---------------------------------------------------------------
run "$work/purge.log" apt-get purge "${apt_opts[@]}" ebnccl
state=$(package_state)
[[ -z "$state" || "$state" == not-installed ]] || fail "ebnccl is '$state' after purge"
for path in /etc/ebnccl /var/lib/ebnccl /usr/share/doc/ebnccl; do
  [[ ! -e $path ]] || fail "$path left after purge"
done
# Debian keeps system users on purge: files elsewhere may still be theirs,
# and the account may be shared.
getent passwd ebnccl >/dev/null || fail "purge deleted the system user ebnccl"
# Nothing of the enabled units is left: no enablement link (dangling now),
# no deb-systemd-helper state or mask.
for unit in "${units[@]}"; do
  name=$(basename "$unit")
  left=$(find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
              /var/lib/systemd/deb-systemd-helper-masked \( -name "$name" -o -name "$name.dsh-also" \
              -o -lname "*/$name" \) 2>/dev/null || true)
  [[ -z "$left" ]] || fail "$name left after purge: $left"
done
pass "apt-get purge (binaries, units, their enablement links, configuration, /var/lib/ebnccl gone; system user kept)"

# --- A shared system user: install and purge over an ebnccl user that exists ---------
# (left by the purge above, as on a host where another tool uses the account)
run "$work/install2.log" apt-get install "${apt_opts[@]}" "$deb"
[[ $(package_state) == installed ]] || fail "reinstall over an existing ebnccl user"
run "$work/purge2.log" apt-get purge "${apt_opts[@]}" ebnccl
getent passwd ebnccl >/dev/null || fail "the second purge deleted the shared user"
pass "install and purge over an existing ebnccl user"
echo "PASS"
