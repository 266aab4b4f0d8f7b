// The real single-thread EventLoop. With RealClock the waits are real but
// short (each test finishes in well under 100 ms when it passes); the
// generous notification timeouts only bound a failing test. Ordering of
// timers is checked with a FakeClock, which the loop also accepts.

#include "common/exec/event_loop.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace eb::common {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Only reached when a test fails.
constexpr absl::Duration kSafety = absl::Seconds(5);

// A thread-safe log of what ran.
class Log {
 public:
  void Add(std::string entry) {
    absl::MutexLock lock(&mu_);
    entries_.push_back(std::move(entry));
  }
  std::vector<std::string> entries() const {
    absl::MutexLock lock(&mu_);
    return entries_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> entries_ ABSL_GUARDED_BY(mu_);
};

TEST(EventLoopTest, PostRunsInOrderOnOneThreadThatIsNotTheCaller) {
  EventLoop loop("eb-test-post");
  Log log;
  std::vector<std::thread::id> threads(50);
  std::atomic<bool> current_inside{true};
  for (int i = 0; i < 50; ++i) {
    loop.Post([&, i] {
      threads[static_cast<size_t>(i)] = std::this_thread::get_id();
      if (!loop.IsCurrent()) current_inside = false;
      log.Add(std::to_string(i));
    });
  }
  absl::Notification done;
  loop.Post([&] { done.Notify(); });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kSafety));

  std::vector<std::string> expected;
  expected.reserve(50);
  for (int i = 0; i < 50; ++i) expected.push_back(std::to_string(i));
  EXPECT_EQ(log.entries(), expected);
  for (const std::thread::id& id : threads) {
    EXPECT_EQ(id, threads[0]);
    EXPECT_NE(id, std::this_thread::get_id());
  }
  EXPECT_TRUE(current_inside);
  EXPECT_FALSE(loop.IsCurrent());
}

TEST(EventLoopTest, PostFromManyThreadsKeepsEachThreadsOrder) {
  EventLoop loop("eb-test-mt");
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100;
  std::vector<std::vector<int>> seen(kThreads);  // Touched only on the loop.
  std::vector<std::thread> posters;
  posters.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    posters.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        loop.Post([&, t, i] { seen[static_cast<size_t>(t)].push_back(i); });
      }
    });
  }
  for (std::thread& poster : posters) poster.join();
  absl::Notification done;
  loop.Post([&] { done.Notify(); });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kSafety));
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(seen[static_cast<size_t>(t)].size(), static_cast<size_t>(kPerThread));
    const std::vector<int>& got = seen[static_cast<size_t>(t)];
    for (int i = 0; i < kPerThread; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], i);
  }
}

TEST(EventLoopTest, PostAfterFiresInDeadlineOrderAndNotEarly) {
  EventLoop loop("eb-test-timer");
  Log log;
  absl::Notification done;
  const absl::Time start = absl::Now();
  std::atomic<int64_t> late_fired_after_us{0};
  loop.PostAfter(absl::Milliseconds(20), [&] {
    late_fired_after_us = absl::ToInt64Microseconds(absl::Now() - start);
    log.Add("20ms");
    done.Notify();
  });
  loop.PostAfter(absl::Milliseconds(5), [&] { log.Add("5ms"); });
  loop.PostAfter(absl::Milliseconds(10), [&] { log.Add("10ms"); });
  loop.Post([&] { log.Add("now"); });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kSafety));
  EXPECT_THAT(log.entries(), ElementsAre("now", "5ms", "10ms", "20ms"));
  EXPECT_GE(late_fired_after_us.load(), 20'000);
}

