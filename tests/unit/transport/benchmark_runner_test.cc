#include "common/transport/benchmark_runner.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"
#include "common/transport/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_communicator.h"
#include "tests/unit/transport/gloo_ranks.h"

namespace eb::transport {
namespace {

using ::eb::testing::FakeCommunicator;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

BenchmarkOptions SmallSweep() {
  BenchmarkOptions o;
  o.collective = Collective::kAllReduce;
  o.type = DataType::kFloat;
  o.sizes = {64, 128, 256};
  o.max_bytes = 256;
  o.iterations = 4;
  o.warmup_iterations = 2;
  o.check_iterations = 3;
  return o;
}

std::vector<std::string> Kinds(const FakeCommunicator& comm) {
  std::vector<std::string> kinds;
  for (const auto& e : comm.events()) {
    kinds.push_back(e.kind == "run" || e.kind == "timed"
                        ? absl::StrCat(e.kind, e.iterations, "x", e.call.count)
                        : e.kind);
  }
  return kinds;
}

TEST(BenchmarkRunnerTest, FollowsNcclTestsSequence) {
  FakeCommunicator comm(0, 1);
  comm.set_time_per_call(absl::Microseconds(25));
  comm.set_wrong_per_check(1);
  std::vector<SizeMeasurement> rows;
  BenchmarkRunner runner(comm, SmallSweep());
  ASSERT_TRUE(runner
                  .Run([&](const SizeMeasurement& m) {
                    rows.push_back(m);
                    return absl::OkStatus();
                  })
                  .ok());

  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].size_bytes, 64);
  EXPECT_EQ(rows[0].count, 16);
  EXPECT_EQ(rows[2].size_bytes, 256);
  EXPECT_EQ(rows[2].count, 64);
  for (const SizeMeasurement& m : rows) {
    // The time is the timed batch only, per call.
    EXPECT_DOUBLE_EQ(m.out_of_place.time_us, 25);
    EXPECT_DOUBLE_EQ(m.in_place.time_us, 25);
    EXPECT_EQ(m.out_of_place.wrong, 3);  // summed over the 3 checks
    EXPECT_EQ(m.in_place.wrong, 3);
  }

  const std::vector<std::string> kinds = Kinds(comm);
  // Warm-up: doubling sizes, warmup_iterations calls each.
  EXPECT_THAT(std::vector<std::string>(kinds.begin(), kinds.begin() + 3),
              ElementsAre("run2x16", "run2x32", "run2x64"));
  // Then per placement: fill (seed 99), untimed call, barrier, timed batch
  // (RunTimedBatch: the only one, so that -G N repeats nothing else),
  // barrier, and per check: fill, call, count.
  EXPECT_THAT(std::vector<std::string>(kinds.begin() + 3, kinds.begin() + 3 + 14),
              ElementsAre("fill", "run1x16", "barrier", "timed4x16", "barrier", "fill", "run1x16",
                          "check", "fill", "run1x16", "check", "fill", "run1x16", "check"));
  EXPECT_EQ(comm.events()[3].seed, 99u);
  // Check seeds are fresh every time and never the timed seed.
  std::vector<uint32_t> check_seeds;
  for (const auto& e : comm.events()) {
    if (e.kind == "check") check_seeds.push_back(e.seed);
  }
  for (size_t i = 1; i < check_seeds.size(); ++i) EXPECT_GT(check_seeds[i], check_seeds[i - 1]);
  for (uint32_t s : check_seeds) EXPECT_NE(s, 99u);
}

// A GPU throttle probe that notes where in the communicator's calls each
// window begins and ends, and fails its third window.
class RecordingGpuProbe final : public GpuThrottleProbe {
 public:
  explicit RecordingGpuProbe(const FakeCommunicator& comm) : comm_(comm) {}
  Mark Begin() override {
    begins.push_back(comm_.events().size());
    return Mark{};
  }
  std::optional<GpuThrottleSample> End(const Mark&) override {
    ends.push_back(comm_.events().size());
    if (ends.size() == 3) return std::nullopt;
    GpuThrottleSample sample;
    sample.wall_us = 100;
    sample.violation_us[static_cast<int>(GpuPolicy::kThermal)] = 40;
    return sample;
  }
  std::vector<size_t> begins, ends;

 private:
  const FakeCommunicator& comm_;
};

