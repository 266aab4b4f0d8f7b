// Reconnect backoff: growth by the multiplier up to the cap, jitter bounds
// with an injected uniform source, and Reset.

#include "common/rpc/backoff.h"

#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::ElementsAre;

Backoff::Options NoJitter(absl::Duration initial, absl::Duration max, double multiplier) {
  Backoff::Options options;
  options.initial = initial;
  options.max = max;
  options.multiplier = multiplier;
  options.jitter = 0;
  return options;
}

std::vector<absl::Duration> Take(Backoff& backoff, int n) {
  std::vector<absl::Duration> delays;
  delays.reserve(n);
  for (int i = 0; i < n; ++i) delays.push_back(backoff.Next());
  return delays;
}

TEST(BackoffTest, DefaultsAreTheProductionValues) {
  const Backoff::Options options;
  EXPECT_EQ(options.initial, absl::Milliseconds(100));
  EXPECT_EQ(options.max, absl::Seconds(5));
  EXPECT_EQ(options.multiplier, 2.0);
  EXPECT_EQ(options.jitter, 0.2);
}

TEST(BackoffTest, GrowsByTheMultiplierUpToMax) {
  Backoff backoff(NoJitter(absl::Milliseconds(100), absl::Seconds(1), 2.0), [] { return 0.5; });
  EXPECT_THAT(Take(backoff, 7), ElementsAre(absl::Milliseconds(100), absl::Milliseconds(200),
                                            absl::Milliseconds(400), absl::Milliseconds(800),
                                            absl::Seconds(1), absl::Seconds(1), absl::Seconds(1)));
}

TEST(BackoffTest, NonIntegerMultiplier) {
  Backoff backoff(NoJitter(absl::Milliseconds(100), absl::Milliseconds(300), 1.5),
                  [] { return 0.0; });
  EXPECT_THAT(Take(backoff, 5),
              ElementsAre(absl::Milliseconds(100), absl::Milliseconds(150), absl::Milliseconds(225),
                          absl::Milliseconds(300), absl::Milliseconds(300)));
}

TEST(BackoffTest, InitialAboveMaxIsUsedOnceThenCapped) {
  Backoff backoff(NoJitter(absl::Seconds(10), absl::Seconds(5), 2.0), [] { return 0.5; });
  EXPECT_THAT(Take(backoff, 3), ElementsAre(absl::Seconds(10), absl::Seconds(5), absl::Seconds(5)));
}

TEST(BackoffTest, JitterMidpointIsExact) {
  Backoff::Options options;  // jitter 0.2
  Backoff backoff(options, [] { return 0.5; });
  EXPECT_THAT(Take(backoff, 3), ElementsAre(absl::Milliseconds(100), absl::Milliseconds(200),
                                            absl::Milliseconds(400)));
}

TEST(BackoffTest, JitterExtremes) {
  Backoff::Options options;
  options.jitter = 0.25;
  Backoff low(options, [] { return 0.0; });
  EXPECT_EQ(low.Next(), absl::Milliseconds(75));
  EXPECT_EQ(low.Next(), absl::Milliseconds(150));

  // The source returns values in [0, 1): the upper bound is approached, not
  // reached.
  Backoff high(options, [] { return 0.999999; });
  const absl::Duration first = high.Next();
  EXPECT_LT(first, absl::Milliseconds(125));
  EXPECT_GT(first, absl::Milliseconds(124.99));
}

TEST(BackoffTest, JitterStaysWithinBoundsOfTheUnjitteredDelay) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Backoff::Options options;
  options.initial = absl::Milliseconds(50);
  options.max = absl::Seconds(2);
  options.jitter = 0.3;
  Backoff jittered(options, [&] { return uniform(rng); });
  Backoff::Options exact_options = options;
  exact_options.jitter = 0;
  Backoff exact(exact_options, [] { return 0.5; });
  for (int i = 0; i < 200; ++i) {
    const absl::Duration base = exact.Next();
    const absl::Duration delay = jittered.Next();
    EXPECT_GE(delay, base * 0.7 - absl::Nanoseconds(1)) << i;
    EXPECT_LE(delay, base * 1.3 + absl::Nanoseconds(1)) << i;
  }
}

TEST(BackoffTest, ResetStartsAgainFromInitial) {
  Backoff backoff(NoJitter(absl::Milliseconds(100), absl::Seconds(5), 2.0), [] { return 0.5; });
  Take(backoff, 4);
  backoff.Reset();
  EXPECT_THAT(Take(backoff, 3), ElementsAre(absl::Milliseconds(100), absl::Milliseconds(200),
                                            absl::Milliseconds(400)));
  // Also after reaching the cap.
  Take(backoff, 20);
  backoff.Reset();
  EXPECT_EQ(backoff.Next(), absl::Milliseconds(100));
}

TEST(BackoffTest, DrawsOneRandomNumberPerDelay) {
  int draws = 0;
  Backoff backoff(Backoff::Options{}, [&] {
    ++draws;
    return 0.5;
  });
  Take(backoff, 5);
  EXPECT_EQ(draws, 5);
}

}  // namespace
}  // namespace eb::common
