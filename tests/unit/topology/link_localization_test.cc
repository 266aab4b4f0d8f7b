// Paths over a fabric and group testing over links, on small hand-made
// fat-trees with a noiseless oracle: what is named, what is said to be
// inseparable, and that nodes are blamed only through their own cables.
#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/topology/link_localization.h"
#include "coordinator/topology/link_report.h"
#include "coordinator/topology/paths.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::topology {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// `leaves` leaves of `per_leaf` nodes on each of `rails` rails, each leaf
// linked to `spines` spines of its rail. Node j is "n<j>" on leaf j/per_leaf.
Fabric SmallFatTree(int leaves, int per_leaf, int spines, int rails) {
  Fabric fabric;
  for (int rail = 0; rail < rails; ++rail) {
    for (int j = 0; j < leaves * per_leaf; ++j) {
      fabric.cables.push_back({absl::StrCat("n", j), absl::StrCat("mlx5_", rail), rail,
                               absl::StrCat("leaf", rail, "-", j / per_leaf), j % per_leaf + 1});
    }
    for (int leaf = 0; leaf < leaves; ++leaf) {
      for (int spine = 0; spine < spines; ++spine) {
        fabric.uplinks.push_back({absl::StrCat("leaf", rail, "-", leaf), per_leaf + spine + 1,
                                  absl::StrCat("spine", rail, "-", spine), leaf + 1});
      }
    }
  }
  return fabric;
}

std::vector<std::string> Names(int n) {
  std::vector<std::string> names;
  names.reserve(n);
  for (int j = 0; j < n; ++j) names.push_back(absl::StrCat("n", j));
  return names;
}

int Uplink(const FabricIndex& index, int rail, int leaf, int spine) {
  return index.UplinkOf(index.SwitchIdOf(absl::StrCat("leaf", rail, "-", leaf)),
                        index.SwitchIdOf(absl::StrCat("spine", rail, "-", spine)));
}

// Runs rounds to the end against `factor_of(a, b, rail)` (no noise).
struct Driven {
  int rounds = 0;
  std::vector<LinkObservation> observations;
  LinkReport report;
};
Driven DriveLinks(const FabricIndex& index, Routing routing,
                  const std::function<double(int, int, int)>& factor_of) {
  Driven out;
  std::vector<LinkPlannedPair> pairs = PlanFirstLinkRound(index);
  LinkAssessment assessment;
  LinkPlan plan;
  while (!pairs.empty() && out.rounds < 8) {
    ++out.rounds;
    for (const LinkPlannedPair& pair : pairs) {
      for (int rail = 0; rail < index.rail_count(); ++rail) {
        LinkObservation o;
        o.a = pair.a;
        o.b = pair.b;
        o.rail = rail;
        o.round = out.rounds;
        o.ratio = factor_of(pair.a, pair.b, rail);
        o.slow = o.ratio < 0.9;
        out.observations.push_back(o);
      }
    }
    assessment = AssessLinks(index, routing, out.observations);
    plan = PlanLinkRound(index, routing, out.observations, assessment);
    pairs = plan.pairs;
  }
  out.report = JudgeLinks(index, out.observations, assessment, plan);
  return out;
}

// The slowest bad link on the pair's path (routing as the localizer assumes).
std::function<double(int, int, int)> LinkOracle(const FabricIndex& index, Routing routing,
                                                const std::vector<std::pair<int, double>>& bad) {
  return [&index, routing, bad](int a, int b, int rail) {
    double factor = 1;
    for (int link : index.Path(a, b, rail, routing).links) {
      for (const auto& [id, f] : bad) {
        if (id == link) factor = std::min(factor, f);
      }
    }
    return factor;
  };
}

