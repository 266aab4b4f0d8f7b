#include "coordinator/ebctl/output/report_json.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/spec/culprit_kinds.h"
#include "common/spec/judged_figures.h"
#include "common/spec/names.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/per_iter_json.h"
#include "coordinator/ebctl/output/report_evidence_json.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;
namespace {

// Times not known yet (0 = unset in proto3) are null rather than 1970.
json TimeOrNull(int64_t unix_ms) { return unix_ms > 0 ? json(FormatUtcTime(unix_ms)) : json(); }

// One rank's GPU throttle over one measurement; null where it recorded none.
json GpuThrottleToJson(const v1::GpuThrottle& g) {
  if (g.wall_us() <= 0) return json();
  return json{
      {"wall_us", g.wall_us()},
      {"power_us", g.power_us()},
      {"thermal_us", g.thermal_us()},
      {"sync_boost_us", g.sync_boost_us()},
      {"board_limit_us", g.board_limit_us()},
      {"low_utilization_us", g.low_utilization_us()},
      {"reliability_us", g.reliability_us()},
      {"reasons", g.reasons_read() ? json(g.reasons()) : json()},
  };
}

json VariantToJson(const v1::VariantResult& variant, bool report_errors) {
  json rank_times = json::array();
  for (double time : variant.rank_time_us()) rank_times.push_back(time);
  json rank_arrivals = json::array();
  for (double arrival : variant.rank_arrival_us()) rank_arrivals.push_back(arrival);
  json rank_stalled = json::array();
  for (const v1::RankSchedule& s : variant.rank_schedule()) rank_stalled.push_back(s.stalled_us());
  json rank_gpu_throttle = json::array();
  for (const v1::GpuThrottle& g : variant.rank_gpu_throttle()) {
    rank_gpu_throttle.push_back(GpuThrottleToJson(g));
  }
  return json{
      {"time", variant.time_us()},
      {"alg_bw", variant.algbw_gbps()},
      {"bus_bw", variant.busbw_gbps()},
      // nccl-tests writes null when it did not check (-c 0).
      {"nwrong", report_errors ? json(variant.wrong_elements()) : json()},
      {"min_time", variant.min_time_us()},
      {"max_time", variant.max_time_us()},
      {"slowest_rank", variant.slowest_rank()},
      {"rank_times", std::move(rank_times)},
      {"rank_arrivals", std::move(rank_arrivals)},
      {"rank_stalled", std::move(rank_stalled)},
      {"rank_gpu_throttle", std::move(rank_gpu_throttle)},
      // What the checks judge (common/spec/judged_figures.h).
      {"judged_time", variant.judged_time_us() > 0 ? variant.judged_time_us() : variant.time_us()},
      {"judged_bus_bw", spec::JudgedBusbw(variant)},
  };
}

json DevicesToJson(const v1::TestReport& report);

json ConfigToJson(const v1::TestReport& report) {
  const v1::TestSpec& spec = report.spec();
  json collectives = json::array();
  for (v1::Collective c : ReportCollectives(spec)) collectives.push_back(spec::DisplayName(c));
  json config{
      // nccl-tests' own fields first (one rank per process, one GPU each,
      // no aggregation, no blocking mode, no parallel init).
      {"nthreads", 1},
      {"ngpus", 1},
      {"aggregated_iterations", 1},
      {"blocking_collectives", false},
      {"per_iter_timing", spec.per_iter_timing()},
      {"per_iter_skip", 0},
      {"parallel_init", false},
      {"devices", DevicesToJson(report)},
      {"average", spec.has_average() ? spec.average() : 1},
      {"collectives", std::move(collectives)},
      {"minimum_bytes", spec.min_bytes()},
      {"maximum_bytes", spec.max_bytes()},
      {"warmup_iters", spec.warmup_iterations()},
      {"iterations", spec.iterations()},
      {"validation", spec.check_iterations()},
      {"graph", spec.cuda_graph_launches()},
      {"datatype", spec::DisplayName(spec.data_type())},
      {"redop", RedopLabel(spec)},
      {"root", RootLabel(spec)},
      {"nranks", report.ranks_size()},
      {"nodes", TestNodeNames(report)},
      {"workers_per_node", spec.workers_per_node()},
      {"timeout_ms", spec.timeout_ms()},
      {"min_busbw_gbps", spec.min_busbw_gbps()},
      {"split_rails", spec.split_rails()},
  };
  // Exactly one of the two, as nccl-tests does.
  if (spec.step_factor() > 1) {
    config["step_factor"] = spec.step_factor();
  } else {
    config["step_bytes"] = spec.step_bytes();
  }
  return config;
}

json DevicesToJson(const v1::TestReport& report) {
  json devices = json::array();
  for (const v1::RankAssignment& rank : report.ranks()) {
    devices.push_back(json{
        {"rank", rank.rank()},
        // nccl-tests' NCCL_TESTS_SPLIT colour: one communicator here.
        {"group", 0},
        {"node", rank.node_name()},
        {"node_index", rank.node_index()},
        {"local_rank", rank.local_rank()},
        {"device", rank.device_index()},
        {"device_hex", DeviceHex(rank.gpu_pci_bus_id())},
        {"device_info", DeviceInfo(report, rank)},
        {"hostname", RankHostname(report, rank)},
        // 0: the worker never registered, or a report older than the field.
        {"pid", rank.worker_pid() > 0 ? json(rank.worker_pid()) : json()},
    });
  }
  return devices;
}

// nccl-tests' nccl_version is NCCL_VERSION_CODE (2.28.9 = 22809); ebnccl
// knows the library each node's workers load: the first node's, null when
// unknown (Gloo-only nodes).
json NcclVersionCode(const v1::TestReport& report) {
  for (const v1::NodeInventory& inventory : report.node_inventories()) {
    const std::vector<std::string> parts = absl::StrSplit(inventory.nccl_version(), '.');
    int major = 0, minor = 0, patch = 0;
    if (parts.size() == 3 && absl::SimpleAtoi(parts[0], &major) &&
        absl::SimpleAtoi(parts[1], &minor) && absl::SimpleAtoi(parts[2], &patch)) {
      return major * 10000 + minor * 100 + patch;
    }
  }
  return json();
}

// nccl-tests writes its whole environment, which is its ranks'. Ours is
// not the workers': what ebnccl sets for them is the test's NCCL_*
// overrides (the agents add their fabric settings, seen in nic_use[].
// nccl_env). By name: a proto map has no order.
json NcclEnvToJson(const v1::TestSpec& spec) {
  std::vector<std::string> env;
  for (const auto& [name, value] : spec.nccl_env()) env.push_back(absl::StrCat(name, "=", value));
  std::sort(env.begin(), env.end());
  return env;
}

// Each collective's footer (TestReport.collective_summaries).
json CollectivesToJson(const v1::TestReport& report) {
  json collectives = json::array();
  const double min_busbw = report.spec().min_busbw_gbps();
  for (const v1::CollectiveSummary& footer : report.collective_summaries()) {
    const double judged = spec::JudgedMean(footer.judged_avg_busbw_gbps(), footer.avg_busbw_gbps());
    collectives.push_back(json{
        {"collective", spec::DisplayName(footer.collective())},
        {"sizes", footer.sizes()},
        {"out_of_bounds",
         json{{"count", footer.wrong_elements()}, {"okay", footer.wrong_elements() == 0}}},
        {"average_bus_bandwidth",
         json{{"bandwidth", footer.avg_busbw_gbps()},
              {"judged", judged},
              {"okay", min_busbw > 0 ? json(judged >= min_busbw) : json("unchecked")}}},
    });
  }
  return collectives;
}

json FailureToJson(const v1::Failure& failure) {
  return json{
      {"kind", FailureKindName(failure.kind())},
      {"rank", failure.rank()},
      {"node", failure.node_name()},
      {"local_rank", failure.local_rank()},
      {"device", failure.device_index()},
      {"message", failure.message()},
      {"exit_code", failure.exit_code()},
      {"signal", failure.signal()},
      {"measured_busbw_gbps", failure.measured_busbw_gbps()},
      {"nccl_warnings",
       std::vector<std::string>(failure.nccl_warnings().begin(), failure.nccl_warnings().end())},
  };
}

// The straggler the coordinator stored when the test finished; null while
// it runs and when no rank stood out.
json SlowestRankToJson(const v1::TestReport& report) {
  if (!report.has_slowest_rank()) return json();
  const v1::SlowestRank& slowest = report.slowest_rank();
  // local_rank -1: the rank map did not have the rank, so neither is known.
  const bool placed = slowest.local_rank() >= 0;
  return json{
      {"rank", slowest.rank()},
      {"node", placed ? json(slowest.node_name()) : json()},
      {"local_rank", placed ? json(slowest.local_rank()) : json()},
      {"slowest_count", slowest.slowest_count()},
      {"measurements", slowest.measurements()},
      {"mean_excess_pct", slowest.mean_excess_pct()},
      {"mean_lag_us", slowest.mean_lag_us()},
      {"basis", slowest.basis().empty() ? json("time") : json(slowest.basis())},
  };
}

// What the arrivals said; null when none were recorded.
json ArrivalsToJson(const v1::TestReport& report) {
  if (!report.has_arrivals()) return json();
  const v1::ArrivalSummary& arrivals = report.arrivals();
  return json{
      {"measurements", arrivals.measurements()},
      {"late_measurements", arrivals.late_measurements()},
      {"max_lag_us", arrivals.max_lag_us()},
      {"flat", arrivals.flat()},
  };
}

// What the schedules and arrivals together blame; null before the test
// finished with results.
// The hosts' counters that moved (the positive signal of the path), worst
// first.
json CulpritCountersToJson(const v1::TestReport& report) {
  json out = json::array();
  for (const v1::CounterFinding& finding : report.culprit_counters()) {
    json entry = {{"node", finding.node_name()},
                  {"part", finding.part()},
                  {"what", finding.what()},
                  {"link_errors", finding.link_errors()}};
    if (finding.part() == "TCP") entry["retransmit_pct"] = finding.retransmit_pct();
    out.push_back(std::move(entry));
  }
  return out;
}

// What the ranks' GPUs said of their clocks; null where no rank read them.
json GpuThrottleSummaryToJson(const v1::TestReport& report) {
  if (!report.has_gpu_throttle()) return json();
  const v1::GpuThrottleSummary& g = report.gpu_throttle();
  json pct = json::array();
  for (double p : g.rank_throttled_pct()) pct.push_back(p < 0 ? json() : json(p));
  return json{
      {"measurements", g.measurements()},
      {"rank_throttled_pct", std::move(pct)},
      {"rank_policy", std::vector<std::string>(g.rank_policy().begin(), g.rank_policy().end())},
      {"rank_reasons", std::vector<uint64_t>(g.rank_reasons().begin(), g.rank_reasons().end())},
      {"flat", g.flat()},
  };
}

json CulpritToJson(const v1::TestReport& report) {
  if (report.culprit() == v1::CULPRIT_UNSPECIFIED) return json();
  json schedule;
  if (report.has_schedule()) {
    const v1::ScheduleSummary& s = report.schedule();
    schedule = json{
        {"measurements", s.measurements()},
        {"rank_stalled_pct",
         std::vector<double>(s.rank_stalled_pct().begin(), s.rank_stalled_pct().end())},
        {"flat", s.flat()},
        {"rank_throttled_pct",
         std::vector<double>(s.rank_throttled_pct().begin(), s.rank_throttled_pct().end())},
    };
  }
  const spec::CulpritKindRow& row = spec::RowOf(report.culprit());
  const bool ranked = row.part == spec::CulpritPart::kRank || row.part == spec::CulpritPart::kGpu;
  // A late rank that its host's stall explained keeps its rank beside the
  // host.
  const bool has_rank =
      (ranked || report.culprit() == v1::CULPRIT_DESCHEDULED_HOST) && report.has_slowest_rank();
  std::string node = report.culprit_node();
  if (node.empty() && has_rank) node = report.slowest_rank().node_name();
  json rank = has_rank ? json(report.slowest_rank().rank()) : json();
  // The failure that ended the test names its rank (culprit_node its node).
  if (row.part == spec::CulpritPart::kFailure && report.failures_size() > 0 &&
      report.failures(0).rank() >= 0) {
    rank = report.failures(0).rank();
  }
  return json{
      {"kind", spec::WireName(report.culprit())},
      {"rank", std::move(rank)},
      {"node", node.empty() ? json() : json(node)},
      {"part", report.culprit_part().empty() ? json() : json(report.culprit_part())},
      {"reason", report.culprit_reason()},
      {"schedule", std::move(schedule)},
      {"gpu_throttle", GpuThrottleSummaryToJson(report)},
      {"counters", CulpritCountersToJson(report)},
  };
}

json RailsToJson(const v1::TestReport& report) {
  json rails = json::array();
  for (const v1::RailResult& rail : report.rails()) {
    json members = json::array();
    for (const v1::RailMember& member : rail.members()) {
      members.push_back(json{
          {"rank", member.rank()},
          {"node", member.node_name()},
          {"device", member.device_index() >= 0 ? json(member.device_index()) : json()},
          {"gpu_pci_bus_id",
           member.gpu_pci_bus_id().empty() ? json() : json(member.gpu_pci_bus_id())},
          {"hca", member.hca().empty() ? json() : json(member.hca())},
      });
    }
    json results = json::array();
    for (const v1::SizeResult& row : rail.results()) {
      results.push_back(SizeResultToJson(row, report.spec()));
    }
    json straggler;
    if (rail.has_straggler()) {
      const v1::SlowestRank& late = rail.straggler();
      straggler = json{{"rank", late.rank()},
                       {"node", late.node_name()},
                       {"late_count", late.slowest_count()},
                       {"measurements", late.measurements()},
                       {"mean_lag_us", late.mean_lag_us()}};
    }
    rails.push_back(json{
        {"rail", rail.rail()},
        {"members", std::move(members)},
        {"results", std::move(results)},
        {"avg_busbw", rail.avg_busbw_gbps()},
        {"judged_avg_busbw", spec::JudgedMean(rail.judged_avg_busbw_gbps(), rail.avg_busbw_gbps())},
        {"busbw_ratio", rail.busbw_ratio()},
        {"slow", rail.slow()},
        {"straggler", std::move(straggler)},
    });
  }
  return rails;
}

}  // namespace

