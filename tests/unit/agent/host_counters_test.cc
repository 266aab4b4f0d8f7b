// Issue 29 item 6: the host counters an agent reads over a test, on fake
// sysfs and procfs trees built here: one case per counter family (HCA
// counters/ and hw_counters/, /proc/net/snmp's Tcp, /proc/net/netstat's
// TcpExt), files missing, garbage refused naming the file, a value past
// 2^63-1 refused, a counter that went backwards (a reset, a wrap) read as
// such and never as growth.

#include <filesystem>
#include <string>
#include <vector>

#include "agent/core/port_counters.h"
#include "agent/core/tcp_counters.h"
#include "agent/host/infiniband_sysfs.h"
#include "agent/host/proc_net.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/fake_sysfs.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const v1::PortCounter* Find(const google::protobuf::RepeatedPtrField<v1::PortCounter>& counters,
                            const std::string& name) {
  for (const v1::PortCounter& counter : counters) {
    if (counter.name() == name) return &counter;
  }
  return nullptr;
}

// /proc/net/snmp as Linux 6.1 writes it (abridged: Ip and Udp cut short).
std::string Snmp(uint64_t out_segs, uint64_t retrans, const std::string& in_errs = "0") {
  return "Ip: Forwarding DefaultTTL InReceives\nIp: 1 64 123456\n"
         "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
         "EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
         "Tcp: 1 200 120000 -1 10 5 0 0 3 41000 " +
         std::to_string(out_segs) + " " + std::to_string(retrans) + " " + in_errs +
         " 2 0\n"
         "Udp: InDatagrams NoPorts\nUdp: 10 0\n";
}

std::string Netstat(uint64_t timeouts) {
  return "TcpExt: SyncookiesSent TCPTimeouts TCPLostRetransmit\nTcpExt: 0 " +
         std::to_string(timeouts) +
         " 4\n"
         "IpExt: InNoRoutes InTruncatedPkts\nIpExt: 0 0\n";
}

TEST(TcpCountersTest, SnmpTcpAndNetstatTcpExtAreReadByName) {
  const TcpSnapshot s =
      ParseTcpSnapshot(Snmp(40000, 1200), "/proc/net/snmp", Netstat(17), "/proc/net/netstat");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.counters.at("Tcp:OutSegs"), 40000u);
  EXPECT_EQ(s.counters.at("Tcp:RetransSegs"), 1200u);
  EXPECT_EQ(s.counters.at("Tcp:InSegs"), 41000u);
  EXPECT_EQ(s.counters.at("TcpExt:TCPTimeouts"), 17u);
  EXPECT_EQ(s.counters.at("TcpExt:TCPLostRetransmit"), 4u);
  // Only the fixed list: MaxConn (-1, signed) and the other tables are not kept.
  EXPECT_EQ(s.counters.count("Tcp:MaxConn"), 0u);
  EXPECT_EQ(s.counters.size(), 6u);
}

TEST(TcpCountersTest, WithoutNetstatTheTcpTableAloneIsRead) {
  const TcpSnapshot s = ParseTcpSnapshot(Snmp(5, 0), "/proc/net/snmp", "", "/proc/net/netstat");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.counters.size(), 4u);
}

TEST(TcpCountersTest, GarbageIsRefusedNamingTheFileAndTheField) {
  TcpSnapshot s = ParseTcpSnapshot(Snmp(5, 0, "x7"), "/fake/snmp", "", "");
  EXPECT_THAT(s.error, HasSubstr("/fake/snmp Tcp:InErrs: 'x7' is not a whole number"));
  EXPECT_THAT(s.counters, IsEmpty());
  // Past 2^63-1 (a u64 the house's parser does not take): refused, not wrapped.
  s = ParseTcpSnapshot(Snmp(5, 0, "18446744073709551616"), "/fake/snmp", "", "");
  EXPECT_THAT(s.error, HasSubstr("/fake/snmp Tcp:InErrs: '18446744073709551616'"));
  // A header and a value line that do not pair up.
  s = ParseTcpSnapshot("Tcp: InSegs OutSegs\nTcp: 1\n", "/fake/snmp", "", "");
  EXPECT_THAT(s.error, HasSubstr("/fake/snmp: the 'Tcp:' table has 2 fields but 1 values"));
  // Garbage in TcpExt is refused too, naming netstat.
  s = ParseTcpSnapshot(Snmp(5, 0), "/fake/snmp", "TcpExt: TCPTimeouts\nTcpExt: -3\n",
                       "/fake/netstat");
  EXPECT_THAT(s.error, HasSubstr("/fake/netstat TcpExt:TCPTimeouts: '-3'"));
  // A value of a megabyte: the message names it, bounded.
  s = ParseTcpSnapshot(Snmp(5, 0, std::string(1 << 20, '7') + "x"), "/fake/snmp", "", "");
  EXPECT_THAT(s.error, HasSubstr("/fake/snmp Tcp:InErrs: '777"));
  EXPECT_LE(s.error.size(), 512u);
  // No Tcp table at all (the wrong file).
  s = ParseTcpSnapshot("Ip: A\nIp: 1\n", "/fake/snmp", "", "");
  EXPECT_EQ(s.error, "/fake/snmp: no 'Tcp:' table with OutSegs");
}

