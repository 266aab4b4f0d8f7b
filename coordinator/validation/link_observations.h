#pragma once

// The pair results as the link localization (coordinator/topology,
// issue 31) reads them: one LinkObservation per rail of each completed,
// graded pair test that was split into rails. Slow is below the rail
// yardstick's threshold, (1 - tolerance) x its base (the grader's
// slow_rails take 1 - 2 tolerance: the node localizer's line); the ratio
// is the rail's busbw over that base. In a single-rail fleet
// (ValidationState::single_rail) a test's whole result is its rail 0:
// slow as the test is (Observation::Slow), its busbw over its yardstick's
// base, split or not. Otherwise a test without rail results, and always a
// failed or ungraded one, gives none: failures are the node localizer's
// (pair_inference.h). Pure.

#include <vector>

#include "coordinator/topology/link_localization.h"
#include "coordinator/validation/observation.h"

namespace eb::validation {

std::vector<topology::LinkObservation> LinkObservationsOf(
    const std::vector<Observation>& observations, bool single_rail);

// The rails of pair test `o` that LinkObservationsOf calls slow.
std::vector<int> LinkSlowRails(const Observation& o, bool single_rail);

}  // namespace eb::validation
