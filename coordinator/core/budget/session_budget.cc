#include "coordinator/core/budget/session_budget.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace eb::coordinator {

int64_t SessionMessageItems(const ebnccl::v1::AgentMessage& message) {
  if (!message.has_worker_events()) return 1;
  return std::max<int64_t>(1, message.worker_events().events_size());
}

SessionBudget::SessionBudget(const SessionBudgetLimits& limits, absl::Time now)
    : limits_(limits),
      opened_(now),
      items_(static_cast<double>(limits.items_per_second), static_cast<double>(limits.item_burst),
             now),
      bytes_(static_cast<double>(limits.bytes_per_second), static_cast<double>(limits.byte_burst),
             now) {}

absl::Status SessionBudget::Charge(int64_t items, size_t bytes, absl::Time now) {
  if (!exceeded_.ok()) return exceeded_;
  ++messages_;
  items_charged_ += items;
  bytes_charged_ += bytes;
  // The items are taken before the bytes are looked at: a session over
  // either ends anyway, so only which one ran out matters.
  const bool items_out = !items_.Take(static_cast<double>(items), now);
  if (!items_out && bytes_.Take(static_cast<double>(bytes), now)) return absl::OkStatus();
  const absl::Duration open = now > opened_ ? now - opened_ : absl::ZeroDuration();
  const std::string sent =
      absl::StrCat(" (", messages_, " messages of ", items_charged_, " messages or events and ",
                   bytes_charged_, " bytes in ", absl::FormatDuration(open), ")");
  exceeded_ = absl::ResourceExhaustedError(
      items_out ? absl::StrCat("session budget: more than ", limits_.item_burst,
                               " messages or events at once, or ", limits_.items_per_second,
                               " a second", sent)
                : absl::StrCat("session budget: more than ", limits_.byte_burst,
                               " bytes at once, or ", limits_.bytes_per_second, " a second", sent));
  return exceeded_;
}

}  // namespace eb::coordinator
