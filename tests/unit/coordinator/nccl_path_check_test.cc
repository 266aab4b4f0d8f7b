// What NCCL really used, checked against the node's configuration and the
// test's majority (issue 29, item 4): one case per mismatch kind, unknown
// logs, and the failure it makes (UNEXPECTED_PATH: exit 7, the named node).

#include "coordinator/core/collective_tests/nccl_path_check.h"

#include <string>

#include "common/spec/failure_kinds.h"
#include "coordinator/core/collective_tests/run_verdict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Two nodes of two GPUs, mlx5_100 and mlx5_101 configured on each; GPU g's
// rail HCA is mlx5_10g. Every rank healthy: IB, GDR, 4 channels, P2P to
// its node's peer, its own rail's HCA to the other node.
v1::TestReport Healthy() {
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
      inventory.add_hcas()->set_name("mlx5_10" + std::to_string(gpu));
    }
  }
  for (int rank = 0; rank < 4; ++rank) {
    v1::RankNicUse& use = *report.add_nic_use();
    use.set_rank(rank);
    use.set_node_name(report.ranks(rank).node_name());
    use.set_info_level(true);
    use.set_net_transport("IB");
    use.add_net_devices("mlx5_100");
    use.add_net_devices("mlx5_101");
    use.set_coll_channels(4);
    use.set_gdr(true);
    const std::string hca = "mlx5_10" + std::to_string(rank % 2);
    v1::NcclChannelPath& net = *use.add_channels();
    net.set_peer_rank((rank + 2) % 4);
    net.set_path("NET/IB/" + std::to_string(rank % 2) + "/GDRDMA");
    net.set_nic(hca);
    v1::NcclChannelPath& p2p = *use.add_channels();
    p2p.set_peer_rank(rank ^ 1);
    p2p.set_path("P2P/CUMEM/read");
  }
  return report;
}

std::vector<std::string> FindingsOf(v1::TestReport report, int rank) {
  JudgeNcclPaths({}, report);
  for (const v1::RankNicUse& use : report.nic_use()) {
    if (use.rank() == rank) return {use.findings().begin(), use.findings().end()};
  }
  return {};
}

TEST(NcclPathCheckTest, AHealthyTestHasNoFinding) {
  v1::TestReport report = Healthy();
  JudgeNcclPaths({}, report);
  EXPECT_EQ(report.failures_size(), 0);
  EXPECT_THAT(report.nic_use(0).intra_transports(), ElementsAre("P2P/CUMEM"));
}

TEST(NcclPathCheckTest, SocketInsteadOfIb) {
  v1::TestReport report = Healthy();
  v1::RankNicUse& use = *report.mutable_nic_use(1);
  use.set_net_transport("Socket");
  use.clear_gdr();
  use.mutable_channels(0)->set_path("NET/Socket/0");
  use.mutable_channels(0)->set_nic("eth0");
  EXPECT_THAT(
      FindingsOf(report, 1),
      ElementsAre("used NET/Socket instead of NET/IB (HCAs configured: mlx5_100,mlx5_101)"));
  JudgeNcclPaths({}, report);
  ASSERT_EQ(report.failures_size(), 1);
  const v1::Failure& failure = report.failures(0);
  EXPECT_EQ(failure.kind(), v1::FAILURE_KIND_UNEXPECTED_PATH);
  EXPECT_EQ(failure.rank(), 1);
  EXPECT_THAT(failure.message(), HasSubstr("NCCL's path: used NET/Socket instead of NET/IB"));
  EXPECT_EQ(Decide(report).state, v1::TEST_STATE_FAILED);
}

TEST(NcclPathCheckTest, SocketsAskedForAreNoFinding) {
  // A test comparing sockets with IB turns IB off: what it asked for.
  v1::TestReport report = Healthy();
  for (v1::RankNicUse& use : *report.mutable_nic_use()) {
    use.set_net_transport("Socket");
    use.clear_gdr();
    use.mutable_channels(0)->set_path("NET/Socket/0");
    use.mutable_channels(0)->set_nic("eth0");
  }
  (*report.mutable_spec()->mutable_nccl_env())["NCCL_IB_DISABLE"] = "1";
  JudgeNcclPaths({}, report);
  EXPECT_EQ(report.failures_size(), 0);
  // Or NCCL said it read NCCL_NET=Socket (the operator's worker.env).
  report = Healthy();
  v1::RankNicUse& use = *report.mutable_nic_use(1);
  use.set_net_transport("Socket");
  use.add_nccl_env("NCCL_NET=Socket");
  // Still unlike the test's majority.
  EXPECT_THAT(FindingsOf(report, 1),
              ElementsAre("used NET/Socket instead of NET/IB (the test's majority)"));
}

TEST(NcclPathCheckTest, WrongHcaForARail) {
  v1::TestReport report = Healthy();
  report.mutable_nic_use(3)->mutable_channels(0)->set_nic("mlx5_100");
  EXPECT_THAT(FindingsOf(report, 3), ElementsAre("used mlx5_100 for rail 1 (expected mlx5_101)"));
}

TEST(NcclPathCheckTest, MergedPortsOfConfiguredHcasAreConfigured) {
  // NCCL_IB_MERGE_NICS: one device "mlx5_100+mlx5_101" for two ports.
  v1::TestReport report = Healthy();
  for (v1::RankNicUse& use : *report.mutable_nic_use()) {
    use.clear_net_devices();
    use.add_net_devices("mlx5_100+mlx5_101");
    use.mutable_channels(0)->set_nic("mlx5_100+mlx5_101");
  }
  JudgeNcclPaths({}, report);
  EXPECT_EQ(report.failures_size(), 0);
}

