#include "coordinator/ebctl/output/topology_output.h"

#include <set>

#include "absl/strings/str_format.h"
#include "coordinator/ebctl/output/printable.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;

namespace {

int CountRole(const v1::GetTopologyReply& reply, const std::string& role) {
  int count = 0;
  for (const v1::TopologySwitch& sw : reply.switches()) count += sw.role() == role ? 1 : 0;
  return count;
}

int CountNodes(const v1::GetTopologyReply& reply) {
  std::set<std::string> nodes;
  for (const v1::TopologyCable& cable : reply.cables()) nodes.insert(cable.node());
  return static_cast<int>(nodes.size());
}

json NodeHcas(const google::protobuf::RepeatedPtrField<v1::NodeHca>& list) {
  json out = json::array();
  for (const v1::NodeHca& item : list) out.push_back({{"node", item.node()}, {"hca", item.hca()}});
  return out;
}

void AppendNodeHcas(std::string& out, const char* what,
                    const google::protobuf::RepeatedPtrField<v1::NodeHca>& list) {
  for (const v1::NodeHca& item : list) {
    absl::StrAppendFormat(&out, "  %s %s: %s\n", item.node(), item.hca(), what);
  }
}

}  // namespace

bool TopologyMismatches(const v1::GetTopologyReply& reply) {
  return reply.nodes_not_in_fleet_size() + reply.nodes_not_in_topology_size() +
             reply.hcas_not_in_fleet_size() + reply.hcas_not_in_topology_size() >
         0;
}

std::string TopologyText(const v1::GetTopologyReply& raw) {
  if (!raw.loaded()) {
    return "no topology loaded ([topology] file / --topology-file of eb-coordinator)\n";
  }
  const v1::GetTopologyReply reply = PrintableCopy(raw);
  std::string out = absl::StrFormat(
      "topology %s (%s): %d leaves, %d spines, %d uplinks, %d nodes, %d node-side cables\n",
      reply.file(), reply.format(), CountRole(reply, "leaf"), CountRole(reply, "spine"),
      reply.uplinks_size(), CountNodes(reply), reply.cables_size());
  absl::StrAppendFormat(&out, "\n%-24s  %-6s  %s\n", "SWITCH", "ROLE", "GUID");
  for (const v1::TopologySwitch& sw : reply.switches()) {
    absl::StrAppendFormat(&out, "%-24s  %-6s  %s\n", sw.name(), sw.role(),
                          sw.guid().empty() ? "-" : sw.guid());
  }
  if (reply.uplinks_size() > 0) {
    absl::StrAppendFormat(&out, "\n%-24s  %-9s  %-24s  %s\n", "LEAF", "LEAF PORT", "SPINE",
                          "SPINE PORT");
    for (const v1::TopologyUplink& uplink : reply.uplinks()) {
      absl::StrAppendFormat(&out, "%-24s  %-9d  %-24s  %d\n", uplink.leaf(), uplink.leaf_port(),
                            uplink.spine(), uplink.spine_port());
    }
  }
  absl::StrAppendFormat(&out, "\n%-20s  %-12s  %-4s  %-24s  %s\n", "NODE", "HCA", "RAIL", "LEAF",
                        "LEAF PORT");
  for (const v1::TopologyCable& cable : reply.cables()) {
    absl::StrAppendFormat(&out, "%-20s  %-12s  %-4d  %-24s  %d\n", cable.node(), cable.hca(),
                          cable.rail(), cable.leaf(), cable.leaf_port());
  }
  if (!TopologyMismatches(reply)) {
    out += "\nthe topology and the agents' inventories agree\n";
    return out;
  }
  out += "\nthe topology and the agents' inventories disagree (not localized on links):\n";
  for (const std::string& node : reply.nodes_not_in_fleet()) {
    absl::StrAppendFormat(&out, "  %s: in the topology, no agent of that name\n", node);
  }
  for (const std::string& node : reply.nodes_not_in_topology()) {
    absl::StrAppendFormat(&out, "  %s: an agent, no cable in the topology\n", node);
  }
  AppendNodeHcas(out, "cabled in the topology, not reported by its agent",
                 reply.hcas_not_in_fleet());
  AppendNodeHcas(out, "reported by its agent, no cable in the topology",
                 reply.hcas_not_in_topology());
  return out;
}

json TopologyToJson(const v1::GetTopologyReply& reply) {
  json switches = json::array();
  for (const v1::TopologySwitch& sw : reply.switches()) {
    switches.push_back({{"name", sw.name()}, {"guid", sw.guid()}, {"role", sw.role()}});
  }
  json uplinks = json::array();
  for (const v1::TopologyUplink& uplink : reply.uplinks()) {
    uplinks.push_back({{"leaf", uplink.leaf()},
                       {"leaf_port", uplink.leaf_port()},
                       {"spine", uplink.spine()},
                       {"spine_port", uplink.spine_port()}});
  }
  json cables = json::array();
  for (const v1::TopologyCable& cable : reply.cables()) {
    cables.push_back({{"node", cable.node()},
                      {"hca", cable.hca()},
                      {"rail", cable.rail()},
                      {"leaf", cable.leaf()},
                      {"leaf_port", cable.leaf_port()}});
  }
  json mismatches = {
      {"nodes_not_in_fleet", json(std::vector<std::string>(reply.nodes_not_in_fleet().begin(),
                                                           reply.nodes_not_in_fleet().end()))},
      {"nodes_not_in_topology",
       json(std::vector<std::string>(reply.nodes_not_in_topology().begin(),
                                     reply.nodes_not_in_topology().end()))},
      {"hcas_not_in_fleet", NodeHcas(reply.hcas_not_in_fleet())},
      {"hcas_not_in_topology", NodeHcas(reply.hcas_not_in_topology())}};
  return {{"schema", kTopologySchema},
          {"schema_version", 1},
          {"loaded", reply.loaded()},
          {"file", reply.file()},
          {"format", reply.format()},
          {"counts",
           {{"leaves", CountRole(reply, "leaf")},
            {"spines", CountRole(reply, "spine")},
            {"uplinks", reply.uplinks_size()},
            {"nodes", CountNodes(reply)},
            {"cables", reply.cables_size()}}},
          {"switches", std::move(switches)},
          {"uplinks", std::move(uplinks)},
          {"cables", std::move(cables)},
          {"mismatches", std::move(mismatches)},
          {"mismatch", TopologyMismatches(reply)}};
}

}  // namespace eb::ebctl
