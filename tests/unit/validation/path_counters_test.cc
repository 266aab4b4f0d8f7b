// The hosts' counters as the second signal of "the path" (issue 29 item 6):
// JudgePathCounters' edges and what DecideCulprit makes of them, over
// hand-built reports. Fake data, no processes, no sleeps.

#include <string>
#include <vector>

#include "coordinator/validation/culprit.h"
#include "coordinator/validation/path_counters.h"
#include "coordinator/validation/straggler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

// Two ranks on each of node1 and node2, flat arrivals and schedules over
// five sizes: what the culprit calls "the path" before any counter.
v1::TestReport FlatReport() {
  v1::TestReport report;
  for (int r = 0; r < 4; ++r) {
    v1::RankAssignment* rank = report.add_ranks();
    rank->set_rank(r);
    rank->set_node_name(r < 2 ? "node1" : "node2");
    rank->set_local_rank(r % 2);
  }
  for (int size = 0; size < 5; ++size) {
    v1::SizeResult* row = report.add_results();
    for (v1::VariantResult* variant : {row->mutable_out_of_place(), row->mutable_in_place()}) {
      variant->set_time_us(10000);
      for (int r = 0; r < 4; ++r) {
        variant->add_rank_arrival_us(5 + r % 2);
        v1::RankSchedule* schedule = variant->add_rank_schedule();
        schedule->set_wall_us(100000);
        schedule->set_stalled_us(100);
      }
    }
  }
  return report;
}

void AddCounter(google::protobuf::RepeatedPtrField<v1::PortCounter>& counters,
                const std::string& name, uint64_t before, uint64_t after) {
  v1::PortCounter* c = counters.Add();
  c->set_name(name);
  c->set_before(before);
  c->set_after(after);
  c->set_reset(after < before);
  c->set_delta(after >= before ? after - before : 0);
}

// Segments sent as OutSegs (new data) and retransmitted.
void AddTcp(v1::TestReport& report, const std::string& node, uint64_t out, uint64_t retrans) {
  v1::TcpEvidence* tcp = report.add_tcp_counters();
  tcp->set_node_name(node);
  AddCounter(*tcp->mutable_counters(), "Tcp:OutSegs", 1000, 1000 + out);
  AddCounter(*tcp->mutable_counters(), "Tcp:RetransSegs", 50, 50 + retrans);
}

v1::PortEvidence& AddPort(v1::TestReport& report, const std::string& node, const std::string& hca) {
  v1::PortEvidence* port = report.add_port_counters();
  port->set_node_name(node);
  port->set_hca(hca);
  port->set_port(1);
  AddCounter(*port->mutable_counters(), "port_xmit_data", 0, 1000000);
  return *port;
}

CulpritFinding CulpritOf(const v1::TestReport& report) {
  return DecideCulprit(report, AttributeStraggler(report));
}

TEST(PathCountersTest, TheRetransmittingNodeIsNamedWithTheOthersShares) {
  v1::TestReport report = FlatReport();
  AddTcp(report, "node1", 40000, 1200);  // 1200 / 41200 = 2.9 %
  AddTcp(report, "node2", 40000, 4);
  const CulpritFinding f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_PATH);
  EXPECT_THAT(f.reason, StartsWith("node1 retransmitted 2.9% of its 41,200 TCP segments during "
                                   "the test (node2 0.0%): its packets were lost on the path; "
                                   "no rank arrived late"));
  ASSERT_EQ(f.counters.size(), 1u);
  EXPECT_EQ(f.counters[0].node_name(), "node1");
  EXPECT_EQ(f.counters[0].part(), "TCP");
  EXPECT_FALSE(f.counters[0].link_errors());
  EXPECT_NEAR(f.counters[0].retransmit_pct(), 2.91, 0.01);
}

TEST(PathCountersTest, TcpSharesAtTheFloorsEdges) {
  struct Share {
    uint64_t out, retrans;
    bool finding;
  };
  // 1 % of the segments sent, over 1,000 sent and 20 retransmitted.
  for (const Share& c : {Share{9900, 100, true}, Share{9901, 99, false},  // 1.00 % / 0.99 %
                         Share{980, 20, true}, Share{981, 19, false},     // 2 %, at / under 20
                         Share{900, 50, false}}) {                        // 5 %, 950 segments
    SCOPED_TRACE(testing::Message() << c.out << " + " << c.retrans);
    v1::TestReport report = FlatReport();
    AddTcp(report, "node2", c.out, c.retrans);
    EXPECT_EQ(JudgePathCounters(report).size(), c.finding ? 1u : 0u);
  }
}

TEST(PathCountersTest, ACounterThatWentBackwardsIsNoEvidence) {
  v1::TestReport report = FlatReport();
  v1::TcpEvidence* tcp = report.add_tcp_counters();
  tcp->set_node_name("node1");
  AddCounter(*tcp->mutable_counters(), "Tcp:OutSegs", 900000, 1000);  // reset mid-test
  AddCounter(*tcp->mutable_counters(), "Tcp:RetransSegs", 0, 5000);
  EXPECT_THAT(JudgePathCounters(report), IsEmpty());
  v1::PortEvidence& port = AddPort(report, "node2", "mlx5_0");
  AddCounter(*port.mutable_counters(), "symbol_error", 65535, 3);  // reset: not growth
  EXPECT_THAT(JudgePathCounters(report), IsEmpty());
}

