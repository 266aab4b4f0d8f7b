#pragma once

// Builds the report from everything a validation knows: a node's verdict
// comes from the first of preflight (unfit), infrastructure (untestable),
// intra (confirmed bad nodes sit pairs out), pairs, and intra again where
// pairs could not judge the node (issue 11: with no trusted node, fall back
// to the intra and preflight verdicts; `network_judged` then says so).
// Callable at any time, for progress. Pure.

#include "coordinator/validation/validation_state.h"
#include "coordinator/validation/verdict.h"

namespace eb::validation {

ValidationReport BuildReport(const ValidationState& state);

// The evidence line of one observation as seen from `node`.
Evidence MakeEvidence(const ValidationState& state, const Observation& observation, int node);

}  // namespace eb::validation
