// What the agent sends to NCCL's RAS and what it keeps of the reply
// (agent/core/nccl_ras.h). The replies are in the form NCCL 2.28's
// src/ras/client_support.cc writes them.

#include "agent/core/nccl_ras.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kStatus[] =
    "Job summary\n"
    "===========\n"
    "\n"
    "  Nodes  Processes         GPUs  Processes     GPUs\n"
    "(total)   per node  per process    (total)  (total)\n"
    "      1          2            1          2        2\n"
    "\n"
    "Errors\n"
    "======\n"
    "\n"
    "INCOMPLETE\n"
    "  Missing communicator data from 1 job process\n"
    "  Process 4242 on node 127.0.0.1 managing GPU 0\n";

NcclRasExchange Closed(const std::string& received) {
  NcclRasExchange exchange;
  exchange.received = received;
  exchange.closed = true;
  return exchange;
}

TEST(NcclRasTest, RequestIsTheHandshakeTheTimeoutAndVerboseStatus) {
  NcclRasLimits limits;
  limits.collective_timeout_s = 2;
  EXPECT_EQ(NcclRasRequest(limits), "CLIENT PROTOCOL 2\nTIMEOUT 2\nVERBOSE STATUS\n");
}

TEST(NcclRasTest, AWholeReplyIsKeptWithoutTheHandshake) {
  const ebnccl::v1::NcclRasStatus status = SummarizeNcclRas(
      "a800-0", 28100, Closed(std::string("SERVER PROTOCOL 2\nOK\n") + kStatus), NcclRasLimits{});
  EXPECT_EQ(status.node_name(), "a800-0");
  EXPECT_EQ(status.port(), 28100);
  EXPECT_EQ(status.text(), kStatus);
  EXPECT_FALSE(status.truncated());
  EXPECT_EQ(status.error(), "");
}

TEST(NcclRasTest, ARefusedTimeoutIsNotedAndTheStatusKept) {
  const ebnccl::v1::NcclRasStatus status = SummarizeNcclRas(
      "n", 1, Closed(std::string("SERVER PROTOCOL 2\nERROR: Invalid timeout value x\n") + kStatus),
      NcclRasLimits{});
  EXPECT_EQ(status.text(), kStatus);
  EXPECT_THAT(status.error(), HasSubstr("RAS refused TIMEOUT 1"));
}

TEST(NcclRasTest, ALongReplyKeepsItsHeadCutAtALineAndSaysSo) {
  std::string long_status;
  for (int i = 0; i < 100; ++i) long_status += "  Rank " + std::to_string(i) + " -- GPU 0\n";
  NcclRasLimits limits;
  limits.max_text_bytes = 100;
  const ebnccl::v1::NcclRasStatus status =
      SummarizeNcclRas("n", 1, Closed("SERVER PROTOCOL 2\nOK\n" + long_status), limits);
  EXPECT_TRUE(status.truncated());
  EXPECT_THAT(status.text(), StartsWith("  Rank 0 -- GPU 0\n  Rank 1 -- GPU 0\n"));
  EXPECT_THAT(status.text(), EndsWith(" GPU 0\n[... RAS status cut after 90 bytes (the rest was "
                                      "dropped)]\n"));
  EXPECT_LE(status.text().size(), limits.max_text_bytes + 80);

  // The reader stopped at its limit: said too.
  NcclRasExchange cut = Closed("SERVER PROTOCOL 2\nOK\nline one\nline tw");
  cut.closed = false;
  cut.cut = true;
  const ebnccl::v1::NcclRasStatus read_cut = SummarizeNcclRas("n", 1, cut, NcclRasLimits{});
  EXPECT_EQ(read_cut.text(),
            "line one\n[... RAS status cut after 9 bytes (more was sent and not read)]\n");
  EXPECT_TRUE(read_cut.truncated());
  EXPECT_EQ(read_cut.error(), "");
}

TEST(NcclRasTest, NothingThereIsOneLine) {
  NcclRasExchange refused;
  refused.connect_error = "Connection refused";
  EXPECT_EQ(SummarizeNcclRas("n", 28101, refused, NcclRasLimits{}).error(),
            "RAS not reachable on port 28101: Connection refused");

  NcclRasExchange silent;
  silent.timed_out = true;
  EXPECT_EQ(SummarizeNcclRas("n", 28101, silent, NcclRasLimits{}).error(),
            "RAS accepted the connection but did not answer within 3s");
}

TEST(NcclRasTest, AnotherServiceOnThePortIsNamedNotKept) {
  const ebnccl::v1::NcclRasStatus status =
      SummarizeNcclRas("n", 28100, Closed("HTTP/1.1 400 Bad Request\r\n\r\n"), NcclRasLimits{});
  EXPECT_EQ(status.text(), "");
  EXPECT_EQ(status.error(),
            "not an NCCL RAS reply on port 28100 (first line: 'HTTP/1.1 400 Bad Request')");
}

TEST(NcclRasTest, AReplyWithoutItsEndKeepsWhatCameAndSaysItIsIncomplete) {
  NcclRasExchange partial;
  partial.received = "SERVER PROTOCOL 2\nOK\nJob summary\n";
  partial.timed_out = true;
  const ebnccl::v1::NcclRasStatus status = SummarizeNcclRas("n", 1, partial, NcclRasLimits{});
  EXPECT_EQ(status.text(), "Job summary\n");
  EXPECT_EQ(status.error(), "RAS reply incomplete: no end within 3s");
}

TEST(NcclRasTest, PortsArePickedFromTheRangeAndNeverShared) {
  EXPECT_EQ(PickNcclRasPort(28100, 4, {}), 28100);
  EXPECT_EQ(PickNcclRasPort(28100, 4, {28100, 28102}), 28101);
  EXPECT_EQ(PickNcclRasPort(28100, 2, {28100, 28101}), 0);
  EXPECT_EQ(PickNcclRasPort(0, 4, {}), 0);
  EXPECT_EQ(PickNcclRasPort(65535, 4, {65535}), 0);
  EXPECT_EQ(NcclRasAddress(28100), "127.0.0.1:28100");
}

}  // namespace
}  // namespace eb::agent
