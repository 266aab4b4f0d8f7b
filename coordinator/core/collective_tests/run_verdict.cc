#include "coordinator/core/collective_tests/run_verdict.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/spec/byte_size.h"
#include "common/spec/failure_kinds.h"
#include "common/spec/judged_figures.h"
#include "common/spec/names.h"
#include "coordinator/core/collective_tests/judged_time.h"
#include "coordinator/core/collective_tests/run_evidence.h"
#include "coordinator/core/collective_tests/run_failures.h"
#include "coordinator/core/collective_tests/sweep_plan.h"
#include "coordinator/validation/culprit.h"
#include "coordinator/validation/gpu_throttle.h"
#include "coordinator/validation/straggler.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

bool SeveralCollectives(const v1::TestReport& report) {
  return report.collective_summaries_size() > 1;
}

// The mean busbw of `rows`, both variants.
double MeanBusbw(const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows) {
  double sum = 0;
  for (const v1::SizeResult& row : rows) {
    sum += row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps();
  }
  return rows.empty() ? 0.0 : sum / (2.0 * rows.size());
}

// The mean judged busbw of `rows` (judged_figures.h), both variants.
double MeanJudgedBusbw(const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows) {
  double sum = 0;
  for (const v1::SizeResult& row : rows) sum += 2 * spec::JudgedRowBusbw(row);
  return rows.empty() ? 0.0 : sum / (2.0 * rows.size());
}

// A judged mean this far below the shown one is not the spread of honest
// ranks (a few percent where data moves): their times disagree.
constexpr double kRankTimesDisagree = 0.9;

// Each rank's node index, the rank map being contiguous per node.
std::vector<int> NodeOfRank(const v1::TestReport& report) {
  std::vector<int> node_of;
  for (int rank = 0; rank < report.ranks_size(); ++rank) {
    const bool next =
        rank > 0 && report.ranks(rank).node_name() != report.ranks(rank - 1).node_name();
    node_of.push_back(rank == 0 ? 0 : node_of.back() + (next ? 1 : 0));
  }
  return node_of;
}

// Which nodes disagree, at the largest size: "node evil's ranks reported
// times 10.0x shorter than node host1's at 64MB; judged on node host1's
// times: avg busbw 0.880 GB/s, shown 5.440 GB/s". Empty when the judged
// mean is within kRankTimesDisagree of the shown one.
std::string RankTimesFinding(const v1::TestReport& report) {
  if (report.results().empty() ||
      report.judged_avg_busbw_gbps() >= kRankTimesDisagree * report.avg_busbw_gbps()) {
    return "";
  }
  const v1::SizeResult& last = *report.results().rbegin();
  const std::vector<int> node_of = NodeOfRank(report);
  const std::vector<double> medians = NodeMedianTimes(last.out_of_place().rank_time_us(), node_of);
  if (medians.empty()) return "";
  const auto fastest = std::min_element(medians.begin(), medians.end());
  const auto slowest = std::max_element(medians.begin(), medians.end());
  auto name_of = [&](std::vector<double>::const_iterator node) {
    const int index = static_cast<int>(node - medians.begin());
    for (int rank = 0; rank < report.ranks_size() && rank < static_cast<int>(node_of.size());
         ++rank) {
      if (node_of[rank] == index) return report.ranks(rank).node_name();
    }
    return std::string();
  };
  return absl::StrFormat(
      "node %s's ranks reported times %.1fx shorter than node %s's at %s; judged on the slowest "
      "node's times: avg busbw %.3f GB/s, shown %.3f GB/s",
      name_of(fastest), *fastest > 0 ? *slowest / *fastest : 0.0, name_of(slowest),
      spec::FormatSize(last.size_bytes()), report.judged_avg_busbw_gbps(), report.avg_busbw_gbps());
}

// The nodes of the rank map, which is contiguous per node.
int CountNodes(const v1::TestReport& report) {
  int nodes = 0;
  for (int rank = 0; rank < report.ranks_size(); ++rank) {
    if (rank == 0 || report.ranks(rank).node_name() != report.ranks(rank - 1).node_name()) {
      ++nodes;
    }
  }
  return nodes;
}

