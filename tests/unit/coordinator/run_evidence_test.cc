// The agents' evidence merged into a test's report (issue 12): ports,
// NCCL warnings within the test's bound, NIC use against the nearest HCA,
// and the summary note.

#include "coordinator/core/collective_tests/run_evidence.h"

#include <string>

#include "common/spec/bounded_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Two nodes of two GPUs; GPU g of each node is nearest mlx5_10g.
v1::TestReport Report() {
  v1::TestReport report;
  for (int rank = 0; rank < 4; ++rank) {
    v1::RankAssignment& a = *report.add_ranks();
    a.set_rank(rank);
    a.set_node_name(rank < 2 ? "a800-0" : "a800-1");
    a.set_node_index(rank / 2);
    a.set_local_rank(rank % 2);
    a.set_device_index(rank % 2);
  }
  for (int node = 0; node < 2; ++node) {
    v1::NodeInventory& inventory = *report.add_node_inventories();
    for (int gpu = 0; gpu < 2; ++gpu) {
      v1::GpuInfo& info = *inventory.add_gpus();
      info.set_index(gpu);
      info.set_nearest_hca("mlx5_10" + std::to_string(gpu));
    }
  }
  return report;
}

v1::PortEvidence Port(const std::string& hca, const std::string& grown) {
  v1::PortEvidence port;
  port.set_hca(hca);
  port.set_port(1);
  if (!grown.empty()) {
    port.add_grown_errors(grown);
    v1::PortCounter& counter = *port.add_counters();
    counter.set_name("symbol_error");
    counter.set_before(3);  // the coordinator computes the delta itself
    counter.set_after(15);
    counter.set_error_counter(true);
  }
  return port;
}

TEST(TestEvidenceTest, NearestHcaComesFromTheInventory) {
  const v1::TestReport report = Report();
  EXPECT_EQ(NearestHca(report.node_inventories(0), 1), "mlx5_101");
  EXPECT_EQ(NearestHca(report.node_inventories(0), 7), "");
  EXPECT_EQ(NearestHca(report.node_inventories(0), -1), "");
}

TEST(TestEvidenceTest, GrowingSymbolErrorsPointAtTheCable) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  *evidence.add_ports() = Port("mlx5_101", "symbol_error +12");
  evidence.mutable_ports(0)->set_node_name("forged");
  MergeNodeEvidence("a800-1", evidence, report);
  ASSERT_EQ(report.port_counters_size(), 1);
  EXPECT_EQ(report.port_counters(0).node_name(), "a800-1");
  EXPECT_EQ(FinishEvidence(report),
            "port evidence: a800-1 mlx5_101:1 symbol_error +12 (a slow rail with growing symbol "
            "errors is a cable)");
}

TEST(TestEvidenceTest, AFlapIsNamedAndCleanCountersOnAFailureSayLookElsewhere) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  v1::PortEvidence& port = *evidence.add_ports() = Port("mlx5_100", "");
  port.set_link_flapped(true);
  port.mutable_start()->set_state("ACTIVE");
  port.mutable_end()->set_state("DOWN");
  MergeNodeEvidence("a800-0", evidence, report);
  EXPECT_THAT(FinishEvidence(report),
              HasSubstr("a800-0 mlx5_100:1 link flapped (ACTIVE/ -> DOWN/)"));

  v1::TestReport clean = Report();
  v1::NodeTestEvidence quiet;
  *quiet.add_ports() = Port("mlx5_100", "");
  MergeNodeEvidence("a800-0", quiet, clean);
  EXPECT_EQ(FinishEvidence(clean), "");  // passed: nothing to explain
  v1::Failure& crash = *clean.add_failures();
  crash.set_rank(0);
  crash.set_kind(v1::FAILURE_KIND_WORKER_EXITED);
  EXPECT_EQ(FinishEvidence(clean), "");  // a crash: the counters say nothing about it
  v1::Failure& slow = *clean.add_failures();
  slow.set_rank(-1);
  slow.set_kind(v1::FAILURE_KIND_BELOW_MIN_BUSBW);
  EXPECT_THAT(FinishEvidence(clean), HasSubstr("not the cable; look elsewhere"));
}

TEST(TestEvidenceTest, PortsAreListedInNodeOrderWhateverOrderTheAgentsReported) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence second;
  *second.add_ports() = Port("mlx5_101", "");
  *second.add_ports() = Port("mlx5_100", "");
  v1::NodeTestEvidence first;
  *first.add_ports() = Port("mlx5_100", "");
  MergeNodeEvidence("a800-1", second, report);
  MergeNodeEvidence("a800-0", first, report);
  FinishEvidence(report);
  ASSERT_EQ(report.port_counters_size(), 3);
  EXPECT_EQ(report.port_counters(0).node_name(), "a800-0");
  EXPECT_EQ(report.port_counters(1).hca(), "mlx5_100");
  EXPECT_EQ(report.port_counters(2).hca(), "mlx5_101");
}

