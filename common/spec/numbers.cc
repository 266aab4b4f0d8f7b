#include "common/spec/numbers.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/spec/identifiers.h"

namespace eb::spec {
namespace {

absl::Status DurationError(absl::string_view field, absl::string_view shown, absl::string_view why,
                           const DurationRange& range) {
  return absl::InvalidArgumentError(absl::StrCat(
      field.empty() ? "" : absl::StrCat(field, ": "), shown, " is ", why,
      "; accepted: ", FormatDurationShort(range.min), " to ", FormatDurationShort(range.max)));
}

bool TypedInfinity(absl::string_view text) {
  return absl::StrContains(absl::AsciiStrToLower(text), "inf");
}

// `seconds` (finite or not, from a bare number) as a Duration within range.
absl::StatusOr<absl::Duration> FromNumber(double number, double unit_seconds,
                                          absl::string_view field, absl::string_view shown,
                                          const DurationRange& range) {
  if (std::isnan(number)) return DurationError(field, shown, "not a finite number", range);
  if (std::isinf(number)) {
    // "inf" typed, or a literal too large for a double ("1e400").
    return DurationError(field, shown, TypedInfinity(shown) ? "not a finite number" : "too large",
                         range);
  }
  if (number < 0) return DurationError(field, shown, "negative", range);
  // Compared as doubles first: the product may not fit a Duration.
  const double seconds = number * unit_seconds;
  if (seconds > absl::ToDoubleSeconds(range.max)) {
    return DurationError(field, shown, "too large", range);
  }
  const absl::Duration value = absl::Seconds(seconds);
  if (value < range.min) return DurationError(field, shown, "too small", range);
  return value;
}

}  // namespace

std::string FormatDurationShort(absl::Duration value) { return absl::FormatDuration(value); }

absl::StatusOr<absl::Duration> ParseDuration(absl::string_view text, absl::string_view field,
                                             const DurationRange& range, BareUnit bare) {
  const std::string shown = Quote(text);
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  double number = 0;
  if (absl::SimpleAtod(trimmed, &number)) {
    switch (bare) {
      case BareUnit::kSeconds:
        return FromNumber(number, 1.0, field, shown, range);
      case BareUnit::kMilliseconds:
        return FromNumber(number, 1e-3, field, shown, range);
      case BareUnit::kNone:
        if (number == 0) return FromNumber(0, 1.0, field, shown, range);
        return DurationError(field, shown, "a number without a unit (e.g. 90s, 500ms)", range);
    }
  }
  absl::Duration value;
  // Abseil accepts "inf" and saturates on overflow to an infinite duration.
  if (!absl::ParseDuration(std::string(trimmed), &value)) {
    // Abseil refuses a number past int64 ("9999999999999999999h"): far
    // beyond any range here, so it is too large rather than no duration.
    const size_t digits = trimmed.find_first_not_of("0123456789.");
    double leading = 0;
    if (digits != 0 && digits != absl::string_view::npos &&
        absl::SimpleAtod(trimmed.substr(0, digits), &leading) && leading > 9e18) {
      return DurationError(field, shown, "too large", range);
    }
    return DurationError(field, shown, "not a duration (e.g. 90s, 500ms, 2m)", range);
  }
  if (value == absl::InfiniteDuration() || value == -absl::InfiniteDuration()) {
    return DurationError(field, shown, TypedInfinity(trimmed) ? "not a finite number" : "too large",
                         range);
  }
  if (value < absl::ZeroDuration()) return DurationError(field, shown, "negative", range);
  if (value < range.min) return DurationError(field, shown, "too small", range);
  if (value > range.max) return DurationError(field, shown, "too large", range);
  return value;
}

absl::Status CheckDuration(absl::Duration value, absl::string_view field,
                           const DurationRange& range) {
  const std::string shown = FormatDurationShort(value);
  if (value == absl::InfiniteDuration() || value == -absl::InfiniteDuration()) {
    return DurationError(field, shown, "not finite", range);
  }
  if (value < absl::ZeroDuration()) return DurationError(field, shown, "negative", range);
  if (value < range.min) return DurationError(field, shown, "too small", range);
  if (value > range.max) return DurationError(field, shown, "too large", range);
  return absl::OkStatus();
}

absl::Status CheckDurationMs(int64_t value_ms, absl::string_view field,
                             const DurationRange& range) {
  const std::string shown = absl::StrCat(value_ms, " ms");
  if (value_ms < 0) return DurationError(field, shown, "negative", range);
  // Compared in milliseconds: no conversion that could overflow.
  if (value_ms < absl::ToInt64Milliseconds(range.min)) {
    return DurationError(field, shown, "too small", range);
  }
  if (value_ms > absl::ToInt64Milliseconds(range.max)) {
    return DurationError(field, shown, "too large", range);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseCount(absl::string_view text, absl::string_view field, int64_t min,
                                   int64_t max) {
  int64_t value = 0;
  // SimpleAtoi fails on overflow instead of clamping, and refuses
  // fractions, exponents and words.
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value) || value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat(field.empty() ? "" : absl::StrCat(field, ": "),
                                                   Quote(text), " is not a whole number from ", min,
                                                   " to ", max));
  }
  return value;
}

absl::StatusOr<double> ParseShare(absl::string_view text, absl::string_view field, double min,
                                  double max) {
  double value = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), &value) || !std::isfinite(value) ||
      value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat(field.empty() ? "" : absl::StrCat(field, ": "),
                                                   Quote(text), " is not a number from ", min,
                                                   " to ", max));
  }
  return value;
}

absl::Status CheckShare(double value, absl::string_view field, double min, double max) {
  if (!std::isfinite(value) || value < min || value > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", value, " is not a number from ", min, " to ", max));
  }
  return absl::OkStatus();
}

}  // namespace eb::spec
