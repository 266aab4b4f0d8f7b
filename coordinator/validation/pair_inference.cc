#include "coordinator/validation/pair_inference.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace eb::validation {
namespace {

// Per node, what its pair tests said, before any inference.
struct Tally {
  std::vector<size_t> fine;
  std::vector<size_t> slow;    // slow, or failed without a single culprit
  std::vector<size_t> direct;  // hardware failure attributed to this node alone
  std::vector<size_t> unrun;   // infra failures that named nobody
};

// Whether an observation points at rails rather than at whole nodes: a
// minority of its rails clearly slow, and every other rail fine (at or above
// the rail threshold). A node slow as a whole near the rail threshold has
// some rails just under it and the rest borderline: that is not a rail.
bool RailSpecific(const Observation& o) {
  if (o.slow_rails.empty() || 2 * o.slow_rails.size() > o.rails.size()) return false;
  if (!o.rail_yardstick.has_value()) return false;
  for (const RailResult& r : o.rails) {
    const bool slow =
        std::find(o.slow_rails.begin(), o.slow_rails.end(), r.rail) != o.slow_rails.end();
    if (!slow && r.busbw_gbps < o.rail_yardstick->threshold_gbps()) return false;
  }
  return true;
}

// Rails slow in every observation of `which`, when at least `needed` of them
// are RailSpecific: a node slow as a whole is not blamed on a rail, while a
// bad rail seen once alone and once next to a flaky partner (every rail
// slow) still is.
std::vector<int> IntersectRails(const std::vector<Observation>& obs,
                                const std::vector<size_t>& which, size_t needed) {
  std::vector<int> rails;
  bool first = true;
  size_t minority = 0;
  for (size_t k : which) {
    const Observation& o = obs[k];
    if (o.outcome != Outcome::kCompleted) return {};
    if (RailSpecific(o)) ++minority;
    if (first) {
      rails = o.slow_rails;
      first = false;
      continue;
    }
    std::vector<int> kept;
    for (int r : rails) {
      if (std::find(o.slow_rails.begin(), o.slow_rails.end(), r) != o.slow_rails.end()) {
        kept.push_back(r);
      }
    }
    rails = std::move(kept);
  }
  return minority >= needed ? rails : std::vector<int>{};
}

// A rail a little slow on one node (10%, say) hardly moves its pair's
// aggregate and stays above the rail threshold (1 - 2 tol), so no single
// test shows it. What does: the same rail below its own test's other rails
// in every test of the node, whoever the partner. Each test's median rail
// cancels what the test shares (the partner, the fleet's level, the
// moment), so the deviations of healthy rails are the rails' measurement
// noise alone; its spread is measured over the fleet, robustly (most rails
// are healthy), and the threshold follows from it rather than from a fixed
// percentage.
struct RailNoise {
  double sigma = 0;                 // 1.4826 x MAD of every rail's deviation; 0: too few to judge
  double z = 0;                     // how far below, in sigmas, a rail's mean deviation must be
  std::vector<double> test_median;  // per observation: its median rail (0: none)
};

// Rails per test below this: no median to compare a rail with.
constexpr size_t kMinRailsForMedian = 4;
// Deviations below this: too few to measure the noise.
constexpr size_t kMinNoiseSamples = 24;
// Expected false rails over the whole fleet, the z threshold is set for.
constexpr double kFleetFalseRails = 0.001;

bool PairWithRails(const Observation& o) {
  return o.kind == TestKind::kPair && o.Completed() && o.graded && o.nodes.size() == 2 &&
         o.rails.size() >= kMinRailsForMedian;
}

// The z beyond which a normal tail holds `p`: bisection on erfc (exact
// enough; no table of quantiles to keep).
double UpperTailZ(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    if (0.5 * std::erfc(mid / std::sqrt(2.0)) > p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

RailNoise MeasureRailNoise(const std::vector<Observation>& obs, size_t nodes) {
  RailNoise noise;
  noise.test_median.assign(obs.size(), 0);
  std::vector<double> deviations;
  size_t rails = 0;
  for (size_t k = 0; k < obs.size(); ++k) {
    const Observation& o = obs[k];
    if (!PairWithRails(o)) continue;
    std::vector<double> values;
    for (const RailResult& r : o.rails) values.push_back(r.busbw_gbps);
    rails = std::max(rails, values.size());
    const double median = Median(values);
    if (median <= 0) continue;
    noise.test_median[k] = median;
    for (double v : values) deviations.push_back(v / median - 1);
  }
  if (deviations.size() < kMinNoiseSamples) return noise;
  const double center = Median(deviations);
  for (double& d : deviations) d = std::fabs(d - center);
  // A floor: identical rails (a simulation, a loopback) would make any
  // deficit infinitely significant; the tolerance floor below still holds.
  noise.sigma = std::max(1.4826 * Median(deviations), 1e-4);
  // Every (node, rail) of the fleet is a chance of a false rail: the
  // threshold grows with the fleet so that the whole fleet expects
  // kFleetFalseRails of them.
  noise.z = UpperTailZ(kFleetFalseRails / static_cast<double>(std::max<size_t>(1, nodes * rails)));
  return noise;
}

// The rails of capable node `i` below their tests' other rails in every
// test (one deviation per partner), by more than the noise explains and by
// at least half the tolerance (a significant 2% is no fault). Tests where
// the rail is clearly slow are left out, and so is the partner with the
// lowest deviation: a partner's bad rail shows in its one test with `i`,
// so neither a bad rail nor one drifting partner can blame `i`. `used`: the tests behind;
// `text`: the figures, for the verdict's reason.
std::vector<int> DriftingRails(const std::vector<Observation>& obs, const RailNoise& noise,
                               double tolerance, int i, std::vector<size_t>& used,
                               std::string& text) {
  std::vector<int> out;
  if (noise.sigma <= 0) return out;
  // partner -> its tests with i that have rails.
  std::map<int, std::vector<size_t>> by_partner;
  for (size_t k = 0; k < obs.size(); ++k) {
    if (noise.test_median[k] > 0 && obs[k].Has(i)) by_partner[obs[k].Partner(i)].push_back(k);
  }
  // Three partners at least: two remain once the worst is left out.
  if (by_partner.size() < 3) return out;
  std::map<int, std::vector<double>> per_rail;  // rail -> one mean deviation per partner
  std::vector<std::string> parts;
  for (const auto& [partner, tests] : by_partner) {
    std::map<int, std::pair<double, int>> sum;
    for (size_t k : tests) {
      for (const RailResult& r : obs[k].rails) {
        // Clearly slow in this test (below 1 - 2 tol): a rail fault the
        // other rules judge, of this node or of its partner; two partners
        // with the same bad rail must not make `i` drift.
        const std::vector<int>& slow = obs[k].slow_rails;
        if (std::find(slow.begin(), slow.end(), r.rail) != slow.end()) continue;
        auto& [total, count] = sum[r.rail];
        total += r.busbw_gbps / noise.test_median[k] - 1;
        ++count;
      }
    }
    for (const auto& [rail, total_count] : sum) {
      per_rail[rail].push_back(total_count.first / total_count.second);
    }
  }
  for (auto& [rail, d] : per_rail) {
    if (d.size() < 3) continue;
    std::sort(d.begin(), d.end());
    const std::vector<double> kept(d.begin() + 1, d.end());
    double mean = 0;
    bool every = true;
    for (double x : kept) {
      mean += x;
      // Below its test's median rail with every partner: a drift, not a few
      // deep dips (the mean alone could be one partner's doing).
      every = every && x < 0;
    }
    mean /= static_cast<double>(kept.size());
    const double z = mean / (noise.sigma / std::sqrt(static_cast<double>(kept.size())));
    if (!every || z >= -noise.z || mean > -tolerance / 2) continue;
    out.push_back(rail);
    parts.push_back(
        absl::StrFormat("rail %d %.1f%% below its tests' median rail", rail, -100 * mean));
  }
  if (out.empty()) return out;
  for (const auto& [partner, tests] : by_partner) {
    used.insert(used.end(), tests.begin(), tests.end());
  }
  std::sort(used.begin(), used.end());
  text = absl::StrFormat(
      "%s with all %d partners but the worst (the rails' noise: %.1f%% sigma over the fleet; "
      "a drift is %.1f sigmas of the mean, and half the tolerance)",
      absl::StrJoin(parts, ", "), static_cast<int>(by_partner.size()), 100 * noise.sigma, noise.z);
  return out;
}

// What the pair tests say before anyone is judged: each node's tally, which
// nodes are capable, and whom each node was slow with. It answers who is a
// good witness against a node, and who is intermittent.
struct PairWitnesses {
  std::vector<Tally> tally;
  // Took part, is not lost, and did well once: a bad node cannot (faults
  // only slow things down), so one fine result clears it.
  std::vector<bool> capable;
  std::vector<std::set<int>> ambiguous_partners;  // capable partners each node was slow with
  RailNoise rail_noise;
  double tolerance = 0.10;

  // Whether `p` has slowness that its test with `besides` does not explain:
  // a failure attributed to it alone, or slow with another capable node.
  bool Unexplained(int p, int besides) const {
    if (!tally[p].direct.empty()) return true;
    for (int q : ambiguous_partners[p]) {
      if (q != besides) return true;
    }
    return false;
  }

  // A good witness against `i`: did well, and is not slow with others.
  bool GoodWitness(int p, int i) const { return capable[p] && !Unexplained(p, i); }

  // Slow with two good witnesses although it did well elsewhere. A witness
  // slow with others too is no witness: two flaky partners would otherwise
  // make a healthy node look intermittent.
  bool Intermittent(int i) const {
    if (!capable[i]) return false;
    if (!tally[i].direct.empty()) return true;
    int witnesses = 0;
    for (int p : ambiguous_partners[i]) witnesses += GoodWitness(p, i) ? 1 : 0;
    return witnesses >= 2;
  }
};

// Per node, what its recorded pair tests said: fine, slow, a failure
// attributed to it alone, or an infra failure that named nobody.
std::vector<Tally> TallyPairTests(const std::vector<Observation>& obs, size_t n) {
  std::vector<Tally> tally(n);
  for (size_t k = 0; k < obs.size(); ++k) {
    const Observation& o = obs[k];
    if (o.kind != TestKind::kPair || !o.recorded || o.nodes.size() != 2) continue;
    for (int i : o.nodes) {
      switch (o.outcome) {
        case Outcome::kCompleted:
          if (!o.graded) break;
          if (o.grade == Grade::kFine) tally[i].fine.push_back(k);
          if (IsSlow(o.grade)) tally[i].slow.push_back(k);
          break;
        case Outcome::kHardwareFailure:
          if (!o.Names(i)) break;  // attributed to the partner: no evidence here
          (o.named.size() == 1 ? tally[i].direct : tally[i].slow).push_back(k);
          break;
        case Outcome::kInfraFailure:
          if (o.named.empty()) tally[i].unrun.push_back(k);
          break;
      }
    }
  }
  return tally;
}

PairWitnesses GatherWitnesses(const std::vector<Observation>& obs,
                              const std::vector<bool>& in_pairs, const std::vector<bool>& lost) {
  const size_t n = in_pairs.size();
  PairWitnesses w;
  w.tally = TallyPairTests(obs, n);
  w.capable.assign(n, false);
  for (size_t i = 0; i < n; ++i) w.capable[i] = in_pairs[i] && !lost[i] && !w.tally[i].fine.empty();
  w.rail_noise = MeasureRailNoise(obs, n);
  for (const Observation& o : obs) {
    if (o.kind == TestKind::kPair && o.graded && o.yardstick.base_gbps > 0) {
      w.tolerance = o.yardstick.tolerance;
      break;
    }
  }
  w.ambiguous_partners.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k : w.tally[i].slow) {
      const int p = obs[k].Partner(static_cast<int>(i));
      if (w.capable[p]) w.ambiguous_partners[i].insert(p);
    }
  }
  return w;
}

// The evidence against a node that never did well: every failure attributed
// to it alone, then its slow tests with good witnesses, one per partner (a
// second test with the same partner is no independent observation).
void CollectImplicating(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                        PairNode& node) {
  std::set<int> partners;
  for (size_t k : w.tally[i].direct) {
    node.implicating.push_back(k);
    partners.insert(obs[k].Partner(i));
    node.failed = true;
  }
  for (size_t k : w.tally[i].slow) {
    const int p = obs[k].Partner(i);
    if (!w.GoodWitness(p, i) || partners.count(p) != 0) continue;
    node.implicating.push_back(k);
    partners.insert(p);
    if (obs[k].outcome == Outcome::kHardwareFailure) node.failed = true;
  }
  std::sort(node.implicating.begin(), node.implicating.end());
}

// A node that never did well: confirmed bad with two implicating
// observations that agree on how slow it is (three when they disagree), a
// suspect with one; with none, untested or unresolved (slow only with
// unproven partners). All but the confirmed want another test.
void JudgeNeverFineNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                        PairNode& node) {
  CollectImplicating(obs, w, i, node);
  const size_t count = node.implicating.size();
  if (count >= 2 && (count >= 3 || ObservationsAgree(obs, node.implicating))) {
    node.status = PairStatus::kConfirmed;
    node.bad_rails = IntersectRails(obs, node.implicating, 1);
  } else if (count >= 1) {
    node.status = PairStatus::kSuspect;
    node.wants_test = true;
    node.bad_rails = IntersectRails(obs, node.implicating, 1);
  } else {
    node.status = w.tally[i].slow.empty() && w.tally[i].direct.empty() ? PairStatus::kUntested
                                                                       : PairStatus::kUnresolved;
    node.wants_test = true;
  }
}

