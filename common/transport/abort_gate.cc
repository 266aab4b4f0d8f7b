#include "common/transport/abort_gate.h"

#include <string>

namespace eb::transport {

bool AbortGate::Enter(absl::FunctionRef<void()> under_lock) {
  absl::MutexLock lock(&mu_);
  if (aborted_.load(std::memory_order_relaxed)) return false;
  in_call_ = true;
  under_lock();
  return true;
}

bool AbortGate::Leave() {
  absl::MutexLock lock(&mu_);
  in_call_ = false;
  if (!owner_cleans_up_) return false;
  owner_cleans_up_ = false;  // reported once
  return true;
}

AbortGate::Begun AbortGate::BeginAbort(absl::string_view reason, absl::FunctionRef<void()> take) {
  absl::MutexLock lock(&mu_);
  if (aborted_.load(std::memory_order_relaxed)) return Begun{};
  reason_ = std::string(reason);
  aborted_.store(true, std::memory_order_release);
  abort_running_ = true;
  take();
  // Releases mu_ while it waits, so the owner can Leave.
  const bool owner_out =
      mu_.AwaitWithTimeout(absl::Condition(
                               +[](bool* in_call) { return !*in_call; }, &in_call_),
                           grace_);
  if (!owner_out) owner_cleans_up_ = true;
  return Begun{true, owner_out};
}

void AbortGate::EndAbort() {
  absl::MutexLock lock(&mu_);
  abort_running_ = false;
}

void AbortGate::AwaitAbortDone() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](bool* running) { return !*running; }, &abort_running_));
}

std::string AbortGate::reason() const {
  absl::MutexLock lock(&mu_);
  return reason_;
}

}  // namespace eb::transport
