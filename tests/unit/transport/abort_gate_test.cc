// AbortGate (common/transport/abort_gate.h): the NCCL backend's abort
// protocol, tested with plain threads. A "library call" here is whatever the
// owner does between Enter and Leave; a stuck one blocks until the abort's
// teardown releases it, as ncclCommAbort's abort flag releases a launch
// blocked on NCCL's work FIFO.

#include "common/transport/abort_gate.h"

#include <atomic>
#include <thread>
#include <utility>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

// Long enough that a test would time out (and fail) rather than pass by
// accident if BeginAbort waited for it.
constexpr absl::Duration kForever = absl::Hours(1);

TEST(AbortGateTest, FirstReasonWinsAndLaterAbortsReturnAtOnce) {
  AbortGate gate(kForever);
  EXPECT_FALSE(gate.aborted());
  EXPECT_EQ(gate.reason(), "");
  int takes = 0;
  const AbortGate::Begun first = gate.BeginAbort("peer 1 timed out", [&] { ++takes; });
  EXPECT_TRUE(first.first);
  EXPECT_TRUE(first.owner_out);
  EXPECT_TRUE(gate.aborted());
  const AbortGate::Begun second = gate.BeginAbort("cancelled", [&] { ++takes; });
  EXPECT_FALSE(second.first);
  EXPECT_EQ(takes, 1);
  gate.EndAbort();
  EXPECT_EQ(gate.reason(), "peer 1 timed out");
  gate.AwaitAbortDone();  // returns: no abort is running
}

TEST(AbortGateTest, NoCallStartsOnceAnAbortBegan) {
  AbortGate gate(kForever);
  int published = 0;
  ASSERT_TRUE(gate.Enter([&] { ++published; }));
  EXPECT_FALSE(gate.Leave());
  (void)gate.BeginAbort("stop", [] {});
  EXPECT_FALSE(gate.Enter([&] { ++published; }));
  EXPECT_EQ(published, 1);
  gate.EndAbort();
}

TEST(AbortGateTest, AbortWaitsForACallThatLeavesWithinTheGrace) {
  AbortGate gate(kForever);
  ASSERT_TRUE(gate.Enter());
  absl::Notification taken;
  AbortGate::Begun begun;
  std::thread aborter([&] {
    begun = gate.BeginAbort("stop", [&] { taken.Notify(); });
    gate.EndAbort();
  });
  // The abort has the handles and is waiting for this call to finish.
  taken.WaitForNotification();
  EXPECT_TRUE(gate.aborted());
  EXPECT_FALSE(gate.Leave());  // the abort cleans up: the owner left in time
  aborter.join();
  EXPECT_TRUE(begun.first);
  EXPECT_TRUE(begun.owner_out);
}

// The deadlock the gate exists to prevent: the owner is inside a call that
// only the abort's teardown can release. The abort must not wait for it
// beyond the grace, and the owner must learn that the cleanup is its own.
TEST(AbortGateTest, AbortBreaksAStuckCallAndHandsTheCleanupToTheOwner) {
  AbortGate gate(absl::Milliseconds(10));
  absl::Notification entered;
  absl::Notification released;  // ncclCommAbort's abort flag, in effect
  bool owner_cleans_up = false;
  std::thread owner([&] {
    ASSERT_TRUE(gate.Enter());
    entered.Notify();
    released.WaitForNotification();  // the stuck call
    owner_cleans_up = gate.Leave();
  });
  entered.WaitForNotification();
  const AbortGate::Begun begun = gate.BeginAbort("op deadline", [] {});
  EXPECT_TRUE(begun.first);
  EXPECT_FALSE(begun.owner_out);
  released.Notify();  // the library teardown runs under the stuck call
  gate.EndAbort();
  owner.join();
  EXPECT_TRUE(owner_cleans_up);
  // Reported once only.
  EXPECT_FALSE(gate.Enter());
  gate.AwaitAbortDone();
}

TEST(AbortGateTest, AwaitAbortDoneWaitsForEndAbort) {
  AbortGate gate(kForever);
  (void)gate.BeginAbort("stop", [] {});
  absl::Notification done;
  std::thread waiter([&] {
    gate.AwaitAbortDone();
    done.Notify();
  });
  EXPECT_FALSE(done.WaitForNotificationWithTimeout(absl::Milliseconds(20)));
  gate.EndAbort();
  waiter.join();
  EXPECT_TRUE(done.HasBeenNotified());
}

// Handles read inside Enter and taken inside BeginAbort are never used after
// the aborting thread freed them: the owner either got the handle and the
// abort waited for its call, or got null, or could not enter.
TEST(AbortGateTest, HandlesAreHandedOverWithoutARace) {
  for (int round = 0; round < 200; ++round) {
    AbortGate gate(kForever);
    auto* handle = new int(42);  // freed by the abort, as ncclCommAbort frees a comm
    int* shared = handle;        // what the gate guards (comm_ in NcclCommunicator)
    std::atomic<bool> used_after_free{false};
    std::thread owner([&] {
      while (true) {
        int* mine = nullptr;
        if (!gate.Enter([&] { mine = shared; })) return;
        if (mine != nullptr && *mine != 42) used_after_free = true;
        if (gate.Leave()) used_after_free = true;  // the abort never gave up
      }
    });
    int* taken = nullptr;
    const AbortGate::Begun begun =
        gate.BeginAbort("stop", [&] { taken = std::exchange(shared, nullptr); });
    ASSERT_TRUE(begun.owner_out);
    *taken = 0;  // poison, then free: the owner can no longer reach it
    delete taken;
    gate.EndAbort();
    owner.join();
    EXPECT_FALSE(used_after_free) << "round " << round;
  }
}

}  // namespace
}  // namespace eb::transport
