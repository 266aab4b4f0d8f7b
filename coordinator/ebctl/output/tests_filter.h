#pragma once

// `ebctl tests --node N --state S --since T`: which listed tests to show.
// The coordinator's ListTests has no filter, so ebctl asks for the newest
// tests (up to spec::kMaxListedTests) and keeps the matching ones here.
// Pure (the caller passes "now"); callable from any thread.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

struct TestsFilter {
  // Tests that ran on one of these nodes (any, when empty).
  std::vector<std::string> nodes;
  // Tests in one of these states, as StateName() spells them (any, when
  // empty).
  std::vector<std::string> states;
  // Tests that started at or after this time.
  std::optional<absl::Time> since;

  bool empty() const { return nodes.empty() && states.empty() && !since.has_value(); }
};

// Builds a filter from the flags' text. `nodes` and `states` are
// comma-separated lists ("" = no filter); a state is one of "launching",
// "initializing", "running", "stopping", "passed", "failed", "timed_out",
// "cancelled", "interrupted". `since` is "" (no filter), a duration back
// from `now` ("30m", "2h", "7d"; a bare number is seconds) or an RFC 3339
// time ("2026-11-29T15:45:01Z"). INVALID_ARGUMENT names the flag (--node,
// --state, --since) and the value.
absl::StatusOr<TestsFilter> ParseTestsFilter(absl::string_view nodes, absl::string_view states,
                                             absl::string_view since, absl::Time now);

// True when `report` passes every part of `filter`.
bool MatchesTestsFilter(const ebnccl::v1::TestReport& report, const TestsFilter& filter);

// The reply's tests that pass `filter`, in the reply's order, at most
// `limit` of them (0 = no limit).
ebnccl::v1::ListTestsReply FilterTests(const ebnccl::v1::ListTestsReply& reply,
                                       const TestsFilter& filter, int limit);

}  // namespace eb::ebctl