TEST(TcpCountersTest, DeltasAndACounterThatWentBackwardsIsAReset) {
  const TcpSnapshot before = ParseTcpSnapshot(Snmp(40000, 100), "snmp", Netstat(7), "netstat");
  const TcpSnapshot after = ParseTcpSnapshot(Snmp(90000, 50), "snmp", Netstat(9), "netstat");
  const v1::TcpEvidence e = DiffTcp("node1", before, after);
  EXPECT_EQ(e.node_name(), "node1");
  EXPECT_EQ(e.error(), "");
  ASSERT_EQ(e.counters_size(), 6);
  EXPECT_EQ(e.counters(0).name(), "Tcp:OutSegs");  // spec::kTcpCounters' order
  EXPECT_EQ(e.counters(0).delta(), 50000u);
  EXPECT_FALSE(e.counters(0).reset());
  const v1::PortCounter* retrans = Find(e.counters(), "Tcp:RetransSegs");
  ASSERT_NE(retrans, nullptr);
  EXPECT_TRUE(retrans->reset());
  EXPECT_EQ(retrans->delta(), 0u);
  EXPECT_EQ(Find(e.counters(), "TcpExt:TCPTimeouts")->delta(), 2u);
  // An error at either reading is the evidence's, with no counters.
  TcpSnapshot broken;
  broken.error = "/proc/net/snmp: gone";
  EXPECT_EQ(DiffTcp("n", broken, after).error(), "when the test started: /proc/net/snmp: gone");
  EXPECT_EQ(DiffTcp("n", before, broken).counters_size(), 0);
}

TEST(TcpCountersTest, ReadFromAProcNetTreeAndAMissingFileIsNamed) {
  testing::FakeSysfs tree("procnet");
  const std::filesystem::path net = tree.infiniband().parent_path() / "net";
  std::filesystem::create_directories(net);
  EXPECT_THAT(ReadTcpSnapshot(net.string()).error, HasSubstr((net / "snmp").string()));
  testing::FakeSysfs::WriteFile(net / "snmp", Snmp(10, 1));
  TcpSnapshot s = ReadTcpSnapshot(net.string());  // no netstat: Tcp alone
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.counters.at("Tcp:OutSegs"), 10u);
  testing::FakeSysfs::WriteFile(net / "netstat", Netstat(3));
  s = ReadTcpSnapshot(net.string());
  EXPECT_EQ(s.counters.at("TcpExt:TCPTimeouts"), 3u);
}

// HCA ports: counters/ and hw_counters/, read before and after.
class HcaCountersTest : public ::testing::Test {
 protected:
  HcaCountersTest() : sysfs_("hca-counters") {
    sysfs_.AddHca("mlx5_2", {});
    sysfs_.SetPort("mlx5_2", 1, "4: ACTIVE", "5: LinkUp");
    sysfs_.SetCounter("mlx5_2", 1, "symbol_error", 10);
    sysfs_.SetCounter("mlx5_2", 1, "port_rcv_errors", 0);
    sysfs_.SetCounter("mlx5_2", 1, "port_xmit_data", 4000000000);
  }
  std::vector<PortSnapshot> Read() {
    return ReadPortSnapshots({{"mlx5_2", 1}}, sysfs_.infiniband().string());
  }
  std::filesystem::path File(const std::string& folder, const std::string& name) {
    return sysfs_.infiniband() / "mlx5_2" / "ports" / "1" / folder / name;
  }
  testing::FakeSysfs sysfs_;
};

