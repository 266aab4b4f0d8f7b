// The notification protocol spoken without libsystemd: the addresses
// systemd may name (a path, an abstract name), the ones it may not, and the
// watchdog variables as sd_watchdog_enabled(3) reads them.

#include "common/systemd/notify_protocol.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/notify_socket_harness.h"

namespace eb::common {
namespace {

using ::testing::HasSubstr;

TEST(SendNotificationTest, APathGetsTheStateAsOneDatagram) {
  auto harness = testing::NotifySocketHarness::Create();
  ASSERT_TRUE(harness.ok()) << harness.status();
  ASSERT_TRUE(SendNotification((*harness)->path(), "READY=1\nSTATUS=up").ok());
  auto message = (*harness)->Receive(absl::Seconds(5));
  ASSERT_TRUE(message.ok()) << message.status();
  EXPECT_TRUE(message->Has("READY=1"));
  EXPECT_TRUE(message->Has("STATUS=up"));
  EXPECT_EQ(message->pid, getpid());
}

TEST(SendNotificationTest, AnAbstractNameIsReached) {
  const std::string name = "eb-notify-test-" + std::to_string(getpid());
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  name.copy(address.sun_path + 1, name.size());  // sun_path[0] == 0: abstract
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address),
                 static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size())),
            0);
  ASSERT_TRUE(SendNotification("@" + name, "WATCHDOG=1").ok());
  char buffer[64] = {};
  const ssize_t got = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
  close(fd);
  EXPECT_EQ(std::string(buffer, got > 0 ? static_cast<size_t>(got) : 0), "WATCHDOG=1");
}

TEST(SendNotificationTest, AddressesOfAnotherKindAreRefusedByName) {
  for (const std::string address : {"", "relative/notify", "vsock:2:1234"}) {
    const absl::Status sent = SendNotification(address, "READY=1");
    EXPECT_EQ(sent.code(), absl::StatusCode::kInvalidArgument) << address;
    EXPECT_THAT(std::string(sent.message()), HasSubstr("NOTIFY_SOCKET '" + address + "'"));
  }
  const std::string too_long = "/" + std::string(200, 'x');
  EXPECT_EQ(SendNotification(too_long, "READY=1").code(), absl::StatusCode::kInvalidArgument);
}

TEST(SendNotificationTest, NobodyListeningIsUnavailableNamingTheAddress) {
  const absl::Status sent = SendNotification("/nonexistent/eb/notify", "READY=1");
  EXPECT_EQ(sent.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(sent.message()), HasSubstr("/nonexistent/eb/notify"));
}

TEST(ParseWatchdogTimeoutTest, ReadsTheVariablesAsSystemdSetsThem) {
  EXPECT_EQ(*ParseWatchdogTimeout(nullptr, nullptr, 42), absl::ZeroDuration());
  EXPECT_EQ(*ParseWatchdogTimeout("30000000", nullptr, 42), absl::Seconds(30));
  EXPECT_EQ(*ParseWatchdogTimeout("30000000", "42", 42), absl::Seconds(30));
  // Asked of another process (a child that inherited the variables).
  EXPECT_EQ(*ParseWatchdogTimeout("30000000", "43", 42), absl::ZeroDuration());
}

TEST(ParseWatchdogTimeoutTest, MalformedValuesAreInvalidArguments) {
  for (const char* usec : {"", "soon", "0", "-5", "18446744073709551615", "1e6"}) {
    const auto parsed = ParseWatchdogTimeout(usec, nullptr, 42);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << usec;
  }
  EXPECT_THAT(std::string(ParseWatchdogTimeout("soon", nullptr, 42).status().message()),
              HasSubstr("WATCHDOG_USEC 'soon'"));
  for (const char* pid : {"", "me", "0", "-1"}) {
    const auto parsed = ParseWatchdogTimeout("1000", pid, 42);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << pid;
  }
}

}  // namespace
}  // namespace eb::common
