#pragma once

// The part of the agent's configuration that its pure core reads: the node,
// its worker slots and how its workers are started, supervised and stopped,
// its fabric and NCCL (the supervisor, the worker's argv and environment,
// the inventory, --check-config's checks). AgentConfig (agent/config.h)
// adds what only the daemon's wiring reads (TLS, metrics, systemd, the
// session's reconnects, the worker socket's linger) and derives from this,
// so that agent/core never includes a header from above it. Filled from
// flags and the config file in main.cc and passed by value (STYLE.md rule
// 21).

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/core/fabric_config.h"

namespace eb::agent {

struct AgentCoreConfig {
  // Coordinator to dial, "host:port".
  std::string coordinator_address;
  // Unique name of this node in the fleet.
  std::string node_name;
  // Worker slots offered (ranks per test on this node); GPU count on GPU
  // nodes.
  int worker_slots = 1;
  // NIC the workers use for bootstrap and Gloo traffic (NCCL_SOCKET_IFNAME);
  // empty = let the worker pick by bootstrap_address or host name.
  std::string bootstrap_interface;
  // Address the workers bind for Gloo when no interface is given.
  std::string bootstrap_address;
  // Transports offered: "auto" (every one this node can run), "gloo" or
  // "nccl".
  std::string transport = "auto";
  // HCA ports NCCL may use (--ib-hca); written to NCCL_IB_HCA in exact-match
  // form. Empty: NCCL's own choice.
  std::vector<HcaPort> ib_hcas;
  // NCCL_IB_GID_INDEX for RoCE (-1: NCCL's default, auto since 2.21).
  int ib_gid_index = -1;
  // Where the HCAs are listed (tests point this at a fake tree).
  std::string sysfs_infiniband = "/sys/class/infiniband";
  // Where PCI devices are listed by bus id, for the GPU-HCA affinity
  // (agent/host/pci_topology.h; tests point this at a fake tree).
  std::string sysfs_pci = "/sys/bus/pci/devices";
  // Physical GPUs this agent owns, by index in PCI bus order (CUDA's with
  // CUDA_DEVICE_ORDER=PCI_BUS_ID, set for every worker); slot i runs on
  // gpu_indices[i]. Empty: every GPU, slot i on GPU i. (Several agents on
  // one host, e.g. to simulate two nodes, each own a part.)
  std::vector<int> gpu_indices;
  // Identity of this agent's machine, for the coordinator's refusal of two
  // ranks of one host's agents on one GPU; empty: the kernel's boot id
  // (HostIdentity). Agents on one machine report the same identity unless
  // told otherwise, which is only right when they cannot share a GPU (e.g.
  // a test whose second rank never starts).
  std::string host_id;
  // Version of the NCCL library the workers load ("" when none), as
  // `eb-worker --print-nccl-version` reported it at start.
  std::string nccl_version;
  // Why nccl_version is empty: the probe failed or the worker has no NCCL
  // ("" when it has a version).
  std::string nccl_problem;
  // First TCP port of NCCL's RAS service for this agent's NCCL tests: each
  // running test gets its own of [base, base + worker slots) as
  // NCCL_RAS_ADDR=127.0.0.1:<port>, so that concurrent tests never share
  // one, and the agent queries it when the test fails or times out
  // (agent/core/nccl_ras.h). 0: NCCL_RAS_ADDR is left alone and RAS is not
  // queried. Agents sharing a host need ranges that do not overlap.
  int nccl_ras_port_base = 28100;
  // Path of the eb-worker executable.
  std::string worker_binary;
  // Directory for the workers' Unix socket and per-test logs.
  std::string run_dir;
  // Extra environment for every worker ("KEY=VALUE"), e.g. NCCL settings;
  // never the variables env_policy.h reserves for the agent.
  std::vector<std::string> worker_env;
  // How long a stopped worker gets between SIGTERM and SIGKILL.
  absl::Duration worker_grace = absl::Seconds(5);
  // Period of the workers' heartbeats to the agent. A worker's heartbeat
  // comes from a thread of its own that only sleeps and makes calls with
  // short deadlines, so its silence means the process does not run
  // (docs/DESIGN.md, "Failure detection").
  absl::Duration worker_heartbeat_period = absl::Milliseconds(250);
  // A registered worker silent for this long is killed as hung: 10
  // heartbeat periods, short enough that a stopped rank is named within the
  // issue's 5 s, and before the coordinator's stall rule would blame the
  // path for the calls it holds up (docs/RELIABILITY.md, "Which deadline
  // fires first").
  absl::Duration worker_hang_timeout = absl::Milliseconds(2500);
};

}  // namespace eb::agent
