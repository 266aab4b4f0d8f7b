// The GPUs as culprits (gpu_throttle.h; issue 29 item 6): NVML's violation
// counters per rank, judged alone (JudgeGpuThrottle, SummarizeGpuThrottle)
// and with arrivals, schedules and failures (DecideCulprit). Hand-built
// reports, no processes, no sleeps.

#include <string>
#include <vector>

#include "coordinator/validation/culprit.h"
#include "coordinator/validation/gpu_throttle.h"
#include "coordinator/validation/straggler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::Not;

// NCCL ranks: rank r on node "node<r/2>", slot and GPU r%2.
v1::TestReport GpuRanks(int ranks) {
  v1::TestReport report;
  report.set_transport(v1::TRANSPORT_NCCL);
  for (int r = 0; r < ranks; ++r) {
    v1::RankAssignment* rank = report.add_ranks();
    rank->set_rank(r);
    rank->set_node_name("node" + std::to_string(r / 2));
    rank->set_local_rank(r % 2);
    rank->set_device_index(r % 2);
  }
  return report;
}

struct GpuHeld {
  double thermal_us = 0;
  double power_us = 0;
  double low_utilization_us = 0;
  uint64_t reasons = 0;
  bool recorded = true;
};

// One size, both variants, timed batches of `wall_us`: per rank its
// arrival (5 us: nobody late unless said), no stall, and its GPU's counters.
void AddGpuRow(v1::TestReport& report, const std::vector<GpuHeld>& gpus, double wall_us,
               const std::vector<double>& arrivals = {}) {
  v1::SizeResult* row = report.add_results();
  for (v1::VariantResult* variant : {row->mutable_out_of_place(), row->mutable_in_place()}) {
    variant->set_time_us(wall_us / 10);
    for (size_t r = 0; r < gpus.size(); ++r) {
      variant->add_rank_arrival_us(arrivals.empty() ? 5.0 + static_cast<double>(r % 2)
                                                    : arrivals[r]);
      v1::RankSchedule* schedule = variant->add_rank_schedule();
      schedule->set_wall_us(wall_us);
      v1::GpuThrottle* gpu = variant->add_rank_gpu_throttle();
      if (!gpus[r].recorded) continue;
      gpu->set_wall_us(wall_us);
      gpu->set_thermal_us(gpus[r].thermal_us);
      gpu->set_power_us(gpus[r].power_us);
      gpu->set_low_utilization_us(gpus[r].low_utilization_us);
      gpu->set_reasons(gpus[r].reasons);
      gpu->set_reasons_read(true);
    }
  }
}

CulpritFinding DecideWithGpus(const v1::TestReport& report) {
  return DecideCulprit(report, AttributeStraggler(report));
}

// A GPU held back 41.2 % by its thermal limit: arrivals and schedules flat
// ("the path" without this signal), the GPU named with node, index, policy
// and the reasons NVML showed.
TEST(GpuThrottleTest, NamesTheOneThrottledGpuThatArrivalsAndSchedulesMiss) {
  v1::TestReport report = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(report, {{}, {}, {}, {.thermal_us = 41200, .reasons = 0x40 | 0x20}}, 100000);
  }
  const CulpritFinding f = DecideWithGpus(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_GPU_THROTTLED);
  ASSERT_TRUE(f.rank.has_value());
  EXPECT_EQ(f.rank->rank(), 3);
  EXPECT_EQ(f.rank->basis(), "gpu_throttled");
  EXPECT_EQ(f.rank->node_name(), "node1");
  EXPECT_EQ(f.rank->measurements(), 10);
  EXPECT_EQ(f.rank->slowest_count(), 10);
  EXPECT_DOUBLE_EQ(f.rank->mean_excess_pct(), 41.2);
  EXPECT_EQ(f.node, "node1");
  EXPECT_EQ(f.part, "GPU 1");
  EXPECT_THAT(f.reason,
              HasSubstr("rank 3 (node1 slot 1, GPU 1): its GPU was held below its clocks 41.2% "
                        "of the timed calls (thermal), the other GPUs at most 0.0%"));
  EXPECT_THAT(f.reason, HasSubstr("NVML showed SW thermal slowdown, HW thermal slowdown"));
  // What the other signals said stays readable after it.
  EXPECT_THAT(f.reason, HasSubstr("a slow result is the path"));
}

