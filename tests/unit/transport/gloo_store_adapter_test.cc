#include "common/transport/gloo/gloo_store_adapter.h"

#include <chrono>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gloo/common/error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"

namespace eb::transport {
namespace {

using ::eb::testing::InMemoryRendezvousStore;
using ::testing::HasSubstr;

TEST(GlooStoreAdapterTest, SetAndGetUnderThePrefix) {
  InMemoryRendezvousStore store;
  GlooStoreAdapter adapter(store, "gloo/", absl::Seconds(1));
  const std::vector<char> data = {'a', '\0', 'b'};
  adapter.set("rank_0", data);
  EXPECT_TRUE(store.Contains("gloo/rank_0"));
  EXPECT_EQ(adapter.get("rank_0"), data);
  adapter.wait({"rank_0"});
  adapter.wait({"rank_0"}, std::chrono::milliseconds(10));
  EXPECT_TRUE(adapter.first_error().ok());
}

TEST(GlooStoreAdapterTest, ErrorsBecomeIoExceptionsAndAreRecorded) {
  InMemoryRendezvousStore store;
  GlooStoreAdapter adapter(store, "p/", absl::Milliseconds(20));
  try {
    adapter.get("missing");
    ADD_FAILURE() << "get of a missing key returned";
  } catch (const gloo::IoException& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("p/missing"));
  }
  EXPECT_EQ(adapter.first_error().code(), absl::StatusCode::kDeadlineExceeded);

  store.Close("over");
  EXPECT_THROW(adapter.set("k", {}), gloo::IoException);
  // The first error is kept.
  EXPECT_EQ(adapter.first_error().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(GlooStoreAdapterTest, DeadlineBoundsEveryWait) {
  InMemoryRendezvousStore store;
  GlooStoreAdapter adapter(store, "", absl::Seconds(30), absl::Now() + absl::Milliseconds(50));
  const absl::Time start = absl::Now();
  EXPECT_THROW(adapter.wait({"k"}, std::chrono::milliseconds(30000)), gloo::IoException);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(adapter.first_error().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace eb::transport