TEST(NcclPathCheckTest, ANicThatIsNotAConfiguredHca) {
  v1::TestReport report = Healthy();
  report.mutable_nic_use(2)->mutable_channels(0)->set_nic("mlx5_7");
  EXPECT_THAT(FindingsOf(report, 2),
              ElementsAre("used mlx5_7, not a configured HCA (mlx5_100,mlx5_101)"));
}

TEST(NcclPathCheckTest, FewerNicsThanRails) {
  v1::TestReport report = Healthy();
  v1::RankNicUse& use = *report.mutable_nic_use(2);
  use.clear_net_devices();
  use.add_net_devices("mlx5_100");
  EXPECT_THAT(FindingsOf(report, 2),
              ElementsAre("NCCL found 1 of 2 configured HCAs on a800-1 (missing mlx5_101; it "
                          "listed mlx5_100)"));
  // Said once per node, by its first rank that lists them.
  EXPECT_THAT(FindingsOf(report, 3), IsEmpty());
}

TEST(NcclPathCheckTest, GdrOffAgainstTheMajority) {
  v1::TestReport report = Healthy();
  report.mutable_nic_use(3)->set_gdr(false);
  EXPECT_THAT(FindingsOf(report, 3),
              ElementsAre("GDR off on a800-1 (GPUDirect RDMA on for the test's majority)"));
}

TEST(NcclPathCheckTest, FewerChannelsThanTheMajority) {
  v1::TestReport report = Healthy();
  report.mutable_nic_use(0)->set_coll_channels(2);
  EXPECT_THAT(FindingsOf(report, 0), ElementsAre("2 channels, fewer than the test's majority (4)"));
  report = Healthy();
  report.mutable_nic_use(0)->set_coll_channels(1);
  EXPECT_THAT(FindingsOf(report, 0), ElementsAre("1 channel, fewer than the test's majority (4)"));
  // More than the majority is not a finding.
  report = Healthy();
  report.mutable_nic_use(0)->set_coll_channels(8);
  EXPECT_THAT(FindingsOf(report, 0), IsEmpty());
}

TEST(NcclPathCheckTest, ShmInsteadOfP2p) {
  v1::TestReport report = Healthy();
  report.mutable_nic_use(1)->mutable_channels(1)->set_path("SHM/direct");
  EXPECT_THAT(FindingsOf(report, 1),
              ElementsAre("reached its node's peers via SHM/direct instead of P2P/CUMEM (the "
                          "test's majority)"));
}

TEST(NcclPathCheckTest, SocketBetweenPeersOfOneNodeInsteadOfP2p) {
  v1::TestReport report = Healthy();
  report.mutable_nic_use(0)->mutable_channels(1)->set_path("NET/IB/0/GDRDMA");
  EXPECT_THAT(FindingsOf(report, 0),
              ElementsAre("reached its node's peers via NET/IB instead of P2P/CUMEM (the test's "
                          "majority)"));
}

TEST(NcclPathCheckTest, UnknownIsNeverAFinding) {
  v1::TestReport report = Healthy();
  // Rank 1's log had no INFO lines: whatever else it holds is not judged.
  v1::RankNicUse& use = *report.mutable_nic_use(1);
  use.set_info_level(false);
  use.set_net_transport("Socket");
  use.set_gdr(false);
  use.set_coll_channels(1);
  JudgeNcclPaths({}, report);
  EXPECT_EQ(report.failures_size(), 0);
  // A test with no entry at all.
  report = Healthy();
  report.clear_nic_use();
  JudgeNcclPaths({}, report);
  EXPECT_EQ(report.failures_size(), 0);
}

TEST(NcclPathCheckTest, SocketsWithoutConfiguredHcasAreFineAndATieHasNoMajority) {
  v1::TestReport report = Healthy();
  for (v1::NodeInventory& inventory : *report.mutable_node_inventories()) {
    inventory.clear_hcas();
    for (v1::GpuInfo& gpu : *inventory.mutable_gpus()) gpu.clear_nearest_hca();
  }
  for (v1::RankNicUse& use : *report.mutable_nic_use()) {
    use.set_net_transport("Socket");
    use.clear_gdr();
    use.mutable_channels(0)->set_path("NET/Socket/0");
    use.mutable_channels(0)->set_nic("eth0");
  }
  // Two ranks with 2 channels, two with 4: no majority, no finding.
  report.mutable_nic_use(0)->set_coll_channels(2);
  report.mutable_nic_use(1)->set_coll_channels(2);
  JudgeNcclPaths({}, report);
  EXPECT_EQ(report.failures_size(), 0);
}

TEST(NcclPathCheckTest, TheKindFailsWithExitSevenAndBlamesTheNamedNode) {
  const spec::FailureKindRow& row = spec::RowOf(v1::FAILURE_KIND_UNEXPECTED_PATH);
  EXPECT_EQ(row.exit, spec::FailureExit::kCheckFailed);
  EXPECT_EQ(row.blame, spec::FailureBlame::kNamedNode);
  EXPECT_FALSE(row.timed_out);
}

}  // namespace
}  // namespace eb::coordinator
