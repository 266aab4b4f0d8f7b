#include "common/transport/gloo/gloo_communicator.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"
#include "common/transport/cpu_pattern.h"
#include "common/transport/pattern.h"
#include "common/transport/types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/transport/gloo_ranks.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::RunRanks;
using ::testing::HasSubstr;

struct TypeOp {
  DataType type;
  ReduceOp op;
};

// Every Gloo type at least once, every supported op at least twice.
constexpr TypeOp kTypeOps[] = {
    {DataType::kFloat, ReduceOp::kSum},  {DataType::kInt32, ReduceOp::kProd},
    {DataType::kDouble, ReduceOp::kMax}, {DataType::kUint8, ReduceOp::kMin},
    {DataType::kInt64, ReduceOp::kSum},  {DataType::kInt8, ReduceOp::kSum},
    {DataType::kUint64, ReduceOp::kMax}, {DataType::kUint32, ReduceOp::kMin},
    {DataType::kFloat, ReduceOp::kProd},
};

// Sizes in bytes: small and unaligned, and one that spans several of Gloo's
// ring segments.
constexpr int64_t kCommunicatorSizes[] = {1000, 40000};
constexpr size_t kBufferBytes = 2 * 40000;

// The pointers nccl-tests passes (startColl): out of place send -> recv; in
// place both inside the receive buffer at the rank's in-place offsets.
CollectiveCall BindCall(Collective c, TypeOp t, const CollectiveLayout& layout, bool in_place,
                        int rank, Buffer& send, Buffer& recv) {
  CollectiveCall call;
  call.collective = c;
  call.type = t.type;
  call.op = t.op;
  call.root = 0;
  call.count = static_cast<size_t>(layout.param_count);
  auto* base = static_cast<uint8_t*>(recv.data());
  call.send =
      in_place ? base + layout.send_inplace_offset * rank * layout.element_size : send.data();
  call.recv = in_place ? base + layout.recv_inplace_offset * rank * layout.element_size : base;
  return call;
}

// Runs every collective x type/op x placement x size once on this rank and
// checks the result; then corrupts two received elements and expects
// CountWrong to find exactly those.
absl::Status CheckEveryCollective(Communicator& comm) {
  const int n = comm.WorldSize();
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> send, comm.Allocate(kBufferBytes));
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> recv, comm.Allocate(kBufferBytes));
  uint32_t seed = 1;
  for (Collective c : kAllCollectives) {
    for (TypeOp t : kTypeOps) {
      for (int64_t size : kCommunicatorSizes) {
        for (bool in_place : {false, true}) {
          EB_ASSIGN_OR_RETURN(CollectiveLayout layout,
                              ComputeLayout(c, size, DataTypeSize(t.type), n));
          CollectiveCall call = BindCall(c, t, layout, in_place, comm.Rank(), *send, *recv);
          if (IsRooted(c)) call.root = n > 1 ? 1 : 0;  // not always rank 0
          const DataPattern pattern{call, n, seed++};
          const std::string what =
              absl::StrCat(Name(c), " ", Name(t.type), " ", Name(t.op), " size ", size,
                           in_place ? " in-place" : " out-of-place", " rank ", comm.Rank(), "/", n);
          EB_RETURN_IF_ERROR(comm.FillInput(pattern));
          absl::StatusOr<absl::Duration> elapsed = comm.Run(call, 1);
          if (!elapsed.ok()) {
            return absl::Status(elapsed.status().code(),
                                absl::StrCat(what, ": ", elapsed.status().message()));
          }
          EB_ASSIGN_OR_RETURN(int64_t wrong, comm.CountWrong(pattern));
          if (wrong != 0) return absl::InternalError(absl::StrCat(what, ": ", wrong, " wrong"));

          const uint64_t received = pattern::RecvElements(ToPatternSpec(pattern), comm.Rank());
          if (received >= 2) {
            auto* bytes = static_cast<uint8_t*>(call.recv);
            const size_t elt = DataTypeSize(t.type);
            bytes[0] ^= 1;                     // element 0
            bytes[(received - 1) * elt] ^= 1;  // the last element
            EB_ASSIGN_OR_RETURN(int64_t corrupted, comm.CountWrong(pattern));
            if (corrupted != 2) {
              return absl::InternalError(
                  absl::StrCat(what, ": corrupted 2 elements, CountWrong says ", corrupted));
            }
          }
        }
      }
    }
  }
  return comm.Barrier();
}

class GlooCollectivesTest : public ::testing::TestWithParam<int> {};