// "all_reduce over 4 ranks on 2 nodes: 3 sizes, avg busbw 1.000 GB/s, data
// verified"; with several collectives, each one's average.
std::string PassedSummary(const v1::TestReport& report) {
  const v1::TestSpec& spec = report.spec();
  const int ranks = report.ranks_size();
  const int nodes = CountNodes(report);
  // -c 0 skips the data check: say so rather than claim a verification.
  const char* checked = spec.check_iterations() > 0 ? "data verified" : "data not checked (-c 0)";
  if (!SeveralCollectives(report)) {
    return absl::StrFormat("%s over %d rank%s on %d node%s: %d sizes, avg busbw %.3f GB/s, %s",
                           spec::DisplayName(spec.collective()), ranks, ranks == 1 ? "" : "s",
                           nodes, nodes == 1 ? "" : "s", report.results_size(),
                           report.avg_busbw_gbps(), checked);
  }
  std::vector<std::string> names, averages;
  for (const v1::CollectiveSummary& footer : report.collective_summaries()) {
    names.emplace_back(spec::DisplayName(footer.collective()));
    averages.push_back(absl::StrFormat("%s %.3f GB/s", spec::DisplayName(footer.collective()),
                                       footer.avg_busbw_gbps()));
  }
  return absl::StrFormat(
      "%s over %d rank%s on %d node%s: %d collectives x %d sizes, avg busbw %s, %s",
      absl::StrJoin(names, ", "), ranks, ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s",
      names.size(), report.collective_summaries(0).sizes(), absl::StrJoin(averages, ", "), checked);
}

}  // namespace

void WriteFooters(v1::TestReport& report) {
  // nccl-tests' footer: the mean over every size and both variants.
  int64_t wrong = 0;
  for (const v1::SizeResult& row : report.results()) {
    wrong += row.out_of_place().wrong_elements() + row.in_place().wrong_elements();
  }
  report.set_avg_busbw_gbps(MeanBusbw(report.results()));
  report.set_judged_avg_busbw_gbps(MeanJudgedBusbw(report.results()));
  report.set_wrong_elements(wrong);
  report.set_rank_times_finding(RankTimesFinding(report));
  for (v1::RailResult& rail : *report.mutable_rails()) {
    rail.set_avg_busbw_gbps(MeanBusbw(rail.results()));
    rail.set_judged_avg_busbw_gbps(MeanJudgedBusbw(rail.results()));
  }
  // Each collective's own footer, in run order: the verdict is the worst.
  for (const v1::Collective collective : SpecCollectives(report.spec())) {
    v1::CollectiveSummary& footer = *report.add_collective_summaries();
    footer.set_collective(collective);
    double sum = 0, judged_sum = 0;
    for (const v1::SizeResult& row : report.results()) {
      if (CollectiveOfRow(report, row) != collective) continue;
      footer.set_sizes(footer.sizes() + 1);
      sum += row.out_of_place().busbw_gbps() + row.in_place().busbw_gbps();
      judged_sum += 2 * spec::JudgedRowBusbw(row);
      footer.set_wrong_elements(footer.wrong_elements() + row.out_of_place().wrong_elements() +
                                row.in_place().wrong_elements());
    }
    footer.set_avg_busbw_gbps(footer.sizes() > 0 ? sum / (2.0 * footer.sizes()) : 0.0);
    footer.set_judged_avg_busbw_gbps(footer.sizes() > 0 ? judged_sum / (2.0 * footer.sizes())
                                                        : 0.0);
  }
}

void StoreStraggler(v1::TestReport& report) {
  const validation::Attribution attribution = validation::AttributeStraggler(report);
  if (attribution.slowest.has_value()) *report.mutable_slowest_rank() = *attribution.slowest;
  if (attribution.arrivals.has_value()) *report.mutable_arrivals() = *attribution.arrivals;
  // The second signal (issue 29 item 6): a rank stalled inside the calls
  // arrives on time, so arrivals alone never say "the path" for sure.
  const validation::CulpritFinding culprit = validation::DecideCulprit(report, attribution);
  if (culprit.schedule.has_value()) *report.mutable_schedule() = *culprit.schedule;
  if (const std::optional<v1::GpuThrottleSummary> gpu =
          validation::SummarizeGpuThrottle(report.results(), report.ranks_size())) {
    *report.mutable_gpu_throttle() = *gpu;
  }
  report.set_culprit(culprit.culprit);
  report.set_culprit_node(culprit.node);
  report.set_culprit_reason(culprit.reason);
  report.set_culprit_part(culprit.part);
  for (const v1::CounterFinding& finding : culprit.counters)
    *report.add_culprit_counters() = finding;
  // The culprit's rank is the arrival's when arrivals named one; otherwise
  // the schedule's, better founded than a pick by per-rank time.
  if (culprit.rank.has_value()) *report.mutable_slowest_rank() = *culprit.rank;
}

