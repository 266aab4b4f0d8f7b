#include "coordinator/validation/rank_lookup.h"

#include <algorithm>
#include <utility>

namespace eb::validation {

const ebnccl::v1::RankAssignment* FindRank(const ebnccl::v1::TestReport& report, int rank) {
  for (const ebnccl::v1::RankAssignment& a : report.ranks()) {
    if (a.rank() == rank) return &a;
  }
  return nullptr;
}

double CommonShare(std::vector<double> shares) {
  if (shares.empty()) return 0.0;
  std::sort(shares.begin(), shares.end());
  return shares[(shares.size() - 1) / 2];
}

}  // namespace eb::validation
