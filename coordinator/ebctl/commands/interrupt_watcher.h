#pragma once

// Cancels a gRPC call on SIGINT/SIGTERM, so that Ctrl-C during `ebctl
// run-test` makes the coordinator stop the test's workers instead of
// leaving them to their deadlines.

#include <atomic>
#include <string>
#include <thread>

#include "grpcpp/client_context.h"

namespace eb::ebctl {

// Watches for SIGINT and SIGTERM, which main() blocks in every thread, from
// a thread of its own, and calls context.TryCancel() when one arrives. The
// thread waits on a signalfd and an eventfd together, so that it ends the
// moment the destructor runs: a timed sigwait loop would add up to its
// period to every run-test. Without a signalfd or eventfd it says so on
// stderr and watches nothing. `context` must outlive the watcher.
// `consequence` completes "ebctl: interrupted; ..." on stderr, so that the
// user reads what Ctrl-C does here: "cancelling the test", "cancelling the
// validation", "stopped following (the validation goes on)".
class InterruptWatcher {
 public:
  InterruptWatcher(grpc::ClientContext& context, std::string consequence);
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  // True once a signal arrived (and the call was cancelled).
  bool interrupted() const { return interrupted_.load(); }

 private:
  int signal_fd_ = -1;
  int wake_fd_ = -1;
  std::string consequence_;
  std::atomic<bool> interrupted_{false};
  std::thread thread_;
};

}  // namespace eb::ebctl
