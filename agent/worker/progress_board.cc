#include "agent/worker/progress_board.h"

namespace eb::worker {

void ProgressBoard::Publish(int step, const transport::SizeProgress& progress) {
  absl::MutexLock lock(&mutex_);
  latest_.set_step(step);
  latest_.set_calls_done(progress.calls_done);
  latest_.set_calls_planned(progress.calls_planned);
  latest_.set_timed_calls(progress.timed_calls);
  latest_.set_timed_elapsed_us(absl::ToInt64Microseconds(progress.timed_elapsed));
  latest_.set_waiting_on_peers(progress.waiting_on_peers);
  fresh_ = true;
}

std::optional<ebnccl::v1::IterationProgress> ProgressBoard::TakeNew() {
  absl::MutexLock lock(&mutex_);
  if (!fresh_) return std::nullopt;
  fresh_ = false;
  return latest_;
}

}  // namespace eb::worker