TEST_F(HcaCountersTest, WithoutHwCountersTheCountersFolderAloneIsRead) {
  const std::vector<PortSnapshot> s = Read();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].error, "");
  EXPECT_EQ(s[0].counters.at("symbol_error"), 10u);
  EXPECT_EQ(s[0].counters.count("out_of_sequence"), 0u);  // no hw_counters/ here
  EXPECT_THAT(s[0].refused, IsEmpty());
}

TEST_F(HcaCountersTest, HwCountersRetriesAndCongestionAreRead) {
  sysfs_.SetCounter("mlx5_2", 1, "out_of_sequence", 5, /*hw=*/true);
  sysfs_.SetCounter("mlx5_2", 1, "local_ack_timeout_err", 1, /*hw=*/true);
  sysfs_.SetCounter("mlx5_2", 1, "np_cnp_sent", 100, /*hw=*/true);
  const std::vector<PortSnapshot> before = Read();
  sysfs_.SetCounter("mlx5_2", 1, "out_of_sequence", 25, /*hw=*/true);
  sysfs_.SetCounter("mlx5_2", 1, "np_cnp_sent", 900, /*hw=*/true);
  const std::vector<v1::PortEvidence> ports = DiffPorts("node3", before, Read());
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(Find(ports[0].counters(), "out_of_sequence")->delta(), 20u);
  EXPECT_EQ(Find(ports[0].counters(), "local_ack_timeout_err")->delta(), 0u);
  EXPECT_EQ(Find(ports[0].counters(), "np_cnp_sent")->delta(), 800u);
  EXPECT_FALSE(Find(ports[0].counters(), "np_cnp_sent")->error_counter());
}

TEST_F(HcaCountersTest, GarbageAndOverflowAreRefusedNamingTheFile) {
  testing::FakeSysfs::WriteFile(File("counters", "port_rcv_errors"), "12abc\n");
  testing::FakeSysfs::WriteFile(File("counters", "symbol_error"), "18446744073709551616\n");
  const std::vector<PortSnapshot> s = Read();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].counters.count("port_rcv_errors"), 0u);
  EXPECT_EQ(s[0].counters.count("symbol_error"), 0u);
  EXPECT_EQ(s[0].counters.at("port_xmit_data"), 4000000000u);  // the rest still read
  ASSERT_EQ(s[0].refused.size(), 2u);
  EXPECT_THAT(s[0].refused[0], HasSubstr(File("counters", "symbol_error").string() + ": '"));
  EXPECT_THAT(s[0].refused[1],
              HasSubstr(File("counters", "port_rcv_errors").string() + ": '12abc'"));
  // Both readings' refusals reach the evidence, the counters left out.
  const std::vector<v1::PortEvidence> ports = DiffPorts("node3", s, s);
  EXPECT_EQ(ports[0].refused_counters_size(), 4);
  EXPECT_EQ(Find(ports[0].counters(), "symbol_error"), nullptr);
}

TEST_F(HcaCountersTest, ACounterThatWentBackwardsIsAResetNotGrowth) {
  const std::vector<PortSnapshot> before = Read();
  // A driver reload zeroes the counters; a 32-bit data counter wraps.
  sysfs_.SetCounter("mlx5_2", 1, "symbol_error", 2);
  sysfs_.SetCounter("mlx5_2", 1, "port_xmit_data", 5);
  const std::vector<v1::PortEvidence> ports = DiffPorts("node3", before, Read());
  ASSERT_EQ(ports.size(), 1u);
  const v1::PortCounter* symbols = Find(ports[0].counters(), "symbol_error");
  EXPECT_TRUE(symbols->reset());
  EXPECT_EQ(symbols->delta(), 0u);
  EXPECT_TRUE(Find(ports[0].counters(), "port_xmit_data")->reset());
  EXPECT_THAT(ports[0].grown_errors(), IsEmpty());
  EXPECT_FALSE(Find(ports[0].counters(), "port_rcv_errors")->reset());
}

TEST(CounterValueTest, TheHousesParserNamesTheFile) {
  EXPECT_EQ(*ParseCounterValue("1204", "f"), 1204u);
  EXPECT_EQ(*ParseCounterValue("9223372036854775807", "f"), 9223372036854775807u);
  EXPECT_THAT(ParseCounterValue("-1", "/sys/x/symbol_error").status().message(),
              HasSubstr("/sys/x/symbol_error: '-1' is not a whole number"));
  EXPECT_FALSE(ParseCounterValue("1.5", "f").ok());
  EXPECT_FALSE(ParseCounterValue("", "f").ok());
}

}  // namespace
}  // namespace eb::agent
