// Refusals audited at powers of two per key (coordinator/core/refusal_counter.h;
// issue 32, item 10).

#include "coordinator/core/refusal_counter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

// P2-6.2: a refused rendezvous call is audited; a flood of them leaves a
// few rows per caller, each counted.
TEST(RefusalCounterTest, P2_6_2_AuditedAtPowersOfTwoPerKey) {
  RefusalCounter counter;
  std::vector<int> audited;
  for (int i = 1; i <= 20; ++i) {
    if (counter.Count("node-x RendezvousWait")) audited.push_back(i);
  }
  EXPECT_THAT(audited, ::testing::ElementsAre(1, 2, 4, 8, 16));
  // Another caller starts its own count.
  EXPECT_TRUE(counter.Count("node-y RendezvousWait"));
  EXPECT_EQ(counter.total(), 21u);
}

TEST(RefusalCounterTest, InventedKeysShareOneCountBeyondTheBound) {
  RefusalCounter counter;
  for (size_t i = 0; i < RefusalCounter::kMaxKeys; ++i) {
    EXPECT_TRUE(counter.Count(absl::StrCat("k", i)));
  }
  EXPECT_TRUE(counter.Count("new-1"));   // (other) #1
  EXPECT_TRUE(counter.Count("new-2"));   // (other) #2
  EXPECT_FALSE(counter.Count("new-3"));  // (other) #3
  EXPECT_EQ(counter.total(), RefusalCounter::kMaxKeys + 3);
}

}  // namespace
}  // namespace eb::coordinator
