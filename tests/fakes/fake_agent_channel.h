#pragma once

// An AgentChannel that records what the coordinator sends to an agent and how
// it ends the session, for NodeRegistry and TestManager unit tests. Like the
// real one it is thread-safe and drops messages once the session is closed.

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "coordinator/core/nodes/agent_channel.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::testing {

class FakeAgentChannel final : public coordinator::AgentChannel {
 public:
  explicit FakeAgentChannel(std::string peer = "ipv4:127.0.0.1:40000") : peer_(std::move(peer)) {}

  void Send(const ebnccl::v1::CoordinatorMessage& message) override {
    absl::MutexLock lock(&mu_);
    if (!close_statuses_.empty()) {
      ++dropped_;
      return;
    }
    sent_.push_back(message);
  }

  void Close(const absl::Status& status) override {
    absl::MutexLock lock(&mu_);
    close_statuses_.push_back(status);
  }

  std::string Peer() const override { return peer_; }

  // Every message sent before the session was closed, in order.
  std::vector<ebnccl::v1::CoordinatorMessage> sent() const {
    absl::MutexLock lock(&mu_);
    return sent_;
  }

  // The LaunchTest commands among sent().
  std::vector<ebnccl::v1::LaunchTest> launches() const {
    std::vector<ebnccl::v1::LaunchTest> result;
    for (const auto& message : sent()) {
      if (message.has_launch()) result.push_back(message.launch());
    }
    return result;
  }

  // The StopTest commands among sent().
  std::vector<ebnccl::v1::StopTest> stops() const {
    std::vector<ebnccl::v1::StopTest> result;
    for (const auto& message : sent()) {
      if (message.has_stop()) result.push_back(message.stop());
    }
    return result;
  }

  // The status of every Close call (Close is idempotent for the peer, but
  // the fake keeps each call so that tests can see repeats).
  std::vector<absl::Status> close_statuses() const {
    absl::MutexLock lock(&mu_);
    return close_statuses_;
  }

  bool closed() const {
    absl::MutexLock lock(&mu_);
    return !close_statuses_.empty();
  }

  // Messages dropped because they were sent after Close.
  int dropped() const {
    absl::MutexLock lock(&mu_);
    return dropped_;
  }

 private:
  const std::string peer_;
  mutable absl::Mutex mu_;
  std::vector<ebnccl::v1::CoordinatorMessage> sent_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Status> close_statuses_ ABSL_GUARDED_BY(mu_);
  int dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace eb::testing
