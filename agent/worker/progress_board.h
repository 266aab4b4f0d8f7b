#pragma once

// The latest progress of the size this worker is measuring, handed from the
// communicator's thread (which must not block between timed calls) to the
// heartbeat thread, which reports it to the agent at most once per
// heartbeat (issue 29: the hang detector judges calls, not whole sizes).
// Thread-safe.

#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/transport/benchmark_runner.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::worker {

class ProgressBoard {
 public:
  // The size `step` (how many sizes were reported before it) got this far.
  void Publish(int step, const transport::SizeProgress& progress);
  // What was published since the last call, once; nullopt when nothing new.
  std::optional<ebnccl::v1::IterationProgress> TakeNew();

 private:
  absl::Mutex mutex_;
  ebnccl::v1::IterationProgress latest_ ABSL_GUARDED_BY(mutex_);
  bool fresh_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace eb::worker
