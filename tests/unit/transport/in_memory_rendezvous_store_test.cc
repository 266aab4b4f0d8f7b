#include "tests/fakes/in_memory_rendezvous_store.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(InMemoryRendezvousStoreTest, WaitReturnsValuesInKeyOrder) {
  InMemoryRendezvousStore store;
  ASSERT_TRUE(store.Set("a", "1").ok());
  ASSERT_TRUE(store.Set("b", std::string("\0x", 2)).ok());
  auto values = store.Wait({"b", "a"}, absl::Seconds(1));
  ASSERT_TRUE(values.ok());
  EXPECT_THAT(*values, ElementsAre(std::string("\0x", 2), "1"));
}

TEST(InMemoryRendezvousStoreTest, WaitTimesOutNamingMissingKeys) {
  InMemoryRendezvousStore store;
  ASSERT_TRUE(store.Set("a", "1").ok());
  const absl::Time start = absl::Now();
  auto values = store.Wait({"a", "b", "c"}, absl::Milliseconds(50));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(50));
  EXPECT_EQ(values.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(values.status().message()), HasSubstr("b, c"));
}

TEST(InMemoryRendezvousStoreTest, WaiterWakesOnSetFromAnotherThread) {
  InMemoryRendezvousStore store;
  std::thread setter([&] {
    store.AwaitWaiters(1);
    ASSERT_TRUE(store.Set("k", "v").ok());
  });
  auto values = store.Wait({"k"}, absl::Seconds(5));
  setter.join();
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("v"));
}

TEST(InMemoryRendezvousStoreTest, CloseAbortsWaitersAndSetters) {
  InMemoryRendezvousStore store;
  std::thread closer([&] {
    store.AwaitWaiters(1);
    store.Close("job cancelled");
  });
  auto values = store.Wait({"never"}, absl::Seconds(5));
  closer.join();
  EXPECT_EQ(values.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(store.Set("x", "y").code(), absl::StatusCode::kAborted);
}

}  // namespace
}  // namespace eb::testing
