#include "coordinator/core/collective_tests/run_nodes.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

RunNodes::RunNodes(const google::protobuf::RepeatedPtrField<v1::RankAssignment>& ranks) {
  for (const v1::RankAssignment& rank : ranks) {
    if (index_.emplace(rank.node_name(), names_.size()).second) {
      names_.push_back(rank.node_name());
      ranks_.emplace_back();
    }
    ranks_[index_.at(rank.node_name())].push_back(rank.rank());
  }
}

const std::vector<int>& RunNodes::RanksOf(const std::string& node) const {
  static const std::vector<int>* const kNone = new std::vector<int>();
  auto it = index_.find(node);
  return it == index_.end() ? *kNone : ranks_[it->second];
}

void RunNodes::MarkStopped(const std::string& node) {
  if (!Has(node)) return;
  if (stopped_.insert(node).second && !lost_.contains(node)) ++done_;
}

void RunNodes::MarkLost(const std::string& node) {
  if (!Has(node)) return;
  if (lost_.insert(node).second && !stopped_.contains(node)) ++done_;
}

std::vector<std::string> RunNodes::StillRunning() const {
  std::vector<std::string> nodes;
  for (const std::string& node : names_) {
    if (!lost_.contains(node) && !stopped_.contains(node)) nodes.push_back(node);
  }
  return nodes;
}

}  // namespace eb::coordinator
