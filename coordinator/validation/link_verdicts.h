#pragma once

// The link localization's conclusions in the report (issue 31 items 3-4):
// leaf-spine links (and sets no pair can tell apart) become links[];
// node-side cables become rail verdicts of their node; routing collisions
// become path verdicts that say so, with the pair. A node or path verdict
// whose every slow result a blamed link of someone else (another node's
// cable, an uplink, a collision) explains is withdrawn: no node is blamed
// for the fabric. Without a topology, the report is left as it is. Pure.

#include "coordinator/validation/pair_inference.h"
#include "coordinator/validation/validation_state.h"
#include "coordinator/validation/verdict.h"

namespace eb::validation {

// `report`: the node, path and rail verdicts of the pair localization.
void ApplyLinkVerdicts(const ValidationState& state, ValidationReport& report);

// Drops from `assessment` the path candidates waiting for their re-test
// whose every slow test a blamed link (an uplink, a cable, a set no pair
// tells apart, a collision) explains: the link rounds tested that link
// with other pairs already, and the report withdraws such a path anyway.
void DropPathsTheFabricExplains(const ValidationState& state, PairAssessment& assessment);

}  // namespace eb::validation
