#include "coordinator/ebctl/report/fabric_data.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace eb::ebctl::report {
namespace v1 = ebnccl::v1;
using nlohmann::json;

namespace {

// node -> the leaf of its lowest-rail cable.
json LeafOfEachNode(const v1::GetTopologyReply& topology) {
  std::map<std::string, std::pair<int, std::string>> lowest;  // node -> (rail, leaf)
  for (const v1::TopologyCable& cable : topology.cables()) {
    auto [it, added] = lowest.emplace(cable.node(), std::make_pair(cable.rail(), cable.leaf()));
    if (!added && cable.rail() < it->second.first) it->second = {cable.rail(), cable.leaf()};
  }
  json leaf_of = json::object();
  for (const auto& [node, rail_leaf] : lowest) leaf_of[node] = rail_leaf.second;
  return leaf_of;
}

json Switch(const std::string& name, const std::map<std::string, std::string>& guids) {
  auto it = guids.find(name);
  return json{{"name", name}, {"guid", it == guids.end() ? "" : it->second}};
}

using NodesOfLeaf = std::map<std::string, std::set<std::string>>;
using CablesToSpine = std::map<std::string, std::map<std::string, int>>;  // leaf -> spine -> n

json Rail(int rail, const NodesOfLeaf& leaves, const CablesToSpine& uplinks,
          const std::map<std::string, std::string>& guids) {
  json leaf_list = json::array();
  std::map<std::string, int> spine_index;
  for (const auto& [leaf, nodes] : leaves) {
    json entry = Switch(leaf, guids);
    entry["nodes"] = json(std::vector<std::string>(nodes.begin(), nodes.end()));
    leaf_list.push_back(std::move(entry));
    auto up = uplinks.find(leaf);
    if (up == uplinks.end()) continue;
    for (const auto& [spine, cables] : up->second) spine_index.emplace(spine, 0);
  }
  json spine_list = json::array();
  int next = 0;
  for (auto& [spine, index] : spine_index) {
    index = next++;
    spine_list.push_back(Switch(spine, guids));
  }
  json links = json::array();
  int leaf_index = 0;
  for (const auto& [leaf, nodes] : leaves) {
    auto up = uplinks.find(leaf);
    if (up != uplinks.end()) {
      for (const auto& [spine, cables] : up->second) {
        links.push_back(json::array({leaf_index, spine_index.at(spine), cables}));
      }
    }
    ++leaf_index;
  }
  return json{{"rail", rail},
              {"leaves", std::move(leaf_list)},
              {"spines", std::move(spine_list)},
              {"uplinks", std::move(links)}};
}

}  // namespace

void AddFabric(json& page, const v1::GetTopologyReply& topology) {
  if (!topology.loaded()) return;
  page["leaf_of"] = LeafOfEachNode(topology);
  std::map<std::string, std::string> guids;
  for (const v1::TopologySwitch& s : topology.switches()) guids[s.name()] = s.guid();
  std::map<int, NodesOfLeaf> rails;
  for (const v1::TopologyCable& cable : topology.cables()) {
    rails[cable.rail()][cable.leaf()].insert(cable.node());
  }
  CablesToSpine uplinks;
  for (const v1::TopologyUplink& uplink : topology.uplinks()) {
    ++uplinks[uplink.leaf()][uplink.spine()];
  }
  json rail_list = json::array();
  for (const auto& [rail, leaves] : rails) rail_list.push_back(Rail(rail, leaves, uplinks, guids));
  page["fabric"] = json{{"rails", std::move(rail_list)}};
}

}  // namespace eb::ebctl::report
