#pragma once

// Durations on ebctl's command line (--timeout and the phase deadlines).
// Pure; callable from any thread.

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::ebctl {

// Parses `text` as a positive duration in milliseconds: a bare number is
// seconds ("90", "1.5"), anything else an Abseil duration ("90s", "500ms",
// "2m", "1h30m"). "" is 0, which leaves the coordinator's default.
// INVALID_ARGUMENT whose message starts with `flag`: "--timeout: must be
// > 0", "--timeout: 'soon' is not a positive duration (e.g. 90, 90s, 500ms,
// 2m)".
absl::StatusOr<int64_t> ParseTimeoutMs(absl::string_view text, absl::string_view flag);

}  // namespace eb::ebctl
