#pragma once

// The life of one eb-worker: register with the agent, join the
// communicator through the per-test rendezvous, run the sweep, report every
// size, finish. Any error is reported to the agent (which names rank, node
// and slot) and becomes the exit code.

#include <string>

#include "absl/status/status.h"
#include "agent/worker/fault_injection.h"
#include "ebnccl/v1/worker.pb.h"

namespace eb::worker {

// Exit codes of eb-worker (nccl-tests' meanings where they overlap).
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCommunication = 3;
inline constexpr int kExitTimeout = 4;
// Told to stop by the agent, or lost the agent.
inline constexpr int kExitStopped = 143;

// Who the worker is: its command line (and its token, from the
// environment). Everything else (the GPU, deadlines, the sweep, the
// bootstrap settings) comes once, in the agent's registration reply.
struct WorkerOptions {
  std::string agent_target;
  int agent_pid = 0;
  std::string test_id;
  int rank = 0;
  std::string token;
  FaultInjection fault;
};

// OK, or INVALID_ARGUMENT naming the field of a registration reply the
// worker cannot run with: heartbeat_period_ms, init_timeout_ms or
// op_timeout_ms not > 0, or sizes_bytes not a sweep (CheckSweepSizes
// against spec.max_bytes). An older agent sends no sweep and no deadlines.
absl::Status CheckRegistration(const ebnccl::v1::RegisterWorkerReply& reply);

// How long a worker waits for any heartbeat reply from its agent before it
// presumes the agent gone (dead, frozen by SIGSTOP, wedged) and exits with
// kExitStopped: max(4 periods, 5 s); 5 s at the default 250 ms period. A
// worker that cannot register within 10 s exits too. So a frozen agent's
// workers are gone within limit + one period + one call of the freeze. The
// 5 s floor is above the coordinator's default node deadline (500 ms x 6,
// checked every period: 3.5 s at most), so that a frozen agent is named
// before its workers leave and their peers' calls fail (naming the peers).
absl::Duration AgentSilenceLimit(absl::Duration heartbeat_period);

// Runs the worker to completion and returns its exit code.
int RunWorker(const WorkerOptions& options);

}  // namespace eb::worker