// A capable node that is intermittent: implicated by the failures
// attributed to it and by its slow tests with good witnesses.
void JudgeIntermittentNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                           PairNode& node) {
  const Tally& tally = w.tally[i];
  node.status = PairStatus::kIntermittent;
  node.failed = !tally.direct.empty();
  node.implicating = tally.direct;
  for (size_t k : node.ambiguous) {
    if (w.GoodWitness(obs[k].Partner(i), i)) node.implicating.push_back(k);
  }
  std::sort(node.implicating.begin(), node.implicating.end());
  // One failure, nothing run since: re-test once before calling it.
  if (!tally.direct.empty()) {
    const size_t strike = tally.direct.front();
    node.wants_test =
        std::none_of(tally.fine.begin(), tally.fine.end(), [&](size_t k) { return k > strike; });
  }
}

// A capable node whose rails drift (DriftingRails): degraded, confirmed
// (three partners or more agree, and the fleet's noise cannot explain it),
// with those rails; no longer a trusted partner.
void JudgeRailDrift(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                    PairNode& node) {
  std::vector<size_t> used;
  std::string text;
  std::vector<int> rails = DriftingRails(obs, w.rail_noise, w.tolerance, i, used, text);
  if (rails.empty()) return;
  node.status = PairStatus::kConfirmed;
  node.reliable = false;
  node.rail_drift = std::move(text);
  node.bad_rails = std::move(rails);
  node.implicating = std::move(used);
}

