#include "coordinator/validation/validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "coordinator/validation/intra_inference.h"
#include "coordinator/validation/link_rounds.h"
#include "coordinator/validation/link_verdicts.h"
#include "coordinator/validation/pair_inference.h"
#include "coordinator/validation/report_builder.h"

namespace eb::validation {

absl::StatusOr<std::unique_ptr<Validation>> Validation::Create(std::vector<Node> nodes,
                                                               Options options) {
  absl::Status valid = ValidateInputs(nodes, options);
  if (!valid.ok()) return valid;
  return std::unique_ptr<Validation>(new Validation(std::move(nodes), std::move(options)));
}

Validation::Validation(std::vector<Node> nodes, Options options) : grader_(nodes, options) {
  state_.nodes = std::move(nodes);
  state_.options = std::move(options);
  const int n = state_.size();
  if (HasSuite(state_.options, Suite::kPreflight)) state_.preflight = RunPreflight(state_.nodes);
  state_.lost.assign(n, false);
  state_.lost_reason.assign(n, "");
  state_.in_intra.assign(n, false);
  state_.in_pairs.assign(n, false);
  state_.not_paired_reason.assign(n, "");
  partner_uses_.assign(n, 0);
  if (state_.options.fabric != nullptr) {
    std::vector<std::string> names;
    for (const Node& node : state_.nodes) names.push_back(node.name);
    state_.fabric = std::make_shared<const topology::FabricIndex>(*state_.options.fabric, names);
    state_.single_rail = state_.fabric->rail_count() == 1 &&
                         std::all_of(state_.nodes.begin(), state_.nodes.end(),
                                     [](const Node& node) { return node.hcas.size() <= 1; });
  }
  for (int i = 0; i < n; ++i) {
    if (!state_.nodes[i].reachable) {
      state_.lost[i] = true;
      state_.lost_reason[i] = "agent not reachable when the validation started";
    }
    state_.in_intra[i] =
        HasSuite(state_.options, Suite::kIntra) && state_.Fit(i) && !state_.lost[i];
  }
}

void Validation::AddTest(Round& round, TestKind kind, std::vector<int> nodes, std::string purpose) {
  Observation o;
  o.test_id = next_test_id_++;
  o.round = round.number;
  o.kind = kind;
  o.nodes = std::move(nodes);
  o.purpose = std::move(purpose);
  PlannedTest t;
  t.id = o.test_id;
  t.kind = kind;
  for (int i : o.nodes) t.nodes.push_back(state_.nodes[i].name);
  t.collective = state_.options.collective;
  if (kind == TestKind::kPair) {
    t.nccl_env.emplace_back("NCCL_ALGO", "Ring");
    t.split_rails = state_.options.split_rails;
  }
  const SizePolicy& sizes = state_.options.sizes;
  const int64_t figure = grader_.FigureBytes(kind, o.nodes);
  const TestSize size = kind == TestKind::kIntra
                            ? IntraTestSize(sizes, figure)
                            : NetworkTestSize(sizes, figure, LearnedPlateauBytes());
  t.min_bytes = size.min_bytes;
  t.max_bytes = size.max_bytes;
  t.iterations = size.iterations;
  o.graded_bytes = size.graded_bytes();
  t.purpose = o.purpose;
  round.tests.push_back(std::move(t));
  current_.push_back(state_.observations.size());
  state_.observations.push_back(std::move(o));
  ++pending_;
}

// The plateau the intra round found: the largest over the nodes, so that
// every node's network test is on its plateau (0: none measured).
int64_t Validation::LearnedPlateauBytes() const {
  int64_t plateau = 0;
  for (const Observation& o : state_.observations) {
    if (o.kind == TestKind::kIntra && o.Completed()) plateau = std::max(plateau, o.plateau_bytes);
  }
  return plateau;
}

bool Validation::PlanIntra(Round& round) {
  if (!HasSuite(state_.options, Suite::kIntra)) return false;
  const std::vector<IntraNode> intra = AssessIntra(state_.observations, state_.in_intra,
                                                   state_.lost, state_.options.max_intra_tests);
  round.kind = TestKind::kIntra;
  round.suite_round = intra_rounds_ + 1;
  for (int i = 0; i < state_.size(); ++i) {
    if (!state_.in_intra[i] || state_.lost[i] || !intra[i].wants_test) continue;
    AddTest(round, TestKind::kIntra, {i},
            intra[i].tests.empty() ? std::string("intra")
                                   : absl::StrCat("intra re-test of ", state_.nodes[i].name));
  }
  if (round.tests.empty()) return false;
  ++intra_rounds_;
  return true;
}

void Validation::StartPairs() {
  state_.pairs_started = true;
  const std::vector<IntraNode> intra = AssessIntra(state_.observations, state_.in_intra,
                                                   state_.lost, state_.options.max_intra_tests);
  for (int i = 0; i < state_.size(); ++i) {
    if (!state_.Fit(i) || state_.lost[i]) continue;
    if (intra[i].status == IntraStatus::kConfirmed) {
      state_.not_paired_reason[i] = "not pair-tested: intra confirmed it bad";
      continue;
    }
    if (intra[i].status == IntraStatus::kLost) continue;
    state_.in_pairs[i] = true;
  }
  std::vector<int> nodes;
  for (int i = 0; i < state_.size(); ++i) {
    if (state_.in_pairs[i]) nodes.push_back(i);
  }
  if (nodes.size() < 2) state_.pairs_too_few = true;
  if (state_.options.strategy == Strategy::kAllPairs) schedule_ = RoundRobin(nodes);
}

bool Validation::PlanPairs(Round& round) {
  if (!HasSuite(state_.options, Suite::kPairs)) return false;
  if (!state_.pairs_started) StartPairs();
  if (state_.pairs_too_few) return false;
  round.kind = TestKind::kPair;
  round.suite_round = NextPairSuiteRound();
  std::vector<std::string> names;
  for (const Node& node : state_.nodes) names.push_back(node.name);

  if (state_.options.strategy == Strategy::kAllPairs) {
    while (round.tests.empty() && schedule_next_ < schedule_.size()) {
      for (const NodePair& p : schedule_[schedule_next_]) {
        if (state_.lost[p.first] || state_.lost[p.second]) continue;
        AddTest(round, TestKind::kPair, {p.first, p.second}, "round-robin");
      }
      ++schedule_next_;
    }
  } else if (pair_rounds_ == 0) {
    std::vector<int> nodes;
    std::vector<std::string> leaves;
    for (int i = 0; i < state_.size(); ++i) {
      if (state_.in_pairs[i] && !state_.lost[i]) nodes.push_back(i);
      leaves.push_back(state_.nodes[i].leaf);
    }
    for (const NodePair& p : FirstRoundPairs(nodes, leaves)) {
      const bool same_leaf = !leaves[p.first].empty() && leaves[p.first] == leaves[p.second];
      AddTest(round, TestKind::kPair, {p.first, p.second},
              same_leaf ? "round 1 matching (same leaf: the reference)" : "round 1 matching");
    }
  } else {
    return PlanLaterPairs(round, names);
  }
  if (round.tests.empty()) return false;
  ++pair_rounds_;
  return true;
}

// A later adaptive round. Over a known fabric the link round's tests come
// first and the node localizer's take the nodes they leave free, in the
// same round: a test that isolates a node's cables is also that node's
// re-test with a partner that did well, and a pair whose slowness a blamed
// link explains needs no re-test of its own (link_verdicts.h).
bool Validation::PlanLaterPairs(Round& round, const std::vector<std::string>& names) {
  std::vector<bool> taken(state_.size(), false);
  // A soak's re-tests are the node localizer's alone (links were done before).
  const bool links = stage_ != Stage::kSoak && AddLinkTests(round, taken);
  PairAssessment assessment =
      AssessPairs(state_.observations, state_.in_pairs, state_.lost, /*retests=*/true);
  if (state_.fabric != nullptr) DropPathsTheFabricExplains(state_, assessment);
  const bool wanted =
      std::any_of(assessment.nodes.begin(), assessment.nodes.end(),
                  [](const PairNode& p) { return p.wants_test; }) ||
      std::any_of(assessment.paths.begin(), assessment.paths.end(),
                  [](const PathCandidate& c) { return c.state == PathState::kNeedsRetest; });
  if (pair_rounds_ >= state_.options.max_pair_rounds) {
    state_.pair_round_limit = wanted;
    return links;
  }
  const size_t before = round.tests.size();
  const AdaptivePlan plan = PlanAdaptiveRound(assessment, met_, names, partner_uses_, taken);
  for (const PlannedPair& p : plan.pairs) {
    AddTest(round, TestKind::kPair, {p.nodes.first, p.nodes.second}, p.purpose);
  }
  if (round.tests.size() > before) ++pair_rounds_;
  return !round.tests.empty();
}

// Pair rounds (pairs and link rounds, not soak repeats) so far, plus one.
int Validation::NextPairSuiteRound() const {
  return 1 + static_cast<int>(std::count_if(
                 state_.rounds.begin(), state_.rounds.end(),
                 [](const RoundSummary& r) { return r.kind == TestKind::kPair && !r.soak; }));
}

// Round 1's matching. Across leaves; but over a known fabric, when no
// expected figure judges the pair tests (the fleet median does), mostly
// within leaves, so that an uplink slow on every crossing pair cannot set
// the median (pair_planner.h, FirstRoundWithLeafReference).
std::vector<NodePair> Validation::FirstRoundPairs(const std::vector<int>& nodes,
                                                  const std::vector<std::string>& leaves) const {
  if (state_.fabric == nullptr || nodes.size() < 2) return FirstRoundMatching(nodes, leaves);
  const int64_t figure = grader_.FigureBytes(TestKind::kPair, nodes);
  const int64_t graded =
      NetworkTestSize(state_.options.sizes, figure, LearnedPlateauBytes()).graded_bytes();
  if (grader_.PairHasFigure(nodes, graded)) return FirstRoundMatching(nodes, leaves);
  return FirstRoundWithLeafReference(nodes, leaves);
}

// A link round (link_rounds.h): only with a topology and rail results
// (split_rails, or a single-rail fleet whose whole results are rail 0's).
bool Validation::PlanLinks(Round& round) {
  round.kind = TestKind::kPair;
  round.suite_round = NextPairSuiteRound();
  std::vector<bool> taken(state_.size(), false);
  return AddLinkTests(round, taken);
}

// The link round's tests into `round` (their nodes marked in `taken`);
// false when the links want none.
bool Validation::AddLinkTests(Round& round, std::vector<bool>& taken) {
  if (state_.fabric == nullptr || !(state_.options.split_rails || state_.single_rail) ||
      !state_.pairs_started || state_.pairs_too_few || !HasSuite(state_.options, Suite::kPairs)) {
    return false;
  }
  const LinkFollowUp next = PlanLinkFollowUp(state_);
  state_.link_plan = next.plan;
  if (next.pairs.empty()) return false;
  if (state_.link_rounds >= state_.options.max_link_rounds) {
    state_.link_round_limit = true;
    return false;
  }
  for (const topology::LinkPlannedPair& p : next.pairs) {
    taken[p.a] = taken[p.b] = true;
    AddTest(round, TestKind::kPair, {p.a, p.b}, absl::StrCat("link round: ", p.purpose));
  }
  ++state_.link_rounds;  // not a pair round: max_pair_rounds bounds the node localizer's
  return true;
}

// A soak repeat: the nodes the pairs found healthy, in pairs of a
// round-robin tournament (partners rotate, so that a flaky link shows with
// more than one partner), at the graded size. Their results are graded like
// any pair test; a slow one is re-tested by PlanPairs before the next repeat.
bool Validation::PlanSoak(Round& round) {
  if (!state_.options.soak || !soak_open_ || !HasSuite(state_.options, Suite::kPairs) ||
      state_.pairs_too_few) {
    return false;
  }
  const ValidationReport report = BuildReport(state_);
  auto healthy = [&](int i) {
    return state_.in_pairs[i] && !state_.lost[i] && report.nodes[i].verdict == Verdict::kHealthy;
  };
  if (soak_schedule_.empty()) {
    std::vector<int> nodes;
    for (int i = 0; i < state_.size(); ++i) {
      if (healthy(i)) nodes.push_back(i);
    }
    if (nodes.size() < 2) return false;
    soak_schedule_ = RoundRobin(nodes);
  }
  round.kind = TestKind::kPair;
  round.soak = true;
  round.suite_round = soak_rounds_ + 1;
  for (const NodePair& p : soak_schedule_[soak_rounds_ % soak_schedule_.size()]) {
    if (!healthy(p.first) || !healthy(p.second)) continue;
    AddTest(round, TestKind::kPair, {p.first, p.second},
            absl::StrCat("soak repeat ", soak_rounds_ + 1));
  }
  ++soak_rounds_;
  if (!round.tests.empty()) return true;
  soak_open_ = false;  // no healthy pair is left to soak
  return false;
}

bool Validation::PlanFleet(Round& round) {
  if (!HasSuite(state_.options, Suite::kFleet) || state_.fleet_started) return false;
  state_.fleet_started = true;
  const ValidationReport report = BuildReport(state_);
  std::vector<int> nodes;
  for (int i = 0; i < state_.size(); ++i) {
    if (report.nodes[i].verdict == Verdict::kHealthy) nodes.push_back(i);
  }
  if (nodes.size() < 2) {
    state_.findings.push_back({FindingKind::kTooFewNodes, false,
                               "fewer than 2 healthy nodes: the fleet test did not run"});
    return false;
  }
  round.kind = TestKind::kFleet;
  round.suite_round = 1;
  AddTest(round, TestKind::kFleet, nodes,
          absl::StrCat("one test over the ", nodes.size(), " healthy nodes"));
  return true;
}

absl::StatusOr<Round> Validation::NextRound() {
  if (pending_ > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("round ", round_number_, " still has ", pending_, " tests without a result"));
  }
  current_.clear();
  Round round;
  round.number = round_number_ + 1;
  while (stage_ != Stage::kDone) {
    bool planned = false;
    switch (stage_) {
      case Stage::kIntra:
        planned = PlanIntra(round);
        break;
      case Stage::kPairs:
        planned = PlanPairs(round);
        break;
      case Stage::kLinks:
        // The node localizer's re-tests that a link round's results ask for
        // come first.
        planned = PlanPairs(round) || PlanLinks(round);
        break;
      case Stage::kSoak:
        // Re-tests of what the last repeat found slow come first.
        planned = PlanPairs(round) || PlanSoak(round);
        break;
      case Stage::kFleet:
        planned = PlanFleet(round);
        break;
      case Stage::kDone:
        break;
    }
    if (planned) {
      ++round_number_;
      state_.rounds.push_back({round.number, round.kind, round.suite_round,
                               static_cast<int>(round.tests.size()), round.soak});
      return round;
    }
    stage_ = static_cast<Stage>(static_cast<int>(stage_) + 1);
  }
  state_.done = true;
  Round done;
  done.done = true;
  done.number = round_number_;
  return done;
}