TEST(PathCountersTest, APortsLinkErrorsNameThePort) {
  v1::TestReport report = FlatReport();
  AddPort(report, "node1", "mlx5_0");
  v1::PortEvidence& bad = AddPort(report, "node2", "mlx5_2");
  AddCounter(*bad.mutable_counters(), "symbol_error", 10, 1214);
  AddCounter(*bad.mutable_counters(), "link_error_recovery", 0, 3);
  AddTcp(report, "node1", 40000, 1200);  // after the port: a link error is the worse
  const CulpritFinding f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_LINK_ERRORS);
  EXPECT_EQ(f.node, "node2");
  EXPECT_EQ(f.part, "mlx5_2 port 1");
  EXPECT_THAT(f.reason, StartsWith("node2 mlx5_2 port 1 counted 1,204 symbol_error, "
                                   "3 link_error_recovery during the test: that port, its cable "
                                   "or transceiver (1 more counter finding); no rank arrived"));
  ASSERT_EQ(f.counters.size(), 2u);
  EXPECT_TRUE(f.counters[0].link_errors());
  EXPECT_EQ(f.counters[1].node_name(), "node1");
}

TEST(PathCountersTest, AFlapWithoutLinkDownedIsALinkError) {
  v1::TestReport report = FlatReport();
  AddPort(report, "node1", "mlx5_1").set_link_flapped(true);
  const std::vector<v1::CounterFinding> findings = JudgePathCounters(report);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].what(), "saw its link change state");
  v1::PortEvidence& both = AddPort(report, "node2", "mlx5_2");
  both.set_link_flapped(true);
  AddCounter(*both.mutable_counters(), "port_rcv_errors", 0, 7);
  EXPECT_EQ(JudgePathCounters(report)[1].what(),
            "counted 7 port_rcv_errors and saw its link change state");
}

TEST(PathCountersTest, TransportRetriesAreThePathsNotThePorts) {
  v1::TestReport report = FlatReport();
  v1::PortEvidence& port = AddPort(report, "node1", "mlx5_3");
  AddCounter(*port.mutable_counters(), "local_ack_timeout_err", 0, 2);
  AddCounter(*port.mutable_counters(), "out_of_sequence", 0, 52);
  AddCounter(*port.mutable_counters(), "np_cnp_sent", 0, 9000);  // congestion: not a finding
  const CulpritFinding f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_PATH);
  ASSERT_EQ(f.counters.size(), 1u);
  EXPECT_FALSE(f.counters[0].link_errors());
  EXPECT_THAT(f.reason, StartsWith("node1 mlx5_3 port 1 counted 52 out_of_sequence, 2 "
                                   "local_ack_timeout_err (transport retries"));
}

TEST(PathCountersTest, CountersThatSawNothingSayThePathIsOnlyByElimination) {
  v1::TestReport report = FlatReport();
  AddTcp(report, "node1", 40000, 3);
  AddTcp(report, "node2", 40000, 0);
  AddPort(report, "node1", "mlx5_0");
  const CulpritFinding f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_PATH);
  EXPECT_THAT(f.counters, IsEmpty());
  EXPECT_THAT(f.reason, HasSubstr("the hosts' counters saw no loss (TCP retransmissions: node1 "
                                  "0.0%, node2 0.0%), no link error on 1 HCA port: \"the path\" "
                                  "only by elimination"));
  // Nothing read (older agents): the reason is as before.
  EXPECT_THAT(CulpritOf(FlatReport()).reason, Not(HasSubstr("counters")));
}

TEST(PathCountersTest, ARankStalledKeepsItsCulpritAndCannotTellGetsAHint) {
  v1::TestReport report = FlatReport();
  AddTcp(report, "node1", 40000, 1200);
  // Rank 2 stalled 30 %: the schedules name it, the counters change nothing.
  for (v1::SizeResult& row : *report.mutable_results()) {
    row.mutable_out_of_place()->mutable_rank_schedule(2)->set_stalled_us(30000);
    row.mutable_in_place()->mutable_rank_schedule(2)->set_stalled_us(30000);
  }
  CulpritFinding f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_DESCHEDULED_RANK);
  EXPECT_THAT(f.counters, IsEmpty());
  // Ranks on both nodes stalled: cannot tell, with the counters as a hint.
  for (v1::SizeResult& row : *report.mutable_results()) {
    row.mutable_out_of_place()->mutable_rank_schedule(0)->set_stalled_us(30000);
    row.mutable_in_place()->mutable_rank_schedule(0)->set_stalled_us(30000);
  }
  f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_UNKNOWN);
  EXPECT_THAT(f.reason, HasSubstr("; the hosts' counters: node1 retransmitted 2.9%"));
  ASSERT_EQ(f.counters.size(), 1u);
}

TEST(PathCountersTest, ANoProgressFailureGetsTheCountersOfItsPath) {
  v1::TestReport report = FlatReport();
  v1::Failure* failure = report.add_failures();
  failure->set_kind(v1::FAILURE_KIND_NO_PROGRESS);
  failure->set_rank(-1);
  failure->set_message("no rank made progress for 4s");
  AddTcp(report, "node2", 5000, 900);
  const CulpritFinding f = CulpritOf(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_PATH);
  EXPECT_THAT(f.reason, StartsWith("node2 retransmitted 15.3% of its 5,900 TCP segments"));
  EXPECT_THAT(f.reason, HasSubstr("the test failed at the path (no rank made progress"));
}

TEST(PathCountersTest, GroupedCount) {
  EXPECT_EQ(GroupedCount(0), "0");
  EXPECT_EQ(GroupedCount(999), "999");
  EXPECT_EQ(GroupedCount(1204), "1,204");
  EXPECT_EQ(GroupedCount(18446744073709551615u), "18,446,744,073,709,551,615");
}

}  // namespace
}  // namespace eb::validation
