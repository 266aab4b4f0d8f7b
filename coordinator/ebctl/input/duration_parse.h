#pragma once

// Durations on ebctl's command line (--timeout and the phase deadlines).
// Pure; callable from any thread.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::ebctl {

// Parses `text` as a duration in milliseconds within spec::kTimeoutRange
// (1ms to a week: what every agent accepts): a bare number is seconds
// ("90", "1.5"), anything else an Abseil duration ("90s", "500ms", "2m",
// "1h30m"). "" is 0, which leaves the coordinator's default.
// INVALID_ARGUMENT from spec::ParseDuration, naming `flag`, the value and
// the range: "--timeout: 'nan' is not a finite number; accepted: 1ms to
// 168h".
absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view text, absl::string_view flag);

}  // namespace eb::ebctl
