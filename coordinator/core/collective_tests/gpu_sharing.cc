#include "coordinator/core/collective_tests/gpu_sharing.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/gpu/pci_bus_id.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

absl::Status CheckNoSharedGpus(const std::vector<v1::RankAssignment>& ranks,
                               const std::vector<v1::NodeInventory>& inventories) {
  // (host, bus id) -> the first rank placed there.
  std::map<std::pair<std::string, std::string>, const v1::RankAssignment*> owners;
  for (const v1::RankAssignment& rank : ranks) {
    if (rank.device_index() < 0 || rank.gpu_pci_bus_id().empty()) continue;
    if (rank.node_index() < 0 || rank.node_index() >= static_cast<int>(inventories.size())) {
      continue;
    }
    const std::string& host = inventories[rank.node_index()].host_id();
    if (host.empty()) continue;
    const std::string bus_id = common::CanonicalPciBusId(rank.gpu_pci_bus_id());
    auto [it, inserted] = owners.emplace(std::make_pair(host, bus_id), &rank);
    if (inserted || it->second->node_name() == rank.node_name()) continue;
    const v1::RankAssignment& first = *it->second;
    return absl::ResourceExhaustedError(absl::StrCat(
        "nodes ", first.node_name(), " and ", rank.node_name(), " run on one host (",
        inventories[rank.node_index()].hostname(), ", ", host, ") and both own the GPU at PCI ",
        bus_id, ": rank ", first.rank(), " (", first.node_name(), " GPU ", first.device_index(),
        ") and rank ", rank.rank(), " (", rank.node_name(), " GPU ", rank.device_index(),
        ") would share it, and NCCL allows one rank per GPU; give the agents disjoint --gpus, "
        "or run the test on other nodes"));
  }
  return absl::OkStatus();
}

}  // namespace eb::coordinator
