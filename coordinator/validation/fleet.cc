#include "coordinator/validation/fleet.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/spec/wire_names.h"

namespace eb::validation {

Node NodeFromInventory(std::string name, ebnccl::v1::NodeInventory inventory) {
  Node node;
  node.name = std::move(name);
  node.gpu_count = inventory.gpus_size();
  if (!inventory.gpus().empty()) node.gpu_model = inventory.gpus(0).name();
  for (const ebnccl::v1::HcaInfo& info : inventory.hcas()) {
    node.hcas.push_back(
        Hca{info.name(), info.port(), info.state(), info.link_layer(), info.rate_gbps()});
  }
  node.inventory = std::move(inventory);
  return node;
}

bool HasSuite(const Options& options, Suite suite) {
  return std::find(options.suites.begin(), options.suites.end(), suite) != options.suites.end();
}

std::string SuiteName(Suite suite) { return spec::WireName(ToWire(suite)); }

const char* StrategyName(Strategy strategy) {
  return strategy == Strategy::kAdaptive ? "adaptive" : "all-pairs";
}

absl::StatusOr<std::vector<Suite>> ParseSuites(const std::string& text) {
  std::vector<Suite> suites;
  for (absl::string_view raw : absl::StrSplit(text, ',')) {
    const absl::string_view name = absl::StripAsciiWhitespace(raw);
    absl::StatusOr<ebnccl::v1::Suite> wire = spec::ParseWireName<ebnccl::v1::Suite>(name, "suite");
    if (!wire.ok()) {
      std::vector<std::string> names;
      for (int value = 1; value <= ebnccl::v1::Suite_MAX; ++value) {
        names.push_back(spec::WireName(static_cast<ebnccl::v1::Suite>(value)));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("suite: unknown suite '", name, "' (", absl::StrJoin(names, ", "), ")"));
    }
    const Suite suite = static_cast<Suite>(*wire);
    if (std::find(suites.begin(), suites.end(), suite) == suites.end()) suites.push_back(suite);
  }
  return suites;
}

absl::StatusOr<Strategy> ParseStrategy(const std::string& text) {
  if (text == "adaptive") return Strategy::kAdaptive;
  if (text == "all-pairs") return Strategy::kAllPairs;
  return absl::InvalidArgumentError(
      absl::StrCat("strategy: unknown strategy '", text, "' (adaptive, all-pairs)"));
}

absl::Status ValidateInputs(const std::vector<Node>& nodes, const Options& options) {
  if (nodes.empty()) return absl::InvalidArgumentError("nodes: no node to validate");
  std::set<std::string> names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    if (node.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("nodes[", i, "].name: empty"));
    }
    if (!names.insert(node.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes[", i, "].name: '", node.name, "' given twice"));
    }
    if (node.gpu_count < 0) {
      return absl::InvalidArgumentError(absl::StrCat("nodes[", i, "].gpu_count: negative"));
    }
    for (const ebnccl::v1::GpuInfo& gpu : node.inventory.gpus()) {
      if (gpu.memory_bytes() < 0) {
        return absl::InvalidArgumentError(absl::StrCat("nodes[", i, "].inventory.gpus[",
                                                       gpu.index(), "].memory_bytes: negative"));
      }
    }
    for (const Hca& hca : node.hcas) {
      if (hca.rate_gbps < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("nodes[", i, "].hcas.", hca.name, ".rate_gbps: negative"));
      }
    }
  }
  if (!(options.tolerance > 0 && options.tolerance <= 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tolerance: ", options.tolerance, " is outside (0, 0.5]"));
  }
  if (options.suites.empty()) return absl::InvalidArgumentError("suites: none selected");
  if (options.max_link_rounds < 0) {
    return absl::InvalidArgumentError("max_link_rounds: must not be negative");
  }
  if (options.max_pair_rounds < 1) {
    return absl::InvalidArgumentError("max_pair_rounds: must be at least 1");
  }
  if (options.max_intra_tests < 1) {
    return absl::InvalidArgumentError("max_intra_tests: must be at least 1");
  }
  if (options.collective == ebnccl::v1::COLLECTIVE_UNSPECIFIED) {
    return absl::InvalidArgumentError("collective: unset");
  }
  return absl::OkStatus();
}

namespace {
// sysfs writes "4: ACTIVE"; the agent may pass either form.
bool IsActive(const Hca& hca) {
  absl::string_view state = hca.state;
  const size_t colon = state.find(':');
  if (colon != absl::string_view::npos) state.remove_prefix(colon + 1);
  return absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(state), "ACTIVE");
}
}  // namespace

int64_t BootstrapLinkMbps(const Node& node) {
  const std::string& name = node.inventory.bootstrap_interface();
  if (name.empty()) return 0;
  for (const ebnccl::v1::NetworkInterface& iface : node.inventory.interfaces()) {
    if (iface.name() == name) return std::max<int64_t>(0, iface.speed_mbps());
  }
  return 0;
}

int ActiveHcaCount(const Node& node) {
  return static_cast<int>(std::count_if(node.hcas.begin(), node.hcas.end(), IsActive));
}

int64_t ActiveHcaRate(const Node& node) {
  std::map<int64_t, int> counts;
  for (const Hca& hca : node.hcas) {
    if (IsActive(hca)) ++counts[hca.rate_gbps];
  }
  int64_t best = 0;
  int best_count = 0;
  for (const auto& [rate, count] : counts) {  // ascending: ties keep the lower
    if (count > best_count) {
      best = rate;
      best_count = count;
    }
  }
  return best;
}

}  // namespace eb::validation
