#include "coordinator/validation/intra_inference.h"

namespace eb::validation {

std::vector<IntraNode> AssessIntra(const std::vector<Observation>& obs,
                                   const std::vector<bool>& in_intra, const std::vector<bool>& lost,
                                   int max_tests) {
  const size_t n = in_intra.size();
  std::vector<IntraNode> out(n);
  std::vector<int> fine(n, 0), unjudged(n, 0), strikes(n, 0), attempts(n, 0);
  std::vector<bool> clear(n, false);
  for (size_t k = 0; k < obs.size(); ++k) {
    const Observation& o = obs[k];
    if (o.kind != TestKind::kIntra || !o.recorded || o.nodes.size() != 1) continue;
    const int i = o.nodes.front();
    out[i].tests.push_back(k);
    ++attempts[i];
    switch (o.outcome) {
      case Outcome::kCompleted:
        if (!o.graded) break;
        if (o.grade == Grade::kFine) ++fine[i];
        if (o.grade == Grade::kUnjudged) ++unjudged[i];
        if (IsSlow(o.grade)) {
          out[i].bad.push_back(k);
          clear[i] = clear[i] || o.grade == Grade::kSlow;
        }
        break;
      case Outcome::kHardwareFailure:
        out[i].bad.push_back(k);
        out[i].failed = true;
        clear[i] = true;
        break;
      case Outcome::kInfraFailure:
        if (o.named.empty()) ++strikes[i];
        break;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    IntraNode& node = out[i];
    if (!in_intra[i]) continue;
    const size_t bad = node.bad.size();
    if (lost[i] || strikes[i] >= 2) {
      node.status = IntraStatus::kLost;
    } else if (bad >= 2 && (bad >= 3 || ObservationsAgree(obs, node.bad))) {
      node.status = IntraStatus::kConfirmed;
    } else if (fine[i] > 0 && bad == 0) {
      node.status = IntraStatus::kHealthy;
    } else if (fine[i] > 0 && bad == 1 && !clear[i]) {
      node.status = IntraStatus::kHealthy;
      node.noise = true;
    } else if (fine[i] > 0) {
      node.status = IntraStatus::kIntermittent;
    } else if (bad > 0) {
      node.status = IntraStatus::kSuspect;
      node.wants_test = attempts[i] < max_tests;
    } else if (unjudged[i] > 0) {
      node.status = IntraStatus::kUnjudged;
    } else {
      node.status = IntraStatus::kUntested;
      node.wants_test = attempts[i] < max_tests;
    }
  }
  return out;
}

}  // namespace eb::validation
