#include "coordinator/topology/paths.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace eb::topology {
namespace {

const std::vector<int> kNoNodes;

}  // namespace

const char* RoutingName(Routing routing) {
  return routing == Routing::kDestinationModK ? "destination-mod-k" : "spray";
}

int FabricIndex::SwitchId(const std::string& name) {
  auto [it, inserted] = switch_ids_.emplace(name, static_cast<int>(switches_.size()));
  if (inserted) switches_.push_back(name);
  return it->second;
}

FabricIndex::FabricIndex(const Fabric& fabric, const std::vector<std::string>& nodes)
    : node_names_(nodes) {
  std::map<std::string, int> node_ids;
  for (size_t i = 0; i < nodes.size(); ++i) node_ids.emplace(nodes[i], static_cast<int>(i));
  for (const Cable& cable : fabric.cables) {
    if (node_ids.count(cable.node) != 0) rails_ = std::max(rails_, cable.rail + 1);
  }
  cable_.assign(nodes.size(), std::vector<int>(rails_, -1));
  port_rank_.assign(nodes.size(), std::vector<int>(rails_, -1));
  std::map<std::pair<int, int>, std::vector<std::pair<int, int>>>
      by_port;  // (leaf, rail) -> (port, node)
  for (const Cable& cable : fabric.cables) {
    auto node = node_ids.find(cable.node);
    if (node == node_ids.end()) continue;
    Link link;
    link.kind = LinkKind::kCable;
    link.node = node->second;
    link.hca = cable.hca;
    link.rail = cable.rail;
    link.leaf = SwitchId(cable.leaf);
    link.ports = {{cable.leaf_port, 0}};
    cable_[link.node][cable.rail] = static_cast<int>(links_.size());
    by_port[{link.leaf, cable.rail}].emplace_back(cable.leaf_port, link.node);
    links_.push_back(std::move(link));
  }
  for (auto& [key, ports] : by_port) {
    std::sort(ports.begin(), ports.end());
    std::vector<int>& on = on_leaf_[key];
    for (size_t i = 0; i < ports.size(); ++i) {
      on.push_back(ports[i].second);
      port_rank_[ports[i].second][key.second] = static_cast<int>(i);
    }
  }
  std::map<std::pair<int, int>, int> uplinks;  // (leaf, spine) -> link id
  for (const Uplink& uplink : fabric.uplinks) {
    const int leaf = SwitchId(uplink.leaf);
    const int spine = SwitchId(uplink.spine);
    auto [it, inserted] = uplinks.emplace(std::make_pair(leaf, spine), -1);
    if (inserted) {
      Link link;
      link.kind = LinkKind::kUplink;
      link.leaf = leaf;
      link.spine = spine;
      it->second = static_cast<int>(links_.size());
      links_.push_back(std::move(link));
    }
    links_[it->second].ports.emplace_back(uplink.leaf_port, uplink.spine_port);
  }
  leaf_spines_.assign(switches_.size(), {});
  leaf_spine_ids_.assign(switches_.size(), {});
  leaf_uplinks_.assign(switches_.size(), {});
  for (const auto& [ends, link] : uplinks) {  // by (leaf, spine id)
    leaf_spines_[ends.first].push_back(ends.second);
    leaf_spine_ids_[ends.first].push_back(ends.second);
    leaf_uplinks_[ends.first].push_back(link);
  }
  for (std::vector<int>& spines : leaf_spines_) {
    std::sort(spines.begin(), spines.end(),
              [this](int a, int b) { return switches_[a] < switches_[b]; });
  }
}

int FabricIndex::SwitchIdOf(const std::string& name) const {
  auto it = switch_ids_.find(name);
  return it == switch_ids_.end() ? -1 : it->second;
}

int FabricIndex::CableOf(int node, int rail) const {
  if (node < 0 || node >= node_count() || rail < 0 || rail >= rails_) return -1;
  return cable_[node][rail];
}

int FabricIndex::LeafOf(int node, int rail) const {
  const int cable = CableOf(node, rail);
  return cable < 0 ? -1 : links_[cable].leaf;
}

