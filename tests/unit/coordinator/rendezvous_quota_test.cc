// Issue 32 item 1: a test's rendezvous holds what an honest test of its size
// needs (spec::RendezvousBoundsFor, whose header lists what the workers
// set), and each node of it only its own ranks' share: a compromised member
// of an 8-rank test can no longer make the coordinator hold 256 MiB until
// the test ends, nor take its test's whole budget from the honest nodes,
// nor replace another rank's address table.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/spec/limits.h"
#include "common/spec/rendezvous_bounds.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

using test::IsOk;
using test::StatusIs;
using ::testing::HasSubstr;

// An 8-rank test of two nodes, 4 ranks each.
class RendezvousQuotaTest : public ::testing::Test {
 protected:
  RendezvousQuotaTest() { kv_.Open("t", 8, {{"honest", 4}, {"evil", 4}}); }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  RendezvousKv kv_{executor_};
};

TEST(RendezvousBoundsTest, FollowWhatAnHonestTestOfThatSizeSets) {
  // 8 ranks: 80 keys (2 x 8 + 64), values of 4 KiB (48 x 8 is less), and
  // 80 x (256 + 4096) bytes: 340 KiB, not 256 MiB.
  constexpr spec::RendezvousBounds small = spec::RendezvousBoundsFor(8);
  EXPECT_EQ(small.keys, 80);
  EXPECT_EQ(small.value_bytes, 4096);
  EXPECT_EQ(small.bytes, 80 * (256 + 4096));
  EXPECT_EQ(small.wait_keys, 80);
  EXPECT_EQ(small.waiters, 96);
  // 1,024 ranks over Gloo need 2 x 1,024 tables of 48 x 1,024 bytes (100
  // MiB); the bound holds them.
  constexpr spec::RendezvousBounds gloo = spec::RendezvousBoundsFor(1024);
  EXPECT_EQ(gloo.value_bytes, 48 * 1024);
  EXPECT_GE(gloo.bytes, int64_t{2} * 1024 * (48 * 1024 + 16));
  EXPECT_GE(gloo.keys, 2 * 1024);
  // The absolute limits are never exceeded.
  constexpr spec::RendezvousBounds largest = spec::RendezvousBoundsFor(spec::kMaxRanksPerTest);
  EXPECT_EQ(largest.keys, spec::kMaxRendezvousKeysPerTest);
  EXPECT_EQ(largest.value_bytes, spec::kMaxRendezvousValueBytes);
  EXPECT_EQ(largest.bytes, spec::kMaxRendezvousBytesPerTest);
  EXPECT_EQ(largest.wait_keys, spec::kMaxRendezvousWaitKeys);
  // A node's share: its own ranks' keys, values sized by the test.
  constexpr spec::RendezvousBounds node = spec::RendezvousBoundsFor(1024, 8);
  EXPECT_EQ(node.keys, 2 * 8 + 64);
  EXPECT_EQ(node.value_bytes, 48 * 1024);
  EXPECT_EQ(node.waiters, 4 * 8 + 64);
  // What a node can make the coordinator hold follows from its keys: each
  // at most the longest key and the test's value bound.
  EXPECT_EQ(node.bytes, node.keys * (spec::kMaxRendezvousKeyLength + node.value_bytes));
}

TEST_F(RendezvousQuotaTest, AValueOverTheTestsSizeIsRefusedNamingTheBound) {
  EXPECT_THAT(kv_.Set("t", "mesh/0", std::string(4096, 'v'), "honest"), IsOk());
  EXPECT_THAT(kv_.Set("t", "mesh/1", std::string(4097, 'v'), "honest"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("value: 4097 bytes; a value of test t holds at most 4096 (48 "
                                 "bytes for each of its 8 ranks, at least 4096)")));
  // Without a node (plaintext), the test's bound all the same.
  EXPECT_THAT(kv_.Set("t", "mesh/2", std::string(1 << 20, 'v')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 4096")));
}

TEST_F(RendezvousQuotaTest, ANodeOverItsRanksShareIsRefusedAndTheHonestNodeIsNot) {
  // "evil" has 4 ranks: 2 x 4 + 64 = 72 keys.
  int accepted = 0;
  absl::Status refused;
  for (int i = 0; i < 1000 && refused.ok(); ++i) {
    refused = kv_.Set("t", absl::StrCat("flood/", i), "v", "evil");
    accepted += refused.ok() ? 1 : 0;
  }
  EXPECT_EQ(accepted, 72);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kResourceExhausted,
                                HasSubstr("key: node 'evil' already holds 72 keys of test t, "
                                          "at most 72 (twice its ranks, and 64)")));
  EXPECT_TRUE(kv_.NodeOverQuota("t", "evil"));
  EXPECT_FALSE(kv_.NodeOverQuota("t", "honest"));
  // From then on every call of that node in the test is refused, even one
  // that would fit.
  EXPECT_THAT(kv_.Set("t", "flood/0", "v", "evil"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("went over its")));
  std::optional<absl::StatusOr<std::vector<std::string>>> waited;
  kv_.Wait(
      "t", {"mesh/0"}, absl::Seconds(1), [&](auto r) { waited = std::move(r); }, std::nullopt,
      "evil");
  ASSERT_TRUE(waited.has_value());
  EXPECT_EQ(waited->status().code(), absl::StatusCode::kResourceExhausted);
  // The honest node's ranks set their tables: 2 keys each.
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_THAT(kv_.Set("t", absl::StrCat("mesh/", rank), std::string(384, 'h'), "honest"), IsOk());
    EXPECT_THAT(kv_.Set("t", absl::StrCat("rail", rank, "/mesh/0"), std::string(96, 'h'), "honest"),
                IsOk());
  }
}

