#pragma once

// The link rounds of a validation (issue 31 item 2): after the pair rounds,
// when a topology is loaded and a slow pair result is left that the fabric
// could explain, the next round comes from the group testing over links
// (coordinator/topology/link_localization.h): pairs that share exactly one
// candidate link with the slow one, until one link is left, or a set that
// no pair can tell apart (the plan says so), or Options::max_link_rounds
// ran out. A healthy fleet gets no link round. Pure.

#include <vector>

#include "coordinator/topology/link_localization.h"
#include "coordinator/topology/paths.h"
#include "coordinator/validation/validation_state.h"

namespace eb::validation {

// How pair traffic is assumed to cross the spines (paths.h): OpenSM's
// default for two-tier fat-trees, and the one that names a single uplink.
inline constexpr topology::Routing kLinkRouting = topology::Routing::kDestinationModK;

// Whether the links have something left to tell: a bad link not yet
// confirmed, a slow result with candidates, a collision to re-test.
bool LinksWantRound(const topology::LinkAssessment& assessment);

struct LinkFollowUp {
  std::vector<topology::LinkPlannedPair> pairs;  // both nodes pair-tested, not lost
  topology::LinkPlan plan;                       // as planned (its inseparable sets)
};

// The next link round; no pairs when nothing is left to tell or no pair
// can tell it (s.fabric must be set).
LinkFollowUp PlanLinkFollowUp(const ValidationState& s);

}  // namespace eb::validation
