#pragma once

// The daemons' numeric flags through the one parser of their kind
// (common/spec/numbers.h): *-ms flags take a whole or fractional number of
// milliseconds, or a duration with its unit ("1500", "1.5s"), within a
// range of the shared table; counts a whole number within their range.
// CLI11's own int64 conversion clamped "99999999999999999999" to INT64_MAX
// and described "-5" as "not in range 0.000000 to 1797693..." (P2-2.8);
// these refuse both with the flag, the value and the range.

#include <cstdint>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "common/spec/numbers.h"

namespace eb::common {

// A CLI11 transform for an int64 *-ms option: checks the text and rewrites
// it as whole milliseconds, which CLI11 then stores.
inline CLI::Validator DurationMsFlag(const spec::DurationRange& range) {
  return CLI::Validator(
      [range](std::string& text) -> std::string {
        absl::StatusOr<absl::Duration> value =
            spec::ParseDuration(text, "", range, spec::BareUnit::kMilliseconds);
        if (!value.ok()) return std::string(value.status().message());
        text = std::to_string(absl::ToInt64Milliseconds(*value));
        return "";
      },
      absl::StrCat("MS in [", spec::FormatDurationShort(range.min), ", ",
                   spec::FormatDurationShort(range.max), "]"));
}

// A CLI11 check for an integer option: a whole number in [min, max]
// (spec::ParseCount: no fraction, exponent or overflow).
inline CLI::Validator CountFlag(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        absl::StatusOr<int64_t> value = spec::ParseCount(text, "", min, max);
        return value.ok() ? "" : std::string(value.status().message());
      },
      absl::StrCat("in [", min, ", ", max, "]"));
}

}  // namespace eb::common
