// The link rounds and link verdicts of a validation (issue 31 items 2-4),
// through the real Validation core against a scripted fleet whose pair
// tests are as slow as the slowest link on their path (d-mod-k routing,
// as the localizer assumes). 12 nodes, 8 rails, 3 leaves of 4 nodes per
// rail, 2 spines per rail; and 2 leaves, where no pair can tell a leaf's
// uplink to a spine from the other leaf's uplink to that spine. And
// single-rail fleets (one NIC a node, as Gloo/netns hosts): a pair test's
// whole result is its rail 0, without split_rails.

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "coordinator/topology/paths.h"
#include "coordinator/validation/validation.h"
#include "gtest/gtest.h"
#include "tests/unit/validation/fabric_sim.h"
#include "tests/unit/validation/fleet_fixture.h"
#include "tests/unit/validation/scripted_fleet.h"

namespace eb::validation::test {
namespace {

struct FabricFleet {
  explicit FabricFleet(int n = 12, int leaf_size = 4, int spines = 2, int rails = 8)
      : shape{n, rails, leaf_size, spines} {}
  sim::FabricShape shape;
  std::shared_ptr<const topology::Fabric> fabric =
      std::make_shared<const topology::Fabric>(sim::SimFabric(shape));
  std::vector<std::string> names = sim::SimNodeNames(shape.n);
  topology::FabricIndex index{*fabric, names};
  std::map<int, double> link_factor;                                 // link id -> factor
  std::map<std::pair<std::set<std::string>, int>, double> together;  // (pair, rail) -> factor

  int Uplink(const std::string& leaf, const std::string& spine) const {
    return index.UplinkOf(index.SwitchIdOf(leaf), index.SwitchIdOf(spine));
  }
  int NodeOf(const std::string& name) const {
    return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
  }

  std::vector<Node> Nodes() const {
    std::vector<Node> nodes = H100Fleet(shape.n);
    for (int i = 0; i < shape.n; ++i) {
      if (shape.rails == 1) {  // one GPU and its NIC
        ebnccl::v1::NodeInventory inventory = H100Inventory();
        inventory.mutable_gpus()->DeleteSubrange(1, inventory.gpus_size() - 1);
        inventory.mutable_hcas()->DeleteSubrange(1, inventory.hcas_size() - 1);
        nodes[i] = NodeFromInventory(names[i], inventory);
      }
      nodes[i].name = names[i];
      nodes[i].leaf = index.SwitchName(index.LeafOf(i, 0));  // as NodeFromRecord does
    }
    return nodes;
  }
  Options WithFabric() const {
    Options options;
    options.baselines = ShippedFigures();
    options.fabric = fabric;
    return options;
  }
  Script Scripted() const {
    Script script;
    script.rails = shape.rails;
    script.fabric = [this](const std::string& a, const std::string& b, int rail) {
      double f = 1;
      const topology::PathLinks path =
          index.Path(NodeOf(a), NodeOf(b), rail, topology::Routing::kDestinationModK);
      for (int link : path.links) {
        auto it = link_factor.find(link);
        if (it != link_factor.end()) f = std::min(f, it->second);
      }
      auto it = together.find({{a, b}, rail});
      if (it != together.end()) f = std::min(f, it->second);
      return f;
    };
    return script;
  }
};

int LinkRounds(const Outcome& out) {
  int rounds = 0;
  for (const Round& round : out.rounds) {
    const bool link = std::any_of(round.tests.begin(), round.tests.end(), [](const PlannedTest& t) {
      return absl::StartsWith(t.purpose, "link round");
    });
    rounds += link;
  }
  return rounds;
}

void ExpectEveryNodeHealthy(const ValidationReport& report) {
  for (const NodeVerdict& v : report.nodes) {
    EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node << ": " << v.reason;
  }
}

TEST(LinkValidationTest, HealthyFabricTakesNoLinkRound) {
  FabricFleet fleet;
  const Outcome with = RunToEnd(fleet.Nodes(), fleet.WithFabric(), fleet.Scripted());
  ASSERT_EQ(with.error, "");
  Options plain = fleet.WithFabric();
  plain.fabric = nullptr;
  const Outcome without = RunToEnd(fleet.Nodes(), plain, fleet.Scripted());
  EXPECT_EQ(LinkRounds(with), 0);
  EXPECT_EQ(with.rounds.size(), without.rounds.size());
  EXPECT_TRUE(with.report.links.empty());
  EXPECT_FALSE(with.report.AnyBad());
  ExpectEveryNodeHealthy(with.report);
}

TEST(LinkValidationTest, SlowUplinkIsALinkVerdictAndNoNodeIsBlamed) {
  FabricFleet fleet;
  const int uplink = fleet.Uplink("leaf-r3-00", "spine-r3-01");
  ASSERT_GE(uplink, 0);
  fleet.link_factor[uplink] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), fleet.WithFabric(), fleet.Scripted());
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.report.links.size(), 1u) << out.report.links.size();
  const LinkVerdict& link = out.report.links.front();
  EXPECT_EQ(link.a.switch_name, "leaf-r3-00");
  EXPECT_EQ(link.b.switch_name, "spine-r3-01");
  EXPECT_FALSE(link.a.ports.empty());
  EXPECT_EQ(link.rail, 3);
  EXPECT_EQ(link.verdict, Verdict::kDegraded);
  EXPECT_TRUE(link.inseparable_from.empty());
  EXPECT_NEAR(link.ratio, 0.5, 0.05);
  EXPECT_FALSE(link.evidence.empty());
  ExpectEveryNodeHealthy(out.report);
  EXPECT_TRUE(out.report.paths.empty());
  EXPECT_TRUE(out.report.rails.empty());
  EXPECT_TRUE(out.report.AnyBad());  // exit 7
  EXPECT_LE(LinkRounds(out), Options().max_link_rounds);
}

