#pragma once

// A thread-safe in-memory RendezvousStore for tests: ranks-as-threads share
// one instance. Wait blocks on a condition variable until every key exists
// or the timeout passes (real time: Gloo's rendezvous runs real sockets).

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"

namespace eb::testing {

class InMemoryRendezvousStore final : public transport::RendezvousStore {
 public:
  absl::Status Set(const std::string& key, const std::string& value) override {
    absl::MutexLock lock(&mu_);
    if (!closed_reason_.empty()) return absl::AbortedError(closed_reason_);
    values_[key] = value;
    ++sets_;
    changed_.SignalAll();
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<std::string>> Wait(const std::vector<std::string>& keys,
                                                absl::Duration timeout) override {
    const absl::Time deadline = absl::Now() + timeout;
    absl::MutexLock lock(&mu_);
    while (true) {
      if (!closed_reason_.empty()) return absl::AbortedError(closed_reason_);
      std::vector<std::string> missing;
      for (const std::string& key : keys) {
        if (!values_.contains(key)) missing.push_back(key);
      }
      if (missing.empty()) break;
      // Keys are checked before the deadline, so a Set that lands just as
      // the wait times out still counts.
      if (absl::Now() >= deadline) {
        return absl::DeadlineExceededError(absl::StrCat("rendezvous keys not set within ",
                                                        absl::FormatDuration(timeout), ": ",
                                                        absl::StrJoin(missing, ", ")));
      }
      ++waiting_;
      changed_.WaitWithDeadline(&mu_, deadline);
      --waiting_;
    }
    std::vector<std::string> values;
    values.reserve(keys.size());
    for (const std::string& key : keys) values.push_back(values_.at(key));
    return values;
  }

  // Makes every pending and later call fail with ABORTED (the test ended).
  void Close(const std::string& reason) {
    absl::MutexLock lock(&mu_);
    closed_reason_ = reason.empty() ? "closed" : reason;
    changed_.SignalAll();
  }

  // Number of successful Set calls (for tests of adapters).
  int sets() const {
    absl::MutexLock lock(&mu_);
    return sets_;
  }

  // Blocks until `count` callers are blocked in Wait: lets a test order
  // "the waiter blocks, then another thread sets" without sleeping.
  void AwaitWaiters(int count) const {
    absl::MutexLock lock(&mu_);
    auto enough = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return waiting_ >= count; };
    mu_.Await(absl::Condition(&enough));
  }

  bool Contains(const std::string& key) const {
    absl::MutexLock lock(&mu_);
    return values_.contains(key);
  }

 private:
  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  absl::flat_hash_map<std::string, std::string> values_ ABSL_GUARDED_BY(mu_);
  std::string closed_reason_ ABSL_GUARDED_BY(mu_);
  int sets_ ABSL_GUARDED_BY(mu_) = 0;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace eb::testing
