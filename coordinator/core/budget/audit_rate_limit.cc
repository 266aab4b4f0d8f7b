#include "coordinator/core/budget/audit_rate_limit.h"

namespace eb::coordinator {

std::optional<uint64_t> AuditRateLimit::Admit(const std::string& key, absl::Time now) {
  ++seen_;
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    static const std::string kOther = "(other)";
    const std::string& kept = entries_.size() < kMaxKeys ? key : kOther;
    it = entries_.find(kept);
    if (it == entries_.end()) {
      entries_.emplace(kept, Entry{now, 0});
      return 0;
    }
  }
  Entry& entry = it->second;
  // A clock set back must not silence a key for good: a record older than
  // "now" by less than zero counts as due.
  if (now - entry.last_recorded >= interval_ || now < entry.last_recorded) {
    const uint64_t left_out = entry.suppressed;
    entry = Entry{now, 0};
    return left_out;
  }
  ++entry.suppressed;
  ++suppressed_total_;
  return std::nullopt;
}

}  // namespace eb::coordinator
