// NCCL's own words in a worker's log (issue 12): the last warnings, bounded,
// and the NICs its channels used. The sample lines are NCCL's formats as
// published in NVIDIA/nccl issues (#707, #1412) and logs of 2.5 to 2.28.

#include "agent/core/nccl_log.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kFailingLog[] =
    "[2026-12-01 10:00:00.000 I 4242 4242] worker rank=1 starting\n"
    "gpu01:351578:352168 [0] NCCL INFO NET/IB : Using [0]mlx5_100:1/IB [1]mlx5_101:1/IB [RO]; "
    "OOB eth0:10.0.0.1<0>\n"
    "gpu01:351578:352170 [0] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from "
    "peer 10.0.0.2<43456> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
    "::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_100\n"
    "gpu01:351578:352170 [0] NCCL INFO transport/net.cc:1298 -> 6\n"
    "gpu01:351578:352168 [0] proxy.cc:1525 NCCL WARN [Proxy Service 0] Failed to execute "
    "operation Connect from rank 1, retcode 6\n"
    "[2026-12-01 10:00:05.000 E 4242 4242] worker rank=1: collective failed\n";

TEST(NcclWarningsTest, KeepsOnlyNcclWarnLinesInOrder) {
  const NcclWarnings warnings = ExtractNcclWarnings(kFailingLog, NcclWarningLimits{});
  ASSERT_EQ(warnings.lines.size(), 2u);
  EXPECT_THAT(warnings.lines[0], ::testing::HasSubstr("Got completion from peer"));
  EXPECT_THAT(warnings.lines[1], ::testing::HasSubstr("[Proxy Service 0]"));
  EXPECT_FALSE(warnings.truncated);
}

TEST(NcclWarningsTest, KeepsTheLastLinesWithinTheLineAndByteBounds) {
  std::string log;
  for (int i = 0; i < 50; ++i) {
    absl::StrAppend(&log, "h:1:2 [0] init.cc:", i, " NCCL WARN warning number ", i, "\n");
  }
  NcclWarnings warnings = ExtractNcclWarnings(log, NcclWarningLimits{});
  ASSERT_EQ(warnings.lines.size(), 20u);
  EXPECT_THAT(warnings.lines.front(), ::testing::HasSubstr("warning number 30"));
  EXPECT_THAT(warnings.lines.back(), ::testing::HasSubstr("warning number 49"));
  EXPECT_TRUE(warnings.truncated);

  NcclWarningLimits small;
  small.max_bytes = 100;
  small.max_line_bytes = 30;
  warnings = ExtractNcclWarnings(log, small);
  size_t bytes = 0;
  for (const std::string& line : warnings.lines) {
    bytes += line.size();
    EXPECT_LE(line.size(), 33u);  // 30 and "..."
  }
  EXPECT_LE(bytes, 100u);
  EXPECT_FALSE(warnings.lines.empty());
  EXPECT_TRUE(warnings.truncated);
}

TEST(NcclWarningsTest, SkipsAPartialFirstLineAndFindsNothingInACleanLog) {
  // A tail that starts in the middle of a warning line.
  EXPECT_THAT(ExtractNcclWarnings("x NCCL WARN cut in two\nok\n", {}, true).lines, IsEmpty());
  EXPECT_THAT(ExtractNcclWarnings("worker finished\n", {}).lines, IsEmpty());
}

TEST(NicUseTest, ChannelsNameTheNicsByTheirIndexInTheUsingList) {
  // 2.19+ channel lines ("Channel 00/0") and GDRDMA suffixes.
  const std::string log = absl::StrCat(
      kFailingLog,
      "gpu01:351578:352168 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/1/GDRDMA\n"
      "gpu01:351578:352168 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/IB/1\n");
  EXPECT_THAT(ParseNicUse(log), ElementsAre("mlx5_101"));
  // Older lines ("Channel 01 :") and several NICs.
  EXPECT_THAT(
      ParseNicUse("h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB "
                  "eth0:1.2.3.4<0>\n"
                  "h:1:2 [0] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [receive] via "
                  "NET/IB/0/GDRDMA\n"
                  "h:1:2 [0] NCCL INFO Channel 02 : 0[87000] -> 1[8d000] [send] via NET/IB/1\n"
                  "h:1:2 [0] NCCL INFO Channel 03 : 0[87000] -> 1[8d000] [send] via NET/IB/4\n"),
      ElementsAre("NET/IB/4", "mlx5_0", "mlx5_1"));
}

TEST(NicUseTest, NothingWithoutInfoLinesOrNetworkChannels) {
  EXPECT_THAT(ParseNicUse("h:1:2 [0] NCCL WARN something\n"), IsEmpty());
  // NVLink/P2P channels only (one node).
  EXPECT_THAT(ParseNicUse("h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB lo\n"
                          "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"),
              IsEmpty());
}

}  // namespace
}  // namespace eb::agent