TEST_P(GlooCollectivesTest, EveryCollectiveAndPlacementIsExact) {
  const std::vector<absl::Status> results = RunRanks(GetParam(), CheckEveryCollective);
  for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooCollectivesTest, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return absl::StrCat("n", param.param);
                         });

// Send and receive regions that overlap in a way nccl-tests never uses:
// the backend must stage the input instead of reading half-overwritten data.
absl::Status CheckPartialOverlaps(Communicator& comm) {
  const int n = comm.WorldSize();
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buffer, comm.Allocate(kBufferBytes));
  auto* base = static_cast<uint8_t*>(buffer->data());
  uint32_t seed = 500;
  for (Collective c : kAllCollectives) {
    CollectiveCall call;
    call.collective = c;
    call.type = DataType::kInt32;
    call.op = ReduceOp::kSum;
    call.root = 0;
    call.count = 40;
    // recv starts one element after send: overlapping, but not in place.
    call.send = base;
    call.recv = base + 4;
    const DataPattern pattern{call, n, seed++};
    EB_RETURN_IF_ERROR(comm.FillInput(pattern));
    EB_RETURN_IF_ERROR(comm.Run(call, 1).status());
    EB_ASSIGN_OR_RETURN(int64_t wrong, comm.CountWrong(pattern));
    if (wrong != 0) {
      return absl::InternalError(absl::StrCat(Name(c), " partial overlap: ", wrong, " wrong"));
    }
  }
  return comm.Barrier();
}

TEST(GlooCommunicatorTest, PartialOverlapsAreStaged) {
  for (int n : {1, 3}) {
    const std::vector<absl::Status> results = RunRanks(n, CheckPartialOverlaps);
    for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(GlooCommunicatorTest, RunTimesABatchAndZeroCountIsANoOp) {
  const std::vector<absl::Status> results = RunRanks(2, [](Communicator& comm) -> absl::Status {
    EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> send, comm.Allocate(4096));
    EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> recv, comm.Allocate(4096));
    CollectiveCall call;
    call.count = 1024;
    call.send = send->data();
    call.recv = recv->data();
    EB_ASSIGN_OR_RETURN(absl::Duration batch, comm.Run(call, 5));
    if (batch <= absl::ZeroDuration()) return absl::InternalError("no time measured");
    call.count = 0;
    call.send = nullptr;
    call.recv = nullptr;
    EB_RETURN_IF_ERROR(comm.Run(call, 3).status());
    return comm.Barrier();
  });
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
}

TEST(GlooCommunicatorTest, ReportsWhatGlooCannotDo) {
  const std::vector<absl::Status> results = RunRanks(1, [](Communicator& comm) -> absl::Status {
    EXPECT_STREQ(comm.TransportName(), "gloo");
    EXPECT_EQ(comm.Rank(), 0);
    EXPECT_EQ(comm.WorldSize(), 1);
    EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> buf, comm.Allocate(0));
    EXPECT_EQ(buf->size_bytes(), 1u);
    EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> send, comm.Allocate(64));
    EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> recv, comm.Allocate(64));
    CollectiveCall call;
    call.count = 4;
    call.send = send->data();
    call.recv = recv->data();
    call.type = DataType::kHalf;
    absl::Status half = comm.Run(call, 1).status();
    EXPECT_EQ(half.code(), absl::StatusCode::kUnimplemented);
    EXPECT_EQ(std::string(half.message()),
              "data_type: half is not supported by the gloo transport");
    call.type = DataType::kFloat;
    call.op = ReduceOp::kAvg;
    absl::Status avg = comm.Run(call, 1).status();
    EXPECT_EQ(avg.code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(std::string(avg.message()), HasSubstr("avg"));
    EXPECT_EQ(comm.FillInput(DataPattern{call, 1, 1}).code(), absl::StatusCode::kOk);
    EXPECT_EQ(comm.FillInput(DataPattern{call, 2, 1}).code(), absl::StatusCode::kInvalidArgument);
    call.collective = Collective::kBroadcast;
    call.root = 3;
    EXPECT_EQ(comm.Run(call, 1).status().code(), absl::StatusCode::kInvalidArgument);
    call.root = 0;
    EXPECT_EQ(comm.Run(call, 0).status().code(), absl::StatusCode::kInvalidArgument);
    // Validation errors do not break the communicator.
    return comm.Run(call, 1).status();
  });
  EXPECT_TRUE(results[0].ok()) << results[0];
}

}  // namespace
}  // namespace eb::transport
