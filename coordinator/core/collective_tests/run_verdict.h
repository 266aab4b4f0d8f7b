#pragma once

// The verdict of one test that is over (docs/DESIGN.md, "One test", step
// 5), in steps, each a small function over its report, which
// TestRun::Finalize runs in this order:
//   WriteFooters            nccl-tests' averages: the test's, each rail's,
//                           each collective's
//   StoreStraggler          the straggler by arrival, once for every view
//   (validation::JudgeRails the rails' verdicts)
//   RunChecks               kRunChecks, for a run that reached its end
//   OrderFailuresByCause    (run_failures.h) the likeliest cause first
//   Decide                  the state and the summary
//   AttachEvidence          what the agents' evidence says, in the summary
// Pure.

#include <string>

#include "absl/types/span.h"
#include "coordinator/core/collective_tests/run_results.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The averages of nccl-tests' footer (every size, both variants) for the
// test (avg_busbw_gbps, wrong_elements), for each rail, and for each
// collective in run order (collective_summaries).
void WriteFooters(ebnccl::v1::TestReport& report);

// The straggler (slowest_rank, by arrival: see "Straggler attribution")
// and the arrival summary: stored once, so that the table, the JSON and
// the history show the same straggler instead of each recomputing it.
void StoreStraggler(ebnccl::v1::TestReport& report);

// A check of a run that reached its end (nothing failed, not cancelled),
// after WriteFooters: it appends a Failure to `report` for each finding
// that fails the test although every size was measured. `ranks`: what each
// rank reported (RunResults::ranks()).
using RunCheck = void (*)(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

// WRONG_DATA for each rank whose data check found wrong elements, naming
// the collectives that found them when the test runs several.
void JudgeDataCheck(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);
// BELOW_MIN_BUSBW (rank -1) when the average busbw is below
// spec.min_busbw_gbps: nccl-tests checks each binary's own average, so
// with several collectives one for each collective below it; with one
// collective, only when the data was right (exactly nccl-tests' check).
void JudgeMinBusbw(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

// UNEXPECTED_PATH for each rank whose NCCL took another path than its node
// is configured for or than the test's majority (nccl_path_check.h).
void JudgeNcclPaths(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

// The checks, in order; a new finding is one more entry.
inline constexpr RunCheck kRunChecks[] = {&JudgeDataCheck, &JudgeMinBusbw, &JudgeNcclPaths};

// Runs every check of kRunChecks.
void RunChecks(absl::Span<const RankResults> ranks, ebnccl::v1::TestReport& report);

struct Verdict {
  ebnccl::v1::TestState state = ebnccl::v1::TEST_STATE_UNSPECIFIED;
  std::string summary;
};

// The verdict of a test that was not cancelled, from its failures (ordered
// by cause): FAILED, or TIMED_OUT when the first is a timeout, summarized
// by the first; PASSED with its footers when there are none.
Verdict Decide(const ebnccl::v1::TestReport& report);

// Completes the evidence (FinishEvidence, run_evidence.h) and appends what
// it says to `summary`.
void AttachEvidence(ebnccl::v1::TestReport& report, std::string& summary);

}  // namespace eb::coordinator