// A site power cap holds every GPU alike: no part, and not surely the path.
TEST(GpuThrottleTest, EveryGpuThrottledAlikeNamesNoPart) {
  v1::TestReport report = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(report,
              {{.power_us = 30000}, {.power_us = 31000}, {.power_us = 29000}, {.power_us = 32000}},
              100000);
  }
  const CulpritFinding f = DecideWithGpus(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_UNKNOWN);
  EXPECT_FALSE(f.rank.has_value());
  EXPECT_THAT(f.reason, HasSubstr("every GPU was held below its clocks 30.0% to 32.0% of the "
                                  "timed calls alike (power)"));
  EXPECT_THAT(f.reason, HasSubstr("no one part"));
}

// Under 5 % of the timed calls, or under 5 ms in all, is noise; so is any
// amount of low utilization (a GPU waiting on the network) and sync boost.
TEST(GpuThrottleTest, UnderTheFloorOrUnjudgedPoliciesAreFlat) {
  v1::TestReport small_share = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(small_share, {{}, {}, {}, {.thermal_us = 4900}}, 100000);
  }
  EXPECT_EQ(DecideWithGpus(small_share).culprit, v1::CULPRIT_PATH);
  EXPECT_EQ(JudgeGpuThrottle(small_share).kind, GpuThrottleVerdict::kFlat);

  v1::TestReport short_test = GpuRanks(4);
  AddGpuRow(short_test, {{}, {}, {}, {.thermal_us = 2000}}, 4000);  // 50 %, 4 ms in all
  EXPECT_EQ(JudgeGpuThrottle(short_test).kind, GpuThrottleVerdict::kFlat);

  v1::TestReport idle = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(idle, {{}, {}, {}, {.low_utilization_us = 90000}}, 100000);
  }
  EXPECT_EQ(DecideWithGpus(idle).culprit, v1::CULPRIT_PATH);
  const std::optional<v1::GpuThrottleSummary> summary =
      SummarizeGpuThrottle(idle.results(), idle.ranks_size());
  ASSERT_TRUE(summary.has_value());
  EXPECT_TRUE(summary->flat());
  EXPECT_EQ(summary->measurements(), 10);
}

// A late rank whose GPU was throttled: the GPU is the part, the arrival
// its evidence too; a late rank beside another rank's throttled GPU: the
// signals name different parts.
TEST(GpuThrottleTest, WithALateRank) {
  v1::TestReport same = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(same, {{}, {}, {.thermal_us = 40000}, {}}, 100000, {5, 6, 30007, 6});
  }
  const CulpritFinding agree = DecideWithGpus(same);
  EXPECT_EQ(agree.culprit, v1::CULPRIT_GPU_THROTTLED);
  ASSERT_TRUE(agree.rank.has_value());
  EXPECT_EQ(agree.rank->rank(), 2);
  EXPECT_EQ(agree.part, "GPU 0");
  EXPECT_THAT(agree.reason, HasSubstr("rank 2 (node1 slot 0, GPU 0): its GPU was held"));
  EXPECT_THAT(agree.reason, HasSubstr("arrived last"));

  v1::TestReport other = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(other, {{.thermal_us = 40000}, {}, {}, {}}, 100000, {5, 6, 30007, 6});
  }
  const CulpritFinding differ = DecideWithGpus(other);
  EXPECT_EQ(differ.culprit, v1::CULPRIT_UNKNOWN);
  EXPECT_FALSE(differ.rank.has_value());
  EXPECT_THAT(differ.reason, HasSubstr("the signals name different parts"));
}

