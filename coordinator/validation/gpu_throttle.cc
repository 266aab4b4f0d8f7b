#include "coordinator/validation/gpu_throttle.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/validation/rank_lookup.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

// The judged policies, in the order their names are reported.
enum Judged { kPower, kThermal, kBoardLimit, kReliability, kJudged };
constexpr std::array<const char*, kJudged> kJudgedNames = {"power", "thermal", "board_limit",
                                                           "reliability"};

std::array<double, kJudged> JudgedUs(const v1::GpuThrottle& g) {
  return {g.power_us(), g.thermal_us(), g.board_limit_us(), g.reliability_us()};
}

struct GpuTally {
  double wall_us = 0;  // of the measurements this rank recorded
  std::array<double, kJudged> held_us{};
  uint64_t reasons = 0;
  int most_throttled = 0;  // measurements in which it was the most throttled GPU
  bool recorded() const { return wall_us > 0; }
  int worst() const {
    return static_cast<int>(std::max_element(held_us.begin(), held_us.end()) - held_us.begin());
  }
  double worst_us() const { return held_us[worst()]; }
  double share() const { return wall_us > 0 ? worst_us() / wall_us : 0.0; }
  bool throttled() const {
    return share() >= kMinGpuThrottledShare && worst_us() >= kMinGpuThrottledUs;
  }
};

struct GpuTallies {
  int measurements = 0;
  std::vector<GpuTally> ranks;
};

void TallyVariant(const v1::VariantResult& variant, GpuTallies& out) {
  ++out.measurements;
  int most = -1;
  double most_us = 0;
  for (int r = 0; r < static_cast<int>(out.ranks.size()); ++r) {
    const v1::GpuThrottle& g = variant.rank_gpu_throttle(r);
    if (g.wall_us() <= 0) continue;  // this rank recorded none here
    GpuTally& tally = out.ranks[r];
    tally.wall_us += g.wall_us();
    const std::array<double, kJudged> held = JudgedUs(g);
    for (int p = 0; p < kJudged; ++p) tally.held_us[p] += held[p];
    tally.reasons |= g.reasons();
    const double worst = *std::max_element(held.begin(), held.end());
    if (worst > most_us) {
      most = r;
      most_us = worst;
    }
  }
  if (most >= 0) ++out.ranks[most].most_throttled;
}

GpuTallies TallyGpus(const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows, int ranks) {
  GpuTallies out;
  if (ranks < 2) return out;
  out.ranks.assign(static_cast<size_t>(ranks), GpuTally{});
  for (const v1::SizeResult& row : rows) {
    for (const v1::VariantResult* variant : {&row.out_of_place(), &row.in_place()}) {
      if (variant->rank_gpu_throttle_size() == ranks) TallyVariant(*variant, out);
    }
  }
  return out;
}

std::string SharePct(double share) { return absl::StrFormat("%.1f%%", share * 100.0); }

// "GPU 3", or the bus id where the map has no index.
std::string GpuName(const v1::RankAssignment* a) {
  if (a == nullptr) return "its GPU";
  if (a->device_index() >= 0) return absl::StrCat("GPU ", a->device_index());
  return absl::StrCat("GPU ", a->gpu_pci_bus_id());
}

// "rank 3 (node7 slot 3, GPU 3)".
std::string GpuRankName(const v1::TestReport& report, int rank) {
  const v1::RankAssignment* a = FindRank(report, rank);
  if (a == nullptr) return absl::StrCat("rank ", rank);
  return absl::StrCat("rank ", rank, " (", a->node_name(), " slot ", a->local_rank(), ", ",
                      GpuName(a), ")");
}

// The clock event reasons that say the GPU protected itself, as NVML names
// them (nvmlClocksEventReason*); the others (idle, application clocks,
// sync boost, display) are not slowdowns.
std::string ReasonNames(uint64_t reasons) {
  static constexpr std::pair<uint64_t, const char*> kBits[] = {
      {0x4, "SW power cap"},
      {0x8, "HW slowdown"},
      {0x20, "SW thermal slowdown"},
      {0x40, "HW thermal slowdown"},
      {0x80, "HW power brake slowdown"},
  };
  std::vector<std::string> names;
  for (const auto& [bit, name] : kBits) {
    if ((reasons & bit) != 0) names.emplace_back(name);
  }
  return absl::StrJoin(names, ", ");
}

// The lower median of the recorded ranks' shares: what every GPU was held
// back alike.
double CommonGpuShare(const GpuTallies& t) {
  std::vector<double> shares;
  for (const GpuTally& r : t.ranks) {
    if (r.recorded()) shares.push_back(r.share());
  }
  return CommonShare(std::move(shares));
}

}  // namespace

std::optional<v1::GpuThrottleSummary> SummarizeGpuThrottle(
    const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows, int ranks) {
  const GpuTallies t = TallyGpus(rows, ranks);
  if (t.measurements == 0) return std::nullopt;
  v1::GpuThrottleSummary summary;
  summary.set_measurements(t.measurements);
  bool flat = true;
  for (const GpuTally& r : t.ranks) {
    summary.add_rank_throttled_pct(r.recorded() ? r.share() * 100.0 : -1.0);
    summary.add_rank_policy(r.worst_us() > 0 ? kJudgedNames[r.worst()] : "");
    summary.add_rank_reasons(r.reasons);
    flat = flat && !r.throttled();
  }
  summary.set_flat(flat);
  return summary;
}

