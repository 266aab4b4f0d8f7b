#include "coordinator/history/write_behind_history.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

WriteBehindTestHistory::WriteBehindTestHistory(std::unique_ptr<TestHistory> inner)
    : inner_(std::move(inner)) {
  writer_ = std::thread([this] { WriterLoop(); });
}

WriteBehindTestHistory::~WriteBehindTestHistory() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  // The writer empties pending_ before it sees stopping_.
  writer_.join();
}

absl::Status WriteBehindTestHistory::Save(const v1::TestReport& report) {
  if (report.test_id().empty()) {
    return absl::InvalidArgumentError("test history: a report without a test_id cannot be saved");
  }
  absl::MutexLock lock(&mu_);
  pending_[report.test_id()] = report;
  ++saved_;
  return absl::OkStatus();
}

const v1::TestReport* WriteBehindTestHistory::Unwritten(const std::string& test_id) const {
  if (auto it = pending_.find(test_id); it != pending_.end()) return &it->second;
  if (auto it = writing_.find(test_id); it != writing_.end()) return &it->second;
  return nullptr;
}

absl::StatusOr<v1::TestReport> WriteBehindTestHistory::Get(const std::string& test_id) const {
  {
    absl::MutexLock lock(&mu_);
    if (const v1::TestReport* report = Unwritten(test_id)) return *report;
  }
  // Not unwritten: either written, or never saved. A write that finishes
  // between the two looks is in `inner_` by now.
  return inner_->Get(test_id);
}

absl::StatusOr<std::vector<v1::TestReport>> WriteBehindTestHistory::List(int limit) const {
  // Unwritten reports first, then the stored ones they do not replace. A
  // stored report among the `limit` newest of the merge is among the
  // `limit` newest stored, so asking `inner_` for `limit` is enough.
  std::map<std::string, v1::TestReport> merged;
  {
    absl::MutexLock lock(&mu_);
    for (const auto* unwritten : {&writing_, &pending_}) {
      for (const auto& [id, report] : *unwritten) merged[id] = WithoutResults(report);
    }
  }
  absl::StatusOr<std::vector<v1::TestReport>> stored = inner_->List(limit);
  if (!stored.ok()) return stored.status();
  for (v1::TestReport& report : *stored) merged.try_emplace(report.test_id(), std::move(report));
  std::vector<v1::TestReport> listed;
  listed.reserve(merged.size());
  for (auto& [id, report] : merged) listed.push_back(std::move(report));
  std::stable_sort(listed.begin(), listed.end(), ListedBefore);
  if (limit > 0 && static_cast<int>(listed.size()) > limit) listed.resize(limit);
  return listed;
}

absl::StatusOr<int> WriteBehindTestHistory::MarkInterrupted(const std::string& reason,
                                                            int64_t now_ms) {
  Flush();
  return inner_->MarkInterrupted(reason, now_ms);
}

void WriteBehindTestHistory::Flush() {
  absl::MutexLock lock(&mu_);
  const uint64_t target = saved_;
  auto written = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return written_ >= target; };
  mu_.Await(absl::Condition(&written));
}

void WriteBehindTestHistory::WriterLoop() {
  while (true) {
    std::vector<v1::TestReport> batch;
    uint64_t taken = 0;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](WriteBehindTestHistory* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return !self->pending_.empty() || self->stopping_;
          },
          this));
      if (pending_.empty()) return;  // stopping, and nothing is left
      writing_ = std::move(pending_);
      pending_.clear();
      taken = saved_;
      batch.reserve(writing_.size());
      for (const auto& [id, report] : writing_) batch.push_back(report);
    }
    if (absl::Status status = inner_->SaveAll(batch); !status.ok()) {
      // As TestManager::Record: a full disk or a broken file must not fail
      // tests; only `ebctl tests`/`show` miss them after a restart.
      spdlog::error("test history: {} report(s) could not be recorded: {}", batch.size(),
                    status.ToString());
    }
    absl::MutexLock lock(&mu_);
    writing_.clear();
    written_ = taken;
  }
}

}  // namespace eb::coordinator
