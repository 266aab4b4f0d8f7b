// MetricsHttpServer on 127.0.0.1:0, scraped with cpp-httplib's client as
// Prometheus would: GET /metrics parses and carries the registry's values,
// other paths are 404, the refresh hook runs per scrape (on the owner's
// executor through RefreshOnExecutor, with a timeout when it is wedged).
// And against peers that are not scrapers (issue 32 item 7; SECURITY_FINDINGS
// P2-2.1, P2-2.2): hundreds of idle connections, peers that trickle their
// request, heads too large or malformed.

#include "common/metrics/metrics_http_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/exec/event_loop.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/prometheus_text.h"

namespace eb::common {
namespace {

using ::eb::testing::ParsePrometheusText;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr absl::Duration kSafety = absl::Seconds(5);

class MetricsHttpServerTest : public ::testing::Test {
 protected:
  MetricsHttpServerTest()
      : spawns_(registry_.AddCounter("ebnccl_agent_worker_spawns_total", "Spawns.")),
        connected_(registry_.AddGauge("ebnccl_agent_connected", "Connected.")) {}

  std::unique_ptr<MetricsHttpServer> StartServer(std::function<void()> refresh = nullptr) {
    MetricsHttpServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.refresh = std::move(refresh);
    auto server = MetricsHttpServer::Start(registry_, std::move(options));
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  static httplib::Result Get(int port, const std::string& path) {
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(absl::ToInt64Seconds(kSafety));
    client.set_read_timeout(absl::ToInt64Seconds(kSafety));
    return client.Get(path);
  }

  MetricsRegistry registry_;
  Counter& spawns_;
  Gauge& connected_;
};

TEST_F(MetricsHttpServerTest, ServesTheRegistryOnMetrics) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  EXPECT_GT(server->port(), 0);
  spawns_.Increment({}, 3);
  connected_.Set(1);

  auto response = Get(server->port(), "/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_THAT(response->get_header_value("Content-Type"), StartsWith("text/plain; version=0.0.4"));
  EXPECT_EQ(response->body, registry_.Render());
  auto parsed = ParsePrometheusText(response->body);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("ebnccl_agent_worker_spawns_total"), 3);
  EXPECT_EQ(parsed->Value("ebnccl_agent_connected"), 1);
  EXPECT_EQ(parsed->families.at("ebnccl_agent_worker_spawns_total").type, "counter");

  // A later scrape sees later values.
  spawns_.Increment();
  response = Get(server->port(), "/metrics");
  ASSERT_TRUE(response);
  parsed = ParsePrometheusText(response->body);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("ebnccl_agent_worker_spawns_total"), 4);
}

TEST_F(MetricsHttpServerTest, OtherPathsAreNotFoundAndOtherMethodsNotAllowed) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  for (const char* path : {"/", "/metric", "/metrics/extra", "/debug"}) {
    auto response = Get(server->port(), path);
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 404) << path;
  }
  httplib::Client client("127.0.0.1", server->port());
  auto posted = client.Post("/metrics", "x", "text/plain");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 405);
  EXPECT_EQ(posted->get_header_value("Allow"), "GET, HEAD");
  auto deleted = client.Delete("/metrics");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 405);
}

TEST_F(MetricsHttpServerTest, RefreshRunsBeforeEachScrape) {
  std::atomic<int> refreshes{0};
  auto server = StartServer([&] { connected_.Set(++refreshes); });
  ASSERT_NE(server, nullptr);
  for (int i = 1; i <= 3; ++i) {
    auto response = Get(server->port(), "/metrics");
    ASSERT_TRUE(response);
    auto parsed = ParsePrometheusText(response->body);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->Value("ebnccl_agent_connected"), i);
  }
}

TEST_F(MetricsHttpServerTest, RefreshOnExecutorReadsStateOnItsOwnThread) {
  EventLoop loop("metrics-test");
  int state_owned_by_loop = 0;
  loop.Post([&] { state_owned_by_loop = 7; });
  std::atomic<bool> on_loop{true};
  auto server = StartServer(RefreshOnExecutor(loop, [&] {
    if (!loop.IsCurrent()) on_loop = false;
    connected_.Set(state_owned_by_loop);
  }));
  ASSERT_NE(server, nullptr);
  auto response = Get(server->port(), "/metrics");
  ASSERT_TRUE(response);
  auto parsed = ParsePrometheusText(response->body);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("ebnccl_agent_connected"), 7);
  EXPECT_TRUE(on_loop);
  server->Stop();
  loop.Stop();
}

TEST_F(MetricsHttpServerTest, WedgedExecutorServesPreviousValuesAfterTheTimeout) {
  EventLoop loop("metrics-test");
  connected_.Set(1);
  std::atomic<int> updates{0};
  MetricsHttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.refresh = RefreshOnExecutor(
      loop,
      [&] {
        ++updates;
        connected_.Set(2);
      },
      absl::Milliseconds(100));
  auto server = MetricsHttpServer::Start(registry_, std::move(options));
  ASSERT_TRUE(server.ok()) << server.status();

  absl::Notification wedged;
  absl::Notification release;
  loop.Post([&] {
    wedged.Notify();
    release.WaitForNotification();
  });
  ASSERT_TRUE(wedged.WaitForNotificationWithTimeout(kSafety));
  auto response = Get((*server)->port(), "/metrics");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  auto parsed = ParsePrometheusText(response->body);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Value("ebnccl_agent_connected"), 1);  // stale but served
  release.Notify();
  (*server)->Stop();
  loop.Stop();  // runs the late update
  EXPECT_EQ(updates.load(), 1);
}