TEST(EventLoopTest, TimersWithEqualDeadlinesRunInPostOrder) {
  // A frozen FakeClock gives timers identical deadlines.
  testing::FakeClock clock;
  EventLoop loop("eb-test-fake", clock);
  Log log;
  absl::Notification first_batch;
  absl::Notification second_batch;
  loop.PostAfter(absl::Milliseconds(30), [&] { log.Add("c"); });
  loop.PostAfter(absl::Milliseconds(10), [&] { log.Add("a1"); });
  loop.PostAfter(absl::Milliseconds(20), [&] { log.Add("b"); });
  loop.PostAfter(absl::Milliseconds(10), [&] { log.Add("a2"); });
  loop.PostAfter(absl::Milliseconds(15), [&] { first_batch.Notify(); });

  clock.Advance(absl::Milliseconds(15));
  loop.Post([] {});  // Wakes the loop to look at the moved clock.
  ASSERT_TRUE(first_batch.WaitForNotificationWithTimeout(kSafety));
  EXPECT_THAT(log.entries(), ElementsAre("a1", "a2"));

  clock.Advance(absl::Milliseconds(15));
  loop.PostAfter(absl::ZeroDuration(), [&] { second_batch.Notify(); });
  loop.Post([] {});
  ASSERT_TRUE(second_batch.WaitForNotificationWithTimeout(kSafety));
  EXPECT_THAT(log.entries(), ElementsAre("a1", "a2", "b", "c"));
}

TEST(EventLoopTest, CancelledTimerNeverRuns) {
  EventLoop loop("eb-test-cancel");
  std::atomic<bool> cancelled_ran{false};
  const TimerId id = loop.PostAfter(absl::Milliseconds(5), [&] { cancelled_ran = true; });
  loop.Cancel(id);
  loop.Cancel(id);         // Twice: no-op.
  loop.Cancel(id + 1000);  // Unknown: no-op.
  absl::Notification done;
  const TimerId other = loop.PostAfter(absl::Milliseconds(10), [&] { done.Notify(); });
  EXPECT_NE(id, other);
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kSafety));
  loop.Cancel(other);  // Already fired: no-op.
  EXPECT_FALSE(cancelled_ran);
}

TEST(EventLoopTest, CancelFromInsideTheLoop) {
  EventLoop loop("eb-test-cancel2");
  std::atomic<bool> cancelled_ran{false};
  absl::Notification done;
  const TimerId victim = loop.PostAfter(absl::Milliseconds(5), [&] { cancelled_ran = true; });
  loop.Post([&] { loop.Cancel(victim); });
  loop.PostAfter(absl::Milliseconds(10), [&] { done.Notify(); });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(kSafety));
  EXPECT_FALSE(cancelled_ran);
}