void JudgeDataCheck(absl::Span<const RankResults> ranks, v1::TestReport& report) {
  for (int rank = 0; rank < static_cast<int>(ranks.size()); ++rank) {
    const RankResults& results = ranks[rank];
    if (results.wrong_elements == 0) continue;
    std::string where;
    if (SeveralCollectives(report)) {
      // Which collectives found them on this rank.
      std::vector<std::string> names;
      for (const v1::RankSizeResult& size : results.sizes) {
        if (size.out_of_place().wrong_elements() + size.in_place().wrong_elements() == 0) continue;
        const std::string name = spec::DisplayName(size.collective());
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
      if (!names.empty()) where = absl::StrCat(" of ", absl::StrJoin(names, ", "));
    }
    *report.add_failures() = RankFailure(
        report, rank, v1::FAILURE_KIND_WRONG_DATA,
        absl::StrCat(results.wrong_elements, " wrong elements in the data check", where));
  }
}

void JudgeMinBusbw(absl::Span<const RankResults> /*ranks*/, v1::TestReport& report) {
  const double min_busbw = report.spec().min_busbw_gbps();
  if (min_busbw <= 0) return;
  const bool several = SeveralCollectives(report);
  // One collective: wrong data is the verdict, as in nccl-tests.
  if (!several && report.failures_size() > 0) return;
  for (const v1::CollectiveSummary& footer : report.collective_summaries()) {
    // Judged by the figure no node's ranks can raise (judged_time.h).
    const double shown = several ? footer.avg_busbw_gbps() : report.avg_busbw_gbps();
    const double judged =
        several ? spec::JudgedMean(footer.judged_avg_busbw_gbps(), footer.avg_busbw_gbps())
                : spec::JudgedMean(report.judged_avg_busbw_gbps(), report.avg_busbw_gbps());
    if (judged >= min_busbw || (several && footer.sizes() == 0)) continue;
    // Below the shown figure only where the ranks' times differ: say so,
    // or the message would contradict the table.
    const std::string figure =
        absl::StrFormat("%.3f", judged) != absl::StrFormat("%.3f", shown)
            ? absl::StrFormat("%.3f GB/s (judged on the slowest node's times; shown %.3f)", judged,
                              shown)
            : absl::StrFormat("%.3f GB/s", shown);
    *report.add_failures() = UnattributedFailure(
        v1::FAILURE_KIND_BELOW_MIN_BUSBW,
        absl::StrFormat("%saverage bus bandwidth %s is below --min-busbw %.3f GB/s",
                        several ? absl::StrCat(spec::DisplayName(footer.collective()), ": ") : "",
                        figure, min_busbw));
  }
}

void RunChecks(absl::Span<const RankResults> ranks, v1::TestReport& report) {
  for (const RunCheck check : kRunChecks) check(ranks, report);
}

Verdict Decide(const v1::TestReport& report) {
  if (report.failures_size() == 0) return {v1::TEST_STATE_PASSED, PassedSummary(report)};
  const v1::Failure& primary = report.failures(0);
  Verdict verdict;
  verdict.state =
      spec::RowOf(primary.kind()).timed_out ? v1::TEST_STATE_TIMED_OUT : v1::TEST_STATE_FAILED;
  verdict.summary = primary.rank() >= 0 ? absl::StrCat(DescribeRank(report, primary.rank()), ": ",
                                                       primary.message())
                                        : primary.message();
  if (report.failures_size() > 1) {
    absl::StrAppend(&verdict.summary, " (", report.failures_size() - 1, " more failure",
                    report.failures_size() == 2 ? "" : "s", ")");
  }
  return verdict;
}

void AttachEvidence(v1::TestReport& report, std::string& summary) {
  if (const std::string note = FinishEvidence(report); !note.empty()) {
    absl::StrAppend(&summary, "; ", note);
  }
}

}  // namespace eb::coordinator
