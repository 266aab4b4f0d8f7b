// A validation whose fleet median was below its expected figure (its
// fleet_below_expected finding; on Gloo, a site's [[gloo_pairs]] figure):
// one fleet finding, whatever it covered; its healthy verdicts, judged
// against that median, resume no one; a node slower than its slow peers
// still drains (docs/DESIGN.md, "Fleet below its figure").
#include <algorithm>
#include <string>
#include <vector>

#include "coordinator/scheduler/decision.h"
#include "gtest/gtest.h"
#include "tests/unit/scheduler/scheduler_fixture.h"

namespace eb::scheduler {
namespace {

using testing::ActionFor;
using testing::Bad;
using testing::Fleet;
using testing::Good;
using testing::Input;
using testing::MustDecide;
using testing::Node;

constexpr char kBelow[] = "pairs: fleet median 0.025 over 6 nodes: below expected 0.1";

NodeVerdictRecord Below(NodeVerdictRecord record) {
  record.fleet_below_expected = kBelow;
  return record;
}

// v-2, an hour ago: every node of `fleet` healthy against a median below
// the figure, but those named in `slow`.
std::vector<NodeVerdictRecord> BelowFigure(int fleet, const std::vector<std::string>& slow = {}) {
  std::vector<NodeVerdictRecord> verdicts;
  for (int i = 1; i <= fleet; ++i) {
    const std::string node = "n" + std::to_string(i);
    const bool is_slow = std::find(slow.begin(), slow.end(), node) != slow.end();
    verdicts.push_back(Below(is_slow ? Bad(node, "v-2", 1) : Good(node, "v-2", 1)));
  }
  return verdicts;
}

std::vector<Finding> Of(const Decision& decision, FindingKind kind) {
  std::vector<Finding> found;
  for (const Finding& f : decision.findings) {
    if (f.kind == kind) found.push_back(f);
  }
  return found;
}

TEST(FleetBelowExpectedTest, IsOneFleetFindingAndDrainsNothing) {
  const Decision decision = MustDecide(Input(Fleet(6), BelowFigure(6)));
  const std::vector<Finding> below = Of(decision, FindingKind::kFleetBelowExpected);
  ASSERT_EQ(below.size(), 1u);
  EXPECT_EQ(below[0].validation_id, "v-2");
  EXPECT_EQ(below[0].node, "");
  EXPECT_NE(below[0].text.find("fleet below its expected figure in v-2 (6 judged nodes): " +
                               std::string(kBelow)),
            std::string::npos)
      << below[0].text;
  EXPECT_EQ(FindingKindName(below[0].kind), "fleet below expected");
  EXPECT_TRUE(Of(decision, FindingKind::kFleetWideSlowdown).empty());
  for (const Action& action : decision.actions) {
    EXPECT_EQ(action.kind, ActionKind::kLeave) << action.node;
  }
}

TEST(FleetBelowExpectedTest, ItsHealthyVerdictsResumeNoOneUntilAPassAgainstTheFigure) {
  std::vector<SchedulerNode> nodes = Fleet(6);
  nodes[0] = Node("n1", NodeState::kDrained, "ebnccl v-1: rail 3 at 52% of expected");
  std::vector<NodeVerdictRecord> verdicts = BelowFigure(6);
  verdicts.push_back(Bad("n1", "v-1", 10));
  const Action kept = ActionFor(MustDecide(Input(nodes, verdicts)), "n1");
  EXPECT_EQ(kept.kind, ActionKind::kLeave);
  EXPECT_EQ(kept.why, LeaveWhy::kAlreadyDrained);
  EXPECT_NE(kept.reason.find("below its expected figure"), std::string::npos) << kept.reason;

  // A later validation whose fleet reached its figure passes it.
  verdicts.push_back(Good("n1", "v-3", 0.5));
  EXPECT_EQ(ActionFor(MustDecide(Input(nodes, verdicts)), "n1").kind, ActionKind::kResume);
}

TEST(FleetBelowExpectedTest, ANodeSlowerThanItsSlowPeersStillDrains) {
  // Graded against the fleet's own median, n6 fell short of peers that all
  // fell short of the figure: slow by any yardstick.
  const Decision decision = MustDecide(Input(Fleet(6), BelowFigure(6, {"n6"})));
  EXPECT_EQ(ActionFor(decision, "n6").kind, ActionKind::kDrain);
  EXPECT_EQ(ActionFor(decision, "n6").reason, "ebnccl v-2: rail 3 at 52% of expected");
  EXPECT_EQ(Of(decision, FindingKind::kFleetBelowExpected).size(), 1u);
}

TEST(FleetBelowExpectedTest, IsAFindingWhateverTheValidationCovered) {
  // 3 of 20 nodes: too few for "most of the fleet slow", but the median of
  // what it judged was below the figure, and the report said so.
  const Decision decision = MustDecide(Input(Fleet(20), BelowFigure(3)));
  EXPECT_EQ(Of(decision, FindingKind::kFleetBelowExpected).size(), 1u);
  // A validation without the finding is none.
  std::vector<NodeVerdictRecord> plain;
  for (int i = 1; i <= 6; ++i) plain.push_back(Good("n" + std::to_string(i), "v-4", 1));
  EXPECT_TRUE(MustDecide(Input(Fleet(6), plain)).findings.empty());
}

}  // namespace
}  // namespace eb::scheduler
