// NcclCommunicator over N = min(GPUs, 8) ranks, one thread per GPU in this
// process: the BenchmarkRunner passes with 0 wrong elements on every
// collective (plain and CUDA-graph mode), and every type, op and placement
// is exact across real NCCL transfers. Skips below two GPUs.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/transport/benchmark_runner.h"
#include "common/transport/communicator.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/types.h"
#include "gtest/gtest.h"
#include "tests/gpu/gpu_test_util.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::CheckEveryTypeAndOp;
using ::eb::transport::testing::CudaDeviceCount;
using ::eb::transport::testing::RunNcclRanks;

int WorldSize() { return std::min(CudaDeviceCount(), 8); }

// One sweep of the worker's benchmark loop; any wrong element or
// non-positive time fails the rank.
absl::Status RunSweep(Communicator& comm, const BenchmarkOptions& options) {
  BenchmarkRunner runner(comm, options);
  return runner.Run([&](const SizeMeasurement& m) -> absl::Status {
    for (const PlacementResult* p : {&m.out_of_place, &m.in_place}) {
      if (p->wrong != 0 || p->time_us <= 0) {
        return absl::InternalError(absl::StrCat(
            Name(options.collective), " ", Name(options.type), " ", Name(options.op), " size ",
            m.size_bytes, " rank ", comm.Rank(), ": ", p->wrong, " wrong, ", p->time_us, " us"));
      }
    }
    return absl::OkStatus();
  });
}

BenchmarkOptions SweepOptions(Collective c, DataType type, ReduceOp op, int world_size) {
  BenchmarkOptions o;
  o.collective = c;
  o.type = type;
  o.op = op;
  o.root = world_size - 1;
  o.sizes = {1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22};  // -b 1K -e 4M -f 4
  o.max_bytes = 4 << 20;
  o.iterations = 5;
  o.warmup_iterations = 1;
  o.check_iterations = 2;
  return o;
}

class NcclMultiGpuTest : public ::testing::TestWithParam<Collective> {};

TEST_P(NcclMultiGpuTest, BenchmarkRunnerFindsNoWrongElements) {
  EB_SKIP_UNLESS_GPUS(2);
  const int n = WorldSize();
  const BenchmarkOptions options = SweepOptions(GetParam(), DataType::kFloat, ReduceOp::kSum, n);
  const std::vector<absl::Status> results =
      RunNcclRanks(n, [&](Communicator& comm) { return RunSweep(comm, options); });
  for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
}

TEST_P(NcclMultiGpuTest, CudaGraphModeFindsNoWrongElements) {
  EB_SKIP_UNLESS_GPUS(2);
  const int n = WorldSize();
  const BenchmarkOptions options = SweepOptions(GetParam(), DataType::kBfloat16, ReduceOp::kSum, n);
  const std::vector<absl::Status> results = RunNcclRanks(
      n, [&](Communicator& comm) { return RunSweep(comm, options); },
      [](NcclOptions& o) { o.cuda_graph_launches = 1; });
  for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
}

TEST_P(NcclMultiGpuTest, EveryTypeOpAndPlacementIsExact) {
  EB_SKIP_UNLESS_GPUS(2);
  const Collective c = GetParam();
  const std::vector<absl::Status> results = RunNcclRanks(WorldSize(), [&](Communicator& comm) {
    return CheckEveryTypeAndOp(comm, c, {1000, 65560, 1 << 21});
  });
  for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
}

INSTANTIATE_TEST_SUITE_P(Collectives, NcclMultiGpuTest, ::testing::ValuesIn(kAllCollectives),
                         [](const ::testing::TestParamInfo<Collective>& param) {
                           return std::string(Name(param.param));
                         });

// avg on a world size that is not a power of two exercises the ulp
// tolerance with real NCCL rounding (3 of 4 or 8 GPUs).
TEST(NcclMultiGpuAvgTest, AvgOnThreeRanksIsWithinTolerance) {
  EB_SKIP_UNLESS_GPUS(3);
  for (DataType type : {DataType::kHalf, DataType::kBfloat16, DataType::kFloat, DataType::kDouble,
                        DataType::kFp8E4M3, DataType::kFp8E5M2}) {
    const BenchmarkOptions options = SweepOptions(Collective::kAllReduce, type, ReduceOp::kAvg, 3);
    const std::vector<absl::Status> results =
        RunNcclRanks(3, [&](Communicator& comm) { return RunSweep(comm, options); });
    for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
  }
}

}  // namespace
}  // namespace eb::transport
