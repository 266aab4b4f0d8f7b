# Sourced by the netns tests: several "hosts" in network namespaces, one NIC
# each (eth0, $subnet.<index + 1>/24) on a bridge that lives in a namespace of
# its own, so nothing touches the machine's network; mutual TLS certificates
# for the coordinator (on host 0), every host's agent and one client.
#
# The caller sets, before sourcing: prefix (namespace names), subnet (first
# three octets), hosts (indices), work (a temporary folder), pids (the
# processes to stop at exit), optionally netns_extra (more namespaces to
# delete at exit), and `failed=0` once the test passed (the logs under $work
# are printed otherwise). Optional: fleet_defaults=1 starts the daemons on
# their shipped deadlines (no short heartbeats, hang timeout or stall floor
# of the tests'); fleet_hang_ms, the agents' hang timeout otherwise (4 s x
# EB_TEST_SLOWDOWN by default, as LocalCluster's). Then:
#   netns_fleet_up                 namespaces, veths, bridge; EXIT trap
#   netns_fleet_certs CLIENT ROLE  certificates under $work/tls
#   netns_fleet_shape HOST TBF...  one tbf on each direction of HOST's link
#   tls NAME                       the --tls-* flags for a certificate:
#                                  coordinator, nodes/node<i>, clients/CLIENT

netns_fleet_cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  sleep 1
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  for h in "${hosts[@]}"; do
    ip netns pids "$prefix-h$h" 2>/dev/null | xargs -r kill -KILL
    ip netns del "$prefix-h$h" 2>/dev/null
  done
  ip netns del "$prefix-br" 2>/dev/null
  for ns in "${netns_extra[@]+"${netns_extra[@]}"}"; do ip netns del "$ns" 2>/dev/null; done
  if [[ "${failed:-1}" == 1 ]]; then
    for f in "$work"/*.log "$work"/*.out "$work"/*.err; do echo "===== $f"; tail -n 60 "$f"; done
  fi
  rm -rf "$work"
}

netns_fleet_up() {
  trap netns_fleet_cleanup EXIT
  ip netns add "$prefix-br"
  ip -n "$prefix-br" link add br0 type bridge
  ip -n "$prefix-br" link set br0 up
  local h ns
  for h in "${hosts[@]}"; do
    ns="$prefix-h$h"
    ip netns add "$ns"
    ip link add "${prefix}v$h" type veth peer name "${prefix}p$h"
    ip link set "${prefix}v$h" netns "$ns"
    ip link set "${prefix}p$h" netns "$prefix-br"
    ip -n "$ns" link set "${prefix}v$h" name eth0
    ip -n "$ns" addr add "$subnet.$((h + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip -n "$prefix-br" link set "${prefix}p$h" master br0
    ip -n "$prefix-br" link set "${prefix}p$h" up
  done
}

# Both directions of HOST's link: its own egress, and the bridge port's
# egress towards it, each through `tbf TBF...` (replacing what was there).
netns_fleet_shape() {
  local host=$1
  shift
  tc -n "$prefix-h$host" qdisc replace dev eth0 root tbf "$@"
  tc -n "$prefix-br" qdisc replace dev "${prefix}p$host" root tbf "$@"
}

netns_fleet_certs() {
  local script
  script="$(dirname "${BASH_SOURCE[0]}")/../../deploy/scripts/ebnccl-certs.sh"
  certs=$work/tls
  "$script" --dir "$certs" ca >/dev/null
  "$script" --dir "$certs" coordinator "$subnet.1" >/dev/null
  # shellcheck disable=SC2046
  "$script" --dir "$certs" node $(printf 'node%s ' "${hosts[@]}") >/dev/null
  "$script" --dir "$certs" client "$1" "$2" >/dev/null
}

tls() { echo --tls-ca "$certs/ca.pem" --tls-cert "$certs/$1.pem" --tls-key "$certs/$1.key"; }

# The flags that give the daemons the fleet tests' short deadlines (none with
# fleet_defaults=1). The stall floor sits above the agents' hang timeout plus
# its check, so that a stopped rank is named by its agent first, and scales
# with the sanitizers' slowdown.
netns_fleet_slowdown() { echo "${EB_TEST_SLOWDOWN:-1}"; }
netns_fleet_coordinator_flags() {
  [[ ${fleet_defaults:-0} == 1 ]] && return 0
  echo --heartbeat-period-ms 200 --heartbeat-miss-limit 5 --stop-timeout-ms 5000 \
    --stall-timeout-ms $((8000 * $(netns_fleet_slowdown)))
}
netns_fleet_agent_flags() {
  [[ ${fleet_defaults:-0} == 1 ]] && return 0
  echo --worker-grace-ms 1000 --worker-heartbeat-ms 200 \
    --worker-hang-timeout-ms "${fleet_hang_ms:-$((4000 * $(netns_fleet_slowdown)))}"
}

# eb-coordinator in host 0 over the fleet's certificates, its history and log
# in $work, with the fleet tests' heartbeat, stop and stall deadlines and the
# flags given; returns once it listens. Its pid joins pids.
netns_fleet_coordinator() {
  # shellcheck disable=SC2046
  ip netns exec "$prefix-h0" "$bin/eb-coordinator" --config /dev/null --listen "$coordinator" \
    $(tls coordinator) --history-path "$work/history.db" $(netns_fleet_coordinator_flags) "$@" \
    >"$work/coordinator.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q "listening on" "$work/coordinator.log" && break; sleep 0.1; done
}

# `ip netns exec` mounts a fresh /sys, without /sys/fs/cgroup's mounts, so a
# worker there cannot read its cgroup's CPU limit (RELIABILITY.md, "CPU
# limits"); a host's agent sees them. With fleet_cgroup_cpu=1 each agent
# starts in its namespace with the host's cgroup v1 `cpu` hierarchy mounted
# again there, as on a host (in the agent's own mount namespace only).
# Replaces the shell it runs in (exec): call it in the background, so that
# $! is the agent's pid.
netns_fleet_agent_exec() {
  [[ ${fleet_cgroup_cpu:-0} == 1 ]] || exec ip netns exec "$@"
  local ns=$1 options
  shift
  options=$(awk '$5 == "/sys/fs/cgroup/cpu" { for (i = 7; i <= NF; ++i) if ($i == "-") { print $(i + 3); exit } }' /proc/self/mountinfo)
  # shellcheck disable=SC2016
  exec ip netns exec "$ns" bash -c 'mount -t tmpfs ebnccl-cgroup /sys/fs/cgroup &&
    mkdir /sys/fs/cgroup/cpu && mount -t cgroup -o "$1" cgroup /sys/fs/cgroup/cpu &&
    shift && exec "$@"' netns-agent "$options" "$@"
}

# One eb-agent of $1 workers per host, node<h> with host id host<h>, logs in
# $work; each pid joins pids and is agent_pid[h] (declare -A agent_pid first).
# The array agent_flags, when set, adds flags to every agent.
netns_fleet_agents() {
  local h
  for h in "${hosts[@]}"; do
    # shellcheck disable=SC2046
    netns_fleet_agent_exec "$prefix-h$h" "$bin/eb-agent" --config /dev/null --coordinator "$coordinator" \
      --node-name "node$h" --host-id "host$h" --workers "$1" --bootstrap-interface eth0 \
      $(tls "nodes/node$h") --run-dir "$work/run-node$h" $(netns_fleet_agent_flags) \
      "${agent_flags[@]+"${agent_flags[@]}"}" \
      >"$work/agent-node$h.log" 2>&1 &
    pids+=($!)
    agent_pid[$h]=$!
  done
}