TEST(TestEvidenceTest, WarningsGoToTheirRankAndItsFailureWithinTheBound) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  v1::RankNcclWarnings& mine = *evidence.add_nccl_warnings();
  mine.set_rank(3);
  mine.add_lines("h:1:2 [1] NCCL WARN first");
  mine.add_lines("h:1:2 [1] NCCL WARN second");
  v1::RankNcclWarnings& foreign = *evidence.add_nccl_warnings();
  foreign.set_rank(0);  // a rank of the other node: dropped
  foreign.add_lines("h:1:2 [0] NCCL WARN forged");
  MergeNodeEvidence("a800-1", evidence, report);
  ASSERT_EQ(report.nccl_warnings_size(), 1);
  EXPECT_EQ(report.nccl_warnings(0).rank(), 3);
  EXPECT_EQ(report.nccl_warnings(0).node_name(), "a800-1");

  v1::Failure& failure = *report.add_failures();
  failure.set_rank(3);
  FinishEvidence(report);
  EXPECT_THAT(report.failures(0).nccl_warnings(),
              ElementsAre("h:1:2 [1] NCCL WARN first", "h:1:2 [1] NCCL WARN second"));

  // The test's bound: a node that sends more keeps its last lines.
  v1::TestReport big = Report();
  v1::NodeTestEvidence flood;
  for (int rank : {2, 3}) {
    v1::RankNcclWarnings& r = *flood.add_nccl_warnings();
    r.set_rank(rank);
    for (int i = 0; i < 20; ++i) r.add_lines(std::string(4000, 'a' + i));
  }
  MergeNodeEvidence("a800-1", flood, big);
  size_t bytes = 0;
  for (const v1::RankNcclWarnings& r : big.nccl_warnings()) {
    for (const std::string& line : r.lines()) bytes += line.size();
  }
  EXPECT_LE(bytes, kMaxTestNcclWarningBytes);
  ASSERT_GE(big.nccl_warnings_size(), 1);
  EXPECT_TRUE(big.nccl_warnings(0).truncated());
  EXPECT_EQ(big.nccl_warnings(0).lines(big.nccl_warnings(0).lines_size() - 1),
            std::string(4000, 'a' + 19));
}

TEST(TestEvidenceTest, RasStatusIsKeptPerNodeInNodeOrderWithinTheTestBound) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence second;
  second.mutable_nccl_ras()->set_node_name("forged");
  second.mutable_nccl_ras()->set_port(28100);
  second.mutable_nccl_ras()->set_text(std::string(40 * 1024, 'b'));
  v1::NodeTestEvidence first;
  first.mutable_nccl_ras()->set_port(28100);
  first.mutable_nccl_ras()->set_text(std::string(40 * 1024, 'a'));
  MergeNodeEvidence("a800-1", second, report);
  MergeNodeEvidence("a800-0", first, report);
  // A node without a RAS query adds nothing.
  MergeNodeEvidence("a800-0", v1::NodeTestEvidence(), report);
  FinishEvidence(report);
  ASSERT_EQ(report.nccl_ras_size(), 2);
  EXPECT_EQ(report.nccl_ras(0).node_name(), "a800-0");
  EXPECT_EQ(report.nccl_ras(1).node_name(), "a800-1");
  // The second reply to arrive (a800-0's) did not fit the 64 KiB: its text
  // is dropped, said in its error.
  EXPECT_EQ(report.nccl_ras(1).text().size(), 40u * 1024);
  EXPECT_EQ(report.nccl_ras(0).text(), "");
  EXPECT_TRUE(report.nccl_ras(0).truncated());
  EXPECT_THAT(report.nccl_ras(0).error(), HasSubstr("the test's RAS budget (64 KiB) is spent"));
}

TEST(TestEvidenceTest, ARankWhoseNcclUsedAnotherNicIsFlagged) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  v1::RankNicUse& right = *evidence.add_nic_use();
  right.set_rank(2);
  right.add_nics("mlx5_100");
  v1::RankNicUse& wrong = *evidence.add_nic_use();
  wrong.set_rank(3);
  wrong.add_nics("mlx5_100");
  MergeNodeEvidence("a800-1", evidence, report);
  ASSERT_EQ(report.nic_use_size(), 2);
  EXPECT_FALSE(report.nic_use(0).unexpected());
  EXPECT_EQ(report.nic_use(1).expected_hca(), "mlx5_101");
  EXPECT_TRUE(report.nic_use(1).unexpected());
  EXPECT_THAT(FinishEvidence(report),
              HasSubstr("rank 3 (a800-1) used mlx5_100, not its nearest HCA mlx5_101"));
}

