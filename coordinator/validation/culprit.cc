#include "coordinator/validation/culprit.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/failure_kinds.h"
#include "coordinator/validation/gpu_throttle.h"
#include "coordinator/validation/path_counters.h"
#include "coordinator/validation/rank_lookup.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;
namespace {

struct RankTally {
  double stalled_us = 0;
  double throttled_us = 0;
  double wall_us = 0;
  int most_stalled = 0;  // measurements in which it was the most stalled rank
  double share() const { return wall_us > 0 ? stalled_us / wall_us : 0.0; }
  double throttled_share() const { return wall_us > 0 ? throttled_us / wall_us : 0.0; }
};

struct Tallies {
  int measurements = 0;
  std::vector<RankTally> ranks;
};

Tallies TallySchedules(const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows, int ranks) {
  Tallies out;
  if (ranks < 2) return out;
  out.ranks.assign(static_cast<size_t>(ranks), RankTally{});
  for (const v1::SizeResult& row : rows) {
    for (const v1::VariantResult* variant : {&row.out_of_place(), &row.in_place()}) {
      if (variant->rank_schedule_size() != ranks) continue;
      ++out.measurements;
      int most = -1;
      for (int r = 0; r < ranks; ++r) {
        const v1::RankSchedule& s = variant->rank_schedule(r);
        out.ranks[r].stalled_us += s.stalled_us();
        out.ranks[r].throttled_us += s.throttled_us();
        out.ranks[r].wall_us += s.wall_us();
        if (s.stalled_us() > 0 &&
            (most < 0 || s.stalled_us() > variant->rank_schedule(most).stalled_us())) {
          most = r;
        }
      }
      if (most >= 0) ++out.ranks[most].most_stalled;
    }
  }
  return out;
}

// "rank 3 (host1 slot 1, GPU 1)"; the slot only where the map lacks a GPU.
std::string RankName(const v1::TestReport& report, int rank) {
  const v1::RankAssignment* a = FindRank(report, rank);
  if (a == nullptr) return absl::StrCat("rank ", rank);
  std::string name = absl::StrCat("rank ", rank, " (", a->node_name(), " slot ", a->local_rank());
  if (a->device_index() >= 0 && report.transport() == v1::TRANSPORT_NCCL) {
    absl::StrAppend(&name, ", GPU ", a->device_index());
  }
  return name + ")";
}

std::string Pct(double share) { return absl::StrFormat("%.1f%%", share * 100.0); }

// What the schedules alone say.
struct ScheduleVerdict {
  enum Kind { kNone, kFlat, kRank, kHost, kAmbiguous } kind = kNone;
  int rank = -1;
  std::string node;
  std::string why;
  bool cpu_limit = false;  // named by a cgroup's throttled time, not the ticker
};

bool Stalled(const RankTally& r) {
  return r.share() >= kMinStalledShare && r.stalled_us >= kMinStalledUs;
}

// The ranks that stand out on one per-rank share, judged above the common
// share: the top one and those within kStalledDominance of its excess.
struct Standouts {
  int top = 0;
  double top_share = 0;
  double common = 0;
  std::vector<int> close;
  std::set<std::string> nodes;
  double max_out = 0;  // the most of a rank not close
  double min_close = 0;
};

Standouts FindStandouts(const v1::TestReport& report, const std::vector<double>& shares) {
  Standouts s;
  const int ranks = static_cast<int>(shares.size());
  for (int r = 1; r < ranks; ++r) {
    if (shares[r] > shares[s.top]) s.top = r;
  }
  s.top_share = shares[s.top];
  // What every rank of the test was stalled alike: the load of the machine
  // (a ticker waiting for a CPU is a stall too), not any one rank's fault.
  s.common = CommonShare(shares);
  s.min_close = s.top_share;
  for (int r = 0; r < ranks; ++r) {
    if ((shares[r] - s.common) * kStalledDominance >= s.top_share - s.common) {
      s.close.push_back(r);
      s.min_close = std::min(s.min_close, shares[r]);
      const v1::RankAssignment* a = FindRank(report, r);
      s.nodes.insert(a != nullptr ? a->node_name() : absl::StrCat("?", r));
    } else {
      s.max_out = std::max(s.max_out, shares[r]);
    }
  }
  return s;
}

std::vector<double> SharesOf(const Tallies& t, double (RankTally::*share)() const) {
  std::vector<double> shares;
  shares.reserve(t.ranks.size());
  for (const RankTally& r : t.ranks) shares.push_back((r.*share)());
  return shares;
}

ScheduleVerdict JudgeSchedules(const v1::TestReport& report, const Tallies& t) {
  ScheduleVerdict out;
  if (t.measurements == 0) return out;
  // Judged above the common stall: on a loaded host every rank is starved
  // (healthy ranks 10-16 % on the 2-core development machine at load 12-19),
  // which must neither hide the one that was stopped nor make its peers
  // look "comparably stalled" (issue 29 item 6, culprit scoring).
  const Standouts s = FindStandouts(report, SharesOf(t, &RankTally::share));
  if (!Stalled(t.ranks[s.top])) {
    out.kind = ScheduleVerdict::kFlat;
    out.why = absl::StrCat("none was stalled (at most ", Pct(s.top_share), " of its timed calls)");
    return out;
  }
  std::string others = absl::StrCat("the other ranks at most ", Pct(s.max_out));
  // Said where the load was felt (a percent or more), not on a quiet host.
  if (s.common >= 0.01) absl::StrAppend(&others, " (every rank stalled ", Pct(s.common), " alike)");
  if (s.top_share - s.common < kMinStalledShare) {
    // Everyone stalled alike: the host's load, no one part.
    out.kind = ScheduleVerdict::kAmbiguous;
    out.why = absl::StrCat("every rank was stalled ", Pct(s.common), " to ", Pct(s.top_share),
                           " of its timed calls alike");
    return out;
  }
  if (s.close.size() == 1) {
    out.kind = ScheduleVerdict::kRank;
    out.rank = s.top;
    out.why = absl::StrCat(RankName(report, s.top), " was stalled ", Pct(s.top_share),
                           " of its timed calls (its process not running: stopped, or starved of "
                           "CPU), ",
                           others);
    return out;
  }
  if (s.nodes.size() == 1) {
    out.kind = ScheduleVerdict::kHost;
    out.node = *s.nodes.begin();
    out.why = absl::StrCat(s.close.size(), " ranks of ", out.node, " were stalled ",
                           Pct(s.min_close), " to ", Pct(s.top_share),
                           " of their timed calls (the host starved them of CPU or stopped them), ",
                           others);
    return out;
  }
  // Stalls on several nodes: no one part.
  out.kind = ScheduleVerdict::kAmbiguous;
  out.why =
      absl::StrCat(s.close.size(), " ranks on ", s.nodes.size(), " nodes were stalled ",
                   Pct(s.min_close), " to ", Pct(s.top_share), " of their timed calls, ", others);
  return out;
}

// What the cgroups' CPU limits alone say: a part whose limit held it back
// (RankSchedule.throttled_us) well above the others. kFlat when none stands
// out: a limit every rank hit alike is left to the ticker's common stall.
ScheduleVerdict JudgeCpuLimits(const v1::TestReport& report, const Tallies& t) {
  ScheduleVerdict out;
  if (t.measurements == 0) return out;
  out.kind = ScheduleVerdict::kFlat;
  const Standouts s = FindStandouts(report, SharesOf(t, &RankTally::throttled_share));
  if (s.top_share - s.common < kMinThrottledShare || t.ranks[s.top].throttled_us < kMinStalledUs ||
      s.nodes.size() > 1) {
    // Said where it was felt; the ticker's common stall judges it.
    if (s.common >= 0.01) {
      out.why = absl::StrCat("every rank was held back by a CPU limit ", Pct(s.common), " to ",
                             Pct(s.top_share), " of its timed calls alike");
    }
    return out;
  }
  out.cpu_limit = true;
  const std::string others = absl::StrCat("the other ranks at most ", Pct(s.max_out));
  if (s.close.size() == 1) {
    out.kind = ScheduleVerdict::kRank;
    out.rank = s.top;
    out.why =
        absl::StrCat(RankName(report, s.top), " was held back by a CPU limit ", Pct(s.top_share),
                     " of its timed calls (its cgroup's throttled time: a container's or "
                     "service's CPU quota), ",
                     others);
    return out;
  }
  out.kind = ScheduleVerdict::kHost;
  out.node = *s.nodes.begin();
  out.why = absl::StrCat(s.close.size(), " ranks of ", out.node, " were held back by a CPU limit ",
                         Pct(s.min_close), " to ", Pct(s.top_share),
                         " of their timed calls (their cgroups' throttled time), ", others);
  return out;
}

bool NamesPart(const ScheduleVerdict& v) {
  return v.kind == ScheduleVerdict::kRank || v.kind == ScheduleVerdict::kHost;
}

std::string NodeOfRank(const v1::TestReport& report, int rank) {
  const v1::RankAssignment* a = FindRank(report, rank);
  return a != nullptr ? a->node_name() : std::string();
}

// The two verdicts name the same part, or one names a rank of the other's host.
bool SamePart(const v1::TestReport& report, const ScheduleVerdict& a, const ScheduleVerdict& b) {
  const std::string a_node = a.kind == ScheduleVerdict::kHost ? a.node : NodeOfRank(report, a.rank);
  const std::string b_node = b.kind == ScheduleVerdict::kHost ? b.node : NodeOfRank(report, b.rank);
  if (a.kind == ScheduleVerdict::kRank && b.kind == ScheduleVerdict::kRank) return a.rank == b.rank;
  return !a_node.empty() && a_node == b_node;
}

// A CPU limit that names a part is the kernel's word for why it stalled,
// so it names it even under the ticker's floor; where the ticker names
// another part, neither is sure.
ScheduleVerdict WithCpuLimits(const v1::TestReport& report, ScheduleVerdict limits,
                              ScheduleVerdict ticker) {
  if (!NamesPart(limits)) {
    if (!limits.why.empty()) absl::StrAppend(&ticker.why, "; ", limits.why);
    return ticker;
  }
  if (NamesPart(ticker) && !SamePart(report, limits, ticker)) {
    ticker.kind = ScheduleVerdict::kAmbiguous;
    ticker.why = absl::StrCat(limits.why, ", but ", ticker.why);
    return ticker;
  }
  if (NamesPart(ticker)) absl::StrAppend(&limits.why, "; ", ticker.why);
  return limits;
}

void Place(const v1::TestReport& report, v1::SlowestRank& rank) {
  const v1::RankAssignment* a = FindRank(report, rank.rank());
  rank.set_local_rank(a != nullptr ? a->local_rank() : -1);
  if (a != nullptr) rank.set_node_name(a->node_name());
}

}  // namespace

