#include "coordinator/core/budget/rendezvous_budget.h"

#include "absl/strings/str_cat.h"

namespace eb::coordinator {

absl::Status RendezvousBudget::Charge(const std::string& node, absl::Time now) {
  auto it = buckets_.find(node);
  if (it == buckets_.end()) {
    static const std::string kOther = "(other)";
    const std::string& kept = buckets_.size() < kMaxNodes ? node : kOther;
    it = buckets_
             .try_emplace(kept, static_cast<double>(limits_.calls_per_second),
                          static_cast<double>(limits_.call_burst), now)
             .first;
  }
  if (it->second.Take(1, now)) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("rendezvous budget: node ", node, " made more than ", limits_.call_burst,
                   " rendezvous calls at once, or ", limits_.calls_per_second, " a second"));
}

}  // namespace eb::coordinator
