#!/usr/bin/env bash
# Checks deploy/systemd/eb-coordinator.service and eb-agent.service:
#  1. `systemd-analyze verify` accepts each one without a single line of
#     output (warnings such as an unknown or misspelt key fail the test too);
#  2. each keeps what the daemons and the fleet rely on (Type=notify with a
#     watchdog, restart on failure, the config path, and for the agent the
#     memlock limit and no setting that hides the GPUs or HCAs from workers).
#
# verify insists that ExecStart= names an existing executable, so it runs on
# temporary copies whose ExecStart= points at the build tree's binary, or at
# a stub when that is not built.
#
# Usage: systemd_units_test.sh [UNIT_DIR] [BIN_DIR]
# Exit: 0 pass, 1 fail, 77 skipped (no systemd-analyze).
set -uo pipefail

here=$(cd "${0%/*}" && pwd)
unit_dir=${1:-$here/../../deploy/systemd}
bin_dir=${2:-}

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "SKIP: systemd-analyze is not installed (apt-get install systemd)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/units" "$tmp/stubs"
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Value(s) of KEY= in a unit file (every assignment, in order).
values() { sed -n "s/^$2=//p" "$1"; }

require() {  # unit key expected-value
  local unit=$1 key=$2 want=$3
  if ! values "$unit_dir/$unit" "$key" | grep -qxF -- "$want"; then
    fail "$unit: expected $key=$want (have: $(values "$unit_dir/$unit" "$key" | tr '\n' ' '))"
  fi
}

forbid() {  # unit key regex-of-forbidden-values why
  local unit=$1 key=$2 regex=$3 why=$4
  if values "$unit_dir/$unit" "$key" | grep -qE -- "$regex"; then
    fail "$unit: $key=$(values "$unit_dir/$unit" "$key" | head -1) must not be set: $why"
  fi
}

for unit in eb-coordinator.service eb-agent.service; do
  source="$unit_dir/$unit"
  if [[ ! -f $source ]]; then
    fail "$source does not exist"
    continue
  fi
  exec_start=$(values "$source" ExecStart)
  binary=${exec_start%% *}
  name=$(basename "$binary")
  if [[ -n $bin_dir && -x $bin_dir/$name ]]; then
    replacement=$bin_dir/$name
  else
    replacement=$tmp/stubs/$name
    printf '#!/bin/sh\nexit 0\n' >"$replacement"
    chmod +x "$replacement"
  fi
  sed "s#^ExecStart=$binary#ExecStart=$replacement#" "$source" >"$tmp/units/$unit"
  echo "verify $unit (ExecStart=$replacement ...)"
  output=$(cd "$tmp/units" && systemd-analyze verify --man=no "./$unit" 2>&1)
  status=$?
  if [[ $status -ne 0 || -n $output ]]; then
    fail "systemd-analyze verify $unit exited $status with:"
    printf '%s\n' "$output" | sed 's/^/    /'
  fi

  # What every ebnccl daemon relies on.
  require "$unit" Type notify
  require "$unit" NotifyAccess main
  require "$unit" WatchdogSec 30s
  require "$unit" Restart on-failure
  require "$unit" KillMode control-group
  require "$unit" NoNewPrivileges yes
  require "$unit" ProtectSystem strict
  [[ -n $(values "$source" RestartSec) ]] || fail "$unit: RestartSec= is not set"
  if ! grep -qE 'AF_UNIX' <<<"$(values "$source" RestrictAddressFamilies)"; then
    fail "$unit: RestrictAddressFamilies= lacks AF_UNIX (sd_notify and the journal need it)"
  fi
done

require eb-coordinator.service ExecStart \
  "/usr/bin/eb-coordinator --config /etc/ebnccl/coordinator.toml"
require eb-coordinator.service User ebnccl
require eb-coordinator.service StateDirectory ebnccl

require eb-agent.service ExecStart "/usr/bin/eb-agent --config /etc/ebnccl/agent.toml"
require eb-agent.service LimitMEMLOCK infinity
require eb-agent.service RuntimeDirectory ebnccl
forbid eb-agent.service PrivateDevices '^(yes|true|on|1)$' \
  "it hides /dev/nvidia* and /dev/infiniband"
forbid eb-agent.service DevicePolicy '^(closed|strict)$' "it denies the GPU and RDMA devices"
forbid eb-agent.service DeviceAllow '.' "any entry turns device access into an allow-list"
forbid eb-agent.service ProtectClock '^(yes|true|on|1)$' \
  "before systemd 252 it implies DeviceAllow=char-rtc, an allow-list without the GPUs"
forbid eb-agent.service MemoryDenyWriteExecute '^(yes|true|on|1)$' "the CUDA driver JIT-compiles"
forbid eb-agent.service PrivateNetwork '^(yes|true|on|1)$' "NCCL needs the host's NICs"
if ! grep -q 'AF_NETLINK' <<<"$(values "$unit_dir/eb-agent.service" RestrictAddressFamilies)"; then
  fail "eb-agent.service: RestrictAddressFamilies= lacks AF_NETLINK (getifaddrs, libibverbs)"
fi

# What systemd itself makes of the agent's sandbox: no device ACL at all.
# (`security --offline` exists since systemd 250; skip the check before.)
if security=$(cd "$tmp/units" &&
               systemd-analyze security --offline=yes ./eb-agent.service 2>/dev/null); then
  device_line=$(grep -E '^.\s+DeviceAllow=' <<<"$security" || true)
  if [[ -n $device_line && $device_line != *"no device ACL"* ]]; then
    fail "eb-agent.service gets a device ACL, which hides the GPUs: $device_line"
  fi
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS: both units verify cleanly and keep their required settings"
