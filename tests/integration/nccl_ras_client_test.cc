// The agent's NCCL RAS query (agent/host/nccl_ras_client.h) over a real
// loopback socket, against tests/testutil/fake_nccl_ras_server.h: ours, not
// NCCL's, standing in for NCCL's RAS thread in CI (which has no GPU). The
// real RAS is checked on the GPU machine (tests/gpu/device_run.sh, phase ras).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "agent/core/nccl_ras.h"
#include "agent/host/nccl_ras_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/fake_nccl_ras_server.h"

namespace eb::agent {
namespace {

using ::testing::HasSubstr;

constexpr char kStatus[] =
    "Job summary\n"
    "===========\n"
    "\n"
    "  Nodes  Processes         GPUs  Processes     GPUs\n"
    "(total)   per node  per process    (total)  (total)\n"
    "      1          2            1          2        2\n"
    "\n"
    "Communicators... (1.00s)\n"
    "=============\n"
    "\n"
    "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
    "    #  in group  per comm  per node  per comm  in group\n"
    "    0         1         1         1         2         1   RUNNING  INCOMPLETE\n"
    "\n"
    "Errors\n"
    "======\n"
    "\n"
    "INCOMPLETE\n"
    "  Missing communicator data from 1 job process\n"
    "  Process 4242 on node 127.0.0.1 managing GPU 0\n";

using ::eb::testing::FakeNcclRasServer;
using Mode = FakeNcclRasServer::Mode;

TEST(NcclRasClientTest, TheStatusOfAnNccl2283RasIsReadWhole) {
  FakeNcclRasServer server(Mode::kNccl2283, kStatus);
  NcclRasClient client;
  absl::Notification answered;
  NcclRasExchange exchange;
  client.Query(server.port(), [&](NcclRasExchange got) {
    exchange = std::move(got);
    answered.Notify();
  });
  ASSERT_TRUE(answered.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(exchange.closed);
  EXPECT_FALSE(exchange.timed_out);
  const ebnccl::v1::NcclRasStatus status =
      SummarizeNcclRas("a800-0", server.port(), exchange, NcclRasLimits{});
  EXPECT_EQ(status.text(), kStatus);
  EXPECT_EQ(status.error(), "");
  EXPECT_FALSE(status.truncated());
}

TEST(NcclRasClientTest, ARasThatNeverAnswersCostsTheDeadlineOnly) {
  FakeNcclRasServer server(Mode::kSilent, "");
  NcclRasLimits limits;
  limits.deadline = absl::Milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const NcclRasExchange exchange = ExchangeWithNcclRas(server.port(), limits);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(exchange.timed_out);
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_EQ(SummarizeNcclRas("n", server.port(), exchange, limits).error(),
            "RAS accepted the connection but did not answer within 300ms");
}

TEST(NcclRasClientTest, AFloodIsCutAtTheLimit) {
  FakeNcclRasServer server(Mode::kFlood, "");
  NcclRasLimits limits;
  limits.max_text_bytes = 16 * 1024;
  const NcclRasExchange exchange = ExchangeWithNcclRas(server.port(), limits);
  EXPECT_TRUE(exchange.cut);
  EXPECT_LE(exchange.received.size(), limits.max_text_bytes + kNcclRasReadSlack);
  const ebnccl::v1::NcclRasStatus status = SummarizeNcclRas("n", 1, exchange, limits);
  EXPECT_TRUE(status.truncated());
  EXPECT_LE(status.text().size(), limits.max_text_bytes + 100);
  EXPECT_THAT(status.text(), HasSubstr("(more was sent and not read)]\n"));
}

TEST(NcclRasClientTest, NothingListeningIsNotReachable) {
  // A port that was just free: bind, read it, close.
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  close(fd);
  const NcclRasExchange exchange = ExchangeWithNcclRas(port, NcclRasLimits{});
  EXPECT_EQ(exchange.connect_error, "Connection refused");
  EXPECT_THAT(SummarizeNcclRas("n", port, exchange, NcclRasLimits{}).error(),
              HasSubstr("RAS not reachable on port"));
}

}  // namespace
}  // namespace eb::agent
