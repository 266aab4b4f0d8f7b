#include "coordinator/validation/rails.h"

#include <algorithm>
#include <vector>

#include "common/spec/judged_figures.h"
#include "coordinator/validation/straggler.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;

namespace {

// What a rail is judged by: the mean no node's member can raise.
double RailBusbw(const v1::RailResult& rail) {
  return spec::JudgedMean(rail.judged_avg_busbw_gbps(), rail.avg_busbw_gbps());
}

}  // namespace

void JudgeRails(v1::TestReport& report) {
  std::vector<double> busbw;
  for (const v1::RailResult& rail : report.rails()) {
    if (rail.results_size() > 0) busbw.push_back(RailBusbw(rail));
  }
  double median = 0;
  if (!busbw.empty()) {
    std::sort(busbw.begin(), busbw.end());
    const size_t mid = busbw.size() / 2;
    median = busbw.size() % 2 == 1 ? busbw[mid] : (busbw[mid - 1] + busbw[mid]) / 2;
  }
  for (v1::RailResult& rail : *report.mutable_rails()) {
    if (rail.results_size() == 0) continue;
    rail.set_busbw_ratio(median > 0 ? RailBusbw(rail) / median : 0);
    rail.set_slow(busbw.size() >= 2 && median > 0 && rail.busbw_ratio() < 1.0 - kSlowRailTolerance);
    Attribution late = AttributeByArrival(rail.results(), rail.members_size());
    if (!late.slowest.has_value()) continue;
    const v1::RailMember& member = rail.members(late.slowest->rank());
    v1::SlowestRank& straggler = *rail.mutable_straggler();
    straggler = *late.slowest;
    straggler.set_rank(member.rank());
    straggler.set_node_name(member.node_name());
    straggler.set_local_rank(rail.rail());
  }
}

}  // namespace eb::validation