TEST_F(MetricsHttpServerTest, StopIsIdempotentAndFreesThePort) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  server->Stop();
  server->Stop();
  EXPECT_FALSE(Get(port, "/metrics"));
  // The same port can be bound again.
  MetricsHttpServerOptions options;
  options.listen_address = "127.0.0.1:" + std::to_string(port);
  auto again = MetricsHttpServer::Start(registry_, options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->port(), port);
}

TEST_F(MetricsHttpServerTest, PortInUseIsUnavailable) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  MetricsHttpServerOptions options;
  options.listen_address = "127.0.0.1:" + std::to_string(server->port());
  auto second = MetricsHttpServer::Start(registry_, options);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable) << second.status();
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("127.0.0.1:" + std::to_string(server->port())));
}

TEST_F(MetricsHttpServerTest, MalformedAddressIsInvalidArgument) {
  MetricsHttpServerOptions options;
  options.listen_address = "127.0.0.1:http";
  EXPECT_EQ(MetricsHttpServer::Start(registry_, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options.listen_address = "127.0.0.1:70000";
  EXPECT_EQ(MetricsHttpServer::Start(registry_, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(MetricsHttpServerTest, ServesIpv6Loopback) {
  MetricsHttpServerOptions options;
  options.listen_address = "[::1]:0";
  auto server = MetricsHttpServer::Start(registry_, options);
  if (!server.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << server.status();
  httplib::Client client("::1", (*server)->port());
  auto response = client.Get("/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
}

// A raw TCP connection to the endpoint, for peers that are not scrapers.
class RawPeer {
 public:
  explicit RawPeer(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) == 0;
  }
  ~RawPeer() { ::close(fd_); }
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;

  bool connected() const { return connected_; }
  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Everything the server sends until it closes, waiting at most `limit`;
  // nullopt when it has not closed by then.
  std::optional<std::string> ReadUntilClosed(absl::Duration limit) {
    std::string out;
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()))) <= 0) {
        continue;
      }
      char buffer[4096];
      const ssize_t got = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (got <= 0) return out;  // closed (or reset)
      out.append(buffer, static_cast<size_t>(got));
    }
    return std::nullopt;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// P2-2.1: 300 idle connections used to leave cpp-httplib's two request
// threads nothing to serve a scrape with (no answer in 60 s).
TEST_F(MetricsHttpServerTest, P2_2_1_HundredsOfIdleConnectionsDoNotStopAScrape) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  std::vector<std::unique_ptr<RawPeer>> idle;
  for (int i = 0; i < 300; ++i) {
    idle.push_back(std::make_unique<RawPeer>(server->port()));
    ASSERT_TRUE(idle.back()->connected()) << i;
  }
  const absl::Time start = absl::Now();
  auto response = Get(server->port(), "/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  // Beyond the cap (64), the oldest idle ones were closed to make room.
  EXPECT_TRUE(idle.front()->ReadUntilClosed(absl::Seconds(1)).has_value());
}

// P2-2.2: a peer that sends a header line every so often is closed at its
// deadline for the whole head (a timeout per read never ended it), and a
// scrape is answered meanwhile.
TEST_F(MetricsHttpServerTest, P2_2_2_APeerThatTricklesItsRequestIsClosedAtTheHeadDeadline) {
  MetricsHttpServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.io_timeout = absl::Milliseconds(500);
  auto server = MetricsHttpServer::Start(registry_, std::move(options));
  ASSERT_TRUE(server.ok()) << server.status();
  RawPeer slow((*server)->port());
  ASSERT_TRUE(slow.connected());
  ASSERT_TRUE(slow.Send("GET /metrics HTTP/1.1\r\n"));
  const absl::Time start = absl::Now();
  bool closed = false;
  for (int line = 0; line < 40 && !closed; ++line) {
    // A header line every 100 ms: each read is quick, the head never ends.
    closed = !slow.Send("X-Slow: 1\r\n") || slow.ReadUntilClosed(absl::Milliseconds(100));
    if (line == 1) {
      auto response = Get((*server)->port(), "/metrics");
      ASSERT_TRUE(response);
      EXPECT_EQ(response->status, 200);
    }
  }
  EXPECT_TRUE(closed);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST_F(MetricsHttpServerTest, MalformedOrOversizedRequestsGetTheirStatusAndAClose) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::pair<std::string, std::string> cases[] = {
      {"GET /metrics HTTP/1.1\r\nX: " + std::string(9000, 'x'), "HTTP/1.1 431 "},
      {"BREW /metrics HTCPCP/1.0\r\n\r\n", "HTTP/1.1 400 "},
      {"GET /metrics HTTP/2.0\r\n\r\n", "HTTP/1.1 505 "},
      {"HEAD /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\n"},
  };
  for (const auto& [request, status_line] : cases) {
    RawPeer peer(server->port());
    ASSERT_TRUE(peer.connected());
    ASSERT_TRUE(peer.Send(request));
    const std::optional<std::string> answer = peer.ReadUntilClosed(kSafety);
    ASSERT_TRUE(answer.has_value()) << request.substr(0, 30);
    EXPECT_THAT(*answer, StartsWith(status_line));
    EXPECT_THAT(*answer, HasSubstr("Connection: close\r\n"));
    if (request.rfind("HEAD", 0) == 0) {
      // The length of the body GET would get, and no body.
      EXPECT_THAT(*answer,
                  HasSubstr("Content-Length: " + std::to_string(registry_.Render().size())));
      EXPECT_TRUE(absl::EndsWith(*answer, "\r\n\r\n"));
    }
  }
}

}  // namespace
}  // namespace eb::common
