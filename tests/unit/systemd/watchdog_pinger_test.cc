// WatchdogPinger: WATCHDOG=1 goes out only while the executor answers probes
// (and the health check agrees), so systemd restarts a daemon whose event
// loop is wedged. The rounds' logic is driven deterministically with a
// ManualExecutor; the thread is checked once against a real EventLoop and the
// NOTIFY_SOCKET harness with a 200 ms watchdog (WATCHDOG_USEC=200000).

#include "common/systemd/watchdog_pinger.h"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/exec/event_loop.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/testutil/notify_socket_harness.h"

namespace eb::common {
namespace {

using ::eb::testing::FakeClock;
using ::eb::testing::ManualExecutor;
using ::eb::testing::NotifySocketHarness;
using ::testing::Ge;

constexpr absl::Duration kWatchdog = absl::Milliseconds(200);
// Bounds only a failing wait.
constexpr absl::Duration kSafety = absl::Seconds(5);

class WatchdogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto harness = NotifySocketHarness::Create();
    ASSERT_TRUE(harness.ok()) << harness.status();
    harness_ = *std::move(harness);
    setenv("NOTIFY_SOCKET", harness_->path().c_str(), 1);
  }
  void TearDown() override {
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
  }

  // Pings that reached the harness so far (without waiting).
  int Pings() {
    int pings = 0;
    while (true) {
      auto message = harness_->Receive(absl::ZeroDuration());
      if (!message.ok()) return pings;
      if (message->Has("WATCHDOG=1")) ++pings;
    }
  }

  std::unique_ptr<NotifySocketHarness> harness_;
  SystemdNotifier notifier_;
};

TEST_F(WatchdogTest, TimeoutComesFromWatchdogUsec) {
  unsetenv("WATCHDOG_USEC");
  auto none = SystemdWatchdogTimeout();
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, absl::ZeroDuration());

  setenv("WATCHDOG_USEC", "200000", 1);
  auto timeout = SystemdWatchdogTimeout();
  ASSERT_TRUE(timeout.ok()) << timeout.status();
  EXPECT_EQ(*timeout, kWatchdog);

  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  timeout = SystemdWatchdogTimeout();
  ASSERT_TRUE(timeout.ok()) << timeout.status();
  EXPECT_EQ(*timeout, kWatchdog);
}

TEST_F(WatchdogTest, TimeoutMeantForAnotherProcessIsIgnored) {
  setenv("WATCHDOG_USEC", "200000", 1);
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);
  auto timeout = SystemdWatchdogTimeout();
  ASSERT_TRUE(timeout.ok()) << timeout.status();
  EXPECT_EQ(*timeout, absl::ZeroDuration());
}

