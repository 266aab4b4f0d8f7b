#pragma once

// The coordinator's record of every validation (issue 11): its report
// (verdicts, rounds with the ids of the tests it ran), and each node's last
// verdict, so that `ebctl nodes` can mark a node that failed before as a
// repeat offender. Implementations: InMemoryValidationHistory (tests,
// `--history-path ''`) and SqliteValidationHistory (the `validations`
// table of the coordinator's history file). Called on the executor only.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The last verdict a finished validation gave a node.
struct NodeVerdictRecord {
  std::string node_name;
  ebnccl::v1::Verdict verdict = ebnccl::v1::VERDICT_UNSPECIFIED;
  std::string validation_id;
  int64_t time_unix_ms = 0;  // end of that validation
  // Finished validations that found the node degraded or failed.
  int bad_count = 0;
};

class ValidationHistory {
 public:
  virtual ~ValidationHistory() = default;

  // Inserts or replaces the report with the same validation_id; when the
  // report is terminal (and not INTERRUPTED: its verdicts are unfinished
  // business), also records each node's verdict, once per validation.
  // INVALID_ARGUMENT for an empty id.
  virtual absl::Status Save(const ebnccl::v1::ValidationReport& report) = 0;
  // NOT_FOUND for an unknown id; DATA_LOSS when the copy cannot be decoded.
  virtual absl::StatusOr<ebnccl::v1::ValidationReport> Get(const std::string& id) const = 0;
  // At most `limit` (every one when <= 0), newest first, without evidence.
  virtual absl::StatusOr<std::vector<ebnccl::v1::ValidationReport>> List(int limit) const = 0;
  // Every node's last verdict, sorted by node name.
  virtual absl::StatusOr<std::vector<NodeVerdictRecord>> LastVerdicts() const = 0;
};

// Marks every stored validation that is not terminal as INTERRUPTED (end
// time `now_ms`, summary "interrupted: <reason>; ..."), returning how many.
// Call once at coordinator start: those belonged to the previous process.
absl::StatusOr<int> MarkValidationsInterrupted(ValidationHistory& history,
                                               const std::string& reason, int64_t now_ms);

// Whether Save records the nodes' verdicts of a report in this state.
bool RecordsVerdicts(ebnccl::v1::ValidationState state);

// DONE, CANCELLED, TIMED_OUT, FAILED, INTERRUPTED.
bool IsTerminalValidationState(ebnccl::v1::ValidationState state);
// `report` without node evidence (what List returns).
ebnccl::v1::ValidationReport WithoutEvidence(const ebnccl::v1::ValidationReport& report);

// Sorts `reports` newest first (start time, then id, both descending) and
// keeps at most `limit` of them (0: all). One order for every listing, so
// that the running and the stored validations interleave the same way.
void SortNewestFirst(std::vector<ebnccl::v1::ValidationReport>& reports, int limit);

}  // namespace eb::coordinator