TEST(LinkValidationTest, TwoLeavesNameTheUplinkWithTheOneNoPairCanTellApart) {
  FabricFleet fleet(8);
  fleet.link_factor[fleet.Uplink("leaf-r3-00", "spine-r3-01")] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), fleet.WithFabric(), fleet.Scripted());
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.report.links.size(), 2u);
  std::set<std::string> leaves;
  for (const LinkVerdict& link : out.report.links) {
    leaves.insert(link.a.switch_name);
    EXPECT_EQ(link.b.switch_name, "spine-r3-01");
    EXPECT_EQ(link.confidence, Confidence::kSuspect);
    ASSERT_EQ(link.inseparable_from.size(), 1u);
    EXPECT_TRUE(absl::StrContains(link.reason, "no pair test")) << link.reason;
  }
  EXPECT_EQ(leaves, std::set<std::string>({"leaf-r3-00", "leaf-r3-01"}));
  ExpectEveryNodeHealthy(out.report);
  EXPECT_TRUE(out.report.AnyBad());
}

TEST(LinkValidationTest, NodeSideCableIsARailVerdictOfItsNode) {
  FabricFleet fleet;
  const int node = 5, rail = 2;
  fleet.link_factor[fleet.index.CableOf(node, rail)] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), fleet.WithFabric(), fleet.Scripted());
  ASSERT_EQ(out.error, "");
  EXPECT_TRUE(out.report.links.empty());
  ASSERT_EQ(out.report.rails.size(), 1u);
  EXPECT_EQ(out.report.rails[0].node, fleet.names[node]);
  EXPECT_EQ(out.report.rails[0].rail, rail);
  EXPECT_TRUE(absl::StrContains(out.report.rails[0].reason, "cable")) << out.report.rails[0].reason;
  for (const NodeVerdict& v : out.report.nodes) {
    if (v.node != fleet.names[node]) {
      EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node;
    }
  }
}

TEST(LinkValidationTest, RoutingCollisionIsNamedWithItsPair) {
  FabricFleet fleet;
  Options options = fleet.WithFabric();
  // A pair of round 1 (across leaves), slow together on rail 6 only,
  // every link of its path fine in other pairs.
  const Outcome healthy = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  const std::vector<std::string> pair = RoundsOf(healthy, TestKind::kPair).front().tests[1].nodes;
  fleet.together[{{pair[0], pair[1]}, 6}] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(out.error, "");
  EXPECT_TRUE(out.report.links.empty());
  ASSERT_EQ(out.report.paths.size(), 1u);
  const PathVerdict& path = out.report.paths.front();
  EXPECT_TRUE(path.routing_collision);
  EXPECT_EQ(std::set<std::string>({path.a, path.b}),
            std::set<std::string>(pair.begin(), pair.end()));
  EXPECT_EQ(path.rails, std::vector<int>{6});
  EXPECT_TRUE(absl::StrContains(path.reason, "routing collision")) << path.reason;
  ExpectEveryNodeHealthy(out.report);
}

