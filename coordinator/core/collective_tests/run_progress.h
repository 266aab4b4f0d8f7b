#pragma once

// How far each rank of one test got, as a level that only rises:
// launched -> registered -> joining -> joined -> one level per step of the
// sweep reported (TestSweep) -> finished. The test's phase is its slowest
// rank's level, so events that arrive out of order over different agents'
// streams are handled. Pure; owned by the TestRun, on its executor.
//
// Per-event work is O(1) in the number of ranks (issue 15): the ranks at
// each level are counted, and the slowest level only moves up; what a
// deadline blames (run_deadlines.h) may scan every rank, once.

#include <vector>

#include "ebnccl/v1/control.pb.h"

namespace eb::coordinator {

class RunProgress {
 public:
  // Levels up to joined; the steps and finishing follow (StepLevel,
  // FinishedLevel).
  enum Level : int { kLaunched = 0, kRegistered = 1, kJoining = 2, kJoined = 3 };

  // `world_size` ranks, all launched; `steps` sizes each reports.
  RunProgress(int world_size, int steps);

  int world_size() const { return static_cast<int>(levels_.size()); }
  // The level of a rank that reported `steps_done` steps.
  static int StepLevel(int steps_done) { return kJoined + steps_done; }
  // The step a rank at `level` (>= kJoined) is inside: the index of the
  // next step it reports.
  static int StepAt(int level) { return level - kJoined; }
  int FinishedLevel() const { return StepLevel(steps_) + 1; }

  // Raises `rank` to `level`: false (and nothing changes) when it is there
  // or beyond already.
  bool Raise(int rank, int level);
  int level(int rank) const { return levels_[rank]; }
  bool finished(int rank) const { return levels_[rank] == FinishedLevel(); }

  // The slowest rank's level (FinishedLevel() for a test without ranks).
  int SlowestLevel() const { return slowest_; }
  bool AllFinished() const { return slowest_ >= FinishedLevel(); }
  // The phase of a test whose slowest rank is where it is: LAUNCHING,
  // INITIALIZING (every rank registered) or RUNNING (every rank joined).
  ebnccl::v1::TestState Phase() const;

  // The fastest rank's level. O(ranks).
  int FastestLevel() const;
  // The ranks at `level`, in rank order. O(ranks).
  std::vector<int> RanksAt(int level) const;
  // The ranks below `level`, in rank order. O(ranks).
  std::vector<int> RanksBelow(int level) const;

 private:
  const int steps_;
  std::vector<int> levels_;
  // Ranks at each level (index = level, 0..FinishedLevel()).
  std::vector<int> ranks_at_level_;
  int slowest_ = kLaunched;
};

}  // namespace eb::coordinator
