#pragma once

// Hands values that other threads add to an executor's thread in batches: at
// most one executor turn per `window` instead of one per value. For frequent
// messages whose handling may wait a little and of which only the latest per
// sender matters: the coordinator's heartbeats, ~500 a second from 1,024
// agents, each of which used to wake its event loop on its own (issue 15).
// A value added for a key that is already pending replaces the pending one.
//
// Thread-safe: Add from any thread; the handler runs on the executor. The
// batch must outlive the executor's running, or be destroyed on the
// executor's thread (its destructor cancels a pending drain).

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/exec/executor.h"

namespace eb::common {

template <typename Key, typename Value>
class LatestPerKeyBatch {
 public:
  // Called on the executor with the values pending, in the order their keys
  // were first added since the last batch.
  using Handler = std::function<void(std::vector<std::pair<Key, Value>> batch)>;

  LatestPerKeyBatch(Executor& executor, absl::Duration window, Handler handler)
      : executor_(executor), window_(window), handler_(std::move(handler)) {}
  LatestPerKeyBatch(const LatestPerKeyBatch&) = delete;
  LatestPerKeyBatch& operator=(const LatestPerKeyBatch&) = delete;
  ~LatestPerKeyBatch() {
    absl::MutexLock lock(&mu_);
    if (drain_pending_) executor_.Cancel(drain_timer_);
  }

  void Add(Key key, Value value) {
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = index_.try_emplace(key, pending_.size());
    if (!inserted) {
      pending_[it->second].second = std::move(value);
      return;
    }
    pending_.emplace_back(std::move(key), std::move(value));
    if (drain_pending_) return;
    drain_pending_ = true;
    drain_timer_ = executor_.PostAfter(window_, [this] { Drain(); });
  }

  // Values added and not yet handed over.
  size_t pending() const {
    absl::MutexLock lock(&mu_);
    return pending_.size();
  }

 private:
  void Drain() {
    std::vector<std::pair<Key, Value>> batch;
    {
      absl::MutexLock lock(&mu_);
      batch.swap(pending_);
      index_.clear();
      drain_pending_ = false;
    }
    handler_(std::move(batch));
  }

  Executor& executor_;
  const absl::Duration window_;
  const Handler handler_;
  mutable absl::Mutex mu_;
  std::vector<std::pair<Key, Value>> pending_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<Key, size_t> index_ ABSL_GUARDED_BY(mu_);
  bool drain_pending_ ABSL_GUARDED_BY(mu_) = false;
  TimerId drain_timer_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace eb::common