TEST(EventLoopTest, PostWakesTheLoopToRereadItsTimers) {
  EventLoop loop("eb-test-wake2");
  loop.PostAfter(absl::Seconds(10), [] {});  // The loop now waits on this one.
  absl::Notification idle;
  loop.Post([&] { idle.Notify(); });
  ASSERT_TRUE(idle.WaitForNotificationWithTimeout(kSafety));
  // A task wakes the loop, so it re-reads the earliest deadline.
  absl::Notification fired;
  const absl::Time start = absl::Now();
  std::atomic<int64_t> latency_us{0};
  loop.PostAfter(absl::Milliseconds(2), [&] {
    latency_us = absl::ToInt64Microseconds(absl::Now() - start);
    fired.Notify();
  });
  loop.Post([] {});
  ASSERT_TRUE(fired.WaitForNotificationWithTimeout(kSafety));
  EXPECT_LT(latency_us.load(), 50'000);
}

// Regression (fixed): PostAfter() does not wake the loop. An idle loop (or one waiting for a
// later timer) sleeps in AwaitWithTimeout for up to the 100 ms cap, whose
// condition looks only at tasks_ and stopping_, so a timer posted meanwhile
// with a shorter delay fires up to ~100 ms late (here a 2 ms timer fired
// after 96-109 ms on nearly every run). Short timeouts (the 200 ms ones
// STYLE.md section 6 recommends for tests, rendezvous polls) then err by up
// to 50%. Proposed fix in EventLoop: remember the deadline the loop sleeps
// until (a `wake_at_` member guarded by mu_, set before AwaitWithTimeout) and
// add `(!loop->timers_.empty() && loop->timers_.begin()->first.first <
// loop->wake_at_)` to the Await condition, so an earlier timer ends the wait.
TEST(EventLoopTest, PostAfterOnAnIdleLoopIsNotLate) {
  EventLoop loop("eb-test-wake");
  absl::Notification idle;
  loop.Post([&] { idle.Notify(); });
  ASSERT_TRUE(idle.WaitForNotificationWithTimeout(kSafety));
  // The loop has nothing to do and sleeps for up to 100 ms.
  absl::Notification fired;
  const absl::Time start = absl::Now();
  std::atomic<int64_t> latency_us{0};
  loop.PostAfter(absl::Milliseconds(2), [&] {
    latency_us = absl::ToInt64Microseconds(absl::Now() - start);
    fired.Notify();
  });
  ASSERT_TRUE(fired.WaitForNotificationWithTimeout(kSafety));
  EXPECT_LT(latency_us.load(), 50'000) << "a 2 ms timer fired after " << latency_us.load() << " us";
}

TEST(EventLoopTest, StopDrainsQueuedTasksAndDropsTimers) {
  auto loop = std::make_unique<EventLoop>("eb-test-stop");
  Log log;
  absl::Notification blocked;
  absl::Notification release;
  std::atomic<bool> timer_ran{false};
  // Hold the loop so that the next tasks are still queued when Stop starts.
  loop->Post([&] {
    blocked.Notify();
    release.WaitForNotificationWithTimeout(kSafety);
  });
  ASSERT_TRUE(blocked.WaitForNotificationWithTimeout(kSafety));
  loop->Post([&] { log.Add("a"); });
  loop->Post([&] { log.Add("b"); });
  loop->Post([&] { log.Add("c"); });
  loop->PostAfter(absl::Seconds(10), [&] { timer_ran = true; });

  const absl::Time start = absl::Now();
  std::thread stopper([&] { loop->Stop(); });
  // Give Stop() a moment to mark the loop stopping while it is held; the
  // assertions hold either way.
  absl::Notification never;
  never.WaitForNotificationWithTimeout(absl::Milliseconds(10));
  release.Notify();
  stopper.join();

  EXPECT_THAT(log.entries(), ElementsAre("a", "b", "c"));
  EXPECT_FALSE(timer_ran);
  // Stop does not wait for pending timers.
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));

  // After Stop, posts are dropped and Stop is idempotent.
  loop->Post([&] { log.Add("late"); });
  loop->PostAfter(absl::ZeroDuration(), [&] { log.Add("late-timer"); });
  loop->Stop();
  loop.reset();
  EXPECT_THAT(log.entries(), ElementsAre("a", "b", "c"));
}

TEST(EventLoopTest, DestructorStopsAndJoins) {
  Log log;
  {
    EventLoop loop("eb-test-dtor");
    loop.Post([&] { log.Add("x"); });
  }
  EXPECT_THAT(log.entries(), ElementsAre("x"));
}

TEST(EventLoopTest, StopOfAnIdleLoopIsPrompt) {
  EventLoop loop("eb-test-idle");
  const absl::Time start = absl::Now();
  loop.Stop();
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(100));
}

// Voluntary context switches of thread `tid` of this process so far.
int64_t VoluntarySwitches(pid_t tid) {
  std::ifstream status(absl::StrCat("/proc/self/task/", tid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (absl::StartsWith(line, "voluntary_ctxt_switches:")) {
      return std::stoll(line.substr(line.find(':') + 1));
    }
  }
  return -1;
}

// Issue 15: with the real clock and nothing to do, the loop sleeps until a
// task comes (an idle agent's loop used to wake every 100 ms). Over 350 ms
// it would have woken 3 times; it may not wake at all.
TEST(EventLoopTest, AnIdleLoopDoesNotWake) {
  EventLoop loop("eb-test-idle");
  std::atomic<pid_t> tid{0};
  absl::Notification ran;
  loop.Post([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    ran.Notify();
  });
  ASSERT_TRUE(ran.WaitForNotificationWithTimeout(kSafety));
  absl::SleepFor(absl::Milliseconds(20));  // let it go back to its wait
  const int64_t before = VoluntarySwitches(tid);
  ASSERT_GE(before, 0);
  absl::SleepFor(absl::Milliseconds(350));
  EXPECT_EQ(VoluntarySwitches(tid), before);
  // And it still wakes for a task.
  absl::Notification again;
  loop.Post([&] { again.Notify(); });
  EXPECT_TRUE(again.WaitForNotificationWithTimeout(kSafety));
}

}  // namespace
}  // namespace eb::common
