// What a rank's NCCL really used (issue 29, item 4), from its INFO lines:
// the fixtures in testdata/nccl_logs (see its README for where each line's
// format comes from), garbage and oversized input.

#include "agent/core/nccl_use.h"

#include <map>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/core/evidence_collector.h"
#include "common/spec/nccl_paths.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string Fixture(const std::string& name) {
  std::ifstream in(absl::StrCat(EB_NCCL_LOGS_DIR, "/", name));
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(NcclUseTest, HealthyIbRankNamesItsTransportNicsChannelsAndGdr) {
  const NcclUse use = ParseNcclUse(Fixture("ib_rails_rank0.log"), 0);
  EXPECT_TRUE(use.info_level);
  EXPECT_EQ(use.nccl_version, "2.28.3+cuda13.0");
  EXPECT_EQ(use.net_transport, "IB");
  EXPECT_THAT(use.net_devices, ElementsAre("mlx5_100", "mlx5_101"));
  EXPECT_EQ(use.coll_channels, 4);
  ASSERT_TRUE(use.gdr.has_value());
  EXPECT_TRUE(*use.gdr);
  // The ring dump ("Channel 00/04 : 0 1 2 3") is not a connection.
  ASSERT_EQ(use.channels.size(), 8u);
  EXPECT_EQ(use.channels[0].channel, 0);
  EXPECT_EQ(use.channels[0].peer_rank, 3);
  EXPECT_FALSE(use.channels[0].send);
  EXPECT_EQ(use.channels[0].path, "NET/IB/0/GDRDMA");
  EXPECT_EQ(use.channels[0].nic, "mlx5_100");
  EXPECT_EQ(use.channels[4].path, "P2P/CUMEM/read");
  EXPECT_EQ(use.channels[4].peer_rank, 1);
  EXPECT_TRUE(use.channels[4].send);
  EXPECT_EQ(use.channels[4].nic, "");
  EXPECT_THAT(use.nccl_env,
              ElementsAre("NCCL_SOCKET_IFNAME==eth0", "NCCL_IB_HCA==mlx5_100,mlx5_101",
                          "NCCL_IB_RESILIENCY_PORT_FAILOVER=0"));
  EXPECT_FALSE(use.truncated);
}

TEST(NcclUseTest, RailOneSendsThroughItsOwnHca) {
  const NcclUse use = ParseNcclUse(Fixture("ib_rails_rank1.log"), 1);
  ASSERT_EQ(use.channels.size(), 6u);
  // "0[0] -> 1[1] via P2P" in rank 1's log: it receives from rank 0.
  EXPECT_EQ(use.channels[0].peer_rank, 0);
  EXPECT_FALSE(use.channels[0].send);
  EXPECT_EQ(use.channels[2].nic, "mlx5_101");
  EXPECT_EQ(use.channels[2].peer_rank, 2);
}

TEST(NcclUseTest, SocketFallbackIsNamedWithItsInterface) {
  const NcclUse use = ParseNcclUse(Fixture("socket_fallback_rank2.log"), 2);
  EXPECT_EQ(use.net_transport, "Socket");
  EXPECT_THAT(use.net_devices, ElementsAre("eth0"));
  EXPECT_EQ(use.channels[0].nic, "eth0");
  EXPECT_EQ(use.channels[0].path, "NET/Socket/0");
  ASSERT_TRUE(use.gdr.has_value());
  EXPECT_FALSE(*use.gdr);
}

TEST(NcclUseTest, GdrOffAndFewerChannels) {
  const NcclUse use = ParseNcclUse(Fixture("gdr_off_rank3.log"), 3);
  EXPECT_EQ(use.coll_channels, 2);
  ASSERT_TRUE(use.gdr.has_value());
  EXPECT_FALSE(*use.gdr);
  EXPECT_EQ(use.channels[0].nic, "mlx5_101");
}

TEST(NcclUseTest, ShmChannelsWithoutAConnectionIndex) {
  const NcclUse use = ParseNcclUse(Fixture("shm_rank1.log"), 1);
  ASSERT_EQ(use.channels.size(), 4u);
  EXPECT_EQ(use.channels[0].path, "SHM/direct");
  EXPECT_EQ(use.channels[0].peer_rank, 0);
  EXPECT_THAT(use.nccl_env, ElementsAre("NCCL_P2P_DISABLE=1"));
}

