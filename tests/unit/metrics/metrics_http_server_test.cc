// MetricsHttpServer on 127.0.0.1:0, scraped with cpp-httplib's client as
// Prometheus would: GET /metrics parses and carries the registry's values,
// other paths are 404, the refresh hook runs per scrape (on the owner's
// executor through RefreshOnExecutor, with a timeout when it is wedged).

#include "common/metrics/metrics_http_server.h"

#include <atomic>
#include <memory>
#include <string>

#include <httplib.h>

#include "absl/synchronization/notification.h"
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

}  // namespace
}  // namespace eb::common