const std::vector<int>& FabricIndex::NodesOn(int leaf, int rail) const {
  auto it = on_leaf_.find({leaf, rail});
  return it == on_leaf_.end() ? kNoNodes : it->second;
}

std::vector<int> FabricIndex::LeavesOf(int rail) const {
  std::vector<int> out;
  for (const auto& [key, nodes] : on_leaf_) {
    if (key.second == rail) out.push_back(key.first);
  }
  return out;
}

int FabricIndex::UplinkOf(int leaf, int spine) const {
  if (leaf < 0 || leaf >= static_cast<int>(leaf_spine_ids_.size())) return -1;
  const std::vector<int>& spines = leaf_spine_ids_[leaf];
  auto it = std::lower_bound(spines.begin(), spines.end(), spine);
  if (it == spines.end() || *it != spine) return -1;
  return leaf_uplinks_[leaf][it - spines.begin()];
}

int FabricIndex::SpineTowards(int from_leaf, int destination, int rail) const {
  const int to_leaf = LeafOf(destination, rail);
  if (from_leaf < 0 || to_leaf < 0) return -1;
  const std::vector<int>& from = leaf_spine_ids_[from_leaf];
  const std::vector<int>& to = leaf_spines_[to_leaf];
  auto common = [&](int spine) { return std::binary_search(from.begin(), from.end(), spine); };
  // Leaves of one rail reach the same spines: then every spine is common.
  const int count = leaf_spine_ids_[to_leaf] == from
                        ? static_cast<int>(to.size())
                        : static_cast<int>(std::count_if(to.begin(), to.end(), common));
  if (count == 0) return -1;
  int pick = port_rank_[destination][rail] % count;
  if (count == static_cast<int>(to.size())) return to[pick];
  for (int spine : to) {
    if (!common(spine)) continue;
    if (pick-- == 0) return spine;
  }
  return -1;
}

PathLinks FabricIndex::Path(int a, int b, int rail, Routing routing) const {
  PathLinks path;
  const int cable_a = CableOf(a, rail), cable_b = CableOf(b, rail);
  if (cable_a < 0 || cable_b < 0) {
    path.reachable = false;
    return path;
  }
  path.links = {cable_a, cable_b};
  const int leaf_a = links_[cable_a].leaf, leaf_b = links_[cable_b].leaf;
  if (leaf_a != leaf_b) {
    if (routing == Routing::kDestinationModK) {
      const int towards_b = SpineTowards(leaf_a, b, rail);
      const int towards_a = SpineTowards(leaf_b, a, rail);
      if (towards_a < 0 || towards_b < 0) {
        path.reachable = false;
        return path;
      }
      for (int spine : {towards_a, towards_b}) {
        path.links.push_back(UplinkOf(leaf_a, spine));
        path.links.push_back(UplinkOf(leaf_b, spine));
      }
    } else {
      const std::vector<int>& to = leaf_spine_ids_[leaf_b];
      for (int spine : leaf_spine_ids_[leaf_a]) {
        if (!std::binary_search(to.begin(), to.end(), spine)) continue;
        path.links.push_back(UplinkOf(leaf_a, spine));
        path.links.push_back(UplinkOf(leaf_b, spine));
      }
      if (path.links.size() == 2) {
        path.reachable = false;
        return path;
      }
    }
  }
  std::sort(path.links.begin(), path.links.end());
  path.links.erase(std::unique(path.links.begin(), path.links.end()), path.links.end());
  return path;
}

std::string FabricIndex::Describe(int id) const {
  const Link& link = links_[id];
  if (link.kind == LinkKind::kCable) {
    return absl::StrCat("cable ", node_names_[link.node], " ", link.hca, " (rail ", link.rail,
                        ") - ", PortName(switches_[link.leaf], link.ports[0].first));
  }
  std::string out =
      absl::StrCat("uplink ", switches_[link.leaf], " - ", switches_[link.spine], " (ports");
  for (const auto& [leaf_port, spine_port] : link.ports) {
    absl::StrAppend(&out, " ", leaf_port, "-", spine_port);
  }
  return absl::StrCat(out, ")");
}

}  // namespace eb::topology
