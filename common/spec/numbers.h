#pragma once

// One parser per kind of number that crosses a boundary (a flag, a TOML
// key, a field of a message): durations, counts and shares (sizes are
// byte_size.h). Each refuses NaN, infinities, overflow, negatives, values
// too small to mean anything and values too large to be sane, with a
// message naming the flag or field, the value as given and the accepted
// range:
//   "--step-timeout: '99999999999h' is too large; accepted: 1ms to 168h"
// The ranges are one table (kTimeoutRange and the others below), shared by
// ebctl, the coordinator and the agent, so that what one accepts the others
// accept too (P2-2.7: ebctl and the coordinator took phase timeouts that
// every agent then refused, blaming a node). Pure.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/spec/limits.h"

namespace eb::spec {

// An accepted range of durations, both ends included.
struct DurationRange {
  absl::Duration min;
  absl::Duration max;
};

// ---------------------------------------------------------------------------
// The table of limits (docs/SECURITY.md, "Limits").

// A test's or a validation's deadlines: the whole test, launch, init, one
// step; also a worker's own deadlines (the agent's launch check). Below a
// millisecond nothing can happen; above a week is a typo.
inline constexpr DurationRange kTimeoutRange{absl::Milliseconds(1),
                                             absl::Milliseconds(kMaxTimeoutMs)};
// Periods and waits of the daemons' own (reconnect back-off, worker grace
// and hang timeout, stop timeout): the same bounds as deadlines.
inline constexpr DurationRange kDaemonDurationRange = kTimeoutRange;
// Heartbeat periods the coordinator asks of agents.
inline constexpr DurationRange kHeartbeatPeriodRange{absl::Milliseconds(kMinHeartbeatPeriodMs),
                                                     absl::Milliseconds(kMaxHeartbeatPeriodMs)};
// How often TLS files are re-read.
inline constexpr DurationRange kTlsReloadRange{absl::Seconds(1), absl::Hours(24)};

// ---------------------------------------------------------------------------
// Durations.

// What a number without a unit means.
enum class BareUnit { kSeconds, kMilliseconds, kNone };

// `text` as a duration within `range`: "90s", "500ms", "1h30m", "1.5s"
// (Abseil's forms), or a bare number in `bare` units ("90" = 90 s for
// ebctl's --timeout, 90 ms for the daemons' *-ms flags; kNone refuses it).
// INVALID_ARGUMENT "<field>: '<text>' is <why>; accepted: <min> to <max>"
// where why is "not a duration (e.g. 90s, 500ms, 2m)", "not a finite
// number", "negative", "too small" or "too large" (overflow included).
absl::StatusOr<absl::Duration> ParseDuration(absl::string_view text, absl::string_view field,
                                             const DurationRange& range,
                                             BareUnit bare = BareUnit::kSeconds);

// `value` within `range`; the same message, the value written as a duration.
absl::Status CheckDuration(absl::Duration value, absl::string_view field,
                           const DurationRange& range);
// A duration in milliseconds as a message carries it ("step_timeout_ms").
absl::Status CheckDurationMs(int64_t value_ms, absl::string_view field, const DurationRange& range);

// "1ms", "2m30s", "168h": how the messages above write a duration.
std::string FormatDurationShort(absl::Duration value);

// ---------------------------------------------------------------------------
// Counts and shares.

// `text` as a whole number in [min, max] (decimal, optional sign; no
// fraction, no exponent). INVALID_ARGUMENT "<field>: '<text>' is not a
// whole number from <min> to <max>" (overflow included).
absl::StatusOr<int64_t> ParseCount(absl::string_view text, absl::string_view field, int64_t min,
                                   int64_t max);

// `text` as a finite number in [min, max] (a percentage, a fraction, a
// rate). INVALID_ARGUMENT "<field>: '<text>' is not a number from <min> to
// <max>" for NaN, infinities and anything out of range.
absl::StatusOr<double> ParseShare(absl::string_view text, absl::string_view field, double min,
                                  double max);
// A share a message or a file carries, checked the same way.
absl::Status CheckShare(double value, absl::string_view field, double min, double max);

}  // namespace eb::spec
