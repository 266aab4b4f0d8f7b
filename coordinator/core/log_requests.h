#pragma once

// Log fetches in flight: the coordinator asks an agent for the end of a
// rank's log over the session stream and matches the answer by request id.
// Owned by the coordinator's executor: every method runs on it.

#include <cstdint>
#include <functional>
#include <map>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/exec/executor.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::coordinator {

class LogRequests {
 public:
  // Receives the agent's answer, or DEADLINE_EXCEEDED. Runs exactly once.
  using Callback = std::function<void(absl::StatusOr<ebnccl::v1::LogContent>)>;

  LogRequests(common::Executor& executor, absl::Duration timeout);
  ~LogRequests();

  // Registers a request and returns its id (never 0).
  uint64_t Add(Callback done);
  // Completes the request the answer names; unknown ids are ignored (late).
  void Complete(const ebnccl::v1::LogContent& content);

 private:
  struct Pending {
    Callback done;
    common::TimerId timer;
  };
  common::Executor& executor_;
  const absl::Duration timeout_;
  std::map<uint64_t, Pending> pending_;
  uint64_t next_id_ = 1;
};

}  // namespace eb::coordinator
