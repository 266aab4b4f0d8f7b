#pragma once

// A TestHistory that records in the background (issue 15). A Save into
// SQLite costs the coordinator's event loop ~0.7 ms (serializing the report
// and a transaction): 512 tests of a validation round finishing together
// held the loop for ~0.8 s. Here Save only keeps the report in memory and
// wakes a writer thread, which saves everything pending to `inner` in one
// SaveAll (one transaction in SQLite). Reads see every Save at once: Get and
// List look at the reports not yet written first.
//
// What is lost: a coordinator killed with SIGKILL loses the saves of its
// last moments (a clean stop writes everything first; synchronous=NORMAL
// already allowed that on a power cut). A storage error is logged by the
// writer, as TestManager::Record logged it before, and those reports are
// missing from the history, as before.

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "coordinator/history/history_store.h"

namespace eb::coordinator {

class WriteBehindTestHistory final : public TestHistory {
 public:
  explicit WriteBehindTestHistory(std::unique_ptr<TestHistory> inner);
  // Writes what is pending, then stops the writer.
  ~WriteBehindTestHistory() override;

  WriteBehindTestHistory(const WriteBehindTestHistory&) = delete;
  WriteBehindTestHistory& operator=(const WriteBehindTestHistory&) = delete;

  // INVALID_ARGUMENT for an empty test_id (as every TestHistory); otherwise
  // OK at once: the write follows.
  absl::Status Save(const ebnccl::v1::TestReport& report) override;
  absl::StatusOr<ebnccl::v1::TestReport> Get(const std::string& test_id) const override;
  absl::StatusOr<std::vector<ebnccl::v1::TestReport>> List(int limit) const override;
  // Writes what is pending first.
  absl::StatusOr<int> MarkInterrupted(const std::string& reason, int64_t now_ms) override;

  // Returns once everything saved before the call is written (or failed to
  // be: the writer logged it). For tests and for a clean stop.
  void Flush();

 private:
  void WriterLoop();
  // The newest unwritten copy of `test_id`, or null.
  const ebnccl::v1::TestReport* Unwritten(const std::string& test_id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<TestHistory> inner_;
  mutable absl::Mutex mu_;
  // Saved, not yet taken by the writer (the newest copy of each test).
  std::map<std::string, ebnccl::v1::TestReport> pending_ ABSL_GUARDED_BY(mu_);
  // Taken by the writer and being written.
  std::map<std::string, ebnccl::v1::TestReport> writing_ ABSL_GUARDED_BY(mu_);
  // Saves so far, and how many of them the writer has finished with.
  uint64_t saved_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t written_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread writer_;
};

}  // namespace eb::coordinator
