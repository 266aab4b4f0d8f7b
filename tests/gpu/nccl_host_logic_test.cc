// The NCCL backend's host-side logic, which needs no GPU: status mapping,
// type mapping and device rules, the unique-ID exchange of non-zero ranks,
// option validation and the graph cache key. Runs (and passes) everywhere
// the NCCL transport builds.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "common/status/cuda_status.h"
#include "common/transport/nccl/nccl_collectives.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/nccl/nccl_graph_cache.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/nccl/nccl_unique_id.h"
#include "common/transport/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"

namespace eb::transport {
namespace {

using ::testing::HasSubstr;

// ---- cuda_status.h ----------------------------------------------------------

TEST(CudaStatusTest, MapsCudaErrors) {
  EXPECT_TRUE(common::CudaErrorToStatus(cudaSuccess, "x").ok());
  const absl::Status oom = common::CudaErrorToStatus(cudaErrorMemoryAllocation, "cudaMalloc");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(oom.message()), HasSubstr("cudaMalloc: cudaErrorMemoryAllocation"));
  EXPECT_EQ(common::CudaErrorToStatus(cudaErrorInvalidDevice, "x").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(common::CudaErrorToStatus(cudaErrorNoDevice, "x").code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(common::CudaErrorToStatus(cudaErrorInsufficientDriver, "x").code(),
            absl::StatusCode::kUnavailable);
  const absl::Status fault = common::CudaErrorToStatus(cudaErrorIllegalAddress, "kernel");
  EXPECT_EQ(fault.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(fault.message()), HasSubstr("cudaErrorIllegalAddress"));
}

TEST(CudaStatusTest, MapsNcclResults) {
  EXPECT_TRUE(common::NcclResultToStatus(ncclSuccess, nullptr, "x").ok());
  struct Case {
    ncclResult_t result;
    absl::StatusCode code;
  };
  for (const Case& c : {Case{ncclInvalidArgument, absl::StatusCode::kInvalidArgument},
                        Case{ncclInvalidUsage, absl::StatusCode::kInvalidArgument},
                        Case{ncclRemoteError, absl::StatusCode::kUnavailable},
                        Case{ncclSystemError, absl::StatusCode::kUnavailable},
                        Case{ncclInternalError, absl::StatusCode::kInternal},
                        Case{ncclUnhandledCudaError, absl::StatusCode::kInternal},
                        Case{ncclInProgress, absl::StatusCode::kInternal},
                        Case{static_cast<ncclResult_t>(99), absl::StatusCode::kUnknown}}) {
    const absl::Status status = common::NcclResultToStatus(c.result, nullptr, "ncclAllReduce");
    EXPECT_EQ(status.code(), c.code) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("ncclAllReduce: NCCL error"));
  }
  const absl::Status usage = common::NcclResultToStatus(ncclInvalidUsage, nullptr, "init");
  EXPECT_THAT(std::string(usage.message()), HasSubstr(ncclGetErrorString(ncclInvalidUsage)));
}

absl::Status FailingCuda() {
  EB_CUDA_RETURN_IF_ERROR(cudaErrorInvalidValue);
  return absl::OkStatus();
}
absl::Status FailingNccl() {
  EB_NCCL_RETURN_IF_ERROR(ncclSystemError);
  return absl::OkStatus();
}
absl::Status FailingNcclWithComm() {
  ncclComm_t comm = nullptr;
  EB_NCCL_RETURN_IF_ERROR(ncclSuccess, comm);
  EB_NCCL_RETURN_IF_ERROR(ncclRemoteError, comm);
  return absl::OkStatus();
}

TEST(CudaStatusTest, MacrosNameTheExpressionAndPlace) {
  const absl::Status cuda = FailingCuda();
  EXPECT_EQ(cuda.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(cuda.message()), HasSubstr("cudaErrorInvalidValue"));
  EXPECT_THAT(std::string(cuda.message()), HasSubstr("nccl_host_logic_test.cc:"));
  const absl::Status nccl = FailingNccl();
  EXPECT_EQ(nccl.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(nccl.message()), HasSubstr("ncclSystemError"));
  EXPECT_EQ(FailingNcclWithComm().code(), absl::StatusCode::kUnavailable);
}

// ---- nccl_types.h -----------------------------------------------------------

TEST(NcclTypesTest, MapsTypesAndOps) {
  EXPECT_EQ(ToNcclDataType(DataType::kInt8), ncclInt8);
  EXPECT_EQ(ToNcclDataType(DataType::kUint64), ncclUint64);
  EXPECT_EQ(ToNcclDataType(DataType::kHalf), ncclFloat16);
  EXPECT_EQ(ToNcclDataType(DataType::kFloat), ncclFloat32);
  EXPECT_EQ(ToNcclDataType(DataType::kDouble), ncclFloat64);
  EXPECT_EQ(ToNcclDataType(DataType::kBfloat16), ncclBfloat16);
  EXPECT_EQ(ToNcclDataType(DataType::kFp8E4M3), ncclFloat8e4m3);
  EXPECT_EQ(ToNcclDataType(DataType::kFp8E5M2), ncclFloat8e5m2);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kSum), ncclSum);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kProd), ncclProd);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kMax), ncclMax);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kMin), ncclMin);
  EXPECT_EQ(ToNcclRedOp(ReduceOp::kAvg), ncclAvg);
  EXPECT_TRUE(IsFloatingType(DataType::kBfloat16));
  EXPECT_FALSE(IsFloatingType(DataType::kUint32));
}

