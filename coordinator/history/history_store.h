#pragma once

// The coordinator's record of every test: spec, rank map, per-size results,
// verdict and failures (a TestReport each), kept across coordinator
// restarts. Two implementations: InMemoryTestHistory (tests, and
// `--history-path ''`) and SqliteTestHistory (production, one file under
// /var/lib/ebnccl).
//
// Threading: implementations are thread-safe (one mutex each), but the
// coordinator calls them only from its executor thread (STYLE.md rule 11),
// synchronously: a Save of a large report (1000 ranks x 30 sizes, ~1 MB)
// costs a few milliseconds of that thread.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

class TestHistory {
 public:
  virtual ~TestHistory() = default;

  // Inserts `report`, or replaces the stored report with the same test_id.
  // Called when a test starts (state LAUNCHING) and when it finishes.
  // INVALID_ARGUMENT for an empty test_id; a storage error otherwise (see
  // SqliteTestHistory). With a retention limit, the oldest finished tests
  // beyond it are dropped.
  virtual absl::Status Save(const ebnccl::v1::TestReport& report) = 0;

  // Save of each report, in order; implementations may do it in one step
  // (SQLite: one transaction). The first error is returned; by default the
  // later reports are still tried.
  virtual absl::Status SaveAll(const std::vector<ebnccl::v1::TestReport>& reports);

  // The full stored report. NOT_FOUND for an unknown test_id. A stored copy
  // that cannot be decoded is returned from the row's columns (id, times,
  // state, summary ending "[stored report unreadable]"), not as an error:
  // one broken row must not hide the others (issue 32, item 2). Free text
  // comes back bounded and valid UTF-8 (common/spec/bounded_text.h).
  virtual absl::StatusOr<ebnccl::v1::TestReport> Get(const std::string& test_id) const = 0;

  // At most `limit` reports (every one when limit <= 0), newest first: by
  // start_time_unix_ms descending, then by test_id descending. Per-size
  // results are cleared to keep the answer small.
  virtual absl::StatusOr<std::vector<ebnccl::v1::TestReport>> List(int limit) const = 0;

  // Marks every stored report whose state is not terminal as INTERRUPTED
  // (see MarkReportInterrupted) and returns how many changed. Call once at
  // coordinator start, before any test starts: whatever was running then
  // belonged to the previous process.
  virtual absl::StatusOr<int> MarkInterrupted(const std::string& reason, int64_t now_ms) = 0;
};

// The order of every listing of tests (TestHistory::List, `ebctl tests`):
// newest start first, then test_id descending.
bool ListedBefore(const ebnccl::v1::TestReport& a, const ebnccl::v1::TestReport& b);

// PASSED, FAILED, TIMED_OUT, CANCELLED and INTERRUPTED: the test is over.
bool IsTerminalState(ebnccl::v1::TestState state);

// The state as stored in the `state` column and in logs: the enum name
// without its prefix, lower case ("running", "timed_out"), or
// "unknown(<n>)".
std::string StateColumnName(ebnccl::v1::TestState state);

// `report` without its per-size results, the rails' included (what List returns).
ebnccl::v1::TestReport WithoutResults(const ebnccl::v1::TestReport& report);

// Turns a non-terminal report into an INTERRUPTED one: state INTERRUPTED,
// end time `now_ms` (unless the report already has one), a leading failure
// of kind INTERRUPTED (rank, local rank and device -1) carrying `reason`, and
// the summary "interrupted: <reason>". Results and earlier failures are
// kept. A terminal report is left as it is; returns whether it changed.
bool MarkReportInterrupted(ebnccl::v1::TestReport& report, const std::string& reason,
                           int64_t now_ms);

}  // namespace eb::coordinator
