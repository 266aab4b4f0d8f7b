#pragma once

// Internal to the report (report_builder.h): one verdict per node, from the
// first of preflight (unfit), infrastructure (untestable), intra (confirmed
// bad nodes sit pairs out), pairs, and intra again where pairs could not
// judge the node (docs/VALIDATION.md "Verdicts"). Pure.

#include <vector>

#include "coordinator/validation/intra_inference.h"
#include "coordinator/validation/pair_inference.h"
#include "coordinator/validation/validation_state.h"
#include "coordinator/validation/verdict.h"

namespace eb::validation {

// What the intra and pair results say, assessed once per report.
struct SuiteAssessment {
  std::vector<IntraNode> intra;  // one per node
  std::vector<bool> in_pairs;    // all false until the pair suite starts
  PairAssessment pairs;
  // A pair result could not be judged (no expected value, too few nodes).
  bool unjudged_pair = false;
  // A pair was slow and no node did well in any pair test: pairs cannot
  // localize anything.
  bool no_trusted = false;
};

SuiteAssessment AssessSuites(const ValidationState& state);

// One verdict per node, in input order, each with its evidence.
std::vector<NodeVerdict> JudgeNodes(const ValidationState& state,
                                    const SuiteAssessment& assessment);

// A fleet test that failed, attributed to nodes that were healthy until
// then, makes them failed (suspect: one observation).
void AttributeFleetFailures(const ValidationState& state, std::vector<NodeVerdict>& nodes);

}  // namespace eb::validation
