#include "common/exec/latest_per_key_batch.h"

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/exec/event_loop.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"

namespace eb::common {
namespace {

using Batch = std::vector<std::pair<int, std::string>>;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

class LatestPerKeyBatchTest : public ::testing::Test {
 protected:
  testing::FakeClock clock_;
  testing::ManualExecutor executor_{clock_};
  std::vector<Batch> batches_;
  LatestPerKeyBatch<int, std::string> batch_{executor_, absl::Milliseconds(100),
                                             [this](Batch b) { batches_.push_back(std::move(b)); }};
};

TEST_F(LatestPerKeyBatchTest, ValuesOfOneWindowArriveInOneTurnAfterTheWindow) {
  batch_.Add(1, "a");
  executor_.AdvanceTime(absl::Milliseconds(40));
  batch_.Add(2, "b");
  batch_.Add(3, "c");
  executor_.AdvanceTime(absl::Milliseconds(59));
  EXPECT_THAT(batches_, IsEmpty());
  EXPECT_EQ(batch_.pending(), 3u);
  executor_.AdvanceTime(absl::Milliseconds(1));
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_THAT(batches_[0], ElementsAre(Pair(1, "a"), Pair(2, "b"), Pair(3, "c")));
  EXPECT_EQ(batch_.pending(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(LatestPerKeyBatchTest, ALaterValueReplacesThePendingOneAndKeepsItsPlace) {
  batch_.Add(7, "first");
  batch_.Add(8, "other");
  batch_.Add(7, "second");
  executor_.AdvanceTime(absl::Milliseconds(100));
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_THAT(batches_[0], ElementsAre(Pair(7, "second"), Pair(8, "other")));
}

TEST_F(LatestPerKeyBatchTest, TheNextValueAfterABatchStartsANewWindow) {
  batch_.Add(1, "a");
  executor_.AdvanceTime(absl::Milliseconds(100));
  batch_.Add(1, "b");
  EXPECT_EQ(executor_.pending_timers(), 1u);
  executor_.AdvanceTime(absl::Milliseconds(100));
  ASSERT_EQ(batches_.size(), 2u);
  EXPECT_THAT(batches_[1], ElementsAre(Pair(1, "b")));
  executor_.AdvanceTime(absl::Seconds(10));
  EXPECT_EQ(batches_.size(), 2u) << "nothing added, nothing handed over";
}

TEST(LatestPerKeyBatchLifetimeTest, DestroyingTheBatchCancelsItsPendingTurn) {
  testing::FakeClock clock;
  testing::ManualExecutor executor(clock);
  int handled = 0;
  {
    LatestPerKeyBatch<int, int> batch(executor, absl::Milliseconds(5),
                                      [&handled](auto) { ++handled; });
    batch.Add(1, 1);
    EXPECT_EQ(executor.pending_timers(), 1u);
  }
  EXPECT_EQ(executor.pending_timers(), 0u);
  executor.AdvanceTime(absl::Seconds(1));
  EXPECT_EQ(handled, 0);
}

// Adds from many threads onto a real event loop: every key arrives, each
// once per batch, and only the latest value of a key is handed over last.
TEST(LatestPerKeyBatchThreadsTest, AddsFromManyThreadsAllArrive) {
  constexpr int kThreads = 4;
  constexpr int kKeysPerThread = 500;
  EventLoop loop("batch-test");
  absl::Mutex mu;
  std::vector<int> last_value(kThreads * kKeysPerThread, -1);
  int batches = 0;
  absl::Notification all_final;
  int final_seen = 0;
  LatestPerKeyBatch<int, int> batch(
      loop, absl::Milliseconds(1), [&](std::vector<std::pair<int, int>> b) {
        absl::MutexLock lock(&mu);
        ++batches;
        for (const auto& [key, value] : b) {
          EXPECT_GT(value, last_value[key])
              << "key " << key << ": an older value after a newer one";
          last_value[key] = value;
          if (value == 2 && ++final_seen == kThreads * kKeysPerThread) all_final.Notify();
        }
      });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&batch, t] {
      for (int value = 0; value <= 2; ++value) {
        for (int k = 0; k < kKeysPerThread; ++k) batch.Add(t * kKeysPerThread + k, value);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_TRUE(all_final.WaitForNotificationWithTimeout(absl::Seconds(30)));
  loop.Stop();
  absl::MutexLock lock(&mu);
  EXPECT_GE(batches, 1);
  for (int value : last_value) EXPECT_EQ(value, 2);
}

}  // namespace
}  // namespace eb::common