TEST(LinkValidationTest, LinkRoundsAreBounded) {
  FabricFleet fleet;
  fleet.link_factor[fleet.Uplink("leaf-r3-00", "spine-r3-01")] = 0.5;
  Options options = fleet.WithFabric();
  options.max_link_rounds = 0;
  const Outcome out = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(out.error, "");
  EXPECT_EQ(LinkRounds(out), 0);
  Options negative = fleet.WithFabric();
  negative.max_link_rounds = -1;
  EXPECT_NE(RunToEnd(fleet.Nodes(), negative, fleet.Scripted()).error, "");
}

// Issue 31 item 4 at a realistic size, through the node localizer too: a
// 64-node fleet of 4 leaves of 16 nodes per rail and 4 spines, each uplink
// of rail 5 in turn at 50 %: the uplink is named exactly, no node, rail or
// path is blamed, and at most 4 link rounds are added.
TEST(LinkValidationTest, EveryUplinkOfARailIsNamedAndNoNodeBlamedAt64Nodes) {
  FabricFleet fleet(64, 16, 4);
  Options plain = fleet.WithFabric();
  plain.fabric = nullptr;
  const size_t rounds_without = RunToEnd(fleet.Nodes(), plain, fleet.Scripted()).rounds.size();
  int named = 0;
  for (int leaf = 0; leaf < 4; ++leaf) {
    for (int spine = 0; spine < 4; ++spine) {
      const std::string leaf_name = "leaf-r5-0" + std::to_string(leaf);
      const std::string spine_name = "spine-r5-0" + std::to_string(spine);
      fleet.link_factor = {{fleet.Uplink(leaf_name, spine_name), 0.5}};
      const Outcome out = RunToEnd(fleet.Nodes(), fleet.WithFabric(), fleet.Scripted());
      ASSERT_EQ(out.error, "");
      SCOPED_TRACE(absl::StrCat(leaf_name, " - ", spine_name));
      ExpectEveryNodeHealthy(out.report);
      EXPECT_TRUE(out.report.rails.empty());
      EXPECT_TRUE(out.report.paths.empty());
      EXPECT_TRUE(out.report.AnyBad());
      EXPECT_LE(out.rounds.size(), rounds_without + Options().max_link_rounds);
      if (out.report.links.size() == 1 && out.report.links[0].a.switch_name == leaf_name &&
          out.report.links[0].b.switch_name == spine_name) {
        ++named;
      }
    }
  }
  EXPECT_EQ(named, 16);
}

// A node-side cable at 50 % in the same fleet, on several nodes and
// rails: a rail verdict of that node only, no link, no other node blamed.
TEST(LinkValidationTest, ACableIsARailOfItsNodeOnlyAt64Nodes) {
  FabricFleet fleet(64, 16, 4);
  for (const auto& [node, rail] :
       std::vector<std::pair<int, int>>{{0, 0}, {17, 3}, {40, 7}, {63, 5}}) {
    fleet.link_factor = {{fleet.index.CableOf(node, rail), 0.5}};
    const Outcome out = RunToEnd(fleet.Nodes(), fleet.WithFabric(), fleet.Scripted());
    ASSERT_EQ(out.error, "");
    SCOPED_TRACE(fleet.names[node] + " rail " + std::to_string(rail));
    EXPECT_TRUE(out.report.links.empty());
    ASSERT_EQ(out.report.rails.size(), 1u);
    EXPECT_EQ(out.report.rails[0].node, fleet.names[node]);
    EXPECT_EQ(out.report.rails[0].rail, rail);
    for (const NodeVerdict& v : out.report.nodes) {
      if (v.node != fleet.names[node]) {
        EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node << ": " << v.reason;
      }
    }
    EXPECT_TRUE(out.report.AnyBad());
  }
}

