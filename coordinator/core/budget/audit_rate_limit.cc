#include "coordinator/core/budget/audit_rate_limit.h"

#include "absl/strings/str_cat.h"

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

std::optional<std::string> RateLimitedLine(AuditRateLimit* limit, const std::string& key,
                                           absl::Time now, const std::string& line) {
  const std::optional<uint64_t> left_out =
      limit != nullptr ? limit->Admit(key, now) : std::optional<uint64_t>(0);
  if (!left_out) return std::nullopt;
  if (*left_out == 0) return line;
  return absl::StrCat(line, " (", *left_out, " more such refusals not logged since)");
}

absl::Status WithLeftOut(const absl::Status& status, uint64_t left_out, absl::string_view what) {
  if (left_out == 0) return status;
  return absl::Status(status.code(), absl::StrCat(status.message(), "; ", left_out, " ", what));
}

}  // namespace eb::coordinator
