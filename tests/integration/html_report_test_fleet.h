#pragma once

// A finished validation built in memory, as the coordinator would report it,
// for html_report_test's large pages: no cluster of 1,000 nodes fits on a
// build machine, and the report page only draws what the report says.
//
// The fleet: nodes of 8 GPUs and 8 rails; one intra round (every node at
// once), then `pair_rounds` rounds pairing every node with another (the
// first round pairs 1-2, 3-4, ...; later ones are seeded shuffles). Faults:
// every node i with i % 97 == 13 is slow (60%, degraded), the node i with
// i % 211 == 5 has rail 3 at half speed (degraded, one bad rail), and the
// link 1-2 is slow (a bad path). Pair busbw is the slower end times noise.

#include <cstdint>
#include <string>
#include <vector>

#include "ebnccl/v1/control.pb.h"

namespace eb::testing {

// "node-0000", "node-0001", ...
std::vector<std::string> FleetNames(int n);

ebnccl::v1::ValidationReport SyntheticValidation(const std::vector<std::string>& names,
                                                 int pair_rounds, uint64_t seed);

// Distinct node pairs that finished a pair test in `report` (what the page's
// pair matrix colours).
int TestedPairs(const ebnccl::v1::ValidationReport& report);

// Node x rail cells the page's rail matrix fills for a report of
// SyntheticValidation: none when no node has a per-rail result; else every
// rail of a node with per-rail evidence or a rail verdict, and of a healthy
// node whose network a pair test judged.
int FilledRailCells(const ebnccl::v1::ValidationReport& report);

// A rail-optimized two-tier fabric of `names` (issue 31), as GetTopology
// returns it: on each of `rails` rails, node i on leaf
// "leaf-r<rail>-<i / nodes_per_leaf>" (two digits), every leaf linked to each
// of the rail's `spines` spines "spine-r<rail>-<s>" by one cable.
ebnccl::v1::GetTopologyReply RailOptimizedFabric(const std::vector<std::string>& names, int rails,
                                                 int nodes_per_leaf, int spines);

// Appends to `report` a degraded link between `leaf` (port 17) and `spine`
// (port 4) on `rail`, at half speed, as the coordinator blames one.
ebnccl::v1::LinkVerdict& AddLinkVerdict(ebnccl::v1::ValidationReport& report,
                                        const std::string& leaf, const std::string& spine, int rail,
                                        bool confirmed);

}  // namespace eb::testing
