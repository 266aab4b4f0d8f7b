// What the link localization reads of the pair results: one observation
// per rail of each completed, graded pair test; nothing of the others; in a
// single-rail fleet, the whole result as rail 0.
#include "coordinator/validation/link_observations.h"

#include <vector>

#include "gtest/gtest.h"

namespace eb::validation {
namespace {

Observation GradedPair(int a, int b, std::vector<RailResult> rails, std::vector<int> slow_rails) {
  Observation o;
  o.test_id = 11;
  o.round = 2;
  o.kind = TestKind::kPair;
  o.nodes = {a, b};
  o.recorded = true;
  o.outcome = ::eb::validation::Outcome::kCompleted;
  o.graded = true;
  o.rails = std::move(rails);
  o.slow_rails = std::move(slow_rails);
  Yardstick rail;
  rail.base_gbps = 46;
  rail.tolerance = 0.1;
  o.rail_yardstick = rail;
  return o;
}

TEST(LinkObservations, OnePerRailOfEachGradedPairTest) {
  std::vector<Observation> observations;
  observations.push_back(GradedPair(3, 7, {{0, 46}, {1, 23}}, {1}));
  Observation ungraded = GradedPair(1, 2, {{0, 46}}, {});
  ungraded.graded = false;
  observations.push_back(ungraded);
  Observation failed = GradedPair(1, 2, {{0, 46}}, {});
  failed.outcome = ::eb::validation::Outcome::kHardwareFailure;
  observations.push_back(failed);
  Observation intra = GradedPair(4, 4, {{0, 46}}, {});
  intra.kind = TestKind::kIntra;
  intra.nodes = {4};
  observations.push_back(intra);

  const std::vector<topology::LinkObservation> links = LinkObservationsOf(observations, false);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].a, 3);
  EXPECT_EQ(links[0].b, 7);
  EXPECT_EQ(links[0].rail, 0);
  EXPECT_FALSE(links[0].slow);
  EXPECT_DOUBLE_EQ(links[0].ratio, 1.0);
  EXPECT_EQ(links[1].rail, 1);
  EXPECT_TRUE(links[1].slow);
  EXPECT_DOUBLE_EQ(links[1].ratio, 0.5);
  EXPECT_EQ(links[1].round, 2);
  EXPECT_EQ(links[1].test_id, 11);
  EXPECT_EQ(LinkSlowRails(observations[0], false), std::vector<int>{1});
}

// A link at 80 %: its rail at 0.81 of the base is above the grader's
// slow line (1 - 2 tol) but below the links' (1 - tol).
TEST(LinkObservations, ARailIsSlowForLinksBelowOneToleranceUnderItsBase) {
  const std::vector<Observation> observations = {
      GradedPair(3, 7, {{0, 46}, {1, 0.81 * 46}, {2, 0.91 * 46}}, {})};
  const std::vector<topology::LinkObservation> links = LinkObservationsOf(observations, false);
  ASSERT_EQ(links.size(), 3u);
  EXPECT_FALSE(links[0].slow);
  EXPECT_TRUE(links[1].slow);
  EXPECT_FALSE(links[2].slow);
  EXPECT_EQ(LinkSlowRails(observations[0], false), std::vector<int>{1});
}

TEST(LinkObservations, ASingleRailFleetReadsTheWholeResultAsRail0) {
  Observation slow = GradedPair(3, 7, {}, {});
  slow.rail_yardstick.reset();
  slow.busbw_gbps = 2.5;
  slow.yardstick.base_gbps = 5;
  slow.grade = Grade::kSlow;
  Observation fine = slow;
  fine.test_id = 12;
  fine.busbw_gbps = 5;
  fine.grade = Grade::kFine;
  const std::vector<Observation> observations = {slow, fine};
  EXPECT_TRUE(LinkObservationsOf(observations, false).empty());
  const std::vector<topology::LinkObservation> links = LinkObservationsOf(observations, true);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].rail, 0);
  EXPECT_TRUE(links[0].slow);
  EXPECT_DOUBLE_EQ(links[0].ratio, 0.5);
  EXPECT_EQ(links[1].test_id, 12);
  EXPECT_FALSE(links[1].slow);
  EXPECT_DOUBLE_EQ(links[1].ratio, 1.0);
  EXPECT_EQ(LinkSlowRails(slow, true), std::vector<int>{0});
  EXPECT_TRUE(LinkSlowRails(fine, true).empty());
}

}  // namespace
}  // namespace eb::validation
