#include "coordinator/validation/link_rounds.h"

#include <algorithm>

#include "coordinator/validation/link_observations.h"

namespace eb::validation {

bool LinksWantRound(const topology::LinkAssessment& assessment) {
  if (!assessment.open.empty()) return true;
  for (size_t l = 0; l < assessment.state.size(); ++l) {
    if (assessment.state[l] == topology::LinkState::kBad && !assessment.confirmed[l]) return true;
  }
  return std::any_of(assessment.collisions.begin(), assessment.collisions.end(),
                     [](const topology::Collision& c) {
                       return c.state == topology::CollisionState::kNeedsRetest;
                     });
}

LinkFollowUp PlanLinkFollowUp(const ValidationState& s) {
  LinkFollowUp out;
  const std::vector<topology::LinkObservation> observations =
      LinkObservationsOf(s.observations, s.single_rail);
  const topology::LinkAssessment assessment =
      topology::AssessLinks(*s.fabric, kLinkRouting, observations);
  // Only a slow result starts link rounds: the planner would otherwise
  // also pair the nodes no test reached, which is the pair suite's business.
  if (!LinksWantRound(assessment)) return out;
  out.plan = topology::PlanLinkRound(*s.fabric, kLinkRouting, observations, assessment);
  auto usable = [&](int i) { return i >= 0 && i < s.size() && s.in_pairs[i] && !s.lost[i]; };
  for (const topology::LinkPlannedPair& pair : out.plan.pairs) {
    if (usable(pair.a) && usable(pair.b)) out.pairs.push_back(pair);
  }
  return out;
}

}  // namespace eb::validation