// Two faults at once (an uplink of rail 2, a cable on rail 6) and a routing
// collision (rail 4) in one 64-node fleet: each named as what it is.
TEST(LinkValidationTest, TwoFaultsAndACollisionAt64Nodes) {
  FabricFleet fleet(64, 16, 4);
  Options options = fleet.WithFabric();
  const Outcome healthy = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  const std::vector<std::string> pair = RoundsOf(healthy, TestKind::kPair).front().tests[9].nodes;
  fleet.link_factor = {{fleet.Uplink("leaf-r2-01", "spine-r2-03"), 0.5},
                       {fleet.index.CableOf(50, 6), 0.5}};
  fleet.together[{{pair[0], pair[1]}, 4}] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.report.links.size(), 1u);
  EXPECT_EQ(out.report.links[0].a.switch_name, "leaf-r2-01");
  EXPECT_EQ(out.report.links[0].b.switch_name, "spine-r2-03");
  ASSERT_EQ(out.report.rails.size(), 1u);
  EXPECT_EQ(out.report.rails[0].node, fleet.names[50]);
  EXPECT_EQ(out.report.rails[0].rail, 6);
  ASSERT_EQ(out.report.paths.size(), 1u);
  EXPECT_TRUE(out.report.paths[0].routing_collision);
  EXPECT_EQ(std::set<std::string>({out.report.paths[0].a, out.report.paths[0].b}),
            std::set<std::string>(pair.begin(), pair.end()));
  for (const NodeVerdict& v : out.report.nodes) {
    if (v.node != fleet.names[50]) {
      EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node << ": " << v.reason;
    }
  }
}

// Single-rail fleets: 2 leaves of 8 one-NIC nodes, 4 spines, pair tests not
// split (as Gloo's): the whole result is rail 0's. leaf 0's uplink to spine
// 1 at 50 %: it is named with leaf 1's uplink to that spine (no pair can
// cross one without the other), no node, rail or path is blamed; a healthy
// fleet takes no link round.
TEST(LinkValidationTest, SingleRailFleetNamesASlowSpineLinkWithoutSplitRails) {
  FabricFleet fleet(16, 8, 4, 1);
  Options options = fleet.WithFabric();
  options.split_rails = false;
  Options plain = options;
  plain.fabric = nullptr;
  const Outcome healthy = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(healthy.error, "");
  EXPECT_EQ(LinkRounds(healthy), 0);
  EXPECT_EQ(healthy.rounds.size(), RunToEnd(fleet.Nodes(), plain, fleet.Scripted()).rounds.size());
  EXPECT_FALSE(healthy.report.AnyBad());
  ExpectEveryNodeHealthy(healthy.report);

  fleet.link_factor[fleet.Uplink("leaf-r0-00", "spine-r0-01")] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(out.error, "");
  for (const Round& round : out.rounds) {
    for (const PlannedTest& t : round.tests) EXPECT_FALSE(t.split_rails);
  }
  ASSERT_EQ(out.report.links.size(), 2u);
  std::set<std::string> leaves;
  for (const LinkVerdict& link : out.report.links) {
    leaves.insert(link.a.switch_name);
    EXPECT_EQ(link.b.switch_name, "spine-r0-01");
    EXPECT_EQ(link.rail, 0);
    EXPECT_EQ(link.inseparable_from.size(), 1u);
    EXPECT_NEAR(link.ratio, 0.5, 0.05);
  }
  EXPECT_EQ(leaves, std::set<std::string>({"leaf-r0-00", "leaf-r0-01"}));
  ExpectEveryNodeHealthy(out.report);
  EXPECT_TRUE(out.report.rails.empty());
  EXPECT_TRUE(out.report.paths.empty());
  EXPECT_TRUE(out.report.AnyBad());  // exit 7
  EXPECT_GE(LinkRounds(out), 1);
  EXPECT_LE(LinkRounds(out), Options().max_link_rounds);

  // The same fleet with 2 HCAs a node is not single-rail: its unsplit
  // results say nothing of rail 0, and no link is named.
  std::vector<Node> two_nics = fleet.Nodes();
  for (Node& node : two_nics) node.hcas.push_back(node.hcas.front());
  EXPECT_TRUE(RunToEnd(two_nics, options, fleet.Scripted()).report.links.empty());
}

