#include "coordinator/ebctl/input/duration_parse.h"

#include "common/spec/numbers.h"

namespace eb::ebctl {

absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view text, absl::string_view flag) {
  if (text.empty()) return 0;
  // The range every agent accepts (P2-2.7), through the one duration parser.
  absl::StatusOr<absl::Duration> value =
      spec::ParseDuration(text, flag, spec::kTimeoutRange, spec::BareUnit::kSeconds);
  if (!value.ok()) return value.status();
  return absl::ToInt64Milliseconds(*value);
}

}  // namespace eb::ebctl
