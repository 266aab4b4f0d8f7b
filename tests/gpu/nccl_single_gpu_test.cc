// NcclCommunicator with world size 1 on one GPU: every collective, type, op
// and placement is exact; the checks catch poison and corruption; Run,
// Barrier, CUDA-graph mode and Abort behave as communicator.h promises.
// Skips where no GPU is visible.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/transport/collective_layout.h"
#include "common/transport/communicator.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/nccl/nccl_unique_id.h"
#include "common/transport/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"
#include "tests/gpu/gpu_test_util.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::BindCall;
using ::eb::transport::testing::CheckEveryTypeAndOp;
using ::eb::transport::testing::TestOptions;
using ::testing::HasSubstr;

std::unique_ptr<Communicator> MustCreate(eb::testing::InMemoryRendezvousStore& store,
                                         int cuda_graph_launches = 0) {
  NcclOptions options = TestOptions(0, 1, 0);
  options.cuda_graph_launches = cuda_graph_launches;
  absl::StatusOr<std::unique_ptr<Communicator>> comm = CreateNcclCommunicator(options, store);
  EXPECT_TRUE(comm.ok()) << comm.status();
  return comm.ok() ? std::move(comm).value() : nullptr;
}

class NcclSingleGpuTest : public ::testing::TestWithParam<Collective> {};

// Small, unaligned, several chunks, and a few MiB (NCCL's Simple protocol).
TEST_P(NcclSingleGpuTest, EveryTypeOpPlacementAndSizeIsExact) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  const absl::Status status = CheckEveryTypeAndOp(*comm, GetParam(), {8, 1000, 65560, 4 << 20});
  EXPECT_TRUE(status.ok()) << status;
}

INSTANTIATE_TEST_SUITE_P(Collectives, NcclSingleGpuTest, ::testing::ValuesIn(kAllCollectives),
                         [](const ::testing::TestParamInfo<Collective>& param) {
                           return std::string(Name(param.param));
                         });

TEST(NcclCommunicatorTest, RankZeroPublishesTheUniqueId) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  EXPECT_STREQ(comm->TransportName(), "nccl");
  EXPECT_EQ(comm->Rank(), 0);
  EXPECT_EQ(comm->WorldSize(), 1);
  EXPECT_TRUE(store.Contains(kNcclUniqueIdKey));
  absl::StatusOr<std::vector<std::string>> id = store.Wait({kNcclUniqueIdKey}, absl::Seconds(1));
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ((*id)[0].size(), sizeof(ncclUniqueId));
}

TEST(NcclCommunicatorTest, PoisonAndCorruptionAreCounted) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  for (DataType type : {DataType::kFloat, DataType::kHalf, DataType::kInt32}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg}) {
      absl::StatusOr<CollectiveLayout> layout =
          ComputeLayout(Collective::kAllReduce, 4096, DataTypeSize(type), 1);
      ASSERT_TRUE(layout.ok());
      auto send = comm->Allocate(layout->send_bytes());
      auto recv = comm->Allocate(layout->recv_bytes());
      ASSERT_TRUE(send.ok() && recv.ok());
      const CollectiveCall call =
          BindCall(Collective::kAllReduce, type, op, 0, *layout, false, 0, **send, **recv);
      const DataPattern pattern{call, 1, 42};
      const std::string what = absl::StrCat(Name(type), " ", Name(op));

      // Filled but never run: every received element is still poison.
      ASSERT_TRUE(comm->FillInput(pattern).ok()) << what;
      absl::StatusOr<int64_t> poisoned = comm->CountWrong(pattern);
      ASSERT_TRUE(poisoned.ok()) << poisoned.status();
      EXPECT_EQ(*poisoned, layout->recv_count) << what;

      ASSERT_TRUE(comm->Run(call, 1).ok()) << what;
      absl::StatusOr<int64_t> clean = comm->CountWrong(pattern);
      ASSERT_TRUE(clean.ok()) << clean.status();
      EXPECT_EQ(*clean, 0) << what;

      // Overwrite three elements with a value no input can produce (0x7F
      // bytes: a large number in every type, never a small integer).
      const size_t elt = DataTypeSize(type);
      auto* bytes = static_cast<uint8_t*>(call.recv);
      for (size_t index : {size_t{0}, size_t{17}, static_cast<size_t>(layout->recv_count - 1)}) {
        ASSERT_EQ(cudaMemset(bytes + index * elt, 0x7F, elt), cudaSuccess);
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      absl::StatusOr<int64_t> corrupted = comm->CountWrong(pattern);
      ASSERT_TRUE(corrupted.ok()) << corrupted.status();
      EXPECT_EQ(*corrupted, 3) << what;
    }
  }
}

