// SystemdNotifier against the NOTIFY_SOCKET harness: what a Type=notify unit's
// service manager receives (READY=1 with STATUS, STOPPING=1, WATCHDOG=1, from
// this very pid as NotifyAccess=main requires), and that nothing happens
// outside systemd.

#include "common/systemd/systemd_notifier.h"

#include <stdlib.h>
#include <unistd.h>

#include <memory>

#include "common/spec/terminal_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/notify_socket_harness.h"

namespace eb::common {
namespace {

using ::eb::testing::NotifyMessage;
using ::eb::testing::NotifySocketHarness;
using ::testing::HasSubstr;

// Bounds only a failing wait; a passing test gets its datagram at once.
constexpr absl::Duration kTimeout = absl::Seconds(5);

class SystemdNotifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto harness = NotifySocketHarness::Create();
    ASSERT_TRUE(harness.ok()) << harness.status();
    harness_ = *std::move(harness);
    setenv("NOTIFY_SOCKET", harness_->path().c_str(), 1);
  }
  void TearDown() override { unsetenv("NOTIFY_SOCKET"); }

  NotifyMessage Next() {
    auto message = harness_->Receive(kTimeout);
    EXPECT_TRUE(message.ok()) << message.status();
    return message.ok() ? *message : NotifyMessage{};
  }

  std::unique_ptr<NotifySocketHarness> harness_;
};

TEST_F(SystemdNotifierTest, ReadyCarriesStatusAndComesFromThisProcess) {
  SystemdNotifier notifier;
  EXPECT_TRUE(notifier.enabled());
  ASSERT_TRUE(notifier.NotifyReady("serving on 0.0.0.0:29470").ok());
  const NotifyMessage ready = Next();
  EXPECT_EQ(ready.text, "READY=1\nSTATUS=serving on 0.0.0.0:29470");
  EXPECT_EQ(ready.pid, getpid());
  EXPECT_TRUE(notifier.ready_sent());
}

TEST_F(SystemdNotifierTest, ReadyIsSentOnceLaterCallsOnlyUpdateStatus) {
  SystemdNotifier notifier;
  ASSERT_TRUE(notifier.NotifyReady("registered with node0:29470").ok());
  EXPECT_TRUE(Next().Has("READY=1"));
  // The agent registers again after every reconnect.
  ASSERT_TRUE(notifier.NotifyReady("registered again").ok());
  const NotifyMessage again = Next();
  EXPECT_FALSE(again.Has("READY=1"));
  EXPECT_EQ(again.text, "STATUS=registered again");
}

TEST_F(SystemdNotifierTest, StatusStoppingAndWatchdog) {
  SystemdNotifier notifier;
  ASSERT_TRUE(notifier.NotifyStatus("reconnecting to node0:29470").ok());
  EXPECT_EQ(Next().text, "STATUS=reconnecting to node0:29470");
  ASSERT_TRUE(notifier.NotifyStopping("stopping 2 workers").ok());
  const NotifyMessage stopping = Next();
  EXPECT_TRUE(stopping.Has("STOPPING=1"));
  EXPECT_EQ(stopping.Value("STATUS"), "stopping 2 workers");
  ASSERT_TRUE(notifier.NotifyWatchdog().ok());
  EXPECT_EQ(Next().text, "WATCHDOG=1");
}

TEST_F(SystemdNotifierTest, StatusIsKeptOnOneLine) {
  // A newline would start a new assignment, e.g. a forged READY=1.
  SystemdNotifier notifier;
  ASSERT_TRUE(notifier.NotifyStatus("bad peer\nREADY=1").ok());
  const NotifyMessage message = Next();
  EXPECT_EQ(message.text, "STATUS=bad peer READY=1");
  EXPECT_FALSE(message.Has("READY=1"));
}

TEST_F(SystemdNotifierTest, UnreachableSocketIsUnavailable) {
  SystemdNotifier notifier;
  const std::string path = harness_->path();
  harness_.reset();  // removes the socket
  setenv("NOTIFY_SOCKET", path.c_str(), 1);
  const absl::Status status = notifier.NotifyStatus("anyone there?");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
}

TEST(SystemdNotifierOutsideSystemdTest, EverythingIsANoOp) {
  unsetenv("NOTIFY_SOCKET");
  SystemdNotifier notifier;
  EXPECT_FALSE(notifier.enabled());
  EXPECT_TRUE(notifier.NotifyReady("serving").ok());
  EXPECT_TRUE(notifier.NotifyStatus("still serving").ok());
  EXPECT_TRUE(notifier.NotifyWatchdog().ok());
  EXPECT_TRUE(notifier.NotifyStopping("bye").ok());
}

// STATUS= goes through the one sanitizer's one-line form (terminal_text.h).
TEST(SanitizeStatusTest, ReplacesLineBreaks) {
  EXPECT_EQ(spec::OneLine("a\nb\r\nc", 1024), "a b c");
  EXPECT_EQ(spec::OneLine("plain", 1024), "plain");
}

}  // namespace
}  // namespace eb::common
