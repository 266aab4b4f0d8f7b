#include "coordinator/core/collective_tests/rendezvous_kv.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/spec/limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

using test::IsOk;
using test::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr absl::Duration kTimeout = absl::Seconds(5);

// Records the outcome of one Wait and how many times it completed.
struct WaitResult {
  int calls = 0;
  std::optional<absl::StatusOr<std::vector<std::string>>> result;

  RendezvousKv::WaitCallback Callback() {
    return [this](absl::StatusOr<std::vector<std::string>> r) {
      ++calls;
      result = std::move(r);
    };
  }
  bool done() const { return calls > 0; }
};

class RendezvousKvTest : public ::testing::Test {
 protected:
  RendezvousKvTest() { kv_.Open("t-1", spec::kMaxRanksPerTest); }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  RendezvousKv kv_{executor_};
};

TEST_F(RendezvousKvTest, SetThenWaitReturnsValuesInKeyOrder) {
  ASSERT_THAT(kv_.Set("t-1", "b", "2"), IsOk());
  ASSERT_THAT(kv_.Set("t-1", "a", "1"), IsOk());
  ASSERT_THAT(kv_.Set("t-1", "c", "3"), IsOk());
  WaitResult wait;
  kv_.Wait("t-1", {"c", "a", "b", "a"}, kTimeout, wait.Callback());
  executor_.RunUntilIdle();
  ASSERT_EQ(wait.calls, 1);
  ASSERT_THAT(*wait.result, IsOk());
  EXPECT_THAT(**wait.result, ElementsAre("3", "1", "2", "1"));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(RendezvousKvTest, ValuesAreOpaqueBytes) {
  const std::string id("\x00\x01\xff\x00nccl", 8);
  ASSERT_THAT(kv_.Set("t-1", "nccl_id", id), IsOk());
  WaitResult wait;
  kv_.Wait("t-1", {"nccl_id"}, kTimeout, wait.Callback());
  ASSERT_TRUE(wait.done());
  ASSERT_THAT(*wait.result, IsOk());
  EXPECT_THAT(**wait.result, ElementsAre(id));
}

TEST_F(RendezvousKvTest, LaterSetOverwrites) {
  ASSERT_THAT(kv_.Set("t-1", "k", "old"), IsOk());
  ASSERT_THAT(kv_.Set("t-1", "k", "new"), IsOk());
  WaitResult wait;
  kv_.Wait("t-1", {"k"}, kTimeout, wait.Callback());
  ASSERT_TRUE(wait.done());
  EXPECT_THAT(**wait.result, ElementsAre("new"));
}

TEST_F(RendezvousKvTest, WaitBeforeSetCompletesWhenTheLastKeyArrives) {
  WaitResult wait;
  kv_.Wait("t-1", {"rank0", "rank1"}, kTimeout, wait.Callback());
  EXPECT_EQ(kv_.pending_waiters(), 1u);

  ASSERT_THAT(kv_.Set("t-1", "rank1", "addr1"), IsOk());
  executor_.RunUntilIdle();
  EXPECT_FALSE(wait.done());

  ASSERT_THAT(kv_.Set("t-1", "rank0", "addr0"), IsOk());
  executor_.RunUntilIdle();
  ASSERT_EQ(wait.calls, 1);
  ASSERT_THAT(*wait.result, IsOk());
  EXPECT_THAT(**wait.result, ElementsAre("addr0", "addr1"));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  // The waiter's timer is gone: passing the timeout changes nothing.
  EXPECT_EQ(executor_.pending_timers(), 0u);
  executor_.AdvanceTime(2 * kTimeout);
  EXPECT_EQ(wait.calls, 1);
}

TEST_F(RendezvousKvTest, OneSetWakesEveryWaiterItCompletes) {
  WaitResult first, second, other;
  kv_.Wait("t-1", {"x"}, kTimeout, first.Callback());
  kv_.Wait("t-1", {"x"}, kTimeout, second.Callback());
  kv_.Wait("t-1", {"x", "y"}, kTimeout, other.Callback());
  ASSERT_THAT(kv_.Set("t-1", "x", "1"), IsOk());
  EXPECT_EQ(first.calls, 1);
  EXPECT_EQ(second.calls, 1);
  EXPECT_FALSE(other.done());
  EXPECT_EQ(kv_.pending_waiters(), 1u);
}

// Each accepted call is counted for its test (logged at Close: what the
// agents' merging of waits saves); a refused one is not.
TEST_F(RendezvousKvTest, CountsTheCallsOfEachTest) {
  WaitResult a, b, refused;
  kv_.Wait("t-1", {"x"}, kTimeout, a.Callback());
  kv_.Wait("t-1", {"x"}, kTimeout, b.Callback());
  kv_.Wait("t-1", {"bad key"}, kTimeout, refused.Callback());
  ASSERT_THAT(kv_.Set("t-1", "x", "1"), IsOk());
  ASSERT_TRUE(kv_.calls("t-1").has_value());
  EXPECT_EQ(kv_.calls("t-1")->waits, 2);
  EXPECT_EQ(kv_.calls("t-1")->sets, 1);
  EXPECT_FALSE(kv_.calls("t-2").has_value());
  kv_.Close("t-1", "done");
  EXPECT_FALSE(kv_.calls("t-1").has_value());
}

TEST_F(RendezvousKvTest, TimeoutIsDeadlineExceededNamingTheMissingKeys) {
  WaitResult wait;
  kv_.Wait("t-1", {"rank0", "rank1", "rank2"}, kTimeout, wait.Callback());
  ASSERT_THAT(kv_.Set("t-1", "rank1", "addr1"), IsOk());

  executor_.AdvanceTime(kTimeout - absl::Milliseconds(1));
  EXPECT_FALSE(wait.done());

  executor_.AdvanceTime(absl::Milliseconds(1));
  ASSERT_EQ(wait.calls, 1);
  EXPECT_THAT(*wait.result, StatusIs(absl::StatusCode::kDeadlineExceeded,
                                     AllOf(HasSubstr("t-1"), HasSubstr("2 keys: rank0, rank2"),
                                           Not(HasSubstr("rank1")))));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
}

// The error names 8 keys, each at most 64 characters, and the count: it is
// a status message, and one naming every key of a large wait broke the
// agent's connection (compromised_node_test).
TEST_F(RendezvousKvTest, ATimeoutNamesEightKeysAndTheCountOfTheRest) {
  std::vector<std::string> keys;
  for (int i = 0; i < 20; ++i) keys.push_back(absl::StrCat("k", i, std::string(200, 'x')));
  WaitResult wait;
  kv_.Wait("t-1", keys, kTimeout, wait.Callback());
  executor_.AdvanceTime(kTimeout);
  ASSERT_EQ(wait.calls, 1);
  EXPECT_THAT(*wait.result, StatusIs(absl::StatusCode::kDeadlineExceeded,
                                     AllOf(HasSubstr("20 keys: k0xxx"), HasSubstr("x..., k1xx"),
                                           HasSubstr("and 12 more"), Not(HasSubstr("k8x")))));
  EXPECT_LT(wait.result->status().message().size(), 1024u);

  // A key that arrives later does not complete the waiter a second time.
  ASSERT_THAT(kv_.Set("t-1", "rank0", "addr0"), IsOk());
  ASSERT_THAT(kv_.Set("t-1", "rank2", "addr2"), IsOk());
  EXPECT_EQ(wait.calls, 1);
}

TEST_F(RendezvousKvTest, CloseAbortsPendingWaitersWithTheReason) {
  WaitResult first, second;
  kv_.Wait("t-1", {"a"}, kTimeout, first.Callback());
  kv_.Wait("t-1", {"a", "b"}, kTimeout, second.Callback());
  ASSERT_EQ(kv_.pending_waiters(), 2u);

  kv_.Close("t-1", "FAILED");
  for (const WaitResult* wait : {&first, &second}) {
    ASSERT_EQ(wait->calls, 1);
    EXPECT_THAT(*wait->result,
                StatusIs(absl::StatusCode::kAborted, AllOf(HasSubstr("t-1"), HasSubstr("FAILED"))));
  }
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
  executor_.AdvanceTime(2 * kTimeout);
  EXPECT_EQ(first.calls, 1);
  EXPECT_EQ(second.calls, 1);
}

TEST_F(RendezvousKvTest, ClosedNamespaceIsNotFound) {
  ASSERT_THAT(kv_.Set("t-1", "a", "1"), IsOk());
  kv_.Close("t-1", "PASSED");
  EXPECT_THAT(kv_.Set("t-1", "a", "2"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-1")));
  WaitResult wait;
  kv_.Wait("t-1", {"a"}, kTimeout, wait.Callback());
  ASSERT_EQ(wait.calls, 1);
  EXPECT_THAT(*wait.result, StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-1")));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
}

TEST_F(RendezvousKvTest, UnknownNamespaceIsNotFound) {
  EXPECT_THAT(kv_.Set("t-unknown", "a", "1"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-unknown")));
  WaitResult wait;
  kv_.Wait("t-unknown", {"a"}, kTimeout, wait.Callback());
  ASSERT_EQ(wait.calls, 1);
  EXPECT_THAT(*wait.result, StatusIs(absl::StatusCode::kNotFound, HasSubstr("t-unknown")));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

TEST_F(RendezvousKvTest, EmptyKeyIsInvalidArgument) {
  EXPECT_THAT(kv_.Set("t-1", "", "1"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::StartsWith("key: ")));
}

TEST_F(RendezvousKvTest, NamespacesAreIsolated) {
  kv_.Open("t-2", spec::kMaxRanksPerTest);
  WaitResult in_t2;
  kv_.Wait("t-2", {"a"}, kTimeout, in_t2.Callback());
  ASSERT_THAT(kv_.Set("t-1", "a", "from t-1"), IsOk());
  EXPECT_FALSE(in_t2.done());

  kv_.Close("t-1", "PASSED");
  EXPECT_FALSE(in_t2.done());
  EXPECT_EQ(kv_.pending_waiters(), 1u);

  ASSERT_THAT(kv_.Set("t-2", "a", "from t-2"), IsOk());
  ASSERT_TRUE(in_t2.done());
  EXPECT_THAT(**in_t2.result, ElementsAre("from t-2"));
}

TEST_F(RendezvousKvTest, NoWaiterLeaksAcrossOutcomes) {
  WaitResult completed, expired, aborted;
  kv_.Wait("t-1", {"a"}, kTimeout, completed.Callback());
  kv_.Wait("t-1", {"never"}, absl::Seconds(1), expired.Callback());
  kv_.Wait("t-1", {"b"}, kTimeout, aborted.Callback());
  EXPECT_EQ(kv_.pending_waiters(), 3u);

  ASSERT_THAT(kv_.Set("t-1", "a", "1"), IsOk());
  EXPECT_EQ(kv_.pending_waiters(), 2u);
  executor_.AdvanceTime(absl::Seconds(1));
  EXPECT_EQ(kv_.pending_waiters(), 1u);
  kv_.Close("t-1", "CANCELLED");
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
  EXPECT_EQ(completed.calls + expired.calls + aborted.calls, 3);
  EXPECT_THAT(*completed.result, IsOk());
  EXPECT_THAT(*expired.result, StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("never")));
  EXPECT_THAT(*aborted.result, StatusIs(absl::StatusCode::kAborted, HasSubstr("CANCELLED")));
}

// Per-key waiter lists (issue 15): a key absent twice in one wait counts
// once, so the waiter completes when it arrives, with the value twice.
TEST_F(RendezvousKvTest, RepeatedAbsentKeyCompletesOnItsOneSet) {
  WaitResult wait;
  kv_.Wait("t-1", {"a", "b", "a"}, kTimeout, wait.Callback());
  ASSERT_THAT(kv_.Set("t-1", "b", "2"), IsOk());
  EXPECT_FALSE(wait.done());
  ASSERT_THAT(kv_.Set("t-1", "a", "1"), IsOk());
  ASSERT_EQ(wait.calls, 1);
  ASSERT_THAT(*wait.result, IsOk());
  EXPECT_THAT(**wait.result, ElementsAre("1", "2", "1"));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

// Waiters that one set completes run in the order they started waiting,
// and a set of a key nobody waits for wakes nobody.
TEST_F(RendezvousKvTest, OneSetCompletesWaitersInTheirOrder) {
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    kv_.Wait("t-1", {"k"}, kTimeout, [&order, i](absl::StatusOr<std::vector<std::string>> r) {
      EXPECT_THAT(r, IsOk());
      order.push_back(i);
    });
  }
  ASSERT_THAT(kv_.Set("t-1", "unrelated", "x"), IsOk());
  EXPECT_TRUE(order.empty());
  ASSERT_THAT(kv_.Set("t-1", "k", "v"), IsOk());
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3, 4));
}

// An expired waiter leaves no trace in its keys' lists: a new waiter for
// the same key completes alone when it arrives.
TEST_F(RendezvousKvTest, ExpiredWaiterIsForgottenByItsKeys) {
  WaitResult expired, fresh;
  kv_.Wait("t-1", {"k", "j"}, kTimeout, expired.Callback());
  executor_.AdvanceTime(kTimeout);
  ASSERT_EQ(expired.calls, 1);
  kv_.Wait("t-1", {"k"}, kTimeout, fresh.Callback());
  ASSERT_THAT(kv_.Set("t-1", "k", "v"), IsOk());
  ASSERT_THAT(kv_.Set("t-1", "j", "w"), IsOk());
  EXPECT_EQ(expired.calls, 1);
  ASSERT_EQ(fresh.calls, 1);
  EXPECT_THAT(*fresh.result, IsOk());
  EXPECT_EQ(kv_.pending_waiters(), 0u);
}

// A Gloo rank reads its own entry of every peer's table in one wait
// (RendezvousWaitRequest.slice); the cut happens here, on the coordinator.
TEST_F(RendezvousKvTest, SliceCutsEachValueWhenTheLastKeyArrives) {
  ASSERT_THAT(kv_.Set("t-1", "mesh/0", "aaBBcc"), IsOk());
  WaitResult wait;
  kv_.Wait("t-1", {"mesh/0", "mesh/2"}, kTimeout, wait.Callback(), RendezvousKv::Slice{2, 2});
  EXPECT_FALSE(wait.done());
  ASSERT_THAT(kv_.Set("t-1", "mesh/2", "xxYYzz"), IsOk());
  ASSERT_TRUE(wait.done());
  ASSERT_THAT(*wait.result, IsOk());
  EXPECT_THAT(**wait.result, ElementsAre("BB", "YY"));
  EXPECT_EQ(kv_.pending_waiters(), 0u);
}

// RendezvousSlice.concatenated: one value, the slices in the order of the
// keys (a repeated key twice), not a string per key.
TEST_F(RendezvousKvTest, ConcatenatedSlicesAreOneValueInTheOrderOfTheKeys) {
  ASSERT_THAT(kv_.Set("t-1", "mesh/0", "aaBBcc"), IsOk());
  WaitResult wait;
  kv_.Wait("t-1", {"mesh/2", "mesh/0", "mesh/2"}, kTimeout, wait.Callback(),
           RendezvousKv::Slice{2, 2, /*concatenated=*/true});
  EXPECT_FALSE(wait.done());
  ASSERT_THAT(kv_.Set("t-1", "mesh/2", "xxYYzz"), IsOk());
  ASSERT_TRUE(wait.done());
  ASSERT_THAT(*wait.result, IsOk());
  EXPECT_THAT(**wait.result, ElementsAre("YYBBYY"));
  // A value too short still fails naming its key.
  ASSERT_THAT(kv_.Set("t-1", "mesh/3", "abc"), IsOk());
  WaitResult short_value;
  kv_.Wait("t-1", {"mesh/0", "mesh/3"}, kTimeout, short_value.Callback(),
           RendezvousKv::Slice{2, 2, /*concatenated=*/true});
  ASSERT_TRUE(short_value.done());
  EXPECT_THAT(*short_value.result,
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("mesh/3")));
}

TEST_F(RendezvousKvTest, SliceBeyondAValueFailsNamingItsKey) {
  ASSERT_THAT(kv_.Set("t-1", "mesh/0", "abcdef"), IsOk());
  ASSERT_THAT(kv_.Set("t-1", "mesh/1", "abc"), IsOk());
  WaitResult wait;
  kv_.Wait("t-1", {"mesh/0", "mesh/1"}, kTimeout, wait.Callback(), RendezvousKv::Slice{2, 2});
  ASSERT_TRUE(wait.done());
  EXPECT_THAT(*wait.result, StatusIs(absl::StatusCode::kFailedPrecondition,
                                     AllOf(HasSubstr("mesh/1"), HasSubstr("3 bytes"))));
}

TEST_F(RendezvousKvTest, BadSlicesAreRefusedNamingTheField) {
  struct Case {
    RendezvousKv::Slice slice;
    int keys;
    const char* field;
  };
  const Case cases[] = {
      {{-1, 4}, 1, "slice.offset"},
      {{spec::kMaxRendezvousValueBytes, 4}, 1, "slice.offset"},
      {{0, 0}, 1, "slice.length"},
      {{0, spec::kMaxRendezvousSliceBytes + 1}, 1, "slice.length"},
      {{0, spec::kMaxRendezvousSliceBytes}, 2049, "slice.length"},  // 8 MiB + 4 KiB reply
  };
  for (const Case& c : cases) {
    std::vector<std::string> keys;
    for (int i = 0; i < c.keys; ++i) keys.push_back("k" + std::to_string(i));
    WaitResult wait;
    kv_.Wait("t-1", keys, kTimeout, wait.Callback(), c.slice);
    ASSERT_TRUE(wait.done());
    EXPECT_THAT(*wait.result, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.field)))
        << c.slice.offset << " " << c.slice.length << " x " << c.keys;
  }
  EXPECT_EQ(kv_.pending_waiters(), 0u);
  EXPECT_EQ(executor_.pending_timers(), 0u);
}

}  // namespace
}  // namespace eb::coordinator
