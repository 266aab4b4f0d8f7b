#include "coordinator/ebctl/output/validation_progress.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/counted.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/printable.h"
#include "coordinator/ebctl/output/validation_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

std::string FormatElapsed(absl::Duration elapsed) {
  const int64_t seconds =
      absl::ToInt64Seconds(elapsed < absl::ZeroDuration() ? absl::ZeroDuration() : elapsed);
  if (seconds < 60) return absl::StrFormat("%ds", seconds);
  if (seconds < 3600) return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
  return absl::StrFormat("%dh%02dm", seconds / 3600, seconds / 60 % 60);
}

std::string ValidationProgress::Elapsed() const {
  return absl::StrCat("elapsed ",
                      FormatElapsed(start_ ? clock_.Now() - *start_ : absl::ZeroDuration()));
}

std::string ValidationProgress::Estimate() const {
  if (!round_) return "";
  auto it = ended_.find(round_->kind);
  if (it == ended_.end()) return "";
  const absl::Duration typical = it->second.first / it->second.second;
  const absl::Duration left = typical - (clock_.Now() - round_->start);
  if (left <= absl::ZeroDuration()) return "; the round is taking longer than the earlier ones";
  return absl::StrCat("; round ends in ~", FormatElapsed(left));
}

std::string ValidationProgress::EndRound() {
  if (!round_) return "";
  const absl::Duration took = clock_.Now() - round_->start;
  auto& [total, count] = ended_[round_->kind];
  total += took;
  ++count;
  std::string text = absl::StrCat("round ", round_->number, " ended after ", FormatElapsed(took),
                                  ": ", spec::Counted(round_->done, "test"), " done");
  if (round_->done < round_->tests) absl::StrAppend(&text, " of ", round_->tests);
  if (round_->not_completed > 0) {
    absl::StrAppend(&text, ", ", round_->not_completed, " not completed");
  }
  absl::StrAppend(&text, "; ", Elapsed());
  round_.reset();
  return Line(text);
}

std::string ValidationProgress::OnEvent(const v1::ValidationEvent& raw) {
  const v1::ValidationEvent event = PrintableCopy(raw);
  if (style_ == ProgressStyle::kNone) return "";
  std::string out;
  switch (event.event_case()) {
    case v1::ValidationEvent::kAccepted: {
      const v1::ValidationReport& r = event.accepted();
      // `show --follow` may join late: elapsed counts from the start.
      start_ =
          r.start_time_unix_ms() > 0 ? absl::FromUnixMillis(r.start_time_unix_ms()) : clock_.Now();
      // Nodes are known once judged, else as named (none: every idle one).
      const int nodes = r.nodes_size() > 0 ? r.nodes_size() : r.spec().node_names_size();
      out = Line(absl::StrCat("validation ", r.validation_id(),
                              nodes > 0 ? absl::StrCat(" over ", spec::Counted(nodes, "node")) : "",
                              "; ", Elapsed()));
      break;
    }
    case v1::ValidationEvent::kRoundStarted: {
      out = EndRound();  // a round whose tests did not all report
      const v1::ValidationRound& r = event.round_started();
      if (!start_) start_ = clock_.Now();
      round_ = Round{r.number(), r.kind(), r.tests_size(), 0, 0, clock_.Now()};
      tests_planned_ += r.tests_size();
      std::string text = RoundLine(r);
      if (style_ == ProgressStyle::kLog) {
        text = absl::StrCat("round ", r.number(), " started", text.substr(text.find(' ', 6)));
      }
      absl::StrAppend(&text, "; ", Elapsed(), style_ == ProgressStyle::kTerminal ? Estimate() : "");
      absl::StrAppend(&out, Line(text));
      if (r.tests_size() == 0) absl::StrAppend(&out, EndRound());
      break;
    }
    case v1::ValidationEvent::kTestFinished: {
      const v1::ValidationTest& t = event.test_finished();
      ++tests_done_;
      std::string text = TestLine(t);
      if (round_) {
        ++round_->done;
        if (t.outcome() != v1::OUTCOME_COMPLETED) ++round_->not_completed;
        absl::StrAppend(&text, "; round ", round_->number, ": ", round_->done, " of ",
                        spec::Counted(round_->tests, "test"));
      }
      absl::StrAppend(&text, "; ", tests_done_, " of ", spec::Counted(tests_planned_, "test"),
                      " planned so far; ", Elapsed(),
                      style_ == ProgressStyle::kTerminal ? Estimate() : "");
      out = Line(text);
      if (round_ && round_->done >= round_->tests) absl::StrAppend(&out, EndRound());
      break;
    }
    case v1::ValidationEvent::kFinished: {
      out = EndRound();
      const v1::ValidationReport& r = event.finished();
      absl::StrAppend(
          &out,
          Line(absl::StrCat("validation ", r.validation_id(), " ", ValidationStateName(r.state()),
                            " after ", spec::Counted(r.rounds_size(), "round"), "; ", Elapsed())));
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace eb::ebctl
