// CoalescedWaits (agent/core/coalesced_waits.h): identical waits share one
// call while their deadlines allow, each call answers exactly its own
// waiters, and a finished call is forgotten; and RendezvousWaitKey
// (agent/core/rendezvous_wait_key.h), what makes two waits the same.

#include "agent/core/coalesced_waits.h"

#include "agent/core/rendezvous_wait_key.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kNow = absl::FromUnixSeconds(1000);
const absl::Duration kTimeout = absl::Seconds(30);

TEST(CoalescedWaitsTest, IdenticalWaitsShareOneCall) {
  CoalescedWaits<int> waits;
  const auto first = waits.Join("nccl-id", kNow + kTimeout, 1);
  EXPECT_TRUE(first.start);
  for (int worker = 2; worker <= 8; ++worker) {
    const auto joined = waits.Join("nccl-id", kNow + absl::Milliseconds(worker) + kTimeout, worker);
    EXPECT_FALSE(joined.start);
    EXPECT_EQ(joined.call, first.call);
  }
  EXPECT_EQ(waits.calls(), 1u);
  EXPECT_THAT(waits.Finish(first.call), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(waits.calls(), 0u);
  // Answered once only.
  EXPECT_THAT(waits.Finish(first.call), IsEmpty());
}

TEST(CoalescedWaitsTest, DifferentWaitsHaveTheirOwnCalls) {
  CoalescedWaits<int> waits;
  const auto a = waits.Join("slice-0", kNow + kTimeout, 1);
  const auto b = waits.Join("slice-1", kNow + kTimeout, 2);
  EXPECT_TRUE(a.start);
  EXPECT_TRUE(b.start);
  EXPECT_NE(a.call, b.call);
  EXPECT_THAT(waits.Finish(b.call), ElementsAre(2));
  EXPECT_THAT(waits.Finish(a.call), ElementsAre(1));
}

// A waiter whose own deadline is more than the join window after the call
// in flight would be cut short by joining it: it starts its own call, and
// later waiters join that newer one.
TEST(CoalescedWaitsTest, AMuchLaterWaiterStartsItsOwnCall) {
  CoalescedWaits<int> waits;
  const auto early = waits.Join("nccl-id", kNow + kTimeout, 1);
  const absl::Time later = kNow + CoalescedWaits<int>::kJoinWindow + absl::Milliseconds(1);
  const auto late = waits.Join("nccl-id", later + kTimeout, 2);
  EXPECT_TRUE(late.start);
  EXPECT_NE(late.call, early.call);
  const auto third = waits.Join("nccl-id", later + kTimeout, 3);
  EXPECT_EQ(third.call, late.call);
  // The early call ending does not forget the newer one.
  EXPECT_THAT(waits.Finish(early.call), ElementsAre(1));
  const auto fourth = waits.Join("nccl-id", later + kTimeout, 4);
  EXPECT_EQ(fourth.call, late.call);
  EXPECT_THAT(waits.Finish(late.call), ElementsAre(2, 3, 4));
}

// After a call ended, the same wait starts a new call (a retry after an
// error is not answered with the old error).
TEST(CoalescedWaitsTest, AWaitAfterTheCallEndedStartsANewOne) {
  CoalescedWaits<int> waits;
  const auto first = waits.Join("nccl-id", kNow + kTimeout, 1);
  EXPECT_THAT(waits.Finish(first.call), ElementsAre(1));
  const auto again = waits.Join("nccl-id", kNow + kTimeout, 2);
  EXPECT_TRUE(again.start);
  EXPECT_NE(again.call, first.call);
}

ebnccl::v1::RendezvousWaitRequest Wait(const std::string& test, const std::string& key,
                                       int64_t timeout_ms) {
  ebnccl::v1::RendezvousWaitRequest request;
  request.set_test_id(test);
  request.add_keys(key);
  request.set_timeout_ms(timeout_ms);
  return request;
}

// Real workers each ask with what is left of their own deadline: the same
// wait with 8 different timeouts is one key (issue 32 item 11), and the
// deadlines, within the join window, make it one call.
TEST(RendezvousWaitKeyTest, TheTimeoutIsNotPartOfTheWait) {
  EXPECT_EQ(RendezvousWaitKey(Wait("t-1", "nccl/id", 29'873)),
            RendezvousWaitKey(Wait("t-1", "nccl/id", 29'412)));
  EXPECT_NE(RendezvousWaitKey(Wait("t-1", "nccl/id", 1000)),
            RendezvousWaitKey(Wait("t-2", "nccl/id", 1000)));
  EXPECT_NE(RendezvousWaitKey(Wait("t-1", "nccl/id", 1000)),
            RendezvousWaitKey(Wait("t-1", "gloo/mesh/0", 1000)));
  ebnccl::v1::RendezvousWaitRequest sliced = Wait("t-1", "nccl/id", 1000);
  sliced.mutable_slice()->set_offset(48);
  sliced.mutable_slice()->set_length(48);
  EXPECT_NE(RendezvousWaitKey(sliced), RendezvousWaitKey(Wait("t-1", "nccl/id", 1000)));

  CoalescedWaits<int> waits;
  uint64_t call = 0;
  for (int worker = 1; worker <= 7; ++worker) {
    const int64_t left_ms = 30'000 - 37 * worker;  // CUDA start-up, per worker
    const auto joined = waits.Join(RendezvousWaitKey(Wait("t-1", "nccl/id", left_ms)),
                                   kNow + absl::Milliseconds(37 * worker + left_ms), worker);
    if (worker == 1) call = joined.call;
    EXPECT_EQ(joined.call, call) << "worker " << worker;
  }
  EXPECT_EQ(waits.calls(), 1u);
}

}  // namespace
}  // namespace eb::agent
