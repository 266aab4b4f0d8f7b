#pragma once

// One fleet validation as a state machine (issue 11, parts 2-4): built from
// the fleet and the options, it hands out rounds of tests and takes their
// outcomes, and can report its verdicts at any time. Pure: no I/O, no clock,
// no randomness; the runner owns execution, deadlines and persistence.
//
//   auto v = Validation::Create(nodes, options);          // preflight runs here
//   for (;;) {
//     absl::StatusOr<Round> round = v->NextRound();
//     if (round->done) break;
//     run round->tests at once (disjoint nodes); for each: v->Record(result);
//   }
//   ValidationReport report = v->Report();                // exit 7 if AnyBad()
//
// Suites run in order: preflight (no rounds), intra (every node at once, then
// re-tests of slow nodes), pairs (adaptive or all-pairs), with a topology
// the link rounds (link_rounds.h), fleet (one test).
// Record every test of a round before asking for the next round.

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/validation/fleet.h"
#include "coordinator/validation/grader.h"
#include "coordinator/validation/pair_planner.h"
#include "coordinator/validation/plan.h"
#include "coordinator/validation/validation_state.h"
#include "coordinator/validation/verdict.h"

namespace eb::validation {

class Validation {
 public:
  // INVALID_ARGUMENT (naming the field) for bad input; see ValidateInputs.
  static absl::StatusOr<std::unique_ptr<Validation>> Create(std::vector<Node> nodes,
                                                            Options options);

  // The next round, or one with done = true. FAILED_PRECONDITION while a
  // test of the current round has no result.
  absl::StatusOr<Round> NextRound();

  // The outcome of one test of the current round. NOT_FOUND for a test id
  // not in it, FAILED_PRECONDITION for a second result, INVALID_ARGUMENT for
  // a result that does not fit its test (a node not in it, a rail out of
  // range, a negative or non-finite busbw, a hardware failure naming nobody).
  absl::Status Record(const TestResult& result);

  // With Options::soak: whether another soak repeat may start (the runner
  // owns the clock: true until the soak's time is up). Once false, it stays.
  void KeepSoaking(bool more) { soak_open_ = soak_open_ && more; }

  // The runner ended the validation early (`reason`: "cancelled: ...", a
  // deadline, a restart). Report() then says of every node that no test
  // reached that it was not reached, instead of leaving "untestable" to read
  // like an infrastructure failure of the node.
  void Stop(std::string reason) { state_.stopped_reason = std::move(reason); }

  ValidationReport Report() const;
  bool done() const { return state_.done; }

 private:
  enum class Stage { kIntra, kPairs, kLinks, kSoak, kFleet, kDone };

  Validation(std::vector<Node> nodes, Options options);
  bool PlanIntra(Round& round);
  bool PlanPairs(Round& round);
  std::vector<NodePair> FirstRoundPairs(const std::vector<int>& nodes,
                                        const std::vector<std::string>& leaves) const;
  bool PlanLaterPairs(Round& round, const std::vector<std::string>& names);
  int NextPairSuiteRound() const;
  bool PlanLinks(Round& round);
  bool AddLinkTests(Round& round, std::vector<bool>& taken);
  bool PlanSoak(Round& round);
  bool PlanFleet(Round& round);
  void StartPairs();
  void AddTest(Round& round, TestKind kind, std::vector<int> nodes, std::string purpose);
  int64_t LearnedPlateauBytes() const;
  void MarkLost(int node, const Observation& during, const std::string& message);

  ValidationState state_;
  Grader grader_;
  Stage stage_ = Stage::kIntra;
  int64_t next_test_id_ = 1;
  int round_number_ = 0;
  int intra_rounds_ = 0;
  int pair_rounds_ = 0;
  std::vector<size_t> current_;  // observations of the round in flight
  int pending_ = 0;              // of those, without a result
  std::set<NodePair> met_;       // pairs that produced a result
  std::vector<int> partner_uses_;
  std::vector<std::vector<NodePair>> schedule_;  // all-pairs
  size_t schedule_next_ = 0;
  bool soak_open_ = true;
  int soak_rounds_ = 0;
  std::vector<std::vector<NodePair>> soak_schedule_;  // partners rotate: a tournament
};

}  // namespace eb::validation
