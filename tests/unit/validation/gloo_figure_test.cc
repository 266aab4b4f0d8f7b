// A site's figure for Gloo pair tests (baselines.toml [[gloo_pairs]], issue
// 30): without it a fleet slowed evenly grades healthy against its own
// median (median_only); with it the same fleet is a fleet_below_expected
// finding (exit 7) that blames no node, and one slow host among healthy
// ones is degraded against the figure. Matched by the speed of the nodes'
// bootstrap interface, which is a key only (a veth says 10000 Mb/s).
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/validation/scripted_fleet.h"

namespace eb::validation {
namespace {

using test::Outcome;
using test::RunToEnd;
using test::Script;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;

// CPU-only hosts whose bootstrap interface eth0 reports `link_mbps`.
std::vector<Node> GlooFleet(int n, int64_t link_mbps) {
  std::vector<Node> nodes;
  for (int i = 0; i < n; ++i) {
    ebnccl::v1::NodeInventory inventory;
    inventory.set_worker_slots(2);
    inventory.set_bootstrap_interface("eth0");
    ebnccl::v1::NetworkInterface& eth0 = *inventory.add_interfaces();
    eth0.set_name("eth0");
    eth0.set_speed_mbps(link_mbps);
    ebnccl::v1::NetworkInterface& other = *inventory.add_interfaces();
    other.set_name("eth1");  // not the bootstrap one: never the key
    other.set_speed_mbps(link_mbps * 10);
    nodes.push_back(NodeFromInventory(absl::StrFormat("node-%02d", i), inventory));
  }
  return nodes;
}

// Pairs on Gloo as OptionsFromSpec sets them: no rails, the site's figure
// of 0.4 GB/s at all_reduce 1M for 10000 Mb/s links (none when `figure`
// is false).
Options GlooPairs(bool figure) {
  Options options;
  options.suites = {Suite::kPreflight, Suite::kPairs};
  options.gloo = true;
  options.split_rails = false;
  if (figure) {
    options.baselines.gloo_pairs.push_back(
        {10000, 0.4, "site measurement", {ebnccl::v1::COLLECTIVE_ALL_REDUCE, int64_t{1} << 20}});
  }
  return options;
}

// A healthy Gloo pair moves 0.5 GB/s; the script's graded size is 1M.
Script GlooScript() {
  Script s;
  s.rails = 1;
  s.rail_gbps = 0.5;
  s.graded_bytes = int64_t{1} << 20;
  return s;
}

Script EveryHostAt(double factor, int n) {
  Script s = GlooScript();
  for (int i = 0; i < n; ++i) s.node[absl::StrFormat("node-%02d", i)] = factor;
  return s;
}

TEST(GlooFigureTest, WithoutAFigureAnEvenlySlowFleetGradesHealthy) {
  const Outcome o = RunToEnd(GlooFleet(6, 10000), GlooPairs(false), EveryHostAt(0.1, 6));
  ASSERT_EQ(o.error, "");
  for (const NodeVerdict& v : o.report.nodes) EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node;
  EXPECT_THAT(o.report.findings, Contains(Field(&Finding::kind, FindingKind::kMedianOnly)));
  EXPECT_FALSE(o.report.AnyBad());
  // Gloo pair tests have no per-rail results: the network judged as a whole.
  for (const NodeVerdict& v : o.report.nodes) {
    EXPECT_TRUE(v.network_judged) << v.node;
    EXPECT_TRUE(v.judged_rails.empty()) << v.node;
  }
}

// Every host healthy against the fleet's median, and the fleet below its
// figure: a finding that counts toward exit 7.
void ExpectFleetFindingAndNoBlame(const Outcome& o) {
  ASSERT_EQ(o.error, "");
  for (const NodeVerdict& v : o.report.nodes) EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node;
  EXPECT_THAT(o.report.findings,
              Contains(testing::AllOf(Field(&Finding::kind, FindingKind::kFleetBelowExpected),
                                      Field(&Finding::bad, true),
                                      Field(&Finding::text, HasSubstr("below expected 0.4")))));
  EXPECT_THAT(o.report.findings, Not(Contains(Field(&Finding::kind, FindingKind::kMedianOnly))));
  EXPECT_TRUE(o.report.AnyBad());  // exit 7
}

TEST(GlooFigureTest, WithTheSiteFigureAnEvenlySlowFleetIsAFleetFindingAndNoBlame) {
  // 5 hosts (netns_slurm_test.sh case 6: six, one drained by an operator)
  // have no fleet median after round 1's two tests; 6 have one at once.
  for (int hosts : {5, 6}) {
    SCOPED_TRACE(hosts);
    ExpectFleetFindingAndNoBlame(
        RunToEnd(GlooFleet(hosts, 10000), GlooPairs(true), EveryHostAt(0.1, hosts)));
  }
}

TEST(GlooFigureTest, OneSlowHostAmongHealthyOnesIsDegradedAgainstTheFigure) {
  Script s = GlooScript();
  s.node["node-03"] = 0.1;
  const Outcome o = RunToEnd(GlooFleet(6, 10000), GlooPairs(true), s);
  ASSERT_EQ(o.error, "");
  const NodeVerdict* slow = o.report.Find("node-03");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->verdict, Verdict::kDegraded);
  EXPECT_EQ(slow->confidence, Confidence::kConfirmed);
  ASSERT_FALSE(slow->evidence.empty());
  EXPECT_THAT(slow->evidence.back().text, HasSubstr("min(expected 0.4, fleet median"));
  for (const NodeVerdict& v : o.report.nodes) {
    if (v.node != "node-03") {
      EXPECT_EQ(v.verdict, Verdict::kHealthy) << v.node;
    }
  }
  EXPECT_THAT(o.report.findings,
              Not(Contains(Field(&Finding::kind, FindingKind::kFleetBelowExpected))));
}

TEST(GlooFigureTest, AFigureForAnotherLinkSpeedDoesNotJudge) {
  // 25000 Mb/s hosts: the 10000 Mb/s figure is not theirs, so the fleet
  // median alone judges (and grades the evenly slow fleet healthy).
  const Outcome o = RunToEnd(GlooFleet(6, 25000), GlooPairs(true), EveryHostAt(0.1, 6));
  ASSERT_EQ(o.error, "");
  EXPECT_THAT(o.report.findings, Contains(Field(&Finding::kind, FindingKind::kMedianOnly)));
  EXPECT_FALSE(o.report.AnyBad());
}

TEST(GlooFigureTest, BootstrapLinkSpeedIsTheNamedInterfaces) {
  std::vector<Node> nodes = GlooFleet(1, 10000);
  EXPECT_EQ(BootstrapLinkMbps(nodes[0]), 10000);
  nodes[0].inventory.set_bootstrap_interface("");  // "any": no key
  EXPECT_EQ(BootstrapLinkMbps(nodes[0]), 0);
  nodes[0].inventory.set_bootstrap_interface("eth9");  // not reported
  EXPECT_EQ(BootstrapLinkMbps(nodes[0]), 0);
}

}  // namespace
}  // namespace eb::validation
