#pragma once

// What the WorkerSupervisor knows of each test it runs on this node and of
// each of that test's workers: the state its pieces (launch, deadlines,
// stop, evidence) read and change, all on the agent's executor. Plain data.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/core/port_counters.h"
#include "agent/core/tcp_counters.h"
#include "common/exec/executor.h"
#include "common/process/process_launcher.h"
#include "common/time/late_check.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// One rank's worker process.
struct SupervisedWorker {
  ebnccl::v1::RankAssignment assignment;
  std::string token;
  std::string log_path;
  common::ChildHandle child;
  bool spawned = false;
  bool registered = false;
  bool finished = false;
  // A failure of this rank was already reported (no second report).
  bool reported = false;
  bool exited = false;
  // Found hung while RAS is queried: SIGKILLed once the query is over.
  bool kill_after_ras = false;
  // Which stop signals this agent sent it: an exit by any other signal
  // during a stop was not caused by the stop (DiedOfItsOwnDuringStop).
  bool sent_sigterm = false;
  bool sent_sigkill = false;
  absl::Time last_heartbeat;

  // Spawned and not reaped yet: a process to signal and to wait for.
  bool alive() const { return spawned && !exited; }
};

// One test's workers on this node.
struct SupervisedTest {
  ebnccl::v1::LaunchTest launch;
  std::vector<SupervisedWorker> workers;
  bool stopping = false;
  common::TimerId register_timer = 0;
  common::TimerId watchdog_timer = 0;
  // The registration deadline and the heartbeat check do not judge the
  // silence of the agent's own stall (common/time/late_check.h).
  common::LateCheck register_check = common::LateCheck::ForDeadline();
  common::LateCheck heartbeat_check = common::LateCheck::ForDeadline();
  common::TimerId kill_timer = 0;
  // The configured ports when the test was launched.
  std::vector<PortSnapshot> ports_before;
  // The host's TCP counters when the test was launched.
  TcpSnapshot tcp_before;
  // NCCL_RAS_ADDR's port given to this test's NCCL workers, or 0.
  int ras_port = 0;
  // A RAS query is in flight: the workers are signalled when it ends (or
  // at ras_timer, a backstop past its deadline).
  bool ras_pending = false;
  common::TimerId ras_timer = 0;
  // What the query found, for the evidence.
  std::optional<ebnccl::v1::NcclRasStatus> ras;

  const std::string& id() const { return launch.test_id(); }
};

// The supervisor's tests by id: owned by the WorkerSupervisor, read and
// changed by its pieces on its executor.
using SupervisedTests = std::map<std::string, SupervisedTest>;

}  // namespace eb::agent
