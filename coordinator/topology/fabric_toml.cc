#include "coordinator/topology/fabric_toml.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/spec/toml_tables.h"
#include "coordinator/topology/ibnetdiscover.h"

namespace eb::topology {
namespace {

const spec::TomlTablesSchema& Schema() {
  static const auto* const schema =
      new spec::TomlTablesSchema{"topology",
                                 {"cable", "uplink", "switch"},
                                 kMaxTopologyLines,
                                 kMaxTopologyLineBytes,
                                 kMaxCables + kMaxUplinks + kMaxSwitches};
  return *schema;
}

absl::StatusOr<int> Port(const spec::TomlEntry& entry, const std::string& key) {
  absl::StatusOr<int64_t> port = spec::TomlInteger(Schema(), entry, key, 1, kMaxSwitchPort);
  if (!port.ok()) return port.status();
  return static_cast<int>(*port);
}

absl::Status AddCable(const spec::TomlEntry& entry, Fabric& fabric,
                      std::set<const Cable*>& unranked) {
  if (auto s = spec::OnlyTomlKeys(Schema(), entry, {"node", "hca", "rail", "leaf", "leaf_port"});
      !s.ok()) {
    return s;
  }
  Cable cable;
  auto node = spec::TomlString(Schema(), entry, "node");
  if (!node.ok()) return node.status();
  auto hca = spec::TomlString(Schema(), entry, "hca");
  if (!hca.ok()) return hca.status();
  auto leaf = spec::TomlString(Schema(), entry, "leaf");
  if (!leaf.ok()) return leaf.status();
  auto port = Port(entry, "leaf_port");
  if (!port.ok()) return port.status();
  cable.node = *node;
  cable.hca = *hca;
  cable.leaf = *leaf;
  cable.leaf_port = *port;
  const bool has_rail = spec::HasTomlKey(entry, "rail");
  if (has_rail) {
    auto rail = spec::TomlInteger(Schema(), entry, "rail", 0, kMaxRails - 1);
    if (!rail.ok()) return rail.status();
    cable.rail = static_cast<int>(*rail);
  }
  if (fabric.cables.size() >= kMaxCables) {
    return spec::TomlLineError(Schema(), entry.line,
                               absl::StrCat("more than ", kMaxCables, " cables"));
  }
  fabric.cables.push_back(std::move(cable));
  if (!has_rail) unranked.insert(&fabric.cables.back());
  return absl::OkStatus();
}

absl::Status AddUplink(const spec::TomlEntry& entry, Fabric& fabric) {
  if (auto s = spec::OnlyTomlKeys(Schema(), entry, {"leaf", "leaf_port", "spine", "spine_port"});
      !s.ok()) {
    return s;
  }
  Uplink uplink;
  auto leaf = spec::TomlString(Schema(), entry, "leaf");
  if (!leaf.ok()) return leaf.status();
  auto spine = spec::TomlString(Schema(), entry, "spine");
  if (!spine.ok()) return spine.status();
  auto leaf_port = Port(entry, "leaf_port");
  if (!leaf_port.ok()) return leaf_port.status();
  auto spine_port = Port(entry, "spine_port");
  if (!spine_port.ok()) return spine_port.status();
  uplink.leaf = *leaf;
  uplink.spine = *spine;
  uplink.leaf_port = *leaf_port;
  uplink.spine_port = *spine_port;
  if (fabric.uplinks.size() >= kMaxUplinks) {
    return spec::TomlLineError(Schema(), entry.line,
                               absl::StrCat("more than ", kMaxUplinks, " uplinks"));
  }
  fabric.uplinks.push_back(std::move(uplink));
  return absl::OkStatus();
}

absl::Status AddSwitch(const spec::TomlEntry& entry, Fabric& fabric) {
  if (auto s = spec::OnlyTomlKeys(Schema(), entry, {"name", "guid"}); !s.ok()) return s;
  auto name = spec::TomlString(Schema(), entry, "name");
  if (!name.ok()) return name.status();
  auto guid = spec::TomlString(Schema(), entry, "guid");
  if (!guid.ok()) return guid.status();
  if (fabric.switch_guids.size() >= kMaxSwitches) {
    return spec::TomlLineError(Schema(), entry.line,
                               absl::StrCat("more than ", kMaxSwitches, " switches"));
  }
  if (!fabric.switch_guids.emplace(*name, *guid).second) {
    return spec::TomlLineError(Schema(), entry.line,
                               absl::StrCat("switch ", *name, " listed twice"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Fabric> ParseFabricToml(absl::string_view text) {
  absl::StatusOr<spec::TomlTables> tables = spec::ParseTomlTables(text, Schema());
  if (!tables.ok()) return tables.status();
  if (auto status = spec::CheckTomlVersion(Schema(), *tables, 1); !status.ok()) return status;
  Fabric fabric;
  // Cables are pointed at (unranked) while the vector grows: no reallocation.
  fabric.cables.reserve(std::min<size_t>(tables->entries.size(), kMaxCables));
  std::set<const Cable*> unranked;
  for (const spec::TomlEntry& entry : tables->entries) {
    absl::Status added = entry.table == "cable"    ? AddCable(entry, fabric, unranked)
                         : entry.table == "uplink" ? AddUplink(entry, fabric)
                                                   : AddSwitch(entry, fabric);
    if (!added.ok()) return added;
  }
  // Cables without a rail: the node's HCAs in natural name order, after
  // the rails given explicitly.
  std::map<std::string, std::vector<Cable*>> by_node;
  for (Cable& cable : fabric.cables) {
    if (unranked.count(&cable) != 0) by_node[cable.node].push_back(&cable);
  }
  for (auto& [node, cables] : by_node) {
    std::sort(cables.begin(), cables.end(),
              [](const Cable* a, const Cable* b) { return NaturalLess(a->hca, b->hca); });
    for (size_t r = 0; r < cables.size(); ++r) cables[r]->rail = static_cast<int>(r);
  }
  if (auto status = CheckFabric(fabric); !status.ok()) return status;
  return fabric;
}

}  // namespace eb::topology
