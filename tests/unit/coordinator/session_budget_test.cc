// Per-node session budgets, cut-offs and rate-limited audit records
// (coordinator/core/budget/; issue 32, items 1 and 10). Time is passed in:
// no sleeps.

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "coordinator/core/budget/audit_rate_limit.h"
#include "coordinator/core/budget/cut_offs.h"
#include "coordinator/core/budget/rendezvous_budget.h"
#include "coordinator/core/budget/session_budget.h"
#include "coordinator/core/budget/token_bucket.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

const absl::Time kBudgetStart = absl::FromUnixSeconds(1'800'000'000);

TEST(TokenBucketTest, StartsFullTakesTheBurstThenRefillsAtItsRate) {
  TokenBucket bucket(/*rate=*/10, /*burst=*/5, kBudgetStart);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(bucket.Take(1, kBudgetStart)) << i;
  EXPECT_FALSE(bucket.Take(1, kBudgetStart));
  // 10 a second: one token after 100 ms, not before.
  EXPECT_FALSE(bucket.Take(1, kBudgetStart + absl::Milliseconds(99)));
  EXPECT_TRUE(bucket.Take(1, kBudgetStart + absl::Milliseconds(100)));
  // A long pause refills to the burst, never beyond.
  EXPECT_TRUE(bucket.Take(5, kBudgetStart + absl::Hours(1)));
  EXPECT_FALSE(bucket.Take(1, kBudgetStart + absl::Hours(1)));
}

TEST(TokenBucketTest, AClockSetBackAddsNothing) {
  TokenBucket bucket(/*rate=*/1, /*burst=*/2, kBudgetStart);
  EXPECT_TRUE(bucket.Take(2, kBudgetStart));
  EXPECT_FALSE(bucket.Take(1, kBudgetStart - absl::Hours(1)));
  EXPECT_FALSE(bucket.Take(1, kBudgetStart + absl::Milliseconds(500)));
  EXPECT_TRUE(bucket.Take(1, kBudgetStart + absl::Seconds(1)));
}

TEST(TokenBucketTest, ACostAboveTheBurstNeverPasses) {
  TokenBucket bucket(/*rate=*/100, /*burst=*/10, kBudgetStart);
  EXPECT_FALSE(bucket.Take(11, kBudgetStart + absl::Hours(1)));
  EXPECT_TRUE(bucket.Take(10, kBudgetStart + absl::Hours(1)));
}

ebnccl::v1::AgentMessage EventBatch(int events) {
  ebnccl::v1::AgentMessage message;
  for (int i = 0; i < events; ++i) message.mutable_worker_events()->add_events();
  return message;
}

TEST(SessionBudgetTest, AMessageCostsOneItemAndABatchOneAnEvent) {
  ebnccl::v1::AgentMessage heartbeat;
  heartbeat.mutable_heartbeat();
  EXPECT_EQ(SessionMessageItems(heartbeat), 1);
  EXPECT_EQ(SessionMessageItems(EventBatch(1024)), 1024);
  EXPECT_EQ(SessionMessageItems(EventBatch(0)), 1);
}

// The default budget holds what an honest node sends: a whole test of 16
// ranks at the most sizes a test may have (10,000), in one burst, plus a
// heartbeat every 100 ms (the shortest period), every 2 s sent alone.
TEST(SessionBudgetTest, Issue32Item1_TheDefaultBudgetHoldsAnHonestNodesWorstTest) {
  SessionBudget budget(SessionBudgetLimits{}, kBudgetStart);
  absl::Time now = kBudgetStart;
  for (int size = 0; size < 10'006; ++size) {
    // Unbatched: each rank's event alone (the agent batches when it can).
    for (int rank = 0; rank < 16; ++rank) {
      ASSERT_TRUE(budget.Charge(1, 200, now).ok()) << size << " " << rank;
    }
    if (size % 100 == 0) {
      now += absl::Milliseconds(100);
      ASSERT_TRUE(budget.Charge(1, 50, now).ok());
    }
  }
  // And 256 log pages of 1 MiB at once.
  for (int page = 0; page < 256; ++page) {
    ASSERT_TRUE(budget.Charge(1, (1 << 20) + 64, now).ok()) << page;
  }
}

TEST(SessionBudgetTest, Issue32Item1_AFloodIsRefusedNamingWhatItExceeded) {
  SessionBudgetLimits limits;
  limits.items_per_second = 100;
  limits.item_burst = 1000;
  SessionBudget budget(limits, kBudgetStart);
  int passed = 0;
  absl::Status status;
  // 1,000 at once, then 100 a second: 2,000 messages in 1 s exceed it.
  for (int i = 0; i < 2000 && status.ok(); ++i) {
    status = budget.Charge(1, 10, kBudgetStart + absl::Milliseconds(i / 2));
    if (status.ok()) ++passed;
  }
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(),
              HasSubstr("session budget: more than 1000 messages or events at once, or 100 a "
                        "second"));
  EXPECT_GE(passed, 1000);
  EXPECT_LE(passed, 1060);
  // Once over, it stays over (the session is ended, not throttled).
  EXPECT_EQ(budget.Charge(1, 10, kBudgetStart + absl::Hours(1)).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(SessionBudgetTest, Issue32Item1_ABigBatchCountsItsEvents) {
  SessionBudgetLimits limits;
  limits.items_per_second = 0;
  limits.item_burst = 2048;
  SessionBudget budget(limits, kBudgetStart);
  EXPECT_TRUE(budget.Charge(SessionMessageItems(EventBatch(1024)), 10, kBudgetStart).ok());
  EXPECT_TRUE(budget.Charge(SessionMessageItems(EventBatch(1024)), 10, kBudgetStart).ok());
  EXPECT_FALSE(budget.Charge(SessionMessageItems(EventBatch(1)), 10, kBudgetStart).ok());
}

TEST(SessionBudgetTest, Issue32Item1_BytesHaveTheirOwnBudget) {
  SessionBudgetLimits limits;
  limits.bytes_per_second = 1000;
  limits.byte_burst = 4000;
  SessionBudget budget(limits, kBudgetStart);
  EXPECT_TRUE(budget.Charge(1, 4000, kBudgetStart).ok());
  EXPECT_TRUE(budget.Charge(1, 1000, kBudgetStart + absl::Seconds(1)).ok());
  const absl::Status status = budget.Charge(1, 1, kBudgetStart + absl::Seconds(1));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("more than 4000 bytes at once, or 1000 a second"));
  EXPECT_THAT(status.message(), HasSubstr("3 messages of 3 messages or events and 5001 bytes"));
}

TEST(RendezvousBudgetTest, Issue32Item1_EachNodeHasItsOwnBucket) {
  RendezvousBudget budget(RendezvousBudgetLimits{/*call_burst=*/4, /*calls_per_second=*/1});
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(budget.Charge("node node-x", kBudgetStart).ok()) << i;
  const absl::Status refused = budget.Charge("node node-x", kBudgetStart);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(),
              HasSubstr("rendezvous budget: node node-x made more than 4 rendezvous calls at "
                        "once, or 1 a second"));
  EXPECT_TRUE(budget.Charge("node node-y", kBudgetStart).ok());
  EXPECT_TRUE(budget.Charge("node node-x", kBudgetStart + absl::Seconds(1)).ok());
}