TEST(NcclUseTest, WarnOnlyLogIsUnknown) {
  const NcclUse use = ParseNcclUse(Fixture("warn_only.log"), 0);
  EXPECT_FALSE(use.info_level);
  EXPECT_EQ(use.net_transport, "");
  EXPECT_THAT(use.channels, IsEmpty());
  EXPECT_FALSE(use.gdr.has_value());
  EXPECT_FALSE(ParseNcclUse("", 0).info_level);
}

TEST(NcclUseTest, PluginNamesKeepTheirSpacesAndAProxiedDeviceResolves) {
  const NcclUse use = ParseNcclUse(
      "h:1:2 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v10)\n"
      "h:1:2 [0] NCCL INFO NET/AWS Libfabric : Using [0]rdmap16s27:1 [1]rdmap32s27:1\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/1(2)/GDRDMA\n",
      0);
  EXPECT_EQ(use.net_transport, "AWS Libfabric");
  EXPECT_THAT(use.net_devices, ElementsAre("rdmap16s27", "rdmap32s27"));
  ASSERT_EQ(use.channels.size(), 1u);
  EXPECT_EQ(use.channels[0].nic, "rdmap32s27");
  EXPECT_TRUE(use.gdr.value_or(false));
}

TEST(NcclUseTest, ADeviceIndexNotListedIsNamedByItsIndex) {
  const NcclUse use = ParseNcclUse(
      "h:1:2 [0] NCCL INFO Using network IB\n"
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/5\n",
      0);
  ASSERT_EQ(use.channels.size(), 1u);
  EXPECT_EQ(use.channels[0].nic, "NET/IB/5");
}

TEST(NcclUseTest, GarbageAndOversizedInputNeverCrashAndStayBounded) {
  std::string garbage;
  for (int i = 0; i < 2000; ++i) {
    absl::StrAppend(&garbage, "x NCCL INFO Channel ", i, "/ : ", i, "[ -> ]] via \n",
                    "x NCCL INFO Channel 99999999999/0 : 1[0] -> 2[0] via NET/IB/99999999999\n",
                    "x NCCL INFO NET/IB : Using [x]y [99999999999]z [3]\n", "x NCCL INFO ",
                    std::string(i % 7, '\0'), " coll channels\n",
                    "x NCCL INFO NCCL_X set by environment to \n");
  }
  absl::StrAppend(&garbage, "x NCCL INFO Using network ", std::string(100000, 'A'), "\n");
  NcclUseLimits limits;
  limits.max_channels = 16;
  const NcclUse use = ParseNcclUse(garbage, 1, limits);
  EXPECT_TRUE(use.info_level);
  EXPECT_LE(use.channels.size(), 16u);
  EXPECT_LE(use.nccl_env.size(), limits.max_env);
  EXPECT_EQ(use.net_transport, "");  // the oversized line is ignored
  for (const NcclChannelUse& channel : use.channels) EXPECT_LE(channel.path.size(), 128u);
  // Many channels: bounded, and said so.
  std::string many;
  for (int i = 0; i < 600; ++i) {
    absl::StrAppend(&many, "h NCCL INFO Channel ", i % 64,
                    "/0 : 0[0] -> 1[0] [send] via NET/IB/0\n");
  }
  const NcclUse bounded = ParseNcclUse(many, 0);
  EXPECT_EQ(bounded.channels.size(), 512u);
  EXPECT_TRUE(bounded.truncated);
}

