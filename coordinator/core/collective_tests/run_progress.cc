#include "coordinator/core/collective_tests/run_progress.h"

#include <algorithm>

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

RunProgress::RunProgress(int world_size, int steps)
    : steps_(steps), levels_(static_cast<size_t>(world_size), kLaunched) {
  ranks_at_level_.assign(static_cast<size_t>(FinishedLevel()) + 1, 0);
  ranks_at_level_[kLaunched] = world_size;
  slowest_ = world_size == 0 ? FinishedLevel() : kLaunched;
}

bool RunProgress::Raise(int rank, int level) {
  int& current = levels_[rank];
  if (level <= current) return false;
  --ranks_at_level_[current];
  ++ranks_at_level_[level];
  current = level;
  // Levels only rise, so the slowest only moves up: amortized O(1).
  while (slowest_ < FinishedLevel() && ranks_at_level_[slowest_] == 0) ++slowest_;
  return true;
}

v1::TestState RunProgress::Phase() const {
  if (slowest_ >= kJoined) return v1::TEST_STATE_RUNNING;
  if (slowest_ >= kRegistered) return v1::TEST_STATE_INITIALIZING;
  return v1::TEST_STATE_LAUNCHING;
}

int RunProgress::FastestLevel() const {
  int fastest = kLaunched;
  for (const int level : levels_) fastest = std::max(fastest, level);
  return fastest;
}

std::vector<int> RunProgress::RanksAt(int level) const {
  std::vector<int> ranks;
  for (int rank = 0; rank < world_size(); ++rank) {
    if (levels_[rank] == level) ranks.push_back(rank);
  }
  return ranks;
}

std::vector<int> RunProgress::RanksBelow(int level) const {
  std::vector<int> ranks;
  for (int rank = 0; rank < world_size(); ++rank) {
    if (levels_[rank] < level) ranks.push_back(rank);
  }
  return ranks;
}

}  // namespace eb::coordinator