// Without TLS no name can be trusted: calls are charged to the peer's
// address, so one address cannot flood the loop for the others.
TEST(RendezvousBudgetTest, Issue32Item1_WithoutTlsEachAddressHasItsOwnBucket) {
  EXPECT_EQ(RendezvousCaller(true, "host1", "ipv4:10.0.0.7:51234"), "node host1");
  EXPECT_EQ(RendezvousCaller(false, "local", "ipv4:10.0.0.7:51234"), "address 10.0.0.7");
  EXPECT_EQ(RendezvousCaller(false, "local", "ipv6:[::1]:5"), "address [::1]");
  EXPECT_EQ(RendezvousCaller(false, "local", "unix:/run/x"), "address unix:/run/x");
  RendezvousBudget budget(RendezvousBudgetLimits{/*call_burst=*/2, /*calls_per_second=*/1});
  const std::string flooder = RendezvousCaller(false, "local", "ipv4:10.0.0.7:1");
  EXPECT_TRUE(budget.Charge(flooder, kBudgetStart).ok());
  EXPECT_TRUE(
      budget.Charge(RendezvousCaller(false, "local", "ipv4:10.0.0.7:2"), kBudgetStart).ok());
  EXPECT_THAT(budget.Charge(flooder, kBudgetStart).message(),
              HasSubstr("rendezvous budget: address 10.0.0.7 made more than 2"));
  EXPECT_TRUE(
      budget.Charge(RendezvousCaller(false, "local", "ipv4:10.0.0.8:1"), kBudgetStart).ok());
}

TEST(RendezvousBudgetTest, TheDefaultHoldsTheLargestNodesRendezvous) {
  // 1,024 ranks, each setting its key and keeping 4 waits open, twice over.
  RendezvousBudget budget;
  for (int call = 0; call < 8 * 1024; ++call) {
    ASSERT_TRUE(budget.Charge("big", kBudgetStart).ok()) << call;
  }
  EXPECT_FALSE(budget.Charge("big", kBudgetStart).ok());
}

