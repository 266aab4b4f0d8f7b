#pragma once

// The progress of `ebctl validate` and `show v-... --follow` on stderr
// (--progress, output/progress_style.h):
//  - on a terminal: each round and test as it comes, with the elapsed time
//    and an estimate of when the round ends (from the earlier rounds of its
//    kind: a round's tests run together, and the validation is adaptive, so
//    there is no honest estimate of the whole);
//  - elsewhere (a file, journald, a pipe): plain lines, each with its UTC
//    time: round k started and ended, tests done of those planned so far,
//    elapsed.
// Pure apart from the clock, which is an interface so that tests advance a
// fake one; not thread-safe (one stream reader).

#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/time/clock.h"
#include "coordinator/ebctl/output/progress_style.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// "45s", "1m05s", "2h03m".
std::string FormatElapsed(absl::Duration elapsed);

class ValidationProgress {
 public:
  ValidationProgress(ProgressStyle style, const common::Clock& clock)
      : style_(style), clock_(clock) {}

  // The lines one event of the stream adds (each ending in '\n'); "" for
  // none, always with kNone.
  std::string OnEvent(const ebnccl::v1::ValidationEvent& event);

 private:
  struct Round {
    int number = 0;
    ebnccl::v1::TestKind kind = ebnccl::v1::TEST_KIND_UNSPECIFIED;
    int tests = 0;
    int done = 0;
    int not_completed = 0;
    absl::Time start;
  };

  std::string Line(absl::string_view text) const { return ProgressLine(style_, clock_, text); }
  std::string Elapsed() const;
  // The current round's end, with its lines; "" when none is open.
  std::string EndRound();
  // "; round ends in ~40s" from earlier rounds of the kind; "" without.
  std::string Estimate() const;

  ProgressStyle style_;
  const common::Clock& clock_;
  std::optional<absl::Time> start_;
  std::optional<Round> round_;
  int tests_planned_ = 0;
  int tests_done_ = 0;
  // Total and count of ended rounds' durations, by kind.
  std::map<int, std::pair<absl::Duration, int>> ended_;
};

}  // namespace eb::ebctl
