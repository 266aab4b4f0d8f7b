#include "coordinator/topology/fabric.h"

#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"

namespace eb::topology {
namespace {

absl::Status CheckName(const std::string& name, const std::string& what) {
  if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty name"));
  if (name.size() > kMaxNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": name longer than ", kMaxNameBytes, " bytes"));
  }
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": control character in a name"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPort(int port, const std::string& what) {
  if (port < 1 || port > kMaxSwitchPort) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": port ", port, " outside 1..", kMaxSwitchPort));
  }
  return absl::OkStatus();
}

}  // namespace

std::string PortName(const std::string& switch_name, int port) {
  return absl::StrCat(switch_name, " port ", port);
}

absl::Status CheckFabric(const Fabric& fabric) {
  if (fabric.cables.size() > kMaxCables) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology: ", fabric.cables.size(), " node cables, at most ", kMaxCables));
  }
  if (fabric.uplinks.size() > kMaxUplinks) {
    return absl::InvalidArgumentError(
        absl::StrCat("topology: ", fabric.uplinks.size(), " uplinks, at most ", kMaxUplinks));
  }
  std::set<std::pair<std::string, std::string>> hcas;
  std::set<std::pair<std::string, int>> rails;
  std::set<std::pair<std::string, int>> ports;
  std::set<std::string> leaves, spines;
  for (const Cable& cable : fabric.cables) {
    const std::string what = absl::StrCat("cable of node ", cable.node.substr(0, kMaxNameBytes),
                                          " HCA ", cable.hca.substr(0, kMaxNameBytes));
    if (auto s = CheckName(cable.node, what); !s.ok()) return s;
    if (auto s = CheckName(cable.hca, what); !s.ok()) return s;
    if (auto s = CheckName(cable.leaf, what); !s.ok()) return s;
    if (auto s = CheckPort(cable.leaf_port, what); !s.ok()) return s;
    if (cable.rail < 0 || cable.rail >= kMaxRails) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": rail ", cable.rail, " outside 0..", kMaxRails - 1));
    }
    if (!hcas.emplace(cable.node, cable.hca).second) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": cabled twice"));
    }
    if (!rails.emplace(cable.node, cable.rail).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": a second HCA on rail ", cable.rail, " of the node"));
    }
    if (!ports.emplace(cable.leaf, cable.leaf_port).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", PortName(cable.leaf, cable.leaf_port), " used twice"));
    }
    leaves.insert(cable.leaf);
  }
  for (const Uplink& uplink : fabric.uplinks) {
    const std::string what = absl::StrCat("uplink ", uplink.leaf.substr(0, kMaxNameBytes), " - ",
                                          uplink.spine.substr(0, kMaxNameBytes));
    if (auto s = CheckName(uplink.leaf, what); !s.ok()) return s;
    if (auto s = CheckName(uplink.spine, what); !s.ok()) return s;
    if (auto s = CheckPort(uplink.leaf_port, what); !s.ok()) return s;
    if (auto s = CheckPort(uplink.spine_port, what); !s.ok()) return s;
    if (leaves.count(uplink.spine) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", uplink.spine, " has node cables: a leaf, not a spine"));
    }
    if (!ports.emplace(uplink.leaf, uplink.leaf_port).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", PortName(uplink.leaf, uplink.leaf_port), " used twice"));
    }
    if (!ports.emplace(uplink.spine, uplink.spine_port).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", PortName(uplink.spine, uplink.spine_port), " used twice"));
    }
    spines.insert(uplink.spine);
  }
  for (const Uplink& uplink : fabric.uplinks) {
    if (spines.count(uplink.leaf) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("uplink ", uplink.leaf, " - ", uplink.spine, ": ", uplink.leaf,
                       " is a spine too (three tiers are not modelled)"));
    }
  }
  if (leaves.size() + spines.size() > kMaxSwitches) {
    return absl::InvalidArgumentError(absl::StrCat("topology: ", leaves.size() + spines.size(),
                                                   " switches, at most ", kMaxSwitches));
  }
  return absl::OkStatus();
}

}  // namespace eb::topology