TEST(NcclCommunicatorTest, RunTimesABatchAndChecksItsArguments) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  auto send = comm->Allocate(1 << 20);
  auto recv = comm->Allocate(1 << 20);
  ASSERT_TRUE(send.ok() && recv.ok());
  CollectiveCall call;
  call.count = (1 << 20) / sizeof(float);
  call.send = (*send)->data();
  call.recv = (*recv)->data();
  absl::StatusOr<absl::Duration> batch = comm->Run(call, 10);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_GT(*batch, absl::ZeroDuration());
  EXPECT_TRUE(comm->Barrier().ok());

  EXPECT_EQ(comm->Run(call, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(comm->FillInput(DataPattern{call, 2, 1}).code(), absl::StatusCode::kInvalidArgument);
  CollectiveCall rooted = call;
  rooted.collective = Collective::kBroadcast;
  rooted.root = 1;
  EXPECT_EQ(comm->Run(rooted, 1).status().code(), absl::StatusCode::kInvalidArgument);
  CollectiveCall null_buffers = call;
  null_buffers.send = nullptr;
  EXPECT_EQ(comm->Run(null_buffers, 1).status().code(), absl::StatusCode::kInvalidArgument);
  CollectiveCall empty = call;
  empty.count = 0;
  empty.send = empty.recv = nullptr;
  absl::StatusOr<absl::Duration> nothing = comm->Run(empty, 3);
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  EXPECT_EQ(*nothing, absl::ZeroDuration());
  // Argument errors leave the communicator usable.
  EXPECT_TRUE(comm->Run(call, 1).ok());
}

// nccl-tests -I: a CUDA event pair per call of the batch; the calls' times
// add up to about the batch's (the events between them cost little).
TEST(NcclCommunicatorTest, PerIterationTimesOneEntryPerCall) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  auto send = comm->Allocate(1 << 24);
  auto recv = comm->Allocate(1 << 24);
  ASSERT_TRUE(send.ok() && recv.ok());
  std::vector<absl::Duration> times;
  CollectiveCall call;
  call.count = (1 << 24) / sizeof(float);
  call.send = (*send)->data();
  call.recv = (*recv)->data();
  call.iteration_times = &times;
  absl::StatusOr<absl::Duration> batch = comm->Run(call, 7);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(times.size(), 7u);
  absl::Duration sum;
  for (absl::Duration t : times) {
    EXPECT_GT(t, absl::ZeroDuration());
    sum += t;
  }
  EXPECT_LE(sum, *batch * 1.05 + absl::Microseconds(50));
  EXPECT_GE(sum, *batch * 0.8);
}

TEST(NcclCommunicatorTest, AllocationFailureIsResourceExhausted) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  const absl::Status huge = comm->Allocate(size_t{1} << 52).status();  // 4 PiB
  EXPECT_EQ(huge.code(), absl::StatusCode::kResourceExhausted) << huge;
  EXPECT_THAT(std::string(huge.message()), HasSubstr("4503599627370496 bytes"));
  absl::StatusOr<std::unique_ptr<Buffer>> tiny = comm->Allocate(0);
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  EXPECT_EQ((*tiny)->size_bytes(), 1u);
  // The failed cudaMalloc left no error behind.
  EXPECT_TRUE(comm->Barrier().ok());
}

