#pragma once

// The results of one test as its ranks report them (docs/DESIGN.md, "One
// test", step 4, and "Per-rail results"): each SIZE_DONE checked against
// the step of the sweep the rank must report next, kept per rank, and
// aggregated into a row (AggregateSize) as soon as every rank reported a
// size, and into a rail's row as soon as every member of the rail did.
// Pure; owned by the TestRun, on its executor.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

// The collective of `row`: rows list it; those of a worker older than the
// field ran only the spec's.
ebnccl::v1::Collective CollectiveOfRow(const ebnccl::v1::TestReport& report,
                                       const ebnccl::v1::SizeResult& row);

// The schedules of a rank's report (RankTiming.schedule), untrusted input:
// INVALID_ARGUMENT naming the field ("out_of_place.schedule.stalled_us:
// nan is not a number from 0 to ...") for NaN, infinities, negatives,
// values over a week of microseconds, and stalled_us over wall_us. OK when
// a placement has no schedule (an older worker).
absl::Status CheckReportedSchedule(const ebnccl::v1::RankSizeResult& result);

// What one rank reported, in step order.
struct RankResults {
  // Its reports of the sweep's sizes, then of its rail's (split_rails).
  std::vector<ebnccl::v1::RankSizeResult> sizes;
  std::vector<ebnccl::v1::RankSizeResult> rail_sizes;
  // Wrong elements over every report, both variants.
  int64_t wrong_elements = 0;
  // A rank off the sweep, or failed, reports nothing more that counts.
  bool closed = false;
};

class RunResults {
 public:
  // Called with each row of the sweep once it is in report.results().
  using RowSink = std::function<void(const ebnccl::v1::SizeResult& row)>;

  // `sweep`: the test's steps (LayOutSweep over every rank). `report`
  // holds the spec and the rank map (contiguous per node, one count on each
  // of `node_count` nodes), and must outlive this. With split_rails this
  // lists every rail's members in report.rails() and lays the sweep's
  // sizes out over a rail's world (one rank per node) for the rail steps.
  RunResults(std::vector<PlannedSize> sweep, int node_count, ebnccl::v1::TestReport& report,
             RowSink on_row);

  const TestSweep& sweep() const { return sweep_; }
  // Every rank's reports, by rank.
  const std::vector<RankResults>& ranks() const { return ranks_; }
  bool closed(int rank) const { return ranks_[rank].closed; }
  // `rank` failed: its later reports are not counted.
  void Close(int rank) { ranks_[rank].closed = true; }
  // Steps `rank` reported: its sizes of the sweep, then of its rail's.
  int steps_done(int rank) const;

  // Counts `result`, the next report of `rank` (on `node`), and aggregates
  // every row it completes (those of the sweep also go to `on_row`). A
  // report that is not the rank's next step (another size, count or
  // collective: an eb-worker running another sweep, so mixed ebnccl
  // versions) is not counted and closes the rank: INTERNAL naming the
  // node and both steps. A size past the end of the sweep closes it too
  // (INTERNAL), and so does a bad schedule (CheckReportedSchedule:
  // INVALID_ARGUMENT). Call only for a rank that is not closed.
  absl::Status Add(int rank, const std::string& node, const ebnccl::v1::RankSizeResult& result);
  // OK when `rank` reported every step (it says it finished); INTERNAL
  // saying how many otherwise.
  absl::Status CheckComplete(int rank) const;

 private:
  // A report of the rank's rail sub-communicator (RankSizeResult.rail).
  absl::Status AddRail(int rank, const std::string& node, const ebnccl::v1::RankSizeResult& result);
  // Whether `result` is step `index` of the sweep.
  absl::Status CheckStep(size_t index, const std::string& node,
                         const ebnccl::v1::RankSizeResult& result) const;
  // Whether `result` is the rail step after `rank`'s reports.
  absl::Status CheckRailStep(int rank, const std::string& node,
                             const ebnccl::v1::RankSizeResult& result) const;
  // With split_rails: report.rails(), one per slot with its members.
  void ListRailMembers(int node_count);
  void EmitReadyRows();
  void EmitReadyRailRows();

  ebnccl::v1::TestReport& report_;
  TestSweep sweep_;
  RowSink on_row_;
  std::vector<RankResults> ranks_;
  // Each rank's node (0-based): the judged time's unit of trust.
  std::vector<int> node_of_rank_;
  // Per-event work is O(1) in the number of ranks (issue 15): ranks that
  // reported step i of the sweep; per rail, members that reported step i
  // of the rail sweep. A row is aggregated, once, when its count is full.
  std::vector<int> size_reports_;
  std::vector<std::vector<int>> rail_reports_;
  // Rows aggregated so far, of the sweep and per rail (index = rail).
  size_t rows_emitted_ = 0;
  std::vector<size_t> rail_rows_emitted_;
};

}  // namespace eb::coordinator