TEST(CutOffsTest, Issue32Item1_RepeatedCutOffsRefuseRegistrationUntilTheWindowPasses) {
  CutOffs cut_offs;
  absl::Time now = kBudgetStart;
  for (int i = 0; i < CutOffs::kMaxCutOffs - 1; ++i) {
    cut_offs.Record("node-x", now);
    EXPECT_TRUE(cut_offs.CheckRegister("node-x", now).ok()) << i;  // comes back, fresh budget
    now += absl::Minutes(1);
  }
  cut_offs.Record("node-x", now);
  const absl::Status refused = cut_offs.CheckRegister("node-x", now);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), HasSubstr("node_name: node-x was cut off 3 times within 10m"));
  EXPECT_THAT(refused.message(), HasSubstr("may register again in 8m"));
  // Another node is not concerned.
  EXPECT_TRUE(cut_offs.CheckRegister("node-y", now).ok());
  // When the first cut-off leaves the window, the node may come back.
  EXPECT_FALSE(
      cut_offs.CheckRegister("node-x", kBudgetStart + absl::Minutes(10) - absl::Seconds(1)).ok());
  EXPECT_TRUE(cut_offs.CheckRegister("node-x", kBudgetStart + absl::Minutes(10)).ok());
}

TEST(CutOffsTest, ManyNodesAreBounded) {
  CutOffs cut_offs;
  for (size_t i = 0; i < CutOffs::kMaxNodes + 10; ++i) {
    cut_offs.Record(absl::StrCat("n", i),
                    kBudgetStart + absl::Milliseconds(static_cast<int64_t>(i)));
  }
  EXPECT_EQ(cut_offs.nodes(), CutOffs::kMaxNodes);
}

// P2-6.2: failed handshakes and refused sessions left no audit row; a flood
// of them must leave at most one row per peer a minute, counting the rest.
TEST(AuditRateLimitTest, P2_6_2_OneRecordPerPeerAMinuteWithTheCountLeftOut) {
  AuditRateLimit limit;
  EXPECT_THAT(limit.Admit("10.0.0.9", kBudgetStart), Optional(0u));
  for (int i = 1; i <= 500; ++i) {
    EXPECT_EQ(limit.Admit("10.0.0.9", kBudgetStart + absl::Milliseconds(i * 100)), std::nullopt)
        << i;
  }
  // Another peer has its own minute.
  EXPECT_THAT(limit.Admit("10.0.0.7", kBudgetStart + absl::Seconds(1)), Optional(0u));
  // A minute after the last record: recorded, with the 500 left out.
  EXPECT_THAT(limit.Admit("10.0.0.9", kBudgetStart + absl::Minutes(1)), Optional(500u));
  EXPECT_EQ(limit.Admit("10.0.0.9", kBudgetStart + absl::Minutes(1)), std::nullopt);
  EXPECT_EQ(limit.seen(), 504u);
  EXPECT_EQ(limit.suppressed(), 501u);
}

TEST(AuditRateLimitTest, InventedPeersShareOneEntryBeyondTheBound) {
  AuditRateLimit limit;
  for (size_t i = 0; i < AuditRateLimit::kMaxKeys; ++i) {
    EXPECT_TRUE(limit.Admit(absl::StrCat("p", i), kBudgetStart).has_value());
  }
  EXPECT_THAT(limit.Admit("new-1", kBudgetStart), Optional(0u));  // (other)
  EXPECT_EQ(limit.Admit("new-2", kBudgetStart), std::nullopt);
  EXPECT_THAT(limit.Admit("new-3", kBudgetStart + absl::Minutes(1)), Optional(1u));
}

TEST(AuditRateLimitTest, AClockSetBackDoesNotSilenceAPeer) {
  AuditRateLimit limit;
  EXPECT_TRUE(limit.Admit("p", kBudgetStart).has_value());
  EXPECT_TRUE(limit.Admit("p", kBudgetStart - absl::Hours(1)).has_value());
}

// A node's refused messages become log lines through one limiter: the
// first, then nothing until the interval passed, then one saying how many
// were left out. Without a limiter every line is logged.
TEST(AuditRateLimitTest, RefusedMessagesAreLoggedOncePerIntervalWithTheCountLeftOut) {
  AuditRateLimit limit(absl::Seconds(10));
  EXPECT_THAT(RateLimitedLine(&limit, "evil log answer", kBudgetStart, "refused"),
              Optional(std::string("refused")));
  for (int i = 1; i <= 7; ++i) {
    EXPECT_EQ(RateLimitedLine(&limit, "evil log answer", kBudgetStart + absl::Seconds(i), "x"),
              std::nullopt);
  }
  EXPECT_THAT(RateLimitedLine(&limit, "evil log answer", kBudgetStart + absl::Seconds(10), "again"),
              Optional(std::string("again (7 more such refusals not logged since)")));
  EXPECT_THAT(RateLimitedLine(nullptr, "evil log answer", kBudgetStart, "each"),
              Optional(std::string("each")));
}

// An audited refusal says the same in its status: the count left out
// since its key's last record, nothing on the first record.
TEST(AuditRateLimitTest, AnAuditedStatusSaysHowManyWereLeftOut) {
  const absl::Status late = absl::DeadlineExceededError("no register message within 6s");
  EXPECT_EQ(WithLeftOut(late, 0, "more from h since the last record"), late);
  const absl::Status counted = WithLeftOut(late, 63, "more from h since the last record");
  EXPECT_EQ(counted.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(counted.message(),
            "no register message within 6s; 63 more from h since the last record");
}

}  // namespace
}  // namespace eb::coordinator
