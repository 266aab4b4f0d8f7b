#include "coordinator/core/drift_check.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;
namespace {

// The distinct non-empty values of a node's devices, sorted and joined: a
// node with two GPU models or two firmware versions has the value "a,b".
std::string Distinct(const std::vector<std::string>& values) {
  std::set<std::string> unique;
  for (const std::string& value : values) {
    if (!value.empty()) unique.insert(value);
  }
  return absl::StrJoin(unique, ",");
}

std::string GpuModel(const v1::NodeInventory& inventory) {
  std::vector<std::string> names;
  for (const v1::GpuInfo& gpu : inventory.gpus()) names.push_back(gpu.name());
  return Distinct(names);
}

std::string HcaFirmware(const v1::NodeInventory& inventory) {
  std::vector<std::string> versions;
  for (const v1::HcaInfo& hca : inventory.hcas()) versions.push_back(hca.fw_ver());
  return Distinct(versions);
}

std::string HcaRate(const v1::NodeInventory& inventory) {
  std::vector<std::string> rates;
  for (const v1::HcaInfo& hca : inventory.hcas()) {
    if (hca.rate_gbps() > 0) rates.push_back(absl::StrCat(hca.rate_gbps(), " Gb/s"));
  }
  return Distinct(rates);
}

// The MTU of the interface the workers bootstrap (and Gloo runs) on.
std::string BootstrapMtu(const v1::NodeInventory& inventory) {
  if (inventory.bootstrap_interface().empty()) return "";
  for (const v1::NetworkInterface& iface : inventory.interfaces()) {
    if (iface.name() == inventory.bootstrap_interface() && iface.mtu_bytes() > 0) {
      return absl::StrCat(iface.mtu_bytes());
    }
  }
  return "";
}

struct Attribute {
  const char* name;
  std::function<std::string(const v1::NodeInventory&)> value;
};

}  // namespace

std::vector<DriftFinding> FindDrift(const std::vector<std::string>& names,
                                    const std::vector<v1::NodeInventory>& inventories) {
  const std::vector<Attribute> attributes = {
      {"NCCL version", [](const v1::NodeInventory& i) { return i.nccl_version(); }},
      {"CUDA driver", [](const v1::NodeInventory& i) { return i.driver_version(); }},
      {"GPU model", GpuModel},
      {"HCA firmware", HcaFirmware},
      {"HCA link rate", HcaRate},
      {"bootstrap interface MTU", BootstrapMtu},
  };
  std::vector<DriftFinding> findings;
  const size_t nodes = std::min(names.size(), inventories.size());
  for (const Attribute& attribute : attributes) {
    std::vector<std::string> values(nodes);
    std::map<std::string, int> counts;
    int known = 0;
    for (size_t i = 0; i < nodes; ++i) {
      values[i] = attribute.value(inventories[i]);
      if (values[i].empty()) continue;
      ++counts[values[i]];
      ++known;
    }
    if (counts.size() < 2) continue;
    std::string majority;
    int majority_nodes = 0;
    for (const auto& [value, count] : counts) {
      if (2 * count > known) {
        majority = value;
        majority_nodes = count;
      }
    }
    for (size_t i = 0; i < nodes; ++i) {
      if (values[i].empty() || values[i] == majority) continue;
      findings.push_back(DriftFinding{attribute.name, names[i], values[i], majority,
                                      majority.empty() ? counts[values[i]] : majority_nodes,
                                      known});
    }
  }
  return findings;
}

std::string DescribeDrift(const std::vector<DriftFinding>& findings) {
  std::vector<std::string> lines;
  for (const DriftFinding& f : findings) {
    if (f.majority.empty()) {
      lines.push_back(absl::StrCat("node ", f.node, ": ", f.attribute, " ", f.value,
                                   " (no majority: ", f.known_nodes, " nodes disagree)"));
    } else {
      lines.push_back(absl::StrCat("node ", f.node, ": ", f.attribute, " ", f.value,
                                   " differs from ", f.majority, " on ", f.majority_nodes, " of ",
                                   f.known_nodes, " nodes"));
    }
  }
  return absl::StrJoin(lines, "; ");
}

absl::Status CheckDrift(const std::vector<std::string>& names,
                        const std::vector<v1::NodeInventory>& inventories, bool allow_drift,
                        std::vector<std::string>* warnings) {
  const std::vector<DriftFinding> findings = FindDrift(names, inventories);
  if (findings.empty()) return absl::OkStatus();
  if (!allow_drift) {
    return absl::FailedPreconditionError(
        absl::StrCat("the nodes differ: ", DescribeDrift(findings),
                     ". A mismatch is the top cause of hangs and false verdicts; align the "
                     "nodes, leave the odd one out (--nodes), or run anyway with --allow-drift"));
  }
  for (const DriftFinding& finding : findings) warnings->push_back(DescribeDrift({finding}));
  return absl::OkStatus();
}

}  // namespace eb::coordinator