// Recorded on the GPU machine (one H100, NCCL 2.28.3, no InfiniBand; ranks
// as processes on GPU 0 with distinct NCCL_HOSTIDs): testdata/nccl_logs/
// recorded, its README names the command.
TEST(NcclUseRecordedTest, TwoHostsOnSocketsNameEth0AndNoGdr) {
  for (const int rank : {0, 1}) {
    const NcclUse use =
        ParseNcclUse(Fixture(absl::StrCat("recorded/socket2.rank", rank, ".log")), rank);
    EXPECT_TRUE(use.info_level);
    EXPECT_EQ(use.nccl_version, "2.28.3+cuda13.0");
    // IB found no device ("NET/IB : Using [RO]; ..." lists none).
    EXPECT_EQ(use.net_transport, "Socket");
    EXPECT_THAT(use.net_devices, ElementsAre("eth0"));
    EXPECT_EQ(use.coll_channels, 2);
    ASSERT_EQ(use.channels.size(), 4u);
    for (const NcclChannelUse& channel : use.channels) {
      EXPECT_EQ(channel.peer_rank, 1 - rank);
      EXPECT_EQ(channel.path, "NET/Socket/0");
      EXPECT_EQ(channel.nic, "eth0");
    }
    ASSERT_TRUE(use.gdr.has_value());
    EXPECT_FALSE(*use.gdr);
    EXPECT_THAT(use.nccl_env, ::testing::Contains(absl::StrCat("NCCL_HOSTID=host", rank)));
  }
}

TEST(NcclUseRecordedTest, OneChannelIsFewerThanTheDefaultTwo) {
  const NcclUse use = ParseNcclUse(Fixture("recorded/one_channel.rank0.log"), 0);
  EXPECT_EQ(use.coll_channels, 1);
  EXPECT_EQ(use.channels.size(), 2u);
  EXPECT_THAT(use.nccl_env, ::testing::Contains("NCCL_MAX_NCHANNELS=1"));
}

TEST(NcclUseRecordedTest, AWrongHcaNameFallsBackToSocketsWithoutAWord) {
  // NCCL_IB_HCA==mlx5_bogus and NCCL_NET unset: NCCL says nothing worse
  // than INFO and runs on sockets; on a node configured for IB the check
  // names it (nccl_path_check_test: SocketInsteadOfIb).
  const NcclUse use = ParseNcclUse(Fixture("recorded/wrong_hca.rank0.log"), 0);
  EXPECT_EQ(use.net_transport, "Socket");
  EXPECT_THAT(use.nccl_env, ::testing::Contains("NCCL_IB_HCA==mlx5_bogus"));
  EXPECT_EQ(use.channels[0].path, "NET/Socket/0");
}

TEST(NcclUseRecordedTest, P2pAndShmOffBetweenTwoHostsStayOnTheNetwork) {
  // One GPU cannot show P2P or SHM between two ranks: with distinct host
  // ids the network is all there is, with or without them.
  const NcclUse use = ParseNcclUse(Fixture("recorded/p2p_shm_off.rank0.log"), 0);
  EXPECT_THAT(use.nccl_env, ::testing::IsSupersetOf({"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"}));
  for (const NcclChannelUse& channel : use.channels) EXPECT_EQ(channel.path, "NET/Socket/0");
}

TEST(NcclUseRecordedTest, LoopbackInterfaceAndExplicitSocketNet) {
  EXPECT_THAT(ParseNcclUse(Fixture("recorded/ifname_lo.rank0.log"), 0).net_devices,
              ElementsAre("lo"));
  const NcclUse use = ParseNcclUse(Fixture("recorded/net_socket.rank0.log"), 0);
  EXPECT_EQ(use.net_transport, "Socket");
  EXPECT_EQ(use.channels.size(), 4u);
}

TEST(NcclUseRecordedTest, WorldSizeOneConnectsNothing) {
  const NcclUse use = ParseNcclUse(Fixture("recorded/world1.rank0.log"), 0);
  EXPECT_EQ(use.net_transport, "Socket");
  EXPECT_EQ(use.coll_channels, 64);
  EXPECT_THAT(use.channels, IsEmpty());
  EXPECT_FALSE(use.gdr.has_value());  // no network channel: unknown
}