TEST(NcclTypesTest, Fp8NeedsHopperForReductions) {
  EXPECT_TRUE(CheckDeviceSupports(DataType::kFloat, Collective::kAllReduce, 80).ok());
  const absl::Status ampere = CheckDeviceSupports(DataType::kFp8E4M3, Collective::kAllGather, 80);
  EXPECT_EQ(ampere.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(std::string(ampere.message()),
            "data_type: f8e4m3 needs sm_89 or newer (this GPU is sm_80)");
  EXPECT_TRUE(CheckDeviceSupports(DataType::kFp8E5M2, Collective::kAllGather, 89).ok());
  EXPECT_EQ(CheckDeviceSupports(DataType::kFp8E5M2, Collective::kAllReduce, 89).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(CheckDeviceSupports(DataType::kFp8E4M3, Collective::kReduceScatter, 90).ok());
}

TEST(NcclTypesTest, AvgToleranceOnlyWhereNcclRounds) {
  for (int n : {1, 2, 4, 8, 16, 1024}) {
    EXPECT_EQ(VerifyUlpTolerance(Collective::kAllReduce, DataType::kFloat, ReduceOp::kAvg, n), 0u)
        << n;
  }
  EXPECT_EQ(VerifyUlpTolerance(Collective::kAllReduce, DataType::kHalf, ReduceOp::kAvg, 3), 4u);
  EXPECT_EQ(VerifyUlpTolerance(Collective::kReduce, DataType::kFp8E4M3, ReduceOp::kAvg, 24), 25u);
  EXPECT_EQ(VerifyUlpTolerance(Collective::kAllReduce, DataType::kInt32, ReduceOp::kAvg, 3), 0u);
  EXPECT_EQ(VerifyUlpTolerance(Collective::kAllReduce, DataType::kFloat, ReduceOp::kSum, 3), 0u);
  EXPECT_EQ(VerifyUlpTolerance(Collective::kAllGather, DataType::kFloat, ReduceOp::kAvg, 3), 0u);
}

TEST(NcclTypesTest, InPlacePointToPointIsNotChecked) {
  alignas(8) static uint8_t buffer[1 << 12];
  CollectiveCall call;
  call.type = DataType::kInt32;
  call.count = 16;
  call.send = buffer;
  call.recv = buffer;
  for (Collective c : {Collective::kAllToAll, Collective::kSendRecv}) {
    call.collective = c;
    call.recv = buffer;
    EXPECT_TRUE(IsUncheckableInPlace(call, 4)) << Name(c);
    EXPECT_FALSE(IsUncheckableInPlace(call, 1)) << Name(c);  // self copy is exact
    call.recv = buffer + 2048;                               // disjoint
    EXPECT_FALSE(IsUncheckableInPlace(call, 4)) << Name(c);
  }
  call.collective = Collective::kSendRecv;
  call.recv = buffer + 63;  // 64-byte send region, overlapping by one byte
  EXPECT_TRUE(IsUncheckableInPlace(call, 2));
  call.recv = buffer + 64;
  EXPECT_FALSE(IsUncheckableInPlace(call, 2));
  call.collective = Collective::kAllReduce;  // NCCL's in-place form is defined
  call.recv = buffer;
  EXPECT_FALSE(IsUncheckableInPlace(call, 4));
}

// NVIDIA/nccl#1950 as seen on the H200 with NCCL 2.28.3: reduce_scatter of
// 65560 bytes of double at world size 1 is 8194 elements (16-byte chunks),
// split over 5 blocks of 1638, which leaves 4.
TEST(NcclTypesTest, OneRankAvgBugIsPredictedExactly) {
  alignas(16) static uint8_t send[1 << 17];
  alignas(16) static uint8_t recv[1 << 17];
  const int v2283 = NcclVersionCode(2, 28, 3);
  CollectiveCall call;
  call.collective = Collective::kReduceScatter;
  call.type = DataType::kDouble;
  call.op = ReduceOp::kAvg;
  call.count = 8194;
  call.send = send;
  call.recv = recv;
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 4);
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, kNcclOneRankAvgFixedVersion), 0);  // fixed
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 2, v2283), 0);  // not the one-rank kernel
  call.count = 8195;  // all_reduce of the same size: 5 x 1640 covers it
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
  call.count = 1 << 14;  // powers of two, as in a -f 2 sweep, divide evenly
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
  call.count = 8194;
  call.recv = send;  // in place the tail keeps its input, x * 1: right
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
  call.recv = recv;
  call.op = ReduceOp::kSum;  // a plain copy in NCCL
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
  call.op = ReduceOp::kAvg;
  call.type = DataType::kInt64;  // integer avg is SumPostDiv: a copy too
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
  call.type = DataType::kFloat;  // 8194 floats: 3 blocks of 2732 (packs of 4)
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
  call.count = 32 * 4096 + 3;  // 32 blocks of 4096 floats: 3 left over
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 3);
  call.collective = Collective::kBroadcast;  // not a reduction
  EXPECT_EQ(NcclOneRankAvgUnwritten(call, 1, v2283), 0);
}

