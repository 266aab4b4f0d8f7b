#pragma once

// Log fetches in flight: the coordinator asks an agent for the end of a
// rank's log over the session stream and matches the answer by request id.
// Owned by the coordinator's executor: every method runs on it.

#include <cstdint>
#include <functional>
#include <map>
#include <string>

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

  // Called for a refused answer (see Complete), rate-limited: the 1st, 2nd,
  // 4th, 8th... refusal, so a flood leaves a few audit rows, not one each.
  // Arguments: the sender, the node asked, the total refused so far.
  using RefusalHook =
      std::function<void(const std::string& sender, const std::string& asked, uint64_t refused)>;
  void set_refusal_hook(RefusalHook hook) { on_refused_ = std::move(hook); }

  // Registers a request sent to node `asked` and returns its id (never 0).
  // Beyond kMaxPending, `done` gets RESOURCE_EXHAUSTED at once and the id
  // is 0: send nothing.
  uint64_t Add(std::string asked, Callback done);
  // Completes the request the answer names when `sender` is the node it was
  // asked of; unknown ids are ignored (late). An answer from another node is
  // refused (false), counted and the request left waiting for the node
  // asked: request ids are sequential, so any node could answer another's
  // (SECURITY_FINDINGS P2-4e: 3 of 5 `ebctl logs` of nodeA showed an
  // attacker's text).
  bool Complete(const std::string& sender, const ebnccl::v1::LogContent& content);

  // Answers refused so far (Complete returned false).
  uint64_t refused() const { return refused_; }

 private:
  struct Pending {
    std::string asked;
    Callback done;
    common::TimerId timer;
  };
  common::Executor& executor_;
  const absl::Duration timeout_;
  std::map<uint64_t, Pending> pending_;
  uint64_t next_id_ = 1;
  uint64_t refused_ = 0;
  RefusalHook on_refused_;
};

}  // namespace eb::coordinator
