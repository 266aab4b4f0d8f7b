#pragma once

// The pair results as the link localization (coordinator/topology,
// issue 31) reads them: one LinkObservation per rail of each completed,
// graded pair test that was split into rails. Slow is the grader's verdict
// on that rail (Observation::slow_rails: borderline or slow); the ratio is
// the rail's busbw over the rail yardstick's base. A test without rail
// results, or a failed or ungraded one, gives none: failures are the node
// localizer's (pair_inference.h). Pure.

#include <vector>

#include "coordinator/topology/link_localization.h"
#include "coordinator/validation/observation.h"

namespace eb::validation {

std::vector<topology::LinkObservation> LinkObservationsOf(
    const std::vector<Observation>& observations);

}  // namespace eb::validation