GpuThrottleVerdict JudgeGpuThrottle(const v1::TestReport& report) {
  GpuThrottleVerdict out;
  const GpuTallies t = TallyGpus(report.results(), report.ranks_size());
  if (t.measurements == 0) return out;
  int top = 0;
  for (int r = 1; r < static_cast<int>(t.ranks.size()); ++r) {
    if (t.ranks[r].share() > t.ranks[top].share()) top = r;
  }
  const GpuTally& worst = t.ranks[top];
  if (!worst.throttled()) {
    out.kind = GpuThrottleVerdict::kFlat;
    out.why = absl::StrCat("no GPU was held below its clocks (at most ", SharePct(worst.share()),
                           " of its timed calls)");
    return out;
  }
  const double common = CommonGpuShare(t);
  const double top_excess = worst.share() - common;
  int close = 0;
  double max_out = 0.0;
  for (const GpuTally& r : t.ranks) {
    if ((r.share() - common) * kGpuThrottleDominance >= top_excess) {
      ++close;
    } else {
      max_out = std::max(max_out, r.share());
    }
  }
  const std::string policy = kJudgedNames[worst.worst()];
  if (top_excess < kMinGpuThrottledShare) {
    out.kind = GpuThrottleVerdict::kAlike;
    out.why = absl::StrCat("every GPU was held below its clocks ", SharePct(common), " to ",
                           SharePct(worst.share()), " of the timed calls alike (", policy,
                           "): a site power cap or the room's cooling, no one part");
    return out;
  }
  if (close > 1) {
    out.kind = GpuThrottleVerdict::kSeveral;
    out.why =
        absl::StrCat(close, " GPUs were held below their clocks up to ", SharePct(worst.share()),
                     " of the timed calls (", policy, "): no one GPU stands out");
    return out;
  }
  out.kind = GpuThrottleVerdict::kRank;
  out.rank = top;
  out.share = worst.share();
  out.policy = policy;
  out.why = absl::StrCat(GpuRankName(report, top), ": its GPU was held below its clocks ",
                         SharePct(worst.share()), " of the timed calls (", policy,
                         "), the other GPUs at most ", SharePct(max_out));
  if (const std::string named = ReasonNames(worst.reasons); !named.empty()) {
    absl::StrAppend(&out.why, "; NVML showed ", named);
  }
  return out;
}

namespace {

CulpritFinding NameGpu(const v1::TestReport& report, const GpuThrottleVerdict& gpu,
                       CulpritFinding out) {
  const GpuTallies t = TallyGpus(report.results(), report.ranks_size());
  const v1::RankAssignment* a = FindRank(report, gpu.rank);
  v1::SlowestRank rank;
  rank.set_rank(gpu.rank);
  rank.set_local_rank(a != nullptr ? a->local_rank() : -1);
  if (a != nullptr) rank.set_node_name(a->node_name());
  rank.set_slowest_count(t.ranks[gpu.rank].most_throttled);
  rank.set_measurements(t.measurements);
  rank.set_mean_excess_pct(gpu.share * 100.0);
  rank.set_basis("gpu_throttled");
  const std::string before = out.reason;
  out.culprit = v1::CULPRIT_GPU_THROTTLED;
  out.rank = rank;
  out.node = a != nullptr ? a->node_name() : "";
  out.part = GpuName(a);
  out.reason = before.empty() ? gpu.why : absl::StrCat(gpu.why, "; ", before);
  return out;
}

}  // namespace

CulpritFinding WithGpuThrottle(const v1::TestReport& report, CulpritFinding decided) {
  const GpuThrottleVerdict gpu = JudgeGpuThrottle(report);
  switch (gpu.kind) {
    case GpuThrottleVerdict::kNone:
    case GpuThrottleVerdict::kFlat:
      return decided;
    case GpuThrottleVerdict::kAlike:
    case GpuThrottleVerdict::kSeveral:
      if (decided.culprit == v1::CULPRIT_UNSPECIFIED) return decided;
      if (decided.culprit == v1::CULPRIT_PATH) decided.culprit = v1::CULPRIT_UNKNOWN;
      absl::StrAppend(&decided.reason, "; but ", gpu.why);
      return decided;
    case GpuThrottleVerdict::kRank:
      break;
  }
  const bool same_rank = decided.rank.has_value() && decided.rank->rank() == gpu.rank;
  // A rank late because its GPU ran slow: the GPU is the more precise part,
  // as a late rank that was stalled is descheduled (culprit.cc).
  if (decided.culprit == v1::CULPRIT_PATH || decided.culprit == v1::CULPRIT_UNKNOWN ||
      decided.culprit == v1::CULPRIT_UNSPECIFIED ||
      (decided.culprit == v1::CULPRIT_LATE_RANK && same_rank)) {
    return NameGpu(report, gpu, std::move(decided));
  }
  const v1::RankAssignment* a = FindRank(report, gpu.rank);
  const bool same_host = decided.culprit == v1::CULPRIT_DESCHEDULED_HOST && a != nullptr &&
                         a->node_name() == decided.node;
  if (same_rank || same_host) {
    absl::StrAppend(&decided.reason, "; and ", gpu.why);
    return decided;
  }
  decided.culprit = v1::CULPRIT_UNKNOWN;
  decided.reason =
      absl::StrCat(decided.reason, "; but ", gpu.why, ": the signals name different parts");
  decided.rank.reset();
  decided.node.clear();
  decided.part.clear();
  return decided;
}

}  // namespace eb::validation
