#pragma once

// Ordered, thread-safe writes on a gRPC callback server stream.
//
// A callback reactor may have one write in flight at a time and must call
// Finish exactly once, after its last write; yet our messages come from the
// component's executor thread while reactions run on gRPC's threads. The
// outbox queues messages, starts the next write from OnWriteDone, finishes
// the call once the queue has drained, and outlives its reactor (held by
// shared_ptr) so that a sender never touches a deleted reactor: after
// Detach() every call is a no-op.
//
// Usage in a reactor: create with `this`; forward OnWriteDone(ok) to
// outbox->OnWriteDone(ok); call outbox->Detach() first thing in OnDone.

#include <deque>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/status.h"

namespace eb::common {

template <typename Reactor, typename Message>
class StreamOutbox {
 public:
  explicit StreamOutbox(Reactor* reactor) : reactor_(reactor) {}

  // Queues `message`; returns false (dropping it) once the stream is
  // finishing or gone. Thread-safe, never blocks on the network.
  bool Push(Message message) {
    absl::MutexLock lock(&mu_);
    if (reactor_ == nullptr || finish_requested_) return false;
    queue_.push_back(std::move(message));
    if (!writing_) StartNextLocked();
    return true;
  }

  // Finishes the call with `status` once queued messages are written.
  // Thread-safe, idempotent (the first status wins).
  void Finish(grpc::Status status) {
    absl::MutexLock lock(&mu_);
    if (reactor_ == nullptr || finish_requested_) return;
    finish_requested_ = true;
    finish_status_ = std::move(status);
    if (!writing_) FinishLocked();
  }

  // From the reactor's OnWriteDone. A failed write means the stream is
  // broken: drop the queue and finish.
  void OnWriteDone(bool ok) {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (reactor_ == nullptr) return;
    queue_.pop_front();
    if (!ok) {
      queue_.clear();
      if (!finish_requested_) {
        finish_requested_ = true;
        finish_status_ = grpc::Status(grpc::StatusCode::CANCELLED, "stream broken");
      }
    }
    if (!queue_.empty()) {
      StartNextLocked();
    } else if (finish_requested_) {
      FinishLocked();
    }
  }

  // From the reactor's OnDone: the reactor is about to be deleted.
  void Detach() {
    absl::MutexLock lock(&mu_);
    reactor_ = nullptr;
    queue_.clear();
  }

 private:
  void StartNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    writing_ = true;
    // The front element stays in the queue (and in place) until its write
    // completes: gRPC reads it asynchronously.
    reactor_->StartWrite(&queue_.front());
  }
  void FinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    reactor_->Finish(finish_status_);
  }

  absl::Mutex mu_;
  Reactor* reactor_ ABSL_GUARDED_BY(mu_);
  std::deque<Message> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status finish_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::common
