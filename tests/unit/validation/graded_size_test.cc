// How much each validation test measures (issue 29, item 3): the plateau
// of a sweep, the calls for 1 GiB per rail, and the sizes of intra and
// network tests with and without a baseline, a learned plateau, or the
// user's sweep. Pure.
#include "coordinator/validation/graded_size.h"

#include "gtest/gtest.h"

namespace eb::validation {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

TEST(PlateauBytesTest, SmallestSizeWithinFivePercentOfTheLargest) {
  // A typical curve: rising, then flat from 256M (97 of 100).
  EXPECT_EQ(PlateauBytes({{kMiB, 10}, {64 * kMiB, 70}, {256 * kMiB, 97}, {kGiB, 100}}), 256 * kMiB);
  // Rows in any order.
  EXPECT_EQ(PlateauBytes({{kGiB, 100}, {256 * kMiB, 97}, {kMiB, 10}}), 256 * kMiB);
  // Still rising at the top: the top is the plateau.
  EXPECT_EQ(PlateauBytes({{kMiB, 10}, {kGiB, 100}}), kGiB);
  // A dip after the plateau was reached still counts the first size there.
  EXPECT_EQ(PlateauBytes({{kMiB, 99}, {2 * kMiB, 50}, {4 * kMiB, 100}}), kMiB);
  // Nothing measured: unknown.
  EXPECT_EQ(PlateauBytes({}), 0);
  EXPECT_EQ(PlateauBytes({{kMiB, 5}, {kGiB, 0}}), 0);
}

TEST(IterationsForTest, EveryRailMovesAGibibyteWithinTheBounds) {
  const SizePolicy policy;
  EXPECT_EQ(IterationsFor(32 * kMiB, policy), 32);   // 32 x 32M = 1G
  EXPECT_EQ(IterationsFor(100 * kMiB, policy), 20);  // 11 would do: never fewer than -n 20
  EXPECT_EQ(IterationsFor(8 * kGiB, policy), 20);
  EXPECT_EQ(IterationsFor(3 * kMiB, policy), 342);  // rounded up
  EXPECT_EQ(IterationsFor(1, policy), 100000);      // capped
  EXPECT_EQ(IterationsFor(0, policy), 0);           // unknown size: the spec's
  SizePolicy user = policy;
  user.user_iterations = true;
  EXPECT_EQ(IterationsFor(32 * kMiB, user), 0);  // -n given: theirs
}

TEST(TestSizeTest, IntraSweepsToTheBaselineSizeOrThePolicysTop) {
  const SizePolicy policy;
  const TestSize plain = IntraTestSize(policy, 0);
  EXPECT_EQ(plain.min_bytes, kMiB);
  EXPECT_EQ(plain.max_bytes, kGiB);
  EXPECT_EQ(plain.iterations, 20);
  const TestSize figure = IntraTestSize(policy, 8 * kGiB);
  EXPECT_EQ(figure.max_bytes, 8 * kGiB);
  EXPECT_EQ(figure.graded_bytes(), 8 * kGiB);
  // A baseline below the top never shrinks the sweep.
  EXPECT_EQ(IntraTestSize(policy, 64 * kMiB).max_bytes, kGiB);
}

TEST(TestSizeTest, NetworkTestRunsOneSizeFromTheBaselineElseTheLearnedPlateau) {
  const SizePolicy policy;
  const TestSize figure = NetworkTestSize(policy, 8 * kGiB, 256 * kMiB);
  EXPECT_EQ(figure.min_bytes, 8 * kGiB);
  EXPECT_EQ(figure.max_bytes, 8 * kGiB);
  const TestSize learned = NetworkTestSize(policy, 0, 256 * kMiB);
  EXPECT_EQ(learned.min_bytes, 256 * kMiB);
  EXPECT_EQ(learned.max_bytes, 256 * kMiB);
  EXPECT_EQ(learned.iterations, 20);
  const TestSize none = NetworkTestSize(policy, 0, 0);
  EXPECT_EQ(none.max_bytes, kGiB);
  // Gloo's policy: a smaller top; 64M needs 16 calls for 1G, so 20.
  SizePolicy gloo = policy;
  gloo.sweep_max_bytes = 64 * kMiB;
  EXPECT_EQ(NetworkTestSize(gloo, 0, 0).max_bytes, 64 * kMiB);
  EXPECT_EQ(NetworkTestSize(gloo, 0, 4 * kMiB).iterations, 256);
}

TEST(TestSizeTest, TheUsersSweepIsKeptAndOnlyItsCallsFollowTheRule) {
  SizePolicy policy;
  policy.user_sweep = true;
  policy.user_max_bytes = 4 * kMiB;
  const TestSize intra = IntraTestSize(policy, 8 * kGiB);
  EXPECT_EQ(intra.max_bytes, 0);
  EXPECT_EQ(intra.iterations, 256);
  const TestSize pair = NetworkTestSize(policy, 8 * kGiB, kGiB);
  EXPECT_EQ(pair.max_bytes, 0);
  EXPECT_EQ(pair.iterations, 256);
  policy.user_iterations = true;
  EXPECT_EQ(NetworkTestSize(policy, 0, 0).iterations, 0);
}

}  // namespace
}  // namespace eb::validation
