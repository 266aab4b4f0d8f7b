#pragma once

// What each validation verdict asks of the operator: the one place that
// says it. The exit code of `ebctl validate` (7 for bad or unfit, 3 for
// untestable), a node's repeat-offender count (bad only) and the
// validation's any_bad follow from a verdict's weight, so a new verdict
// needs its weight here and nowhere else (the switch below names it). The
// validation core defines its Verdict as these values
// (coordinator/validation/verdict.h). Pure; any thread.

#include "ebnccl/v1/control.pb.h"

namespace eb::spec {

enum class VerdictWeight {
  kNone,      // healthy (or no verdict yet)
  kBad,       // the hardware is bad: degraded, failed
  kUnfit,     // the node differs from the fleet (preflight): not tested, not hardware
  kUnjudged,  // no measurement could judge it: untestable
};

VerdictWeight WeightOf(ebnccl::v1::Verdict verdict);

// What a finding asks: kBad when it is marked bad, kUnjudged when it says
// planned tests ended without a measurement (exit 3: not a pass), else
// kNone (the switch names every finding kind).
VerdictWeight WeightOf(const ebnccl::v1::ValidationFinding& finding);

// WeightOf(verdict) == kBad.
bool IsBadVerdict(ebnccl::v1::Verdict verdict);

// A node that this many finished validations found degraded or failed is a
// repeat offender (`ebctl nodes` marks it, the coordinator exports it).
inline constexpr int kRepeatOffenderBadCount = 2;
inline bool IsRepeatOffender(int bad_validations) {
  return bad_validations >= kRepeatOffenderBadCount;
}

}  // namespace eb::spec