TEST(NcclUseRecordedTest, FailedInitsChoseNoNetwork) {
  // NCCL_NET=IB without IB: "Failed to initialize any NET plugin".
  NcclUse use = ParseNcclUse(Fixture("recorded/net_ib.rank0.log"), 0);
  EXPECT_TRUE(use.info_level);
  EXPECT_EQ(use.net_transport, "");
  EXPECT_THAT(use.net_devices, IsEmpty());
  EXPECT_THAT(use.nccl_env, ::testing::Contains("NCCL_IB_HCA==mlx5_0"));
  // NCCL_SOCKET_IFNAME==eth9: "Bootstrap : no socket interface found".
  use = ParseNcclUse(Fixture("recorded/missing_nic.rank0.log"), 0);
  EXPECT_EQ(use.net_transport, "");
  EXPECT_THAT(use.channels, IsEmpty());
  // Two ranks of one host on one GPU: "Duplicate GPU detected".
  use = ParseNcclUse(Fixture("recorded/same_host.rank0.log"), 0);
  EXPECT_EQ(use.net_transport, "Socket");
  EXPECT_THAT(use.channels, IsEmpty());
}

TEST(EvidenceCollectorNcclUseTest, EachNcclRankSaysWhatItUsedOrWhyThatIsUnknown) {
  const std::map<std::string, std::string> logs = {
      {"/logs/rank-0.log", Fixture("ib_rails_rank0.log")},
      {"/logs/rank-1.log", Fixture("warn_only.log")},
      {"/logs/rank-2.log", "worker never reached NCCL\n"}};
  EvidenceReaders readers;
  readers.read_log = [&logs](const std::string& path, bool from_start, size_t) {
    EXPECT_TRUE(from_start);  // NCCL names its paths at init, near the start
    return logs.at(path);
  };
  SupervisedTest test;
  test.launch.mutable_spec()->set_transport(ebnccl::v1::TRANSPORT_NCCL);
  for (int rank = 0; rank < 3; ++rank) {
    SupervisedWorker& worker = test.workers.emplace_back();
    worker.assignment.set_rank(rank);
    worker.assignment.set_node_name("a800-0");
    worker.log_path = absl::StrCat("/logs/rank-", rank, ".log");
    worker.spawned = true;
    worker.finished = true;
  }
  const ebnccl::v1::NodeTestEvidence evidence = EvidenceCollector("a800-0", readers).Collect(test);
  // Rank 2 logged nothing of NCCL's: nothing to say.
  ASSERT_EQ(evidence.nic_use_size(), 2);
  const ebnccl::v1::RankNicUse& used = evidence.nic_use(0);
  EXPECT_EQ(used.rank(), 0);
  EXPECT_TRUE(used.info_level());
  EXPECT_EQ(used.net_transport(), "IB");
  EXPECT_THAT(used.nics(), ElementsAre("mlx5_100"));
  EXPECT_EQ(used.channels_size(), 8);
  EXPECT_EQ(used.coll_channels(), 4);
  EXPECT_TRUE(used.has_gdr() && used.gdr());
  EXPECT_EQ(used.nccl_version(), "2.28.3+cuda13.0");
  EXPECT_THAT(used.nccl_env(), ::testing::Contains("NCCL_IB_RESILIENCY_PORT_FAILOVER=0"));
  const ebnccl::v1::RankNicUse& unknown = evidence.nic_use(1);
  EXPECT_EQ(unknown.rank(), 1);
  EXPECT_FALSE(unknown.info_level());
  EXPECT_THAT(unknown.unknown_reason(), ::testing::HasSubstr("NCCL_DEBUG below INFO"));
  // Gloo workers load no NCCL: nothing is read.
  test.launch.mutable_spec()->set_transport(ebnccl::v1::TRANSPORT_GLOO);
  EXPECT_EQ(EvidenceCollector("a800-0", readers).Collect(test).nic_use_size(), 0);
}

TEST(NcclPathTransportTest, KeepsTheTransportOfAPath) {
  EXPECT_EQ(spec::NcclPathTransport("NET/IB/1/GDRDMA"), "NET/IB");
  EXPECT_EQ(spec::NcclPathTransport("NET/Socket/0"), "NET/Socket");
  EXPECT_EQ(spec::NcclPathTransport("P2P/CUMEM/read"), "P2P/CUMEM");
  EXPECT_EQ(spec::NcclPathTransport("P2P/direct pointer/read"), "P2P/direct");
  EXPECT_EQ(spec::NcclPathTransport("SHM/direct"), "SHM/direct");
  EXPECT_EQ(spec::NcclPathTransport("weird"), "weird");
}

}  // namespace
}  // namespace eb::agent
