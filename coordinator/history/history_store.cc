#include "coordinator/history/history_store.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/spec/wire_names.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

absl::Status TestHistory::SaveAll(const std::vector<v1::TestReport>& reports) {
  absl::Status first;
  for (const v1::TestReport& report : reports) first.Update(Save(report));
  return first;
}

bool ListedBefore(const v1::TestReport& a, const v1::TestReport& b) {
  if (a.start_time_unix_ms() != b.start_time_unix_ms()) {
    return a.start_time_unix_ms() > b.start_time_unix_ms();
  }
  return a.test_id() > b.test_id();
}

bool IsTerminalState(v1::TestState state) {
  switch (state) {
    case v1::TEST_STATE_PASSED:
    case v1::TEST_STATE_FAILED:
    case v1::TEST_STATE_TIMED_OUT:
    case v1::TEST_STATE_CANCELLED:
    case v1::TEST_STATE_INTERRUPTED:
      return true;
    default:
      return false;
  }
}

std::string StateColumnName(v1::TestState state) { return spec::WireName(state); }

v1::TestReport WithoutResults(const v1::TestReport& report) {
  v1::TestReport brief = report;
  brief.clear_results();
  // The rails' rows too; their members and averages stay.
  for (v1::RailResult& rail : *brief.mutable_rails()) rail.clear_results();
  return brief;
}

bool MarkReportInterrupted(v1::TestReport& report, const std::string& reason, int64_t now_ms) {
  if (IsTerminalState(report.state())) return false;
  report.set_state(v1::TEST_STATE_INTERRUPTED);
  if (report.end_time_unix_ms() == 0) report.set_end_time_unix_ms(now_ms);
  // The interruption decides the state, so it leads (the first failure is
  // the primary cause); failures seen before it stay as evidence.
  v1::Failure failure;
  failure.set_kind(v1::FAILURE_KIND_INTERRUPTED);
  failure.set_rank(-1);
  failure.set_local_rank(-1);
  failure.set_device_index(-1);
  failure.set_message(reason);
  report.mutable_failures()->Add(std::move(failure));
  for (int i = report.failures_size() - 1; i > 0; --i) {
    report.mutable_failures()->SwapElements(i, i - 1);
  }
  report.set_summary(absl::StrCat("interrupted: ", reason));
  return true;
}

}  // namespace eb::coordinator
