#pragma once

// The worker's heartbeats to its agent, on a thread of their own for as long
// as the worker runs (STYLE.md rules 14 and 17).

#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "agent/worker/agent_link.h"
#include "agent/worker/progress_board.h"

namespace eb::worker {

// Heartbeats to the agent every `period` while it exists; exits the process
// (kExitStopped) when the agent says stop or is gone: a worker must never
// outlive its agent or its test. "Gone" includes frozen: the agent's
// process exists (no parent-death signal) but has not answered a heartbeat
// for AgentSilenceLimit(period); each call has a short deadline, so this
// does not depend on the agent's replies. After each heartbeat answered, it
// reports what `progress` holds that is new (a PROGRESS event), so the
// communicator's thread never waits on the agent between timed calls. The
// destructor stops and joins the thread. `link` and `progress` must outlive
// it.
class HeartbeatThread {
 public:
  HeartbeatThread(AgentLink& link, absl::Duration period, ProgressBoard& progress);
  ~HeartbeatThread();
  HeartbeatThread(const HeartbeatThread&) = delete;
  HeartbeatThread& operator=(const HeartbeatThread&) = delete;

 private:
  void Run();

  AgentLink& link_;
  const absl::Duration period_;
  ProgressBoard& progress_;
  absl::Notification done_;
  std::thread thread_;
};

}  // namespace eb::worker