TEST(TestEvidenceTest, ChannelsAreBoundedPerRankAfterTheIntraNodeTransportsAreTaken) {
  // Issue 29, item 4: 200 channel connections of rank 2, the last one to
  // its node's peer over SHM.
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  v1::RankNicUse& use = *evidence.add_nic_use();
  use.set_rank(2);
  use.set_info_level(true);
  for (int i = 0; i < 200; ++i) {
    v1::NcclChannelPath& channel = *use.add_channels();
    channel.set_channel(i % 32);
    channel.set_peer_rank(i == 199 ? 3 : 0);
    channel.set_path(i == 199 ? "SHM/direct" : "NET/IB/0/GDRDMA");
  }
  MergeNodeEvidence("a800-1", evidence, report);
  ASSERT_EQ(report.nic_use_size(), 1);
  EXPECT_EQ(report.nic_use(0).channels_size(), kMaxRankNcclChannels);
  EXPECT_EQ(report.nic_use(0).channels_dropped(), 200 - kMaxRankNcclChannels);
  EXPECT_THAT(report.nic_use(0).intra_transports(), ElementsAre("SHM/direct"));
}

// Issue 29 item 6: an agent's counters are untrusted input. Only the TCP
// counters of the fixed list are kept, once each and once per node; every
// delta and reset is recomputed from before and after, and which counters
// are errors and grew is decided here; a node's ports and their counters are
// bounded.
// A port's text from a node is cut to kMaxEvidenceTextBytes at a character
// boundary: cut mid-character, the report could not be serialized (the
// history, `ebctl show`).
TEST(MergeNodeEvidenceTest, APortsLongTextIsCutToValidUtf8) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  v1::PortEvidence& port = *evidence.add_ports();
  // One ASCII byte, then 400 two-byte characters: byte 512 falls inside one.
  std::string long_text = "x";
  for (int i = 0; i < 400; ++i) long_text += "\xC3\xA9";
  port.set_hca(long_text);
  port.set_error(long_text);
  MergeNodeEvidence("a800-1", evidence, report);
  ASSERT_EQ(report.port_counters_size(), 1);
  for (const std::string& text : {report.port_counters(0).hca(), report.port_counters(0).error()}) {
    EXPECT_LE(text.size(), kMaxEvidenceTextBytes);
    EXPECT_TRUE(spec::IsValidUtf8(text));
  }
  std::string bytes;
  EXPECT_TRUE(report.SerializeToString(&bytes));
}

TEST(MergeNodeEvidenceTest, CountersAreCheckedNotTrusted) {
  v1::TestReport report = Report();
  v1::NodeTestEvidence evidence;
  v1::TcpEvidence& tcp = *evidence.mutable_tcp();
  tcp.set_node_name("someone-else");
  for (const char* name : {"Tcp:RetransSegs", "Tcp:Bogus", "Tcp:OutSegs", "Tcp:OutSegs"}) {
    v1::PortCounter& c = *tcp.add_counters();
    c.set_name(name);
    c.set_before(100);
    c.set_after(name == std::string("Tcp:RetransSegs") ? 40 : 1100);
    c.set_delta(999999);  // a lie
  }
  for (int p = 0; p < kMaxNodePorts + 5; ++p) {
    v1::PortEvidence& port = *evidence.add_ports();
    port.set_hca("mlx5_" + std::to_string(p));
    port.add_grown_errors("link_downed +99");  // a lie: nothing says so
    for (const char* name : {"symbol_error", "port_xmit_data", "made_up"}) {
      v1::PortCounter& c = *port.add_counters();
      c.set_name(name);
      c.set_before(5);
      c.set_after(7);
      c.set_delta(1000);
      c.set_error_counter(name != std::string("symbol_error"));  // lies too
    }
  }
  MergeNodeEvidence("a800-1", evidence, report);
  MergeNodeEvidence("a800-1", evidence, report);  // a second reading of the node: ignored
  ASSERT_EQ(report.tcp_counters_size(), 1);
  const v1::TcpEvidence& kept = report.tcp_counters(0);
  EXPECT_EQ(kept.node_name(), "a800-1");
  ASSERT_EQ(kept.counters_size(), 2);  // kTcpCounters' order, no Bogus, one OutSegs
  EXPECT_EQ(kept.counters(0).name(), "Tcp:OutSegs");
  EXPECT_EQ(kept.counters(0).delta(), 1000u);
  EXPECT_EQ(kept.counters(1).name(), "Tcp:RetransSegs");
  EXPECT_TRUE(kept.counters(1).reset());
  EXPECT_EQ(kept.counters(1).delta(), 0u);
  // Ports: each merge bounded to kMaxNodePorts, deltas recomputed.
  EXPECT_EQ(report.port_counters_size(), 2 * kMaxNodePorts);
  const v1::PortEvidence& port = report.port_counters(0);
  ASSERT_EQ(port.counters_size(), 2);  // made_up is no counter an agent reads
  EXPECT_EQ(port.counters(0).delta(), 2u);
  EXPECT_TRUE(port.counters(0).error_counter());
  EXPECT_FALSE(port.counters(1).error_counter());
  EXPECT_THAT(port.grown_errors(), ElementsAre("symbol_error +2"));
}

}  // namespace
}  // namespace eb::coordinator