TEST(Paths, SameLeafCrossLeafAndSpray) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 1), Names(12));
  EXPECT_EQ(index.rail_count(), 1);
  // Same leaf: the two cables.
  PathLinks same = index.Path(0, 1, 0, Routing::kDestinationModK);
  EXPECT_THAT(same.links, UnorderedElementsAre(index.CableOf(0, 0), index.CableOf(1, 0)));
  // n1 (rank 1 on leaf 0) and n6 (rank 2 on leaf 1): traffic to n6 goes
  // through spine 2 mod 2 = 0, to n1 through spine 1.
  PathLinks cross = index.Path(1, 6, 0, Routing::kDestinationModK);
  EXPECT_THAT(cross.links, UnorderedElementsAre(index.CableOf(1, 0), index.CableOf(6, 0),
                                                Uplink(index, 0, 0, 0), Uplink(index, 0, 1, 0),
                                                Uplink(index, 0, 0, 1), Uplink(index, 0, 1, 1)));
  // n0 and n4 (both rank 0): one spine both ways.
  EXPECT_EQ(index.Path(0, 4, 0, Routing::kDestinationModK).links.size(), 4u);
  // Spray: every spine both leaves reach.
  EXPECT_EQ(index.Path(0, 4, 0, Routing::kSpray).links.size(), 6u);
  // Not cabled: unreachable.
  EXPECT_FALSE(index.Path(0, 4, 1, Routing::kDestinationModK).reachable);
  EXPECT_EQ(index.Describe(index.CableOf(6, 0)), "cable n6 mlx5_0 (rail 0) - leaf0-1 port 3");
  EXPECT_EQ(index.Describe(Uplink(index, 0, 1, 1)), "uplink leaf0-1 - spine0-1 (ports 6-2)");
}

TEST(FirstRound, LoadsEveryLeafAndUplink) {
  for (int spines : {2, 4}) {
    const FabricIndex index(SmallFatTree(3, 4, spines, 2), Names(12));
    const std::vector<LinkPlannedPair> pairs = PlanFirstLinkRound(index);
    EXPECT_EQ(pairs.size(), 6u);
    for (const LinkPlannedPair& pair : pairs) {
      EXPECT_NE(index.LeafOf(pair.a, 0), index.LeafOf(pair.b, 0)) << pair.a << " " << pair.b;
    }
    EXPECT_THAT(UnloadedUplinks(index, Routing::kDestinationModK, pairs), IsEmpty());
  }
}

TEST(LinkLocalization, NamesOneUplinkAndBlamesNoNode) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 2), Names(12));
  const int bad = Uplink(index, 1, 2, 1);
  const Driven run = DriveLinks(index, Routing::kDestinationModK,
                                LinkOracle(index, Routing::kDestinationModK, {{bad, 0.5}}));
  EXPECT_EQ(run.rounds, 2);
  ASSERT_EQ(run.report.links.size(), 1u);
  EXPECT_EQ(run.report.links[0].link, bad);
  EXPECT_TRUE(run.report.links[0].confirmed);
  EXPECT_DOUBLE_EQ(run.report.links[0].ratio, 0.5);
  EXPECT_THAT(run.report.rails, IsEmpty());
  EXPECT_THAT(run.report.nodes, IsEmpty());
  EXPECT_THAT(run.report.inseparable, IsEmpty());
}

TEST(LinkLocalization, TwoLeavesLeaveTwoLinksNoPlanCanSeparate) {
  const FabricIndex index(SmallFatTree(2, 4, 2, 1), Names(8));
  const int bad = Uplink(index, 0, 0, 1);
  const Driven run = DriveLinks(index, Routing::kDestinationModK,
                                LinkOracle(index, Routing::kDestinationModK, {{bad, 0.5}}));
  EXPECT_THAT(run.report.links, IsEmpty());
  ASSERT_EQ(run.report.inseparable.size(), 1u);
  EXPECT_THAT(run.report.inseparable[0].links, UnorderedElementsAre(bad, Uplink(index, 0, 1, 1)));
  EXPECT_THAT(run.report.rails, IsEmpty());
  EXPECT_THAT(run.report.nodes, IsEmpty());
}

TEST(LinkLocalization, SprayNamesTheLeafNotTheUplink) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 1), Names(12));
  const int bad = Uplink(index, 0, 1, 0);
  const Driven run =
      DriveLinks(index, Routing::kSpray, LinkOracle(index, Routing::kSpray, {{bad, 0.5}}));
  EXPECT_THAT(run.report.links, IsEmpty());
  ASSERT_EQ(run.report.inseparable.size(), 1u) << DescribeLinkReport(index, run.report);
  EXPECT_THAT(run.report.inseparable[0].links, UnorderedElementsAre(bad, Uplink(index, 0, 1, 1)));
  EXPECT_THAT(run.report.nodes, IsEmpty());
  EXPECT_THAT(run.report.rails, IsEmpty());
}