// The netns e2e's shape (tests/netns/netns_links_test.sh): 2 leaves of 3
// one-NIC hosts under one spine, no expected figure (Gloo: the fleet median
// judges), leaf 0's uplink at 50 %. Every cross-leaf pair crosses both
// uplinks; all-pairs gives each node fine partners on its own leaf, so the
// median is the healthy rate and the cross-leaf pairs are slow: both
// uplinks are named (no pair tells them apart), no node is blamed.
TEST(LinkValidationTest, SingleRailTwoLeavesOneSpineAllPairsMedianOnly) {
  FabricFleet fleet(6, 3, 1, 1);
  Options options = fleet.WithFabric();
  options.baselines = {};
  options.split_rails = false;
  options.strategy = Strategy::kAllPairs;
  const Outcome healthy = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(healthy.error, "");
  EXPECT_EQ(LinkRounds(healthy), 0);
  EXPECT_FALSE(healthy.report.AnyBad());

  fleet.link_factor[fleet.Uplink("leaf-r0-00", "spine-r0-00")] = 0.5;
  const Outcome out = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.report.links.size(), 2u);
  std::set<std::string> leaves;
  for (const LinkVerdict& link : out.report.links) {
    leaves.insert(link.a.switch_name);
    EXPECT_EQ(link.b.switch_name, "spine-r0-00");
  }
  EXPECT_EQ(leaves, std::set<std::string>({"leaf-r0-00", "leaf-r0-01"}));
  ExpectEveryNodeHealthy(out.report);
  EXPECT_TRUE(out.report.paths.empty());
  EXPECT_TRUE(out.report.AnyBad());
}

// The same shapes with the default (adaptive) strategy: round 1 pairs most
// nodes of each leaf on their own leaf (the reference no uplink slows) and
// a share across, so the crossing pairs under the slow uplink are slow
// against the median; the link rounds name both uplinks (no pair tells them
// apart) and no node. 2 leaves of 3 hosts (the netns e2e) and of 8, where
// one same-leaf pair a leaf would not outnumber the crossing pairs.
TEST(LinkValidationTest, SingleRailTwoLeavesOneSpineAdaptiveMedianOnly) {
  for (const int leaf_size : {3, 8}) {
    SCOPED_TRACE("leaves of " + std::to_string(leaf_size));
    FabricFleet fleet(2 * leaf_size, leaf_size, 1, 1);
    Options options = fleet.WithFabric();
    options.baselines = {};
    options.split_rails = false;
    const Outcome healthy = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
    ASSERT_EQ(healthy.error, "");
    EXPECT_EQ(LinkRounds(healthy), 0);
    EXPECT_FALSE(healthy.report.AnyBad());
    const std::vector<Round> first = RoundsOf(healthy, TestKind::kPair);
    ASSERT_FALSE(first.empty());
    int crossing = 0;
    for (const PlannedTest& t : first.front().tests) {
      crossing += fleet.index.LeafOf(fleet.NodeOf(t.nodes[0]), 0) !=
                  fleet.index.LeafOf(fleet.NodeOf(t.nodes[1]), 0);
    }
    EXPECT_GE(crossing, 1);
    EXPECT_LT(4 * crossing, 2 * leaf_size) << "the same-leaf pairs must hold the median";

    fleet.link_factor[fleet.Uplink("leaf-r0-00", "spine-r0-00")] = 0.5;
    const Outcome out = RunToEnd(fleet.Nodes(), options, fleet.Scripted());
    ASSERT_EQ(out.error, "");
    ASSERT_EQ(out.report.links.size(), 2u);
    for (const LinkVerdict& link : out.report.links) {
      EXPECT_EQ(link.b.switch_name, "spine-r0-00");
      EXPECT_EQ(link.inseparable_from.size(), 1u);
    }
    ExpectEveryNodeHealthy(out.report);
    EXPECT_TRUE(out.report.paths.empty());
    EXPECT_TRUE(out.report.rails.empty());
    EXPECT_TRUE(out.report.AnyBad());
  }
}

}  // namespace
}  // namespace eb::validation::test
