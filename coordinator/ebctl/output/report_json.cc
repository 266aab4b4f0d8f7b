#include "coordinator/ebctl/output/report_json.h"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "common/spec/names.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/node_json_text.h"
#include "coordinator/ebctl/output/per_iter_json.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;
namespace {

// Times not known yet (0 = unset in proto3) are null rather than 1970.
json TimeOrNull(int64_t unix_ms) { return unix_ms > 0 ? json(FormatUtcTime(unix_ms)) : json(); }

json VariantToJson(const v1::VariantResult& variant, bool report_errors) {
  json rank_times = json::array();
  for (double time : variant.rank_time_us()) rank_times.push_back(time);
  json rank_arrivals = json::array();
  for (double arrival : variant.rank_arrival_us()) rank_arrivals.push_back(arrival);
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

// nccl-tests' "[0000:0a:00]" form of a PCI bus id "0000:0a:00.0": without
// the function; "" when unknown (a CPU rank).
std::string DeviceHex(const std::string& pci_bus_id) {
  const size_t dot = pci_bus_id.rfind('.');
  return dot == std::string::npos ? pci_bus_id : pci_bus_id.substr(0, dot);
}

// The GPU model of a rank from its node's inventory; "" when unknown.
std::string DeviceInfo(const v1::TestReport& report, const v1::RankAssignment& rank) {
  if (rank.node_index() < 0 || rank.node_index() >= report.node_inventories_size()) return "";
  for (const v1::GpuInfo& gpu : report.node_inventories(rank.node_index()).gpus()) {
    if (gpu.index() == rank.device_index()) return gpu.name();
  }
  return "";
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

// Each collective's footer (TestReport.collective_summaries).
json CollectivesToJson(const v1::TestReport& report) {
  json collectives = json::array();
  const double min_busbw = report.spec().min_busbw_gbps();
  for (const v1::CollectiveSummary& footer : report.collective_summaries()) {
    collectives.push_back(json{
        {"collective", spec::DisplayName(footer.collective())},
        {"sizes", footer.sizes()},
        {"out_of_bounds",
         json{{"count", footer.wrong_elements()}, {"okay", footer.wrong_elements() == 0}}},
        {"average_bus_bandwidth",
         json{{"bandwidth", footer.avg_busbw_gbps()},
              {"okay",
               min_busbw > 0 ? json(footer.avg_busbw_gbps() >= min_busbw) : json("unchecked")}}},
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
      {"nccl_warnings",
       std::vector<std::string>(failure.nccl_warnings().begin(), failure.nccl_warnings().end())},
  };
}

json LinkToJson(const v1::PortLinkState& link) {
  return json{{"state", link.state()},
              {"phys_state", link.phys_state()},
              {"rate_gbps", link.rate_gbps()},
              {"link_layer", link.link_layer()}};
}

// Issue 12: port counters, NCCL warnings, NIC use.
json PortCountersToJson(const v1::TestReport& report) {
  json ports = json::array();
  for (const v1::PortEvidence& port : report.port_counters()) {
    json counters = json::object();
    for (const v1::PortCounter& counter : port.counters()) {
      counters[counter.name()] = json{{"before", counter.before()},
                                      {"after", counter.after()},
                                      {"delta", counter.delta()},
                                      {"error", counter.error_counter()}};
    }
    ports.push_back(json{
        {"node", port.node_name()},
        {"hca", port.hca()},
        {"port", port.port()},
        {"start", port.error().empty() ? LinkToJson(port.start()) : json()},
        {"end", port.error().empty() ? LinkToJson(port.end()) : json()},
        {"counters", std::move(counters)},
        {"grown_errors",
         std::vector<std::string>(port.grown_errors().begin(), port.grown_errors().end())},
        {"link_flapped", port.link_flapped()},
        {"error", port.error().empty() ? json() : json(port.error())},
    });
  }
  return ports;
}

json NcclWarningsToJson(const v1::TestReport& report) {
  json ranks = json::array();
  for (const v1::RankNcclWarnings& rank : report.nccl_warnings()) {
    ranks.push_back(
        json{{"rank", rank.rank()},
             {"node", rank.node_name()},
             {"lines", std::vector<std::string>(rank.lines().begin(), rank.lines().end())},
             {"truncated", rank.truncated()}});
  }
  return ranks;
}

json NcclRasToJson(const v1::TestReport& report) {
  json nodes = json::array();
  for (const v1::NcclRasStatus& ras : report.nccl_ras()) {
    nodes.push_back(json{{"node", ras.node_name()},
                         {"port", ras.port()},
                         {"text", ras.text()},
                         {"truncated", ras.truncated()},
                         {"error", ras.error().empty() ? json() : json(ras.error())}});
  }
  return nodes;
}

json NicUseToJson(const v1::TestReport& report) {
  json ranks = json::array();
  for (const v1::RankNicUse& use : report.nic_use()) {
    ranks.push_back(
        json{{"rank", use.rank()},
             {"node", use.node_name()},
             {"nics", std::vector<std::string>(use.nics().begin(), use.nics().end())},
             {"expected_hca", use.expected_hca().empty() ? json() : json(use.expected_hca())},
             {"unexpected", use.unexpected()}});
  }
  return ranks;
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

json ReportToJson(const v1::TestReport& report, absl::string_view version) {
  const v1::TestSpec& spec = report.spec();
  json results = json::array();
  for (const v1::SizeResult& row : report.results()) results.push_back(SizeResultToJson(row, spec));
  json failures = json::array();
  json errors = json::array();
  for (const v1::Failure& failure : report.failures()) {
    failures.push_back(FailureToJson(failure));
    errors.push_back(failure.message());
  }
  const json busbw_okay = spec.min_busbw_gbps() > 0
                              ? json(report.avg_busbw_gbps() >= spec.min_busbw_gbps())
                              : json("unchecked");
  return json{
      {"schema", kTestReportSchema},
      {"schema_version", kTestReportSchemaVersion},
      // nccl-tests' file format version; ebnccl's own is ebnccl_version.
      {"version", kNcclTestsJsonVersion},
      {"ebnccl_version", std::string(version)},
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
      {"average_bus_bandwidth", json{{"bandwidth", report.avg_busbw_gbps()}, {"okay", busbw_okay}}},
      {"slowest_rank", SlowestRankToJson(report)},
      {"arrivals", ArrivalsToJson(report)},
      {"rails", RailsToJson(report)},
      {"port_counters", PortCountersToJson(report)},
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

namespace {

json NodeToJson(const v1::NodeStatus& node) {
  const v1::NodeInventory& inventory = node.inventory();
  json gpus = json::array();
  for (const v1::GpuInfo& gpu : inventory.gpus()) {
    gpus.push_back(
        json{{"index", gpu.index()},
             {"name", gpu.name()},
             {"pci_bus_id", gpu.pci_bus_id()},
             {"memory_bytes", gpu.memory_bytes()},
             {"numa_node",
              gpu.numa_node() >= 0 && !gpu.hca_affinity().empty() ? json(gpu.numa_node()) : json()},
             {"nearest_hca", gpu.nearest_hca().empty() ? json() : json(gpu.nearest_hca())},
             {"hca_affinity", gpu.hca_affinity().empty() ? json() : json(gpu.hca_affinity())}});
  }
  json hcas = json::array();
  for (const v1::HcaInfo& hca : inventory.hcas()) {
    hcas.push_back(
        json{{"name", hca.name()},
             {"port", hca.port()},
             {"state", hca.state()},
             {"link_layer", hca.link_layer()},
             {"rate_gbps", hca.rate_gbps()},
             {"error", hca.error()},
             {"phys_state", hca.phys_state()},
             {"fw_ver", hca.fw_ver()},
             {"pci_bus_id", hca.pci_bus_id()},
             {"numa_node",
              hca.numa_node() >= 0 && !hca.pci_bus_id().empty() ? json(hca.numa_node()) : json()}});
  }
  json interfaces = json::array();
  for (const v1::NetworkInterface& iface : inventory.interfaces()) {
    interfaces.push_back(
        json{{"name", iface.name()},
             {"addresses",
              json(std::vector<std::string>(iface.addresses().begin(), iface.addresses().end()))},
             {"up", iface.up()},
             {"mtu_bytes", iface.mtu_bytes()},
             {"speed_mbps", iface.speed_mbps()}});
  }
  json transports = json::array();
  for (int transport : inventory.transports()) {
    transports.push_back(spec::DisplayName(static_cast<v1::Transport>(transport)));
  }
  json out{
      {"name", node.node_name()},
      {"address", node.peer_address()},
      {"state", NodeStateName(node.state())},
      {"heartbeat_age_ms", node.heartbeat_age_ms()},
      {"current_test", node.current_test_id().empty() ? json() : json(node.current_test_id())},
      {"hostname", inventory.hostname()},
      {"host_id", inventory.host_id()},
      {"slots", inventory.worker_slots()},
      {"gpus", std::move(gpus)},
      {"hcas", std::move(hcas)},
      {"interfaces", std::move(interfaces)},
      {"bootstrap_interface", inventory.bootstrap_interface()},
      {"transports", std::move(transports)},
      {"nccl_version", inventory.nccl_version()},
      {"driver_version", inventory.driver_version()},
      {"agent_version", inventory.agent_version()},
  };
  // Only for nodes a validation judged (issue 11: repeat offenders).
  if (node.last_verdict() != v1::VERDICT_UNSPECIFIED) {
    out["last_validation"] = json{{"validation_id", node.last_validation_id()},
                                  {"verdict", spec::WireName(node.last_verdict())},
                                  {"time", FormatUtcTime(node.last_verdict_time_unix_ms())},
                                  {"bad_count", node.bad_verdict_count()},
                                  {"repeat_offender", node.bad_verdict_count() >= 2}};
  }
  return out;
}

// The listing without its nodes (nodes[] empty).
json NodesEnvelope(const v1::ListNodesReply& reply) {
  return json{{"schema", kNodeListSchema},
              {"schema_version", kJsonSchemaVersion},
              {"insecure", reply.insecure()},
              {"nodes", json::array()}};
}

}  // namespace

json NodesToJson(const v1::ListNodesReply& reply) {
  json doc = NodesEnvelope(reply);
  json& nodes = doc["nodes"];
  for (const v1::NodeStatus& node : reply.nodes()) nodes.push_back(NodeToJson(node));
  return doc;
}

void WriteNodesJson(const v1::ListNodesReply& reply, std::ostream& out) {
  const std::string envelope = NodesEnvelope(reply).dump(2);
  if (reply.nodes().empty()) {
    out << envelope;
    return;
  }
  constexpr std::string_view kEmptyNodes = "\"nodes\": []";
  const size_t at = envelope.find(kEmptyNodes);
  // Written out in chunks of one reused buffer: growing one string to the
  // whole listing cost as much again in copies and page faults.
  constexpr size_t kChunkBytes = 256 << 10;
  std::string chunk;
  chunk.reserve(2 * kChunkBytes);
  chunk.append(envelope, 0, at);
  chunk += "\"nodes\": [\n";
  bool first = true;
  for (const v1::NodeStatus& node : reply.nodes()) {
    if (!first) chunk += ",\n";
    first = false;
    // dump(2) puts an element of the top-level nodes[] at an indent of 4.
    chunk += "    ";
    AppendNodeJson(node, 4, &chunk);
    if (chunk.size() >= kChunkBytes) {
      out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      chunk.clear();
    }
  }
  chunk += "\n  ]";
  chunk.append(envelope, at + kEmptyNodes.size());
  out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
}

json TestListToJson(const v1::ListTestsReply& reply, absl::string_view version) {
  json tests = json::array();
  for (const v1::TestReport& report : reply.tests()) tests.push_back(ReportToJson(report, version));
  return json{{"schema", kTestListSchema},
              {"schema_version", kJsonSchemaVersion},
              {"tests", std::move(tests)}};
}

json LogToJson(absl::string_view test_id, int rank, const v1::GetLogReply& reply) {
  return json{{"test_id", std::string(test_id)}, {"rank", rank},
              {"node", reply.node_name()},       {"path", reply.path()},
              {"truncated", reply.truncated()},  {"content", reply.content()}};
}

}  // namespace eb::ebctl
