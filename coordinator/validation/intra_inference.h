#pragma once

// What the intra tests (each node alone) say about each node. A single-node
// result needs no partner to be attributed, but the same confirmation rule
// holds: a slow result is re-tested before blaming, and two slow results
// that agree within the tolerance confirm (three when they disagree), up to
// max_tests tests per node. A slow result followed by a fine one is
// intermittent (degraded, suspect), except a single borderline result, which
// is noise not reproduced. Pure.

#include <cstddef>
#include <vector>

#include "coordinator/validation/observation.h"

namespace eb::validation {

enum class IntraStatus {
  kOut,           // not part of the intra suite
  kLost,          // untestable (agent lost, or two unattributed infra failures)
  kUntested,      // no result yet
  kUnjudged,      // results, but nothing to judge them by
  kHealthy,       // fine (perhaps after one borderline result)
  kSuspect,       // slow or failed, not confirmed yet
  kIntermittent,  // slow or failed, and fine too
  kConfirmed,     // degraded or failed, confirmed
};

struct IntraNode {
  IntraStatus status = IntraStatus::kOut;
  bool failed = false;        // the bad evidence includes a hardware failure
  bool wants_test = false;    // run (another) intra test
  bool noise = false;         // healthy after one borderline result
  std::vector<size_t> tests;  // every intra observation of the node
  std::vector<size_t> bad;    // slow or failed ones
};

std::vector<IntraNode> AssessIntra(const std::vector<Observation>& observations,
                                   const std::vector<bool>& in_intra, const std::vector<bool>& lost,
                                   int max_tests);

}  // namespace eb::validation