TEST(NcclCommunicatorTest, UnknownDeviceIsInvalidArgument) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  const int count = ::eb::transport::testing::CudaDeviceCount();
  const absl::Status status = CreateNcclCommunicator(TestOptions(0, 1, count), store).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("is not a device of this node"));
}

TEST(NcclCommunicatorTest, CudaGraphModeReplaysCapturedBatches) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store, /*cuda_graph_launches=*/3);
  ASSERT_NE(comm, nullptr);
  auto send = comm->Allocate(1 << 20);
  auto recv = comm->Allocate(1 << 20);
  ASSERT_TRUE(send.ok() && recv.ok());
  uint32_t seed = 1;
  // With one rank every collective is idempotent, so a batch of several
  // calls leaves the same, checkable result. More shapes than the cache
  // holds exercise eviction.
  for (Collective c : kAllCollectives) {
    for (int64_t size : {4096, 8192, 65536}) {
      absl::StatusOr<CollectiveLayout> layout = ComputeLayout(c, size, sizeof(float), 1);
      ASSERT_TRUE(layout.ok());
      const CollectiveCall call =
          BindCall(c, DataType::kFloat, ReduceOp::kSum, 0, *layout, false, 0, **send, **recv);
      const DataPattern pattern{call, 1, seed++};
      ASSERT_TRUE(comm->FillInput(pattern).ok());
      for (int round = 0; round < 2; ++round) {  // capture, then replay the cached graph
        absl::StatusOr<absl::Duration> batch = comm->Run(call, 4);
        ASSERT_TRUE(batch.ok()) << Name(c) << ": " << batch.status();
        EXPECT_GT(*batch, absl::ZeroDuration()) << Name(c);
        absl::StatusOr<absl::Duration> timed = comm->RunTimedBatch(call, 4);  // 3 launches
        ASSERT_TRUE(timed.ok()) << Name(c) << ": " << timed.status();
        EXPECT_GT(*timed, absl::ZeroDuration()) << Name(c);
      }
      absl::StatusOr<int64_t> wrong = comm->CountWrong(pattern);
      ASSERT_TRUE(wrong.ok()) << wrong.status();
      EXPECT_EQ(*wrong, 0) << Name(c) << " size " << size;
    }
  }
  EXPECT_TRUE(comm->Barrier().ok());
}

TEST(NcclCommunicatorTest, AbortIsIdempotentAndKeepsTheFirstReason) {
  EB_SKIP_UNLESS_GPUS(1);
  eb::testing::InMemoryRendezvousStore store;
  std::unique_ptr<Communicator> comm = MustCreate(store);
  ASSERT_NE(comm, nullptr);
  auto buffer = comm->Allocate(4096);
  ASSERT_TRUE(buffer.ok());
  CollectiveCall call;
  call.count = 1024;
  call.send = call.recv = (*buffer)->data();
  ASSERT_TRUE(comm->Run(call, 1).ok());

  const absl::Time start = absl::Now();
  comm->Abort("first reason");
  comm->Abort("second reason");
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  const absl::Status run = comm->Run(call, 1).status();
  EXPECT_EQ(run.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(run.message()), HasSubstr("first reason"));
  EXPECT_THAT(std::string(run.message()), ::testing::Not(HasSubstr("second reason")));
  EXPECT_EQ(comm->Barrier().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(comm->FillInput(DataPattern{call, 1, 1}).code(), absl::StatusCode::kAborted);
  EXPECT_EQ(comm->CountWrong(DataPattern{call, 1, 1}).status().code(), absl::StatusCode::kAborted);
  comm.reset();  // no finalize or destroy after an abort; must return
}

}  // namespace
}  // namespace eb::transport
