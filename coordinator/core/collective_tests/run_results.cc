#include "coordinator/core/collective_tests/run_results.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/spec/limits.h"
#include "common/spec/names.h"
#include "common/spec/numbers.h"
#include "common/status/status_macros.h"
#include "coordinator/core/collective_tests/gpu_throttle_check.h"
#include "coordinator/core/collective_tests/result_aggregator.h"
#include "coordinator/core/collective_tests/run_evidence.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

v1::Collective CollectiveOfRow(const v1::TestReport& report, const v1::SizeResult& row) {
  return row.collective() != v1::COLLECTIVE_UNSPECIFIED ? row.collective()
                                                        : report.spec().collective();
}

namespace {

int64_t WrongElementsOf(const v1::RankSizeResult& result) {
  return result.out_of_place().wrong_elements() + result.in_place().wrong_elements();
}

// The schedule of one placement (`field`: "out_of_place.schedule").
absl::Status CheckSchedule(const v1::RankTiming& timing, absl::string_view field) {
  if (!timing.has_schedule()) return absl::OkStatus();
  const v1::RankSchedule& schedule = timing.schedule();
  EB_RETURN_IF_ERROR(spec::CheckShare(schedule.wall_us(), absl::StrCat(field, ".wall_us"), 0,
                                      spec::kMaxReportedBatchUs));
  // Stalled time is part of the window; more is a lie that would name this
  // rank, so it is refused, not clamped.
  EB_RETURN_IF_ERROR(spec::CheckShare(schedule.stalled_us(), absl::StrCat(field, ".stalled_us"), 0,
                                      schedule.wall_us()));
  EB_RETURN_IF_ERROR(spec::CheckShare(schedule.cpu_us(), absl::StrCat(field, ".cpu_us"), 0,
                                      spec::kMaxReportedBatchUs));
  EB_RETURN_IF_ERROR(spec::CheckShare(static_cast<double>(schedule.involuntary_switches()),
                                      absl::StrCat(field, ".involuntary_switches"), 0,
                                      spec::kMaxReportedBatchUs));
  EB_RETURN_IF_ERROR(spec::CheckShare(schedule.run_delay_us(), absl::StrCat(field, ".run_delay_us"),
                                      0, spec::kMaxReportedBatchUs));
  // As stalled time: more than the window would name this rank.
  return spec::CheckShare(schedule.throttled_us(), absl::StrCat(field, ".throttled_us"), 0,
                          schedule.wall_us());
}

}  // namespace

absl::Status CheckReportedSchedule(const v1::RankSizeResult& result) {
  EB_RETURN_IF_ERROR(CheckSchedule(result.out_of_place(), "out_of_place.schedule"));
  return CheckSchedule(result.in_place(), "in_place.schedule");
}

RunResults::RunResults(std::vector<PlannedSize> sweep, int node_count, v1::TestReport& report,
                       RowSink on_row)
    : report_(report),
      sweep_{std::move(sweep), {}},
      on_row_(std::move(on_row)),
      ranks_(static_cast<size_t>(report.ranks_size())),
      size_reports_(sweep_.steps.size(), 0) {
  // Ranks are contiguous per node with one count on every node.
  const int per_node = node_count > 0 ? std::max(1, report.ranks_size() / node_count) : 1;
  for (int rank = 0; rank < report.ranks_size(); ++rank) node_of_rank_.push_back(rank / per_node);
  if (report_.spec().split_rails() && node_count > 0) {
    // The full sweep over more ranks was laid out already, so laying its
    // sizes out over fewer cannot fail; an empty rail sweep would fail the
    // test as soon as a rank reports a rail size.
    sweep_.rail_steps = LayOutSweep(report_.spec(), SweepBytes(sweep_.steps), node_count)
                            .value_or(std::vector<PlannedSize>{});
    ListRailMembers(node_count);
  }
}

