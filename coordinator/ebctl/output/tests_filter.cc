#include "coordinator/ebctl/output/tests_filter.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "coordinator/ebctl/output/labels.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

// The states a test can be in, as StateName() prints them.
const std::vector<std::string>& KnownStates() {
  static const auto* states =
      new std::vector<std::string>{"launching", "initializing", "running",   "stopping",   "passed",
                                   "failed",    "timed_out",    "cancelled", "interrupted"};
  return *states;
}

std::vector<std::string> SplitList(absl::string_view text) {
  std::vector<std::string> items;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    items.emplace_back(absl::StripAsciiWhitespace(item));
  }
  return items;
}

absl::StatusOr<absl::Time> ParseSince(absl::string_view text, absl::Time now) {
  const std::string value(absl::StripAsciiWhitespace(text));
  double seconds = 0;
  absl::Duration back;
  if (absl::SimpleAtod(value, &seconds) && seconds >= 0) {
    return now - absl::Seconds(seconds);
  }
  if (absl::ParseDuration(value, &back) && back >= absl::ZeroDuration()) return now - back;
  // Days, which Abseil's durations do not spell: "7d".
  absl::string_view days = value;
  if (absl::ConsumeSuffix(&days, "d") && absl::SimpleAtod(days, &seconds) && seconds >= 0) {
    return now - absl::Hours(24 * seconds);
  }
  absl::Time time;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, value, &time, &error)) return time;
  return absl::InvalidArgumentError(
      absl::StrCat("--since: '", value,
                   "' is neither a duration back from now (30m, 2h, 7d) nor an RFC 3339 time "
                   "(2026-11-29T15:45:01Z)"));
}

}  // namespace

absl::StatusOr<TestsFilter> ParseTestsFilter(absl::string_view nodes, absl::string_view states,
                                             absl::string_view since, absl::Time now) {
  TestsFilter filter;
  filter.nodes = SplitList(nodes);
  for (std::string& state : SplitList(states)) {
    if (std::find(KnownStates().begin(), KnownStates().end(), state) == KnownStates().end()) {
      return absl::InvalidArgumentError(absl::StrCat("--state: '", state, "' is not one of ",
                                                     absl::StrJoin(KnownStates(), ", ")));
    }
    filter.states.push_back(std::move(state));
  }
  if (!absl::StripAsciiWhitespace(since).empty()) {
    absl::StatusOr<absl::Time> time = ParseSince(since, now);
    if (!time.ok()) return time.status();
    filter.since = *time;
  }
  return filter;
}

bool MatchesTestsFilter(const v1::TestReport& report, const TestsFilter& filter) {
  if (!filter.states.empty() && std::find(filter.states.begin(), filter.states.end(),
                                          StateName(report.state())) == filter.states.end()) {
    return false;
  }
  if (filter.since.has_value() &&
      absl::FromUnixMillis(report.start_time_unix_ms()) < *filter.since) {
    return false;
  }
  if (!filter.nodes.empty()) {
    const std::vector<std::string> on = TestNodeNames(report);
    const bool any = std::any_of(filter.nodes.begin(), filter.nodes.end(), [&](const auto& node) {
      return std::find(on.begin(), on.end(), node) != on.end();
    });
    if (!any) return false;
  }
  return true;
}

v1::ListTestsReply FilterTests(const v1::ListTestsReply& reply, const TestsFilter& filter,
                               int limit) {
  v1::ListTestsReply kept;
  for (const v1::TestReport& report : reply.tests()) {
    if (limit > 0 && kept.tests_size() >= limit) break;
    if (MatchesTestsFilter(report, filter)) *kept.add_tests() = report;
  }
  return kept;
}

}  // namespace eb::ebctl
