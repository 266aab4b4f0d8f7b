#pragma once

// What the validation core asks the runner to run, and what the runner
// tells it back. A round is a set of tests on disjoint nodes: the runner
// starts them all at once (through the existing test machinery), waits for
// every one, and records each outcome with Validation::Record.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// The core's enums of the validation vocabulary are defined as their wire
// values (control.proto), so that converting is a cast (ToWire) and the
// names are the wire's (spec::WireName: "intra", "infra_failure"). The
// static_asserts fail to compile when control.proto gains a value that the
// enum below does not list.

enum class TestKind {
  kIntra = ebnccl::v1::TEST_KIND_INTRA,  // one node, all its GPUs
  kPair = ebnccl::v1::TEST_KIND_PAIR,    // two nodes, all GPUs of both, NCCL_ALGO=Ring
  kFleet = ebnccl::v1::TEST_KIND_FLEET,  // every healthy node in one test
};
static_assert(static_cast<int>(TestKind::kFleet) == ebnccl::v1::TestKind_MAX);
constexpr ebnccl::v1::TestKind ToWire(TestKind kind) {
  return static_cast<ebnccl::v1::TestKind>(kind);
}
std::string TestKindName(TestKind kind);

struct PlannedTest {
  int64_t id = 0;  // unique within the validation, > 0
  TestKind kind = TestKind::kIntra;
  std::vector<std::string> nodes;  // node names; all GPUs of each
  ebnccl::v1::Collective collective = ebnccl::v1::COLLECTIVE_UNSPECIFIED;
  // NCCL environment the test must run with, e.g. {"NCCL_ALGO", "Ring"} for
  // pair tests: 2-node tests with tree algorithms overstate the network.
  std::vector<std::pair<std::string, std::string>> nccl_env;
  // Split the test into one sub-communicator per local rank (ncclCommSplit,
  // color = local rank; nccl-tests' NCCL_TESTS_SPLIT="MOD <gpus per node>"):
  // one busbw per rail, in parallel. Report them in TestResult::rails.
  bool split_rails = false;
  // Its sweep and calls per size (graded_size.h); 0 = the validation spec's.
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  int32_t iterations = 0;
  std::string purpose;  // why this test, for progress output
};

struct Round {
  bool done = false;  // nothing left to run: read Validation::Report()
  int number = 0;     // 1-based over the whole validation
  TestKind kind = TestKind::kIntra;
  int suite_round = 0;  // 1-based within its suite ("pair round 2"), or repeat of the soak
  bool soak = false;    // a soak repeat (Options::soak)
  std::vector<PlannedTest> tests;
};

struct RailResult {
  int rail = 0;  // local rank 0..gpus-1
  double busbw_gbps = 0;
};

enum class Outcome {
  // The test ran to the end with correct data: busbw is a measurement.
  kCompleted = ebnccl::v1::OUTCOME_COMPLETED,
  // Launch failed, an agent was lost, a deadline passed before any data:
  // never a hardware verdict. `nodes` names the nodes lost (they become
  // untestable); empty when nobody can be named (each node then gets a
  // strike, and two strikes make a node untestable).
  kInfraFailure = ebnccl::v1::OUTCOME_INFRA_FAILURE,
  // Wrong data, an NCCL error, a worker crash attributed to a rank: names
  // the node(s) it is attributed to (at least one).
  kHardwareFailure = ebnccl::v1::OUTCOME_HARDWARE_FAILURE,
};
static_assert(static_cast<int>(Outcome::kHardwareFailure) == ebnccl::v1::Outcome_MAX);
constexpr ebnccl::v1::Outcome ToWire(Outcome outcome) {
  return static_cast<ebnccl::v1::Outcome>(outcome);
}
std::string OutcomeName(Outcome outcome);

struct TestResult {
  int64_t test_id = 0;
  Outcome outcome = Outcome::kCompleted;
  // kCompleted: busbw of the largest messages, GB/s. With split rails, the
  // rails together; 0 = the sum of `rails`.
  double busbw_gbps = 0;
  std::vector<RailResult> rails;   // kCompleted with split_rails
  std::vector<std::string> nodes;  // see Outcome
  std::string message;             // the runner's one-line reason
  // kCompleted: the test stopped early, too slow to finish a size within
  // its deadline; busbw_gbps is what the sizes done measured, and the test
  // is graded slow whatever its yardstick says.
  bool cut_short = false;
  // kCompleted: the size whose busbw is graded (the sweep's largest), and
  // the smallest size within 5 % of its busbw (graded_size.h, PlateauBytes);
  // 0 = not known (a runner that does not say).
  int64_t graded_bytes = 0;
  int64_t plateau_bytes = 0;

  static TestResult Completed(int64_t id, double busbw_gbps, std::vector<RailResult> rails = {});
  static TestResult InfraFailure(int64_t id, std::vector<std::string> lost, std::string message);
  static TestResult HardwareFailure(int64_t id, std::vector<std::string> nodes,
                                    std::string message);
};

}  // namespace eb::validation