TEST_F(RendezvousQuotaTest, AKeyIsItsSettersNoOtherNodeReplacesIt) {
  ASSERT_THAT(kv_.Set("t", "mesh/0", "honest table", "honest"), IsOk());
  EXPECT_THAT(kv_.Set("t", "mesh/0", "forged table", "evil"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("key: 'mesh/0' of test t was set by node 'honest'; node 'evil' "
                                 "may not replace it")));
  // Its setter may (a retried set).
  EXPECT_THAT(kv_.Set("t", "mesh/0", "honest table", "honest"), IsOk());
  std::optional<absl::StatusOr<std::vector<std::string>>> waited;
  kv_.Wait(
      "t", {"mesh/0"}, absl::Seconds(1), [&](auto r) { waited = std::move(r); }, std::nullopt,
      "evil");
  ASSERT_TRUE(waited.has_value());
  ASSERT_THAT(waited->status(), IsOk());
  EXPECT_EQ((**waited)[0], "honest table");
}

TEST_F(RendezvousQuotaTest, ANodesPendingWaitsAreBoundedByItsShareAndFreedWhenAnswered) {
  // "evil": 4 x 4 + 64 = 80 pending waits; the test's 4 x 8 + 64 = 96.
  int answered = 0;
  for (int i = 0; i < 80; ++i) {
    kv_.Wait(
        "t", {"absent"}, absl::Seconds(1), [&](auto) { ++answered; }, std::nullopt, "evil");
  }
  EXPECT_EQ(answered, 0);
  std::optional<absl::StatusOr<std::vector<std::string>>> over;
  kv_.Wait(
      "t", {"absent"}, absl::Seconds(1), [&](auto r) { over = std::move(r); }, std::nullopt,
      "evil");
  ASSERT_TRUE(over.has_value());
  EXPECT_THAT(over->status(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("node 'evil' already has 80 pending rendezvous waits in test t, "
                                 "at most 80 (four per rank, and 64)")));
  // The honest node still waits (the test's bound has room for it).
  std::optional<absl::StatusOr<std::vector<std::string>>> honest;
  kv_.Wait(
      "t", {"mesh/0"}, absl::Seconds(1), [&](auto r) { honest = std::move(r); }, std::nullopt,
      "honest");
  EXPECT_FALSE(honest.has_value());
  ASSERT_THAT(kv_.Set("t", "mesh/0", "table", "honest"), IsOk());
  ASSERT_TRUE(honest.has_value());
  EXPECT_THAT(honest->status(), IsOk());
}

TEST(RendezvousQuotaReleaseTest, AnsweredAndExpiredWaitsLeaveTheNodesCount) {
  eb::testing::FakeClock clock;
  eb::testing::ManualExecutor executor{clock};
  RendezvousKv kv{executor};
  kv.Open("t", 1, {{"n", 1}});
  // One rank: 4 + 64 = 68 waits at once, and never more; each answer or
  // expiry makes room for the next.
  const int bound = spec::RendezvousBoundsFor(1, 1).waiters;
  int answered = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < bound; ++i) {
      kv.Wait(
          "t", {absl::StrCat("k", round)}, absl::Seconds(1), [&](auto) { ++answered; },
          std::nullopt, "n");
    }
    if (round == 1) {
      clock.Advance(absl::Seconds(2));  // this round's waits expire
      executor.RunUntilIdle();
    } else {
      ASSERT_THAT(kv.Set("t", absl::StrCat("k", round), "v", "n"), IsOk());
    }
    EXPECT_EQ(answered, bound * (round + 1));
    EXPECT_FALSE(kv.NodeOverQuota("t", "n"));
  }
}

}  // namespace
}  // namespace eb::coordinator