void RunResults::ListRailMembers(int node_count) {
  // Ranks are contiguous per node with one count on every node (the
  // placement), so rail r is slot r of every node.
  const int per_node = report_.ranks_size() / node_count;
  rail_rows_emitted_.assign(static_cast<size_t>(per_node), 0);
  rail_reports_.assign(static_cast<size_t>(per_node),
                       std::vector<int>(sweep_.rail_steps.size(), 0));
  for (int rail = 0; rail < per_node; ++rail) {
    v1::RailResult& result = *report_.add_rails();
    result.set_rail(rail);
    for (const v1::RankAssignment& a : report_.ranks()) {
      if (a.local_rank() != rail) continue;
      v1::RailMember& member = *result.add_members();
      member.set_rank(a.rank());
      member.set_node_name(a.node_name());
      member.set_device_index(a.device_index());
      member.set_gpu_pci_bus_id(a.gpu_pci_bus_id());
      if (a.node_index() >= 0 && a.node_index() < report_.node_inventories_size()) {
        member.set_hca(NearestHca(report_.node_inventories(a.node_index()), a.device_index()));
      }
    }
  }
}

int RunResults::steps_done(int rank) const {
  return static_cast<int>(ranks_[rank].sizes.size() + ranks_[rank].rail_sizes.size());
}

absl::Status RunResults::Add(int rank, const std::string& node, const v1::RankSizeResult& result) {
  absl::Status checked = CheckReportedSchedule(result);
  if (checked.ok()) checked = CheckReportedGpuThrottle(result);
  if (!checked.ok()) {
    // Untrusted numbers never reach attribution: the rank is off the test.
    ranks_[rank].closed = true;
    return checked;
  }
  if (result.rail()) return AddRail(rank, node, result);
  RankResults& mine = ranks_[rank];
  if (mine.sizes.size() >= sweep_.steps.size()) {
    // Off the sweep like any other wrong step: one failure says so.
    mine.closed = true;
    return absl::InternalError("reported more sizes than the sweep has");
  }
  const size_t index = mine.sizes.size();
  if (absl::Status step = CheckStep(index, node, result); !step.ok()) {
    // Never average it into a row with the other ranks' numbers.
    mine.closed = true;
    return step;
  }
  mine.wrong_elements += WrongElementsOf(result);
  mine.sizes.push_back(result);
  ++size_reports_[index];
  EmitReadyRows();
  return absl::OkStatus();
}

absl::Status RunResults::CheckStep(size_t index, const std::string& node,
                                   const v1::RankSizeResult& result) const {
  const PlannedSize& expected = sweep_.steps[index];
  // A worker older than RankSizeResult.collective runs only the spec's.
  const v1::Collective reported = result.collective() != v1::COLLECTIVE_UNSPECIFIED
                                      ? result.collective()
                                      : report_.spec().collective();
  if (reported != expected.collective) {
    return absl::InternalError(
        absl::StrCat("reported ", spec::DisplayName(reported), " where step ", index + 1, " of ",
                     sweep_.steps.size(), " is ", spec::DisplayName(expected.collective),
                     ": are the coordinator and the agent and eb-worker on node ", node,
                     " the same ebnccl version?"));
  }
  if (result.size_bytes() != expected.size_bytes || result.count() != expected.count) {
    return absl::InternalError(absl::StrCat(
        "reported size ", result.size_bytes(), " B (count ", result.count(),
        ") where the sweep's size ", index + 1, " of ", sweep_.steps.size(), " is ",
        expected.size_bytes, " B (count ", expected.count, ", swept as ", expected.sweep_bytes,
        " B): the worker ran another sweep than the coordinator sent; are the coordinator and "
        "the agent and eb-worker on node ",
        node, " the same ebnccl version?"));
  }
  return absl::OkStatus();
}

absl::Status RunResults::AddRail(int rank, const std::string& node,
                                 const v1::RankSizeResult& result) {
  RankResults& mine = ranks_[rank];
  if (absl::Status step = CheckRailStep(rank, node, result); !step.ok()) {
    mine.closed = true;
    return step;
  }
  const size_t index = mine.rail_sizes.size();
  mine.wrong_elements += WrongElementsOf(result);
  mine.rail_sizes.push_back(result);
  const size_t rail = static_cast<size_t>(report_.ranks(rank).local_rank());
  if (rail < rail_reports_.size()) ++rail_reports_[rail][index];
  EmitReadyRailRows();
  return absl::OkStatus();
}