json SizeResultToJson(const v1::SizeResult& row, const v1::TestSpec& spec) {
  const bool report_errors = spec.check_iterations() > 0;
  // The row's own collective decides redop and root (a list mixes reducing
  // and rooted collectives with others).
  v1::TestSpec row_spec = spec;
  if (row.collective() != v1::COLLECTIVE_UNSPECIFIED) row_spec.set_collective(row.collective());
  json out{
      {"size", row.size_bytes()},
      {"count", row.count()},
      {"type", spec::DisplayName(spec.data_type())},
      {"redop", RedopLabel(row_spec)},
      {"root", RootLabel(row_spec)},
      {"collective", spec::DisplayName(row_spec.collective())},
      {"out_of_place", VariantToJson(row.out_of_place(), report_errors)},
      {"in_place", VariantToJson(row.in_place(), report_errors)},
      // nccl-tests: the timed calls per measurement, and the name of a
      // trace-replay experiment ("" for a sweep).
      {"actual_iterations", spec.iterations()},
      {"experiment_name", ""},
  };
  if (json per_iter = PerIterToJson(row.out_of_place()); !per_iter.is_null()) {
    out["out_of_place_per_iter"] = std::move(per_iter);
  }
  if (json per_iter = PerIterToJson(row.in_place()); !per_iter.is_null()) {
    out["in_place_per_iter"] = std::move(per_iter);
  }
  return out;
}

