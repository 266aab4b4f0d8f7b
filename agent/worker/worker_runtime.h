#pragma once

// The life of one eb-worker: register with the agent, join the
// communicator through the per-test rendezvous, run the sweep, report every
// size, finish. Any error is reported to the agent (which names rank, node
// and slot) and becomes the exit code.

#include <string>

#include "absl/time/time.h"
#include "agent/worker/fault_injection.h"

namespace eb::worker {

// Exit codes of eb-worker (nccl-tests' meanings where they overlap).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCommunication = 3;
inline constexpr int kExitTimeout = 4;
// Told to stop by the agent, or lost the agent.
inline constexpr int kExitStopped = 143;

struct WorkerOptions {
  std::string agent_target;
  int agent_pid = 0;
  std::string test_id;
  int rank = 0;
  std::string token;
  absl::Duration heartbeat_period = absl::Seconds(1);
  absl::Duration init_timeout = absl::Seconds(60);
  absl::Duration op_timeout = absl::Seconds(60);
  std::string bootstrap_interface;
  std::string bootstrap_address;
  int cuda_device = -1;
  // PCI bus id of the GPU the agent assigned (--gpu-bus-id); "" = unchecked.
  std::string gpu_bus_id;
  FaultInjection fault;
};

// Runs the worker to completion and returns its exit code.
int RunWorker(const WorkerOptions& options);

}  // namespace eb::worker
