// The agent's NCCL RAS query (agent/host/nccl_ras_client.h) over a real
// loopback socket. The server here is ours, not NCCL's: it stands in for
// NCCL's RAS thread in CI (which has no GPU), and answers as NCCL 2.28.3's
// src/ras/client_support.cc does: "SERVER PROTOCOL 2" to the handshake,
// "OK" to TIMEOUT, "ERROR: Unknown command ..." to what 2.28.3 does not know
// (SET FORMAT), and to VERBOSE STATUS the report, then it closes. The real
// RAS is checked on the GPU machine (tests/gpu/device_run.sh, phase ras).

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

enum class Mode { kNccl2283, kSilent, kFlood };

// One-connection server on 127.0.0.1:<ephemeral port>.
class FakeRasServer {
 public:
  explicit FakeRasServer(Mode mode) : mode_(mode) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    socklen_t length = sizeof(address);
    EXPECT_EQ(getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = ntohs(address.sin_port);
    EXPECT_EQ(listen(listen_fd_, 4), 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeRasServer() {
    done_.Notify();
    thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }

 private:
  void Serve() {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    std::string buffer;
    bool status = false;
    while (!status) {
      char chunk[256];
      pollfd c{fd, POLLIN, 0};
      if (poll(&c, 1, 5000) <= 0) break;
      const ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      buffer.append(chunk, static_cast<size_t>(n));
      size_t end;
      // Every complete line is handled, as client_support.cc does.
      while (!status && (end = buffer.find('\n')) != std::string::npos) {
        const std::string command = buffer.substr(0, end);
        buffer.erase(0, end + 1);
        if (mode_ == Mode::kSilent) continue;
        if (absl::StartsWithIgnoreCase(command, "client protocol ")) {
          Send(fd, "SERVER PROTOCOL 2\n");
        } else if (absl::StartsWithIgnoreCase(command, "timeout ")) {
          Send(fd, "OK\n");
        } else if (absl::EqualsIgnoreCase(command, "verbose status")) {
          status = true;
        } else {
          Send(fd, "ERROR: Unknown command " + command + "\n");
        }
      }
    }
    if (status && mode_ == Mode::kNccl2283) Send(fd, kStatus);
    if (status && mode_ == Mode::kFlood) {
      // Far more than the client reads: it must stop at its limit.
      const std::string line(1023, 'x');
      for (int i = 0; i < 1024 && !done_.HasBeenNotified(); ++i) {
        if (!Send(fd, line + "\n")) break;
      }
    }
    if (mode_ == Mode::kSilent) done_.WaitForNotification();
    close(fd);
  }

  static bool Send(int fd, const std::string& text) {
    return send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }

  const Mode mode_;
  int listen_fd_ = -1;
  int port_ = 0;
  absl::Notification done_;
  std::thread thread_;
};

TEST(NcclRasClientTest, TheStatusOfAnNccl2283RasIsReadWhole) {
  FakeRasServer server(Mode::kNccl2283);
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
  FakeRasServer server(Mode::kSilent);
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
  FakeRasServer server(Mode::kFlood);
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