void Validation::MarkLost(int node, const Observation& during, const std::string& message) {
  if (state_.lost[node]) return;
  state_.lost[node] = true;
  state_.lost_reason[node] = absl::StrCat(
      "lost during test ", during.test_id, " (round ", during.round, ", ",
      TestKindName(during.kind), "): ", message, " - infrastructure, not a hardware verdict");
}

absl::Status Validation::Record(const TestResult& result) {
  size_t index = state_.observations.size();
  for (size_t k : current_) {
    if (state_.observations[k].test_id == result.test_id) index = k;
  }
  if (index == state_.observations.size()) {
    return absl::NotFoundError(
        absl::StrCat("test_id: no test ", result.test_id, " in round ", round_number_));
  }
  Observation& o = state_.observations[index];
  if (o.recorded) {
    return absl::FailedPreconditionError(
        absl::StrCat("test_id: test ", result.test_id, " already has a result"));
  }
  std::map<std::string, int> members;
  for (int i : o.nodes) members[state_.nodes[i].name] = i;
  std::vector<int> named;
  for (const std::string& name : result.nodes) {
    auto it = members.find(name);
    if (it == members.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes: '", name, "' is not in test ", result.test_id));
    }
    named.push_back(it->second);
  }
  if (result.outcome == Outcome::kHardwareFailure && named.empty()) {
    return absl::InvalidArgumentError("nodes: a hardware failure must name at least one node");
  }
  double busbw = result.busbw_gbps;
  if (result.outcome == Outcome::kCompleted) {
    int gpus = 0;
    for (int i : o.nodes)
      gpus = gpus == 0 ? state_.nodes[i].gpu_count : std::min(gpus, state_.nodes[i].gpu_count);
    std::vector<bool> seen(std::max(gpus, 0), false);
    double sum = 0;
    for (const RailResult& r : result.rails) {
      if (r.rail < 0 || r.rail >= gpus || seen[r.rail]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "rails: rail ", r.rail, " is out of range or repeated (", gpus, " rails)"));
      }
      if (!std::isfinite(r.busbw_gbps) || r.busbw_gbps < 0) {
        return absl::InvalidArgumentError(absl::StrCat("rails: rail ", r.rail, " busbw invalid"));
      }
      seen[r.rail] = true;
      sum += r.busbw_gbps;
    }
    if (!std::isfinite(busbw) || busbw < 0) {
      return absl::InvalidArgumentError("busbw_gbps: negative or not finite");
    }
    if (busbw == 0) busbw = sum;
  }
  o.recorded = true;
  o.outcome = result.outcome;
  o.busbw_gbps = busbw;
  if (result.outcome == Outcome::kCompleted) o.rails = result.rails;
  o.named = std::move(named);
  o.message = result.message;
  o.cut_short = result.outcome == Outcome::kCompleted && result.cut_short;
  // The size planned, unless the runner measured another (the user's sweep).
  if (result.graded_bytes > 0) o.graded_bytes = result.graded_bytes;
  o.plateau_bytes = result.plateau_bytes;
  if (o.outcome == Outcome::kCompleted && o.nodes.size() == 2) {
    met_.insert({std::min(o.nodes[0], o.nodes[1]), std::max(o.nodes[0], o.nodes[1])});
  }
  if (o.outcome == Outcome::kHardwareFailure && o.nodes.size() == 2) {
    met_.insert({std::min(o.nodes[0], o.nodes[1]), std::max(o.nodes[0], o.nodes[1])});
  }
  if (o.outcome == Outcome::kInfraFailure) {
    for (int i : o.named) MarkLost(i, o, result.message);
  }
  grader_.Add(o);
  if (--pending_ == 0) {
    grader_.GradeAll(state_.observations);
  }
  return absl::OkStatus();
}

ValidationReport Validation::Report() const { return BuildReport(state_); }

}  // namespace eb::validation
