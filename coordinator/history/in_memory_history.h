#pragma once

// TestHistory kept in memory: for unit tests and for a coordinator started
// with `--history-path ''` (history lost on restart). Thread-safe.

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "coordinator/history/history_store.h"

namespace eb::coordinator {

class InMemoryTestHistory final : public TestHistory {
 public:
  // Keeps at most `max_tests` tests when > 0: each Save drops the oldest
  // finished tests beyond it (unfinished ones are never dropped). 0 keeps
  // everything.
  explicit InMemoryTestHistory(int max_tests = 0);

  absl::Status Save(const ebnccl::v1::TestReport& report) override;
  absl::StatusOr<ebnccl::v1::TestReport> Get(const std::string& test_id) const override;
  absl::StatusOr<std::vector<ebnccl::v1::TestReport>> List(int limit) const override;
  absl::StatusOr<int> MarkInterrupted(const std::string& reason, int64_t now_ms) override;

 private:
  // Ids in List order (newest first).
  std::vector<std::string> OrderedIds() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Prune() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int max_tests_;
  mutable absl::Mutex mu_;
  std::map<std::string, ebnccl::v1::TestReport> reports_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::coordinator