// A capable node (it did well once, so it is not slow as a whole):
// confirmed failed with two failures attributed to it alone, intermittent,
// or healthy; a healthy node slow with no capable node is a trusted partner.
void JudgeCapableNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                      PairNode& node) {
  for (size_t k : w.tally[i].slow) {
    if (w.capable[obs[k].Partner(i)]) node.ambiguous.push_back(k);
  }
  if (w.tally[i].direct.size() >= 2) {
    node.status = PairStatus::kConfirmed;
    node.failed = true;
    node.implicating = w.tally[i].direct;
  } else if (w.Intermittent(i)) {
    JudgeIntermittentNode(obs, w, i, node);
  } else {
    node.status = PairStatus::kHealthy;
    node.reliable = w.ambiguous_partners[i].empty();
    JudgeRailDrift(obs, w, i, node);
  }
  // A test of it that could not run, nothing run since: re-test it once
  // with another partner (issue 29), so that a pair left unjudged does not
  // leave its nodes judged by older results alone.
  if (!w.tally[i].unrun.empty() && !node.wants_test) {
    const size_t strike = w.tally[i].unrun.back();
    node.wants_test = std::none_of(w.tally[i].fine.begin(), w.tally[i].fine.end(),
                                   [&](size_t k) { return k > strike; }) &&
                      std::none_of(w.tally[i].slow.begin(), w.tally[i].slow.end(),
                                   [&](size_t k) { return k > strike; });
  }
}

