#pragma once

// What a node's verdicts say as of `now`: the input of every hysteresis
// rule of the decision core (decision.h). Computed from the history alone,
// so the core keeps no state: the scheduler's drain reason says whose drain
// it is, and the verdicts say whether it is confirmed, recovered or
// flapping. Pure; any thread.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/scheduler/scheduler_types.h"

namespace eb::scheduler {

// A validation that says the fleet is slow, one way or both:
//  - most_slow: more than policy.fleet_slowdown_share of the nodes it
//    judged (healthy, degraded or failed) was degraded, and it judged at
//    least fleet_slowdown_min_nodes nodes and fleet_slowdown_min_coverage
//    of the `fleet_size` nodes (graded against the figure, most fell short:
//    its degraded verdicts drain no one);
//  - below_expected: its fleet median was below the expected figure
//    (NodeVerdictRecord::fleet_below_expected, its text): its verdicts
//    were graded against that median, so its healthy ones are no passes.
struct FleetSlowdown {
  std::string validation_id;
  int tested = 0;
  int slow = 0;
  bool most_slow = false;
  std::string below_expected;  // "" unless below_expected
};

// The validations among `verdicts` that say the fleet is slow, by id.
std::vector<FleetSlowdown> FindFleetSlowdowns(const std::vector<NodeVerdictRecord>& verdicts,
                                              const SchedulerPolicy& policy, int fleet_size);

struct NodeHistory {
  bool any = false;  // at least one verdict of the node
  // Confirmed drainable verdicts (degraded, failed; unfit if the policy
  // drains it) from distinct validations since the last healthy one, and
  // the latest of them: the cause a drain names.
  int confirmed_bad = 0;
  std::optional<NodeVerdictRecord> latest_bad;
  // A suspect bad verdict since the last healthy one.
  bool suspect_bad = false;
  // Healthy verdicts since the last bad one (confirmed or suspect), and the
  // latest of them: the cause a resume names.
  int passes = 0;
  std::optional<NodeVerdictRecord> latest_pass;
  // Episodes of confirmed bad verdicts, separated by healthy ones, within
  // the flap window: "bad, good, bad" is 2.
  int bad_episodes_in_window = 0;
  // The latest verdict that counted was degraded in a fleet-wide slowdown
  // (ignored, so it is neither bad nor a pass).
  bool latest_in_slowdown = false;
  // The latest verdict that said anything was healthy in a validation
  // whose fleet median was below its figure (no pass).
  bool latest_unproven_pass = false;
  // The latest verdict is a confirmed unfit (and the policy does not drain
  // unfit nodes).
  bool latest_unfit = false;
};

// `verdicts` are the node's, in any order. Degraded verdicts of the
// validations in `slowdowns` (most_slow) are left out; healthy verdicts of
// a validation below its figure are no passes; untestable ones never count.
NodeHistory SummarizeNode(std::vector<NodeVerdictRecord> verdicts, const SchedulerPolicy& policy,
                          const std::set<std::string>& slowdowns, absl::Time now);

// The verdicts by node name.
std::map<std::string, std::vector<NodeVerdictRecord>> ByNode(
    const std::vector<NodeVerdictRecord>& verdicts);

}  // namespace eb::scheduler
