#include "coordinator/core/budget/cut_offs.h"

#include "absl/strings/str_cat.h"

namespace eb::coordinator {

void CutOffs::Expire(std::deque<absl::Time>& times, absl::Time now) {
  while (!times.empty() && now - times.front() >= kCutOffWindow) times.pop_front();
}

void CutOffs::Record(const std::string& node, absl::Time now) {
  auto it = times_.find(node);
  if (it == times_.end() && times_.size() >= kMaxNodes) {
    auto oldest = times_.begin();
    for (auto other = times_.begin(); other != times_.end(); ++other) {
      if (other->second.empty() ||
          (!oldest->second.empty() && other->second.back() < oldest->second.back())) {
        oldest = other;
      }
    }
    times_.erase(oldest);
  }
  std::deque<absl::Time>& times = times_[node];
  Expire(times, now);
  times.push_back(now);
  while (times.size() > static_cast<size_t>(kMaxCutOffs)) times.pop_front();
}

absl::Status CutOffs::CheckRegister(const std::string& node, absl::Time now) {
  auto it = times_.find(node);
  if (it == times_.end()) return absl::OkStatus();
  Expire(it->second, now);
  if (it->second.empty()) {
    times_.erase(it);
    return absl::OkStatus();
  }
  if (it->second.size() < static_cast<size_t>(kMaxCutOffs)) return absl::OkStatus();
  const absl::Duration wait = it->second.front() + kCutOffWindow - now;
  return absl::ResourceExhaustedError(absl::StrCat(
      "node_name: ", node, " was cut off ", kMaxCutOffs, " times within ",
      absl::FormatDuration(kCutOffWindow), " for exceeding its session budget; it may register ",
      "again in ", absl::FormatDuration(absl::Ceil(wait, absl::Seconds(1)))));
}

}  // namespace eb::coordinator