TEST_F(WatchdogTest, MalformedTimeoutIsInvalidArgument) {
  setenv("WATCHDOG_USEC", "soon", 1);
  EXPECT_EQ(SystemdWatchdogTimeout().status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(WatchdogTest, PingsOnlyAfterTheExecutorRanTheProbe) {
  FakeClock clock;
  ManualExecutor executor(clock);
  WatchdogPinger pinger(notifier_, executor, kWatchdog, nullptr, clock);
  EXPECT_EQ(pinger.period(), absl::Milliseconds(100));

  EXPECT_FALSE(pinger.Tick());  // nothing has answered yet; posts a probe
  EXPECT_EQ(Pings(), 0);
  EXPECT_EQ(executor.RunUntilIdle(), 1);
  EXPECT_TRUE(pinger.Tick());
  EXPECT_EQ(harness_->WaitFor("WATCHDOG=1", kSafety).status(), absl::OkStatus());
  EXPECT_EQ(pinger.pings_sent(), 1);
}

TEST_F(WatchdogTest, WedgedExecutorGetsNoPingsAndNoPileOfProbes) {
  FakeClock clock;
  ManualExecutor executor(clock);
  WatchdogPinger pinger(notifier_, executor, kWatchdog, nullptr, clock);
  pinger.Tick();
  executor.RunUntilIdle();
  EXPECT_TRUE(pinger.Tick());
  EXPECT_EQ(Pings(), 1);

  // The executor stops running callbacks: no round may ping.
  for (int round = 0; round < 5; ++round) {
    clock.Advance(pinger.period());
    EXPECT_FALSE(pinger.Tick()) << "round " << round;
  }
  EXPECT_EQ(Pings(), 0);
  // Only one probe was outstanding the whole time: a recovering executor
  // answers once, not once per missed round.
  EXPECT_EQ(executor.RunUntilIdle(), 1);
  EXPECT_TRUE(pinger.Tick());
  EXPECT_EQ(Pings(), 1);
}

TEST_F(WatchdogTest, FailingHealthCheckWithholdsPings) {
  FakeClock clock;
  ManualExecutor executor(clock);
  bool healthy = false;
  int checks = 0;
  WatchdogPinger pinger(
      notifier_, executor, kWatchdog,
      [&] {
        ++checks;
        return healthy;
      },
      clock);

  pinger.Tick();
  executor.RunUntilIdle();
  EXPECT_FALSE(pinger.Tick());  // the probe ran, but the daemon is unhealthy
  EXPECT_EQ(checks, 1);
  healthy = true;
  executor.RunUntilIdle();
  EXPECT_TRUE(pinger.Tick());
  EXPECT_EQ(checks, 2);
  EXPECT_EQ(Pings(), 1);
}

TEST_F(WatchdogTest, ProbesQueuedBeforeStopDoNotRunTheHealthCheck) {
  FakeClock clock;
  ManualExecutor executor(clock);
  int checks = 0;
  auto pinger = std::make_unique<WatchdogPinger>(
      notifier_, executor, kWatchdog,
      [&] {
        ++checks;
        return true;
      },
      clock);
  pinger->Tick();  // a probe is queued
  pinger->Stop();
  EXPECT_FALSE(pinger->Tick());
  pinger.reset();
  // The probe outlives the pinger and must not call into the daemon.
  EXPECT_EQ(executor.RunUntilIdle(), 1);
  EXPECT_EQ(checks, 0);
  EXPECT_EQ(Pings(), 0);
}

TEST_F(WatchdogTest, DisabledWithoutATimeout) {
  FakeClock clock;
  ManualExecutor executor(clock);
  WatchdogPinger pinger(notifier_, executor, absl::ZeroDuration(), nullptr, clock);
  EXPECT_FALSE(pinger.enabled());
  pinger.Start();  // starts nothing
  pinger.Stop();
  EXPECT_EQ(executor.RunUntilIdle(), 0);
}

// The real thread: pings about every 100 ms while the loop answers; none
// once a callback blocks the loop; again once it is released.
TEST_F(WatchdogTest, ThreadPingsWhileTheLoopAnswersAndStopsWhileItIsWedged) {
  setenv("WATCHDOG_USEC", "200000", 1);
  auto timeout = SystemdWatchdogTimeout();
  ASSERT_TRUE(timeout.ok()) << timeout.status();
  EventLoop loop("wd-test-loop");
  std::atomic<bool> checked_on_loop{true};
  WatchdogPinger pinger(notifier_, loop, *timeout, [&] {
    if (!loop.IsCurrent()) checked_on_loop = false;
    return true;
  });
  pinger.Start();

  // ~10 rounds in a second; a loaded CI machine may manage fewer.
  EXPECT_THAT(harness_->CountWithin("WATCHDOG=1", absl::Seconds(1)), Ge(4));
  EXPECT_TRUE(checked_on_loop);

  absl::Notification wedged;
  absl::Notification release;
  loop.Post([&] {
    wedged.Notify();
    release.WaitForNotification();
  });
  ASSERT_TRUE(wedged.WaitForNotificationWithTimeout(kSafety));
  // A probe answered just before the wedge may still yield one ping in the
  // next round; after that, silence: systemd would kill us 200 ms later.
  EXPECT_LE(harness_->CountWithin("WATCHDOG=1", absl::Milliseconds(250)), 1);
  EXPECT_EQ(harness_->CountWithin("WATCHDOG=1", absl::Milliseconds(600)), 0);

  release.Notify();
  EXPECT_EQ(harness_->WaitFor("WATCHDOG=1", kSafety).status(), absl::OkStatus());

  pinger.Stop();
  harness_->Drain();
  EXPECT_EQ(harness_->CountWithin("WATCHDOG=1", absl::Milliseconds(300)), 0);
  loop.Stop();
}

TEST_F(WatchdogTest, StopDoesNotWaitForAWedgedLoop) {
  EventLoop loop("wd-test-loop");
  WatchdogPinger pinger(notifier_, loop, kWatchdog);
  pinger.Start();
  absl::Notification wedged;
  absl::Notification release;
  loop.Post([&] {
    wedged.Notify();
    release.WaitForNotification();
  });
  ASSERT_TRUE(wedged.WaitForNotificationWithTimeout(kSafety));
  const absl::Time start = absl::Now();
  pinger.Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  release.Notify();
  loop.Stop();
}

}  // namespace
}  // namespace eb::common