TEST(NcclCollectivesTest, AlltoAllNeedsNccl2280) {
  EXPECT_FALSE(UsesNcclAlltoAll(NcclVersionCode(2, 27, 7)));
  // The library linked here (2.28.9) exports it; so does the GPU machine's
  // 2.28.3.
  EXPECT_TRUE(UsesNcclAlltoAll(NcclVersionCode(2, 28, 3)));
}

// ---- nccl_unique_id.h (ranks other than 0 make no NCCL call) -----------------

ncclUniqueId SomeId() {
  ncclUniqueId id;
  for (size_t i = 0; i < sizeof(id.internal); ++i) id.internal[i] = static_cast<char>(i * 7);
  return id;
}

TEST(NcclUniqueIdTest, NonZeroRankFetchesThePublishedId) {
  eb::testing::InMemoryRendezvousStore store;
  ASSERT_TRUE(store.Set(kNcclUniqueIdKey, EncodeNcclUniqueId(SomeId())).ok());
  EXPECT_EQ(EncodeNcclUniqueId(SomeId()).size(), 128u);
  absl::StatusOr<ncclUniqueId> id =
      ExchangeNcclUniqueId(3, 4, store, absl::Now() + absl::Seconds(5));
  ASSERT_TRUE(id.ok()) << id.status();
  const ncclUniqueId expected = SomeId();
  EXPECT_EQ(std::memcmp(&*id, &expected, sizeof(expected)), 0);
}

