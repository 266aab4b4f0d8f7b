#include "coordinator/ebctl/output/labels.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/spec/names.h"
#include "common/spec/wire_names.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
// One rule for every wire enum's words (common/spec/wire_names.h).
std::string StateName(v1::TestState state) { return spec::WireName(state); }
std::string FailureKindName(v1::FailureKind kind) { return spec::WireName(kind); }
std::string NodeStateName(v1::NodeState state) { return spec::WireName(state); }

bool IsTerminal(v1::TestState state) {
  return state == v1::TEST_STATE_PASSED || state == v1::TEST_STATE_FAILED ||
         state == v1::TEST_STATE_TIMED_OUT || state == v1::TEST_STATE_CANCELLED ||
         state == v1::TEST_STATE_INTERRUPTED;
}

std::string RedopLabel(const v1::TestSpec& spec) {
  if (!spec::IsReducing(spec.collective())) return "none";
  return spec::DisplayName(spec.reduce_op());
}

int32_t RootLabel(const v1::TestSpec& spec) {
  if (!spec::IsRooted(spec.collective())) return -1;
  return spec.root_rank();
}

std::vector<v1::Collective> ReportCollectives(const v1::TestSpec& spec) {
  std::vector<v1::Collective> collectives;
  for (int c : spec.collectives()) collectives.push_back(static_cast<v1::Collective>(c));
  if (collectives.empty()) collectives.push_back(spec.collective());
  return collectives;
}

std::string CollectivesLabel(const v1::TestSpec& spec) {
  std::string label;
  for (v1::Collective c : ReportCollectives(spec)) {
    absl::StrAppend(&label, label.empty() ? "" : ",", spec::DisplayName(c));
  }
  return label;
}

std::vector<std::string> TestNodeNames(const v1::TestReport& report) {
  std::vector<std::string> names;
  for (const v1::RankAssignment& rank : report.ranks()) {
    // A node runs at least one rank, so a valid index is below the rank
    // count; anything else is a corrupt report, not a reason to allocate.
    if (rank.node_index() < 0 || rank.node_index() >= report.ranks_size()) continue;
    const auto index = static_cast<size_t>(rank.node_index());
    if (names.size() <= index) names.resize(index + 1);
    if (names[index].empty()) names[index] = rank.node_name();
  }
  if (names.empty()) {
    names.assign(report.spec().node_names().begin(), report.spec().node_names().end());
  }
  return names;
}

std::string RankHostname(const v1::TestReport& report, const v1::RankAssignment& rank) {
  const int index = rank.node_index();
  if (index >= 0 && index < report.node_inventories_size() &&
      !report.node_inventories(index).hostname().empty()) {
    return report.node_inventories(index).hostname();
  }
  return rank.node_name();
}

std::string DeviceHex(const std::string& pci_bus_id) {
  const size_t dot = pci_bus_id.rfind('.');
  return dot == std::string::npos ? pci_bus_id : pci_bus_id.substr(0, dot);
}

std::string DeviceInfo(const v1::TestReport& report, const v1::RankAssignment& rank) {
  if (rank.node_index() < 0 || rank.node_index() >= report.node_inventories_size()) return "";
  for (const v1::GpuInfo& gpu : report.node_inventories(rank.node_index()).gpus()) {
    if (gpu.index() == rank.device_index()) return gpu.name();
  }
  return "";
}

std::string FormatUtcTime(int64_t unix_ms) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

}  // namespace eb::ebctl
