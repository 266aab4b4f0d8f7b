#include "coordinator/ebctl/output/nodes_json.h"

#include <string>
#include <string_view>
#include <vector>

#include "common/spec/names.h"
#include "common/spec/verdicts.h"
#include "common/spec/wire_names.h"
#include "coordinator/ebctl/output/json_schema.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/node_json_text.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;

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
    out["last_validation"] =
        json{{"validation_id", node.last_validation_id()},
             {"verdict", spec::WireName(node.last_verdict())},
             {"time", FormatUtcTime(node.last_verdict_time_unix_ms())},
             {"bad_count", node.bad_verdict_count()},
             {"repeat_offender", spec::IsRepeatOffender(node.bad_verdict_count())}};
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

}  // namespace eb::ebctl