absl::Status RunResults::CheckRailStep(int rank, const std::string& node,
                                       const v1::RankSizeResult& result) const {
  const RankResults& mine = ranks_[rank];
  const std::vector<PlannedSize>& rail_steps = sweep_.rail_steps;
  const size_t index = mine.rail_sizes.size();
  if (rail_steps.empty()) {
    return absl::InternalError("reported a rail size, but the test does not split rails");
  }
  if (mine.sizes.size() != sweep_.steps.size()) {
    return absl::InternalError(absl::StrCat("reported a rail size after ", mine.sizes.size(),
                                            " of ", sweep_.steps.size(),
                                            " sizes of the full sweep"));
  }
  if (index >= rail_steps.size()) {
    return absl::InternalError("reported more rail sizes than the sweep has");
  }
  if (result.size_bytes() != rail_steps[index].size_bytes ||
      result.count() != rail_steps[index].count) {
    return absl::InternalError(absl::StrCat(
        "reported rail size ", result.size_bytes(), " B (count ", result.count(),
        ") where the rail sweep's size ", index + 1, " of ", rail_steps.size(), " is ",
        rail_steps[index].size_bytes, " B (count ", rail_steps[index].count,
        "); are the coordinator and the eb-worker on ", node, " the same ebnccl version?"));
  }
  return absl::OkStatus();
}

absl::Status RunResults::CheckComplete(int rank) const {
  const RankResults& mine = ranks_[rank];
  if (mine.sizes.size() == sweep_.steps.size() &&
      mine.rail_sizes.size() == sweep_.rail_steps.size()) {
    return absl::OkStatus();
  }
  return absl::InternalError(absl::StrCat(
      "finished after ", mine.sizes.size(), " of ", sweep_.steps.size(), " sizes",
      sweep_.rail_steps.empty() ? ""
                                : absl::StrCat(" and ", mine.rail_sizes.size(), " of ",
                                               sweep_.rail_steps.size(), " rail sizes")));
}

void RunResults::EmitReadyRows() {
  // A row is ready when every rank reported its size: counted per size, so
  // that an event does not look at every rank (only the row's aggregation
  // does, once).
  while (rows_emitted_ < sweep_.steps.size() &&
         size_reports_[rows_emitted_] == static_cast<int>(ranks_.size())) {
    std::vector<const v1::RankSizeResult*> per_rank;
    per_rank.reserve(ranks_.size());
    for (const RankResults& rank : ranks_) per_rank.push_back(&rank.sizes[rows_emitted_]);
    v1::SizeResult& row = *report_.add_results();
    row = AggregateSize(report_.spec(), per_rank, node_of_rank_);
    ++rows_emitted_;
    on_row_(row);
  }
}

void RunResults::EmitReadyRailRows() {
  for (size_t rail = 0; rail < rail_rows_emitted_.size(); ++rail) {
    v1::RailResult& result = *report_.mutable_rails(static_cast<int>(rail));
    size_t& emitted = rail_rows_emitted_[rail];
    while (emitted < sweep_.rail_steps.size() &&
           rail_reports_[rail][emitted] == result.members_size()) {
      std::vector<const v1::RankSizeResult*> per_member;
      std::vector<int> member_node;  // one member per node, in node order
      for (const v1::RailMember& member : result.members()) {
        member_node.push_back(static_cast<int>(member_node.size()));
        const RankResults& reports = ranks_[member.rank()];
        if (reports.rail_sizes.size() <= emitted) break;
        per_member.push_back(&reports.rail_sizes[emitted]);
      }
      if (per_member.size() != static_cast<size_t>(result.members_size())) break;
      *result.add_results() = AggregateSize(report_.spec(), per_member, member_node);
      ++emitted;
    }
  }
}

}  // namespace eb::coordinator