// The GPU's counters are read around every timed batch, the first reading
// before the barrier that starts it (so that NVML's time never makes this
// rank late to the calls); a window that could not be read is no sample.
TEST(BenchmarkRunnerTest, GpuThrottleIsSampledFromBeforeTheBarrierToTheBatchsEnd) {
  FakeCommunicator comm(0, 1);
  RecordingGpuProbe probe(comm);
  BenchmarkOptions options = SmallSweep();
  options.gpu_throttle = &probe;
  std::vector<SizeMeasurement> rows;
  BenchmarkRunner runner(comm, options);
  ASSERT_TRUE(runner
                  .Run([&](const SizeMeasurement& m) {
                    rows.push_back(m);
                    return absl::OkStatus();
                  })
                  .ok());
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(probe.begins.size(), 6u);
  ASSERT_EQ(probe.ends.size(), 6u);
  for (size_t w = 0; w < probe.begins.size(); ++w) {
    // Begin: after the untimed call; then the barrier and the batch; End.
    EXPECT_EQ(comm.events()[probe.begins[w]].kind, "barrier") << w;
    EXPECT_EQ(comm.events()[probe.begins[w] + 1].kind, "timed") << w;
    EXPECT_EQ(probe.ends[w], probe.begins[w] + 2) << w;
  }
  ASSERT_TRUE(rows[0].out_of_place.gpu_throttle.has_value());
  EXPECT_DOUBLE_EQ(rows[0].out_of_place.gpu_throttle->violation_us[1], 40);
  EXPECT_FALSE(rows[1].out_of_place.gpu_throttle.has_value());  // the third window
  EXPECT_TRUE(rows[1].in_place.gpu_throttle.has_value());
}

TEST(BenchmarkRunnerTest, InPlacePointersAreNcclTests) {
  // all_gather, rank 2 of 4, 1 KiB float: chunk 64 elements.
  FakeCommunicator comm(2, 4);
  BenchmarkOptions o = SmallSweep();
  o.collective = Collective::kAllGather;
  o.sizes = {1024};
  o.max_bytes = 1024;
  o.warmup_iterations = 0;
  o.check_iterations = 0;
  BenchmarkRunner runner(comm, o);
  ASSERT_TRUE(runner.Run([](const SizeMeasurement&) { return absl::OkStatus(); }).ok());
  // Both buffers of the largest printed size, as nccl-tests allocates them.
  EXPECT_THAT(comm.allocations(), ElementsAre(1024u, 1024u));
  const uint8_t* send = comm.buffer(0);
  const uint8_t* recv = comm.buffer(1);
  std::vector<CollectiveCall> runs;
  for (const auto& e : comm.events()) {
    if (e.kind == "run" || e.kind == "timed") runs.push_back(e.call);
  }
  ASSERT_EQ(runs.size(), 4u);  // (untimed + timed) x 2 placements
  EXPECT_EQ(runs[0].send, send);
  EXPECT_EQ(runs[0].recv, recv);
  EXPECT_EQ(runs[0].count, 64u);
  EXPECT_EQ(runs[2].send, recv + 2 * 64 * 4);
  EXPECT_EQ(runs[2].recv, recv);
}

// nccl-tests' startColl moves every iteration of a batch by the printed
// size within buffers of maxbytes, so that no call runs from the cache the
// previous one warmed; checks run on the filled bytes only.
TEST(BenchmarkRunnerTest, TimedIterationsRotateThroughTheBuffersChecksDoNot) {
  FakeCommunicator comm(0, 1);
  BenchmarkRunner runner(comm, SmallSweep());  // 64, 128, 256 bytes
  ASSERT_TRUE(runner.Run([](const SizeMeasurement&) { return absl::OkStatus(); }).ok());
  EXPECT_THAT(comm.allocations(), ElementsAre(256u, 256u));
  std::map<size_t, std::pair<int, size_t>> timed;  // count -> (steps, stride)
  for (const auto& e : comm.events()) {
    if (e.kind == "timed") {
      timed[e.call.count] = {e.call.rotation_steps, e.call.rotation_stride_bytes};
    }
    if (e.kind == "fill" || e.kind == "check") {
      EXPECT_EQ(e.call.rotation_steps, 1);
    }
  }
  // 256 / 64 = 4 strides, 256 / 128 = 2, 256 / 256 = 1 (no room to move).
  EXPECT_THAT(timed, ElementsAre(Pair(16u, Pair(4, 64u)), Pair(32u, Pair(2, 128u)),
                                 Pair(64u, Pair(1, 0u))));

  uint8_t buffer[256];
  CollectiveCall call;
  call.send = buffer;
  call.recv = buffer + 8;
  call.rotation_stride_bytes = 64;
  call.rotation_steps = 4;
  EXPECT_EQ(AtIteration(call, 0).send, buffer);
  EXPECT_EQ(AtIteration(call, 1).send, buffer + 64);
  EXPECT_EQ(AtIteration(call, 3).recv, buffer + 8 + 192);
  EXPECT_EQ(AtIteration(call, 4).send, buffer);  // wraps around
  call.rotation_steps = 1;
  EXPECT_EQ(AtIteration(call, 3).send, buffer);
}