// One node's status: out of the suite, lost (its agent, or two infra
// failures that named nobody), or judged as capable or not.
void JudgePairNode(const std::vector<Observation>& obs, const PairWitnesses& w, int i,
                   bool in_pairs, bool lost, PairNode& node) {
  node.infra_strikes = static_cast<int>(w.tally[i].unrun.size());
  node.fine = w.tally[i].fine;
  if (!in_pairs) return;
  if (lost || node.infra_strikes >= 2) {
    node.status = PairStatus::kLost;
  } else if (!w.capable[i]) {
    JudgeNeverFineNode(obs, w, i, node);
  } else {
    JudgeCapableNode(obs, w, i, node);
  }
}

// Path candidates: two healthy nodes (capable, neither intermittent) slow
// together. Slow twice (and more often than fine) is a bad path; fine once
// means the first result is not reproduced; otherwise it awaits its re-test,
// or stays a suspect where there are no re-tests (all-pairs).
std::vector<PathCandidate> AssessPathCandidates(const std::vector<Observation>& obs,
                                                const std::vector<PairNode>& nodes,
                                                const PairWitnesses& w, bool retests) {
  std::map<std::pair<int, int>, PathCandidate> paths;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].status != PairStatus::kHealthy) continue;
    for (int p : w.ambiguous_partners[i]) {
      if (p < i || nodes[p].status != PairStatus::kHealthy) continue;
      PathCandidate& c = paths[{i, p}];
      c.a = i;
      c.b = p;
    }
  }
  for (size_t k = 0; k < obs.size(); ++k) {
    const Observation& o = obs[k];
    if (o.kind != TestKind::kPair || !o.graded || o.nodes.size() != 2) continue;
    auto it = paths.find({std::min(o.nodes[0], o.nodes[1]), std::max(o.nodes[0], o.nodes[1])});
    if (it == paths.end()) continue;
    // A failure that names both nodes counts against the path like a slow
    // result (one naming a single node made that node intermittent).
    if (o.Fine()) it->second.fine.push_back(k);
    if (o.Slow() || o.outcome == Outcome::kHardwareFailure) it->second.slow.push_back(k);
  }
  std::vector<PathCandidate> out;
  for (auto& [key, c] : paths) {
    if (c.slow.size() >= 2 && c.slow.size() > c.fine.size()) {
      c.state = PathState::kConfirmed;
    } else if (!c.fine.empty()) {
      c.state = PathState::kNotReproduced;
    } else {
      c.state = retests ? PathState::kNeedsRetest : PathState::kSuspect;
    }
    if (c.state == PathState::kConfirmed || c.state == PathState::kSuspect) {
      c.rails = IntersectRails(obs, c.slow, 1);
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

PairAssessment AssessPairs(const std::vector<Observation>& obs, const std::vector<bool>& in_pairs,
                           const std::vector<bool>& lost, bool retests) {
  const PairWitnesses witnesses = GatherWitnesses(obs, in_pairs, lost);
  PairAssessment out;
  out.nodes.resize(in_pairs.size());
  for (size_t i = 0; i < in_pairs.size(); ++i) {
    out.any_capable = out.any_capable || witnesses.capable[i];
    JudgePairNode(obs, witnesses, static_cast<int>(i), in_pairs[i], lost[i], out.nodes[i]);
  }
  out.paths = AssessPathCandidates(obs, out.nodes, witnesses, retests);
  return out;
}

}  // namespace eb::validation