std::optional<v1::ScheduleSummary> SummarizeSchedule(
    const google::protobuf::RepeatedPtrField<v1::SizeResult>& rows, int ranks) {
  const Tallies t = TallySchedules(rows, ranks);
  if (t.measurements == 0) return std::nullopt;
  v1::ScheduleSummary summary;
  summary.set_measurements(t.measurements);
  bool flat = true;
  for (const RankTally& r : t.ranks) {
    summary.add_rank_stalled_pct(r.share() * 100.0);
    summary.add_rank_throttled_pct(r.throttled_share() * 100.0);
    flat = flat && !Stalled(r);
  }
  summary.set_flat(flat);
  return summary;
}

namespace {

// A rank arrived late: the schedules can say why (it was stalled too) or
// contradict it (another part stalled), never overrule it.
CulpritFinding WithLateRank(const v1::TestReport& report, const Attribution& arrival,
                            const ScheduleVerdict& sched, CulpritFinding out) {
  const int r = arrival.slowest->rank();
  const v1::RankAssignment* a = FindRank(report, r);
  const bool agrees = sched.kind == ScheduleVerdict::kRank && sched.rank == r;
  const bool host_agrees =
      sched.kind == ScheduleVerdict::kHost && a != nullptr && a->node_name() == sched.node;
  const bool names_part =
      sched.kind == ScheduleVerdict::kRank || sched.kind == ScheduleVerdict::kHost;
  if (names_part && !agrees && !host_agrees) {
    out.culprit = v1::CULPRIT_UNKNOWN;
    out.reason = absl::StrCat(RankName(report, r), " arrived late, but ", sched.why,
                              ": the two signals name different parts");
    return out;
  }
  out.rank = arrival.slowest;
  out.culprit = agrees ? v1::CULPRIT_DESCHEDULED_RANK
                       : (host_agrees ? v1::CULPRIT_DESCHEDULED_HOST : v1::CULPRIT_LATE_RANK);
  if (host_agrees) out.node = sched.node;
  out.reason =
      absl::StrCat(RankName(report, r), " arrived last in ", arrival.slowest->slowest_count(),
                   " of ", arrival.slowest->measurements(), " measurements");
  if (agrees || host_agrees) absl::StrAppend(&out.reason, "; ", sched.why);
  return out;
}

// Nobody arrived late (or no arrivals were recorded): the schedules decide,
// and "the path" needs both flat.
CulpritFinding BySchedules(const v1::TestReport& report, const Attribution& arrival,
                           const Tallies& t, const ScheduleVerdict& sched, CulpritFinding out) {
  const bool arrivals_flat = arrival.arrivals.has_value() && arrival.arrivals->flat();
  const std::string no_late = arrivals_flat
                                  ? absl::StrCat("no rank arrived late (",
                                                 arrival.arrivals->measurements(), " measurements)")
                                  : std::string("no arrivals were recorded");
  out.culprit = v1::CULPRIT_UNKNOWN;
  switch (sched.kind) {
    case ScheduleVerdict::kRank: {
      v1::SlowestRank rank;
      rank.set_rank(sched.rank);
      Place(report, rank);
      rank.set_slowest_count(t.ranks[sched.rank].most_stalled);
      rank.set_measurements(t.measurements);
      const RankTally& tally = t.ranks[sched.rank];
      rank.set_mean_excess_pct((sched.cpu_limit ? tally.throttled_share() : tally.share()) * 100.0);
      rank.set_basis(sched.cpu_limit ? "cpu_limit" : "descheduled");
      out.rank = rank;
      out.culprit = v1::CULPRIT_DESCHEDULED_RANK;
      out.reason = absl::StrCat(no_late, ", but ", sched.why);
      break;
    }
    case ScheduleVerdict::kHost:
      out.culprit = v1::CULPRIT_DESCHEDULED_HOST;
      out.node = sched.node;
      out.reason = absl::StrCat(no_late, ", but ", sched.why);
      break;
    case ScheduleVerdict::kFlat:
      if (arrivals_flat) {
        out.culprit = v1::CULPRIT_PATH;
        out.reason = absl::StrCat(no_late, " and ", sched.why,
                                  ": a slow result is the path (network, NICs, links)");
      } else {
        out.reason = absl::StrCat(no_late, "; ", sched.why, ": a late rank cannot be ruled out");
      }
      break;
    case ScheduleVerdict::kAmbiguous:
      out.reason = absl::StrCat(no_late, "; ", sched.why, ": no one part explains it");
      break;
    case ScheduleVerdict::kNone:
      out.reason = absl::StrCat(no_late,
                                ", but no rank recorded its schedule (older workers): a rank "
                                "stopped or starved inside the calls would look the same, so this "
                                "is not proof that the path is slow");
      break;
  }
  return out;
}

// Who the failure that ended the test blames, when it says (its row's
// culprit column, common/spec/failure_kinds.h): a part it names (a rank
// that hung, exited or never registered, a lost node, ranks behind at a
// deadline), or the path (no_progress: every rank stuck, none behind).
// Nothing for a failure that judges a finished measurement or an
// interruption, nor for one naming no part.
std::optional<v1::Culprit> FailureCulprit(const v1::Failure& failure) {
  switch (spec::RowOf(failure.kind()).culprit) {
    case spec::FailureCulprit::kMeasurements:
      return std::nullopt;
    case spec::FailureCulprit::kPath:
      return v1::CULPRIT_PATH;
    case spec::FailureCulprit::kNamedPart:
      break;
  }
  if (failure.rank() >= 0 || !failure.node_name().empty()) return v1::CULPRIT_FAILURE;
  return std::nullopt;
}

// The rows measured before a failure saw none of it (a rank stopped for
// good mid-sweep stalls nobody's rows before the stop; a frozen agent or a
// path cut none at all): the failure that ended the test is the culprit,
// whatever the rows say.
CulpritFinding ByFailure(const v1::TestReport& report, v1::Culprit culprit, CulpritFinding out) {
  const v1::Failure& failure = report.failures(0);
  out.culprit = culprit;
  out.rank.reset();
  out.node.clear();
  std::string part = "the path";
  if (culprit == v1::CULPRIT_FAILURE) {
    out.node = failure.node_name();
    if (failure.rank() >= 0 && out.node.empty()) {
      const v1::RankAssignment* a = FindRank(report, failure.rank());
      if (a != nullptr) out.node = a->node_name();
    }
    part = failure.rank() >= 0 ? RankName(report, failure.rank()) : absl::StrCat("node ", out.node);
  }
  out.reason = absl::StrCat("the test failed at ", part, " (", failure.message(),
                            "); what was measured before the failure does not judge it");
  return out;
}

CulpritFinding DecideFromMeasurements(const v1::TestReport& report, const Attribution& arrival) {
  CulpritFinding out;
  const int ranks = report.ranks_size();
  const Tallies t = TallySchedules(report.results(), ranks);
  out.schedule = SummarizeSchedule(report.results(), ranks);
  const ScheduleVerdict sched =
      WithCpuLimits(report, JudgeCpuLimits(report, t), JudgeSchedules(report, t));
  const bool late = arrival.slowest.has_value() && arrival.slowest->basis() == "arrival";
  if (late) return WithLateRank(report, arrival, sched, std::move(out));
  if (!arrival.arrivals.has_value() && sched.kind == ScheduleVerdict::kNone) {
    // Neither signal: only per-rank times, which a collective makes equal.
    if (arrival.slowest.has_value()) {
      out.culprit = v1::CULPRIT_UNKNOWN;
      out.rank = arrival.slowest;
      out.reason =
          "neither arrivals nor schedules were recorded (older workers): per-rank times "
          "alone cannot tell who made the others wait";
    }
    return out;
  }
  return BySchedules(report, arrival, t, sched, std::move(out));
}

// The second, positive signal of the path: the counters that moved say
// where it lost packets, or which port's link is bad (issue 29 item 6).
CulpritFinding WithCounters(const v1::TestReport& report, CulpritFinding out) {
  if (out.culprit != v1::CULPRIT_PATH && out.culprit != v1::CULPRIT_UNKNOWN) return out;
  out.counters = JudgePathCounters(report);
  const std::string counters = DescribePathCounters(report, out.counters);
  if (counters.empty()) return out;
  if (out.culprit == v1::CULPRIT_UNKNOWN) {
    // A hint where they moved; "saw nothing" clears nobody here.
    if (!out.counters.empty()) absl::StrAppend(&out.reason, "; the hosts' counters: ", counters);
    return out;
  }
  if (out.counters.empty()) {
    absl::StrAppend(&out.reason, "; ", counters, ": \"the path\" only by elimination");
    return out;
  }
  const v1::CounterFinding& first = out.counters.front();
  const std::string more =
      out.counters.size() > 1 ? absl::StrCat(" (", out.counters.size() - 1, " more counter finding",
                                             out.counters.size() == 2 ? "" : "s", ")")
                              : "";
  if (first.link_errors()) {
    out.culprit = v1::CULPRIT_LINK_ERRORS;
    out.node = first.node_name();
    out.part = first.part();
    out.reason =
        absl::StrCat(counters, ": that port, its cable or transceiver", more, "; ", out.reason);
    return out;
  }
  out.reason =
      absl::StrCat(counters, ": its packets were lost on the path", more, "; ", out.reason);
  return out;
}

}  // namespace

CulpritFinding DecideCulprit(const v1::TestReport& report, const Attribution& arrival) {
  // The GPUs' own counters (gpu_throttle.h), before the failure that
  // overrules every measurement.
  CulpritFinding out = WithGpuThrottle(report, DecideFromMeasurements(report, arrival));
  if (out.culprit == v1::CULPRIT_UNSPECIFIED) return out;
  if (report.failures_size() > 0) {
    if (const std::optional<v1::Culprit> by_failure = FailureCulprit(report.failures(0))) {
      out = ByFailure(report, *by_failure, std::move(out));
    }
  }
  return WithCounters(report, std::move(out));
}

}  // namespace eb::validation