TEST(NcclUniqueIdTest, WrongSizeIsInternal) {
  eb::testing::InMemoryRendezvousStore store;
  ASSERT_TRUE(store.Set(kNcclUniqueIdKey, "short").ok());
  const absl::Status status =
      ExchangeNcclUniqueId(1, 2, store, absl::Now() + absl::Seconds(5)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()), HasSubstr("holds 5 bytes, expected 128"));
}

TEST(NcclUniqueIdTest, MissingIdTimesOutNamingTheRank) {
  eb::testing::InMemoryRendezvousStore store;
  const absl::Time start = absl::Now();
  const absl::Status status =
      ExchangeNcclUniqueId(2, 4, store, absl::Now() + absl::Milliseconds(200)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("rank 2 of 4 waiting for the NCCL unique id from rank 0"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST(NcclUniqueIdTest, EndedTestIsAborted) {
  eb::testing::InMemoryRendezvousStore store;
  store.Close("test cancelled");
  EXPECT_EQ(ExchangeNcclUniqueId(1, 2, store, absl::Now() + absl::Seconds(5)).status().code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ(ExchangeNcclUniqueId(-1, 2, store, absl::Now()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- CreateNcclCommunicator validates before touching CUDA -------------------

TEST(NcclOptionsTest, BadOptionsAreInvalidArgument) {
  eb::testing::InMemoryRendezvousStore store;
  struct Case {
    NcclOptions options;
    const char* field;
  };
  NcclOptions world0;
  world0.world_size = 0;
  NcclOptions rank_out;
  rank_out.rank = 2;
  rank_out.world_size = 2;
  NcclOptions device_negative;
  device_negative.cuda_device = -1;
  NcclOptions no_init_time;
  no_init_time.init_timeout = absl::ZeroDuration();
  NcclOptions no_op_time;
  no_op_time.op_timeout = absl::Microseconds(10);
  NcclOptions graph_negative;
  graph_negative.cuda_graph_launches = -1;
  for (const Case& c :
       {Case{world0, "world_size"}, Case{rank_out, "rank"}, Case{device_negative, "cuda_device"},
        Case{no_init_time, "init_timeout"}, Case{no_op_time, "op_timeout"},
        Case{graph_negative, "cuda_graph_launches"}}) {
    const absl::Status status = CreateNcclCommunicator(c.options, store).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.field));
  }
  EXPECT_EQ(store.sets(), 0);
}

TEST(NcclRuntimeTest, ReportsTheLibraryVersion) {
  // ncclGetVersion needs no GPU.
  absl::StatusOr<int> version = NcclRuntimeVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_GE(*version, NcclVersionCode(2, 28, 0));
}

// ---- nccl_graph_cache.h -------------------------------------------------------

TEST(GraphCacheTest, KeysCompareEveryField) {
  int buffer[4];
  GraphKey a;
  a.call.count = 4;
  a.call.send = &buffer[0];
  a.call.recv = &buffer[0];
  a.iterations = 5;
  GraphKey b = a;
  EXPECT_TRUE(a == b);
  b.iterations = 6;
  EXPECT_FALSE(a == b);
  b = a;
  b.call.recv = &buffer[1];
  EXPECT_FALSE(a == b);
  b = a;
  b.call.op = ReduceOp::kMax;
  EXPECT_FALSE(a == b);
  b = a;
  b.call.rotation_steps = 3;  // other pointers in the captured iterations
  EXPECT_FALSE(a == b);
  b = a;
  b.call.rotation_stride_bytes = 64;
  EXPECT_FALSE(a == b);
  GraphCache cache(2);
  EXPECT_EQ(cache.Find(a), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace eb::transport
