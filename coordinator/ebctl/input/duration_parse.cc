#include "coordinator/ebctl/input/duration_parse.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace eb::ebctl {

absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view text, absl::string_view flag) {
  if (text.empty()) return 0;
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds)) {
    if (seconds <= 0) return absl::InvalidArgumentError(absl::StrCat(flag, ": must be > 0"));
    return static_cast<int64_t>(seconds * 1000);
  }
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration) || duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", text, "' is not a positive duration (e.g. 90, 90s, 500ms, 2m)"));
  }
  return absl::ToInt64Milliseconds(duration);
}

}  // namespace eb::ebctl
