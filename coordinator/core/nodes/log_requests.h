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
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The FetchLog an agent is sent for `ebctl logs` (GetLog): max_bytes 0
// means one page (spec::kMaxLogPageBytes) and more is capped to one page,
// so that one answer always fits in a message (a 6 MB read ended the
// agent's session, SECURITY_FINDINGS case 7); the reply's next_offset tells
// the caller where the next page starts. INVALID_ARGUMENT naming the field
// for a bad test id, a negative max_bytes or offset.
absl::StatusOr<ebnccl::v1::FetchLog> MakeFetchLog(const ebnccl::v1::GetLogRequest& request,
                                                  uint64_t request_id);

// GetLog's reply from the agent's page.
void FillGetLogReply(const ebnccl::v1::LogContent& content, const std::string& node_name,
                     ebnccl::v1::GetLogReply* reply);

class LogRequests {
 public:
  // Receives the agent's answer, or DEADLINE_EXCEEDED. Runs exactly once.
  using Callback = std::function<void(absl::StatusOr<ebnccl::v1::LogContent>)>;

  LogRequests(common::Executor& executor, absl::Duration timeout);
  ~LogRequests();

  // At most this many log requests wait for agents at once.
  static constexpr size_t kMaxPending = 256;

  // Registers a request and returns its id (never 0). Beyond kMaxPending,
  // `done` gets RESOURCE_EXHAUSTED at once and the id is 0: send nothing.
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