// A rank stalled inside the calls whose GPU was throttled too: the
// schedule's finding stands (its process not running explains the stall),
// with the GPU's figures added.
TEST(GpuThrottleTest, WithADescheduledRank) {
  v1::TestReport report = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(report, {{}, {.thermal_us = 40000}, {}, {}}, 100000);
    for (v1::VariantResult* variant : {report.mutable_results(size)->mutable_out_of_place(),
                                       report.mutable_results(size)->mutable_in_place()}) {
      variant->mutable_rank_schedule(1)->set_stalled_us(30000);
    }
  }
  const CulpritFinding f = DecideWithGpus(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_DESCHEDULED_RANK);
  ASSERT_TRUE(f.rank.has_value());
  EXPECT_EQ(f.rank->rank(), 1);
  EXPECT_THAT(f.reason, HasSubstr("was stalled 30.0%"));
  EXPECT_THAT(f.reason, HasSubstr("and rank 1 (node0 slot 1, GPU 1): its GPU was held"));
}

// The failure that ended the test overrules every measurement, the GPUs'
// included.
TEST(GpuThrottleTest, NeverOverrulesAFailure) {
  v1::TestReport report = GpuRanks(4);
  for (int size = 0; size < 3; ++size) {
    AddGpuRow(report, {{}, {}, {}, {.thermal_us = 40000}}, 100000);
  }
  v1::Failure* failure = report.add_failures();
  failure->set_kind(v1::FAILURE_KIND_WORKER_HUNG);
  failure->set_rank(1);
  failure->set_node_name("node0");
  failure->set_message("rank 1 sent no heartbeat for 2.5s");
  const CulpritFinding f = DecideWithGpus(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_FAILURE);
  EXPECT_EQ(f.node, "node0");
  EXPECT_THAT(f.reason, HasSubstr("the test failed at rank 1"));
  EXPECT_THAT(f.reason, Not(HasSubstr("held below its clocks")));
}

// A rank whose NVML could not be read is unknown (-1 in the summary), not
// cleared, and does not hide the GPU that was throttled.
TEST(GpuThrottleTest, ARankWithoutCountersHidesNoOne) {
  v1::TestReport report = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(report, {{.recorded = false}, {}, {.power_us = 25000, .reasons = 0x80}, {}}, 100000);
  }
  const CulpritFinding f = DecideWithGpus(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_GPU_THROTTLED);
  ASSERT_TRUE(f.rank.has_value());
  EXPECT_EQ(f.rank->rank(), 2);
  EXPECT_THAT(f.reason, HasSubstr("(power)"));
  EXPECT_THAT(f.reason, HasSubstr("HW power brake slowdown"));
  const std::optional<v1::GpuThrottleSummary> summary =
      SummarizeGpuThrottle(report.results(), report.ranks_size());
  ASSERT_TRUE(summary.has_value());
  EXPECT_FALSE(summary->flat());
  EXPECT_DOUBLE_EQ(summary->rank_throttled_pct(0), -1.0);
  EXPECT_DOUBLE_EQ(summary->rank_throttled_pct(2), 25.0);
  EXPECT_EQ(summary->rank_policy(2), "power");
  EXPECT_EQ(summary->rank_policy(1), "");
  EXPECT_EQ(summary->rank_reasons(2), 0x80u);
}

// Two GPUs throttled about as much: no one GPU, and not the path.
TEST(GpuThrottleTest, TwoGpusAlikeNameNeither) {
  v1::TestReport report = GpuRanks(4);
  for (int size = 0; size < 5; ++size) {
    AddGpuRow(report, {{.thermal_us = 30000}, {}, {.thermal_us = 28000}, {}}, 100000);
  }
  const CulpritFinding f = DecideWithGpus(report);
  EXPECT_EQ(f.culprit, v1::CULPRIT_UNKNOWN);
  EXPECT_THAT(f.reason, HasSubstr("2 GPUs were held below their clocks up to 30.0%"));
}

// CPU transports and older workers record nothing: no summary, no change.
TEST(GpuThrottleTest, NoCountersNoSignal) {
  v1::TestReport report = GpuRanks(4);
  v1::SizeResult* row = report.add_results();
  row->mutable_out_of_place()->set_time_us(10);
  EXPECT_FALSE(SummarizeGpuThrottle(report.results(), report.ranks_size()).has_value());
  EXPECT_EQ(JudgeGpuThrottle(report).kind, GpuThrottleVerdict::kNone);
}

}  // namespace
}  // namespace eb::validation