json ReportToJson(const v1::TestReport& report, absl::string_view version,
                  const std::vector<std::string>& args) {
  const v1::TestSpec& spec = report.spec();
  json results = json::array();
  for (const v1::SizeResult& row : report.results()) results.push_back(SizeResultToJson(row, spec));
  json failures = json::array();
  json errors = json::array();
  for (const v1::Failure& failure : report.failures()) {
    failures.push_back(FailureToJson(failure));
    errors.push_back(failure.message());
  }
  const double judged = spec::JudgedMean(report.judged_avg_busbw_gbps(), report.avg_busbw_gbps());
  const json busbw_okay =
      spec.min_busbw_gbps() > 0 ? json(judged >= spec.min_busbw_gbps()) : json("unchecked");
  return json{
      {"schema", kTestReportSchema},
      {"schema_version", kTestReportSchemaVersion},
      // nccl-tests' file format version; ebnccl's own is ebnccl_version.
      {"version", kNcclTestsJsonVersion},
      {"ebnccl_version", std::string(version)},
      {"args", args},
      {"env", NcclEnvToJson(spec)},
      {"nccl_version", NcclVersionCode(report)},
      {"test_id", report.test_id()},
      {"state", StateName(report.state())},
      {"transport", spec::DisplayName(report.transport())},
      {"collective", spec::DisplayName(spec.collective())},
      {"start_time", TimeOrNull(report.start_time_unix_ms())},
      {"end_time", TimeOrNull(report.end_time_unix_ms())},
      {"config", ConfigToJson(report)},
      {"devices", DevicesToJson(report)},
      {"results", std::move(results)},
      {"collectives", CollectivesToJson(report)},
      {"out_of_bounds",
       json{{"count", report.wrong_elements()}, {"okay", report.wrong_elements() == 0}}},
      {"average_bus_bandwidth",
       json{{"bandwidth", report.avg_busbw_gbps()}, {"judged", judged}, {"okay", busbw_okay}}},
      {"rank_times_finding", report.rank_times_finding()},
      {"slowest_rank", SlowestRankToJson(report)},
      {"arrivals", ArrivalsToJson(report)},
      {"culprit", CulpritToJson(report)},
      {"rails", RailsToJson(report)},
      {"port_counters", PortCountersToJson(report)},
      {"tcp_counters", TcpCountersToJson(report)},
      {"nccl_warnings", NcclWarningsToJson(report)},
      {"nccl_ras", NcclRasToJson(report)},
      {"nic_use", NicUseToJson(report)},
      {"drift_warnings",
       std::vector<std::string>(report.drift_warnings().begin(), report.drift_warnings().end())},
      {"failures", std::move(failures)},
      {"errors", std::move(errors)},
      {"summary", report.summary()},
      {"started_by", report.started_by()},
      {"exit_code", ExitCodeForReport(report)},
  };
}

json TestListToJson(const v1::ListTestsReply& reply, absl::string_view version) {
  json tests = json::array();
  for (const v1::TestReport& report : reply.tests()) {
    json test = ReportToJson(report, version);
    test.erase("args");
    tests.push_back(std::move(test));
  }
  return json{{"schema", kTestListSchema},
              {"schema_version", kJsonSchemaVersion},
              {"tests", std::move(tests)}};
}

}  // namespace eb::ebctl
