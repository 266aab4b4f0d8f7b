#include "coordinator/core/collective_tests/nccl_path_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/spec/nccl_paths.h"
#include "coordinator/core/collective_tests/run_evidence.h"
#include "coordinator/core/collective_tests/run_failures.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// The most common of `values`; none for a tie at the top or no values.
template <typename T>
std::optional<T> Majority(const std::vector<T>& values) {
  std::map<T, int> counts;
  for (const T& value : values) ++counts[value];
  std::optional<T> best;
  int best_count = 0;
  bool tie = false;
  for (const auto& [value, count] : counts) {
    if (count > best_count) {
      best = value;
      best_count = count;
      tie = false;
    } else if (count == best_count) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

const v1::RankAssignment* AssignmentOf(const v1::TestReport& report, int rank) {
  if (rank < 0 || rank >= report.ranks_size()) return nullptr;
  return &report.ranks(rank);
}

const v1::NodeInventory* InventoryOf(const v1::TestReport& report, int rank) {
  const v1::RankAssignment* assignment = AssignmentOf(report, rank);
  if (assignment == nullptr) return nullptr;
  const int node = assignment->node_index();
  if (node < 0 || node >= report.node_inventories_size()) return nullptr;
  return &report.node_inventories(node);
}

// The node's configured HCAs, distinct, in inventory order.
std::vector<std::string> ConfiguredHcas(const v1::NodeInventory& inventory) {
  std::vector<std::string> names;
  for (const v1::HcaInfo& hca : inventory.hcas()) {
    if (!hca.name().empty() && std::find(names.begin(), names.end(), hca.name()) == names.end()) {
      names.push_back(hca.name());
    }
  }
  return names;
}

// The rank's place among its node's ranks (its rail in a rail-optimized
// fleet: ranks are contiguous per node).
int LocalIndex(const v1::TestReport& report, int rank) {
  int local = 0;
  for (int r = rank - 1; r >= 0 && report.ranks(r).node_name() == report.ranks(rank).node_name();
       --r) {
    ++local;
  }
  return local;
}

std::string Joined(const google::protobuf::RepeatedPtrField<std::string>& values) {
  return values.empty() ? "none" : absl::StrJoin(values, ",");
}

// The test or the operator asked for sockets (NCCL_IB_DISABLE=1 or
// NCCL_NET=Socket, e.g. to compare with IB): in the test's spec, or in what
// NCCL said it read.
bool SocketsChosen(const v1::TestReport& report, const v1::RankNicUse& use) {
  const auto& env = report.spec().nccl_env();
  if (auto it = env.find("NCCL_IB_DISABLE"); it != env.end() && it->second == "1") return true;
  if (auto it = env.find("NCCL_NET");
      it != env.end() && absl::EqualsIgnoreCase(it->second, "Socket")) {
    return true;
  }
  for (const std::string& entry : use.nccl_env()) {
    if (entry == "NCCL_IB_DISABLE=1" || absl::EqualsIgnoreCase(entry, "NCCL_NET=Socket"))
      return true;
  }
  return false;
}

void CompareWithNode(const v1::TestReport& report, const v1::RankNicUse& use,
                     std::vector<std::string>& out, std::set<std::string>& nodes_listed) {
  const v1::NodeInventory* inventory = InventoryOf(report, use.rank());
  if (inventory == nullptr || SocketsChosen(report, use)) return;
  const std::vector<std::string> hcas = ConfiguredHcas(*inventory);
  if (hcas.empty()) return;  // nothing configured: sockets are what the node offers
  const std::string configured = absl::StrJoin(hcas, ",");
  if (use.net_transport() == "Socket") {
    out.push_back(
        absl::StrCat("used NET/Socket instead of NET/IB (HCAs configured: ", configured, ")"));
  }
  const v1::RankAssignment& assignment = report.ranks(use.rank());
  const std::string rail_hca = NearestHca(*inventory, assignment.device_index());
  // The NICs of its network channels: all of them (nics), and those of the
  // channels kept.
  std::vector<std::string> used(use.nics().begin(), use.nics().end());
  for (const v1::NcclChannelPath& channel : use.channels()) {
    if (!channel.nic().empty() &&
        std::find(used.begin(), used.end(), channel.nic()) == used.end()) {
      used.push_back(channel.nic());
    }
  }
  for (const std::string& nic : used) {
    // NCCL names a device of merged ports (NCCL_IB_MERGE_NICS) "a+b".
    const std::vector<std::string> parts = absl::StrSplit(nic, '+');
    const bool all_configured = std::all_of(parts.begin(), parts.end(), [&](const std::string& p) {
      return std::find(hcas.begin(), hcas.end(), p) != hcas.end();
    });
    if (use.net_transport() != "Socket" && !all_configured) {
      out.push_back(absl::StrCat("used ", nic, ", not a configured HCA (", configured, ")"));
    } else if (!rail_hca.empty() && use.net_transport() != "Socket" &&
               std::find(parts.begin(), parts.end(), rail_hca) == parts.end()) {
      out.push_back(absl::StrCat("used ", nic, " for rail ", LocalIndex(report, use.rank()),
                                 " (expected ", rail_hca, ")"));
    }
  }
  // NCCL's list of IB devices: once per node.
  if (use.net_transport() == "IB" && use.net_devices_size() > 0 &&
      nodes_listed.insert(assignment.node_name()).second) {
    std::set<std::string> listed;
    for (const std::string& device : use.net_devices()) {
      for (absl::string_view part : absl::StrSplit(device, '+')) listed.emplace(part);
    }
    std::vector<std::string> missing;
    for (const std::string& hca : hcas) {
      if (!listed.contains(hca)) missing.push_back(hca);
    }
    if (!missing.empty()) {
      out.push_back(absl::StrCat("NCCL found ", hcas.size() - missing.size(), " of ", hcas.size(),
                                 " configured HCAs on ", assignment.node_name(), " (missing ",
                                 absl::StrJoin(missing, ","), "; it listed ",
                                 Joined(use.net_devices()), ")"));
    }
  }
}

}  // namespace

void ClassifyIntraNode(const v1::TestReport& report, v1::RankNicUse& use) {
  const v1::RankAssignment* self = AssignmentOf(report, use.rank());
  if (self == nullptr) return;
  std::set<std::string> transports;
  for (const v1::NcclChannelPath& channel : use.channels()) {
    const v1::RankAssignment* peer = AssignmentOf(report, channel.peer_rank());
    if (peer == nullptr || peer->node_name() != self->node_name()) continue;
    transports.insert(spec::NcclPathTransport(channel.path()));
  }
  use.clear_intra_transports();
  for (const std::string& transport : transports) *use.add_intra_transports() = transport;
}

std::vector<std::pair<int, std::vector<std::string>>> FindPathMismatches(
    const v1::TestReport& report) {
  // The majorities, over the ranks whose value is known.
  std::vector<std::string> transports, intra;
  std::vector<int> channels;
  std::vector<bool> gdr;
  for (const v1::RankNicUse& use : report.nic_use()) {
    if (!use.info_level()) continue;
    if (!use.net_transport().empty()) transports.push_back(use.net_transport());
    if (use.coll_channels() > 0) channels.push_back(use.coll_channels());
    if (use.has_gdr()) gdr.push_back(use.gdr());
    if (use.intra_transports_size() > 0) intra.push_back(Joined(use.intra_transports()));
  }
  const std::optional<std::string> transport = Majority(transports);
  const std::optional<int> channel_count = Majority(channels);
  const std::optional<bool> gdr_on = Majority(gdr);
  const std::optional<std::string> intra_majority = Majority(intra);

  std::vector<std::pair<int, std::vector<std::string>>> found;
  std::set<std::string> nodes_listed;
  for (const v1::RankNicUse& use : report.nic_use()) {
    if (!use.info_level() || AssignmentOf(report, use.rank()) == nullptr) continue;
    std::vector<std::string> out;
    CompareWithNode(report, use, out, nodes_listed);
    const bool node_said_socket =
        !out.empty() && out.front().rfind("used NET/Socket instead", 0) == 0;
    if (transport.has_value() && !use.net_transport().empty() &&
        use.net_transport() != *transport && !node_said_socket) {
      out.push_back(absl::StrCat("used NET/", use.net_transport(), " instead of NET/", *transport,
                                 " (the test's majority)"));
    }
    if (gdr_on.value_or(false) && use.has_gdr() && !use.gdr()) {
      out.push_back(absl::StrCat("GDR off on ", use.node_name(),
                                 " (GPUDirect RDMA on for the test's majority)"));
    }
    if (channel_count.has_value() && use.coll_channels() > 0 &&
        use.coll_channels() < *channel_count) {
      out.push_back(absl::StrCat(use.coll_channels(),
                                 use.coll_channels() == 1 ? " channel" : " channels",
                                 ", fewer than the test's majority (", *channel_count, ")"));
    }
    if (intra_majority.has_value() && use.intra_transports_size() > 0 &&
        Joined(use.intra_transports()) != *intra_majority) {
      out.push_back(absl::StrCat("reached its node's peers via ", Joined(use.intra_transports()),
                                 " instead of ", *intra_majority, " (the test's majority)"));
    }
    if (!out.empty()) found.emplace_back(use.rank(), std::move(out));
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return found;
}

void JudgeNcclPaths(absl::Span<const RankResults> /*ranks*/, v1::TestReport& report) {
  for (v1::RankNicUse& use : *report.mutable_nic_use()) {
    if (use.channels_dropped() == 0) ClassifyIntraNode(report, use);
  }
  for (auto& [rank, findings] : FindPathMismatches(report)) {
    for (v1::RankNicUse& use : *report.mutable_nic_use()) {
      if (use.rank() != rank) continue;
      use.clear_findings();
      for (const std::string& finding : findings) *use.add_findings() = finding;
    }
    *report.add_failures() =
        RankFailure(report, rank, v1::FAILURE_KIND_UNEXPECTED_PATH,
                    absl::StrCat("NCCL's path: ", absl::StrJoin(findings, "; ")));
  }
}

}  // namespace eb::coordinator