TEST(BenchmarkRunnerTest, ErrorsCarryTheSizeAndPlacement) {
  FakeCommunicator comm(0, 1);
  // Runs: 3 warm-up, then per placement 2 + 3 checks = 5: size 64 takes
  // runs 3..12; size 128's in-place untimed call is run 3 + 10 + 5 = 18.
  comm.FailRun(18, absl::UnavailableError("peer 3 is gone"));
  int calls = 0;
  BenchmarkRunner runner(comm, SmallSweep());
  absl::Status status = runner.Run([&](const SizeMeasurement&) {
    ++calls;
    return absl::OkStatus();
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(std::string(status.message()), "size 128 in-place: peer 3 is gone");
  EXPECT_EQ(calls, 1);

  FakeCommunicator warm(0, 1);
  warm.FailRun(1, absl::DeadlineExceededError("slow"));
  absl::Status warm_status = BenchmarkRunner(warm, SmallSweep()).Run([](const SizeMeasurement&) {
    return absl::OkStatus();
  });
  EXPECT_EQ(warm_status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(std::string(warm_status.message()), "warm-up size 128: slow");
}

TEST(BenchmarkRunnerTest, CallbackErrorStopsTheSweep) {
  FakeCommunicator comm(0, 1);
  int calls = 0;
  BenchmarkRunner runner(comm, SmallSweep());
  absl::Status status = runner.Run([&](const SizeMeasurement&) {
    ++calls;
    return absl::CancelledError("coordinator cancelled");
  });
  EXPECT_EQ(status, absl::CancelledError("coordinator cancelled"));
  EXPECT_EQ(calls, 1);
}

TEST(BenchmarkRunnerTest, RejectsBadOptions) {
  FakeCommunicator comm(0, 2);
  auto run = [&](const BenchmarkOptions& o) {
    return BenchmarkRunner(comm, o).Run([](const SizeMeasurement&) { return absl::OkStatus(); });
  };
  BenchmarkOptions o = SmallSweep();
  o.iterations = 0;
  EXPECT_THAT(std::string(run(o).message()), HasSubstr("iterations"));
  o = SmallSweep();
  o.check_iterations = -1;
  EXPECT_EQ(run(o).code(), absl::StatusCode::kInvalidArgument);
  o = SmallSweep();
  o.collective = Collective::kReduce;
  o.root = 2;
  EXPECT_THAT(std::string(run(o).message()), HasSubstr("root"));
  // The list comes from another process: checked before anything runs.
  o = SmallSweep();
  o.sizes = {};
  EXPECT_THAT(std::string(run(o).message()), HasSubstr("sizes: no size"));
  o = SmallSweep();
  o.sizes = {64, -8};
  EXPECT_THAT(std::string(run(o).message()), HasSubstr("sizes: size #1 (-8) is negative"));
  o = SmallSweep();
  o.sizes = {128, 64};
  EXPECT_THAT(std::string(run(o).message()), HasSubstr("sizes: size #1 (64) is smaller"));
  o = SmallSweep();
  o.sizes = {64, 512};
  EXPECT_THAT(std::string(run(o).message()), HasSubstr("larger than max_bytes 256"));
  o = SmallSweep();
  o.sizes = std::vector<int64_t>(kMaxSweepSizes + 1, 64);
  EXPECT_EQ(run(o).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(comm.events().empty());
}

// The runner computes no sweep: it runs the list it is given, in order,
// repeats included, with buffers and warm-up for max_bytes (nccl-tests' -e)
// even where the list ends below it.
TEST(BenchmarkRunnerTest, RunsExactlyTheGivenList) {
  FakeCommunicator comm(0, 1);
  BenchmarkOptions o = SmallSweep();
  o.sizes = {0, 96, 96, 200};
  o.max_bytes = 512;
  o.warmup_iterations = 1;
  o.check_iterations = 0;
  std::vector<int64_t> printed;
  ASSERT_TRUE(BenchmarkRunner(comm, o)
                  .Run([&](const SizeMeasurement& m) {
                    printed.push_back(m.size_bytes);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_THAT(printed, ElementsAre(0, 96, 96, 200));
  EXPECT_THAT(comm.allocations(), ElementsAre(512u, 512u));
  // Warm-up calls come before the first fill of the sweep.
  std::vector<size_t> warmup_counts, timed_counts;
  bool sweeping = false;
  for (const auto& e : comm.events()) {
    sweeping |= e.kind == "fill";
    if (e.kind == "run" && !sweeping) warmup_counts.push_back(e.call.count);
    if (e.kind == "timed") timed_counts.push_back(e.call.count);
  }
  // Out of place and in place, per size of the list.
  EXPECT_THAT(timed_counts, ElementsAre(0, 0, 24, 24, 24, 24, 50, 50));
  // From the first size (0, then 1) doubling up to max_bytes: 0..512 bytes.
  EXPECT_THAT(warmup_counts, ElementsAre(0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128));
}

// nccl-tests -I: the timed batch's calls, one time each; nothing without it
// (and never for the untimed or checked calls).
TEST(BenchmarkRunnerTest, PerIterationTimingRecordsEveryTimedCall) {
  for (const bool per_iter : {false, true}) {
    FakeCommunicator comm(0, 1);
    comm.set_time_per_call(absl::Microseconds(25));
    BenchmarkOptions options = SmallSweep();
    options.per_iter_timing = per_iter;
    std::vector<SizeMeasurement> rows;
    ASSERT_TRUE(BenchmarkRunner(comm, options)
                    .Run([&](const SizeMeasurement& m) {
                      rows.push_back(m);
                      return absl::OkStatus();
                    })
                    .ok());
    ASSERT_EQ(rows.size(), 3u);
    for (const SizeMeasurement& m : rows) {
      if (per_iter) {
        EXPECT_THAT(m.out_of_place.iteration_us, ElementsAre(25, 25, 25, 25));
        EXPECT_THAT(m.in_place.iteration_us, ElementsAre(25, 25, 25, 25));
      } else {
        EXPECT_TRUE(m.out_of_place.iteration_us.empty());
        EXPECT_TRUE(m.in_place.iteration_us.empty());
      }
    }
    for (const auto& e : comm.events()) {
      if (e.kind == "run") {
        EXPECT_EQ(e.call.iteration_times, nullptr);
      }
    }
  }
}

// The runner over real Gloo ranks: sizes and counts as nccl-tests prints
// them, a measured time and no wrong element.
void RunOverGloo(int world_size, Collective collective, DataType type, ReduceOp op) {
  BenchmarkOptions o;
  o.collective = collective;
  o.type = type;
  o.op = op;
  o.root = world_size - 1;
  o.sizes = {256, 1024, 4096, 16384};
  o.max_bytes = 16384;
  o.iterations = 3;
  o.warmup_iterations = 1;
  o.check_iterations = 2;
  o.per_iter_timing = true;
  std::vector<std::vector<SizeMeasurement>> rows(world_size);
  const std::vector<absl::Status> results =
      testing::RunRanks(world_size, [&](Communicator& comm) -> absl::Status {
        return BenchmarkRunner(comm, o).Run([&](const SizeMeasurement& m) {
          rows[comm.Rank()].push_back(m);
          return absl::OkStatus();
        });
      });
  const std::string what = absl::StrCat(Name(collective), " n=", world_size);
  for (const absl::Status& s : results) ASSERT_TRUE(s.ok()) << what << ": " << s;
  const std::vector<int64_t> sizes = {256, 1024, 4096, 16384};
  for (int r = 0; r < world_size; ++r) {
    ASSERT_EQ(rows[r].size(), sizes.size()) << what;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const SizeMeasurement& m = rows[r][i];
      auto layout = ComputeLayout(collective, sizes[i], DataTypeSize(type), world_size);
      ASSERT_TRUE(layout.ok());
      EXPECT_EQ(m.size_bytes, layout->printed_size_bytes()) << what;
      EXPECT_EQ(m.count, layout->param_count) << what;
      if (m.count > 0) {
        EXPECT_GT(m.out_of_place.time_us, 0) << what;
        EXPECT_GT(m.in_place.time_us, 0) << what;
      }
      EXPECT_EQ(m.out_of_place.wrong, 0) << what << " size " << sizes[i];
      EXPECT_EQ(m.in_place.wrong, 0) << what << " size " << sizes[i];
      // Gloo records when each of the 3 timed calls was issued, after the
      // barrier that precedes them.
      EXPECT_EQ(m.out_of_place.arrival_samples, 3) << what;
      EXPECT_EQ(m.in_place.arrival_samples, 3) << what;
      EXPECT_GE(m.out_of_place.arrival_us, 0) << what;
      EXPECT_GE(m.in_place.arrival_us, 0) << what;
      // -I: Gloo times each of the 3 timed calls.
      ASSERT_EQ(m.out_of_place.iteration_us.size(), 3u) << what;
      ASSERT_EQ(m.in_place.iteration_us.size(), 3u) << what;
      if (m.count > 0) {
        EXPECT_GT(m.out_of_place.iteration_us[0], 0) << what;
      }
    }
  }
}

// Issue 29: over Gloo every call of a size is reported as it completes,
// the timed ones with their time so far, so that the coordinator tells a
// slow size from a stuck one. 2 x (1 + 3 + 2) calls a size.
TEST(BenchmarkRunnerGlooTest, ReportsEveryCallOfASizeAsItCompletes) {
  BenchmarkOptions o;
  o.sizes = {1024, 4096};
  o.max_bytes = 4096;
  o.iterations = 3;
  o.warmup_iterations = 1;
  o.check_iterations = 2;
  std::vector<std::vector<SizeProgress>> seen(2);
  const std::vector<absl::Status> results =
      testing::RunRanks(2, [&](Communicator& comm) -> absl::Status {
        return BenchmarkRunner(comm, o).Run(
            [](const SizeMeasurement&) { return absl::OkStatus(); },
            [&](const SizeProgress& p) { seen[comm.Rank()].push_back(p); });
      });
  for (const absl::Status& s : results) ASSERT_TRUE(s.ok()) << s;
  for (const std::vector<SizeProgress>& told : seen) {
    // Besides the calls, the rank says when it starts and stops waiting on
    // its peers (around its own fills and checks).
    std::vector<SizeProgress> rank;
    int waits = 0;
    for (size_t i = 0; i < told.size(); ++i) {
      if (told[i].calls_done == 0 || (i > 0 && told[i].calls_done == told[i - 1].calls_done)) {
        if (i > 0) {
          EXPECT_NE(told[i].waiting_on_peers, told[i - 1].waiting_on_peers) << i;
        }
        ++waits;
        continue;
      }
      rank.push_back(told[i]);
    }
    EXPECT_GT(waits, 0);
    ASSERT_EQ(rank.size(), 2u * 12u);  // every call of both sizes
    // A call completes while the rank waits on its peers.
    for (const SizeProgress& p : rank) EXPECT_TRUE(p.waiting_on_peers);
    for (size_t i = 0; i < rank.size(); ++i) {
      EXPECT_EQ(rank[i].calls_done, static_cast<int>(i % 12) + 1) << i;
      EXPECT_EQ(rank[i].calls_planned, 12);
    }
    // The out-of-place variant's untimed call, then its 3 timed calls.
    EXPECT_EQ(rank[1].timed_calls, 1);
    EXPECT_EQ(rank[3].timed_calls, 3);
    EXPECT_GT(rank[3].timed_elapsed, absl::ZeroDuration());
    EXPECT_GE(rank[3].timed_elapsed, rank[1].timed_elapsed);
  }
}

TEST(BenchmarkRunnerGlooTest, AllReduceTwoRanks) {
  RunOverGloo(2, Collective::kAllReduce, DataType::kFloat, ReduceOp::kSum);
}

TEST(BenchmarkRunnerGlooTest, EveryCollectiveThreeRanks) {
  for (Collective c : kAllCollectives) RunOverGloo(3, c, DataType::kInt32, ReduceOp::kMax);
}

}  // namespace
}  // namespace eb::transport
