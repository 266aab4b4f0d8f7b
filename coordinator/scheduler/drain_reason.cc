#include "coordinator/scheduler/drain_reason.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace eb::scheduler {

std::string DrainReason(absl::string_view prefix, absl::string_view validation_id,
                        absl::string_view evidence, bool repeat_offender) {
  return OneLine(absl::StrCat(prefix, " ", validation_id, ": ",
                              repeat_offender ? "repeat offender: " : "", evidence),
                 kMaxReasonBytes);
}

bool IsOurReason(absl::string_view reason, absl::string_view prefix) {
  if (prefix.empty() || !absl::StartsWith(reason, prefix)) return false;
  if (reason.size() == prefix.size()) return true;
  const char next = reason[prefix.size()];
  return next == ' ' || next == ':';
}

}  // namespace eb::scheduler