TEST(LinkLocalization, CableIsARailVerdictAndEveryCableANodeVerdict) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 2), Names(12));
  const Driven cable =
      DriveLinks(index, Routing::kDestinationModK,
                 LinkOracle(index, Routing::kDestinationModK, {{index.CableOf(5, 1), 0.5}}));
  ASSERT_EQ(cable.report.rails.size(), 1u);
  EXPECT_EQ(cable.report.rails[0].node, 5);
  EXPECT_EQ(cable.report.rails[0].rail, 1);
  EXPECT_TRUE(cable.report.rails[0].confirmed);
  EXPECT_THAT(cable.report.nodes, IsEmpty());
  EXPECT_THAT(cable.report.links, IsEmpty());

  const Driven node =
      DriveLinks(index, Routing::kDestinationModK,
                 LinkOracle(index, Routing::kDestinationModK,
                            {{index.CableOf(5, 0), 0.6}, {index.CableOf(5, 1), 0.6}}));
  ASSERT_EQ(node.report.nodes.size(), 1u);
  EXPECT_EQ(node.report.nodes[0].node, 5);
  EXPECT_TRUE(node.report.nodes[0].confirmed);
  EXPECT_THAT(node.report.rails, IsEmpty());
  EXPECT_THAT(node.report.links, IsEmpty());
  EXPECT_EQ(node.rounds, 2);
}

TEST(LinkLocalization, RoutingCollisionNamedWithItsPair) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 1), Names(12));
  const int a = PlanFirstLinkRound(index)[2].a, b = PlanFirstLinkRound(index)[2].b;
  const Driven run = DriveLinks(index, Routing::kDestinationModK, [&](int x, int y, int) {
    return (x == a && y == b) || (x == b && y == a) ? 0.5 : 1.0;
  });
  ASSERT_EQ(run.report.collisions.size(), 1u);
  EXPECT_EQ(std::min(a, b), run.report.collisions[0].a);
  EXPECT_EQ(std::max(a, b), run.report.collisions[0].b);
  EXPECT_TRUE(run.report.collisions[0].confirmed);
  EXPECT_EQ(run.rounds, 3);  // round 1, every link isolated and fine, the re-test
  EXPECT_THAT(run.report.links, IsEmpty());
  EXPECT_THAT(run.report.rails, IsEmpty());
  EXPECT_THAT(run.report.nodes, IsEmpty());
}

TEST(LinkLocalization, ASlowResultNotReproducedBlamesNothing) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 1), Names(12));
  const LinkPlannedPair first = PlanFirstLinkRound(index)[0];
  int calls = 0;
  const Driven run = DriveLinks(index, Routing::kDestinationModK, [&](int x, int y, int) {
    // Slow once (noise), then fine.
    return x == first.a && y == first.b && calls++ == 0 ? 0.5 : 1.0;
  });
  EXPECT_THAT(run.report.collisions, IsEmpty());
  EXPECT_THAT(run.report.links, IsEmpty());
  EXPECT_THAT(run.report.rails, IsEmpty());
  EXPECT_THAT(run.report.nodes, IsEmpty());
  EXPECT_THAT(run.report.unresolved, IsEmpty());
}

TEST(LinkLocalization, ObservationsOutsideTheFabricAreIgnored) {
  const FabricIndex index(SmallFatTree(2, 2, 1, 1), Names(4));
  std::vector<LinkObservation> observations(3);
  observations[0] = {0, 99, 0, 1, true, 0.5, 1};  // no such node
  observations[1] = {-1, 2, 0, 1, true, 0.5, 2};  // no such node
  observations[2] = {0, 2, 7, 1, true, 0.5, 3};   // no such rail
  const LinkAssessment assessment = AssessLinks(index, Routing::kDestinationModK, observations);
  EXPECT_THAT(assessment.open, IsEmpty());
  EXPECT_THAT(assessment.collisions, IsEmpty());
  const LinkPlan plan = PlanLinkRound(index, Routing::kDestinationModK, observations, assessment);
  // Nodes 1 and 3 were never tested: they want a partner whose cables are
  // cleared, and there is none yet.
  EXPECT_THAT(plan.pairs, IsEmpty());
  EXPECT_THAT(plan.inseparable, IsEmpty());
}

TEST(LinkLocalization, HealthyFleetTakesOneRound) {
  const FabricIndex index(SmallFatTree(3, 4, 2, 2), Names(12));
  const Driven run =
      DriveLinks(index, Routing::kDestinationModK, [](int, int, int) { return 1.0; });
  EXPECT_EQ(run.rounds, 1);
  EXPECT_EQ(run.observations.size(), 12u);
}

}  // namespace
}  // namespace eb::topology
