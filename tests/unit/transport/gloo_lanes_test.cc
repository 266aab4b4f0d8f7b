// sendrecv over the communicator's two lanes (issue 16): the ring shift
// sends each direction of a ring neighbour pair on a lane of its own (see
// RingShift in gloo_collectives.cc), so every world size must still move
// exactly the right bytes, in place and out of place, including messages
// large enough to fill the sockets' buffers many times over.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status/status_macros.h"
#include "common/transport/pattern.h"
#include "common/transport/types.h"
#include "gtest/gtest.h"
#include "tests/unit/transport/gloo_ranks.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::RunRanks;

// One element, a size that is no multiple of a page, and one of several
// socket buffers.
constexpr size_t kCounts[] = {1, (size_t{1} << 18) + 3, size_t{2} << 20};
constexpr size_t kLargestBytes = (size_t{2} << 20) * sizeof(int32_t);

absl::Status ShiftAndCheck(Communicator& comm) {
  const int n = comm.WorldSize();
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> send, comm.Allocate(kLargestBytes));
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> recv, comm.Allocate(kLargestBytes));
  uint32_t seed = 7;
  for (size_t count : kCounts) {
    for (bool in_place : {false, true}) {
      CollectiveCall call;
      call.collective = Collective::kSendRecv;
      call.type = DataType::kInt32;
      call.count = count;
      call.recv = recv->data();
      call.send = in_place ? recv->data() : send->data();
      // Back-to-back calls, each checked: a lane that delivered a message
      // late or to the wrong call would show as wrong elements.
      for (int round = 0; round < 3; ++round) {
        const DataPattern pattern{call, n, seed++};
        const std::string what =
            absl::StrCat("sendrecv count ", count, in_place ? " in-place" : " out-of-place",
                         " round ", round, " rank ", comm.Rank(), "/", n);
        EB_RETURN_IF_ERROR(comm.FillInput(pattern));
        absl::StatusOr<absl::Duration> elapsed = comm.Run(call, 1);
        if (!elapsed.ok()) {
          return absl::Status(elapsed.status().code(),
                              absl::StrCat(what, ": ", elapsed.status().message()));
        }
        EB_ASSIGN_OR_RETURN(int64_t wrong, comm.CountWrong(pattern));
        if (wrong != 0) return absl::InternalError(absl::StrCat(what, ": ", wrong, " wrong"));
      }
    }
  }
  // A batch of timed calls on both lanes, then one more checked call: the
  // batch left nothing behind on either lane.
  CollectiveCall call;
  call.collective = Collective::kSendRecv;
  call.type = DataType::kInt32;
  call.count = kCounts[2];
  call.send = send->data();
  call.recv = recv->data();
  EB_RETURN_IF_ERROR(comm.Run(call, 5).status());
  const DataPattern pattern{call, n, seed};
  EB_RETURN_IF_ERROR(comm.FillInput(pattern));
  EB_RETURN_IF_ERROR(comm.Run(call, 1).status());
  EB_ASSIGN_OR_RETURN(int64_t wrong, comm.CountWrong(pattern));
  if (wrong != 0) return absl::InternalError(absl::StrCat("after a batch: ", wrong, " wrong"));
  return comm.Barrier();
}

class GlooLanesTest : public ::testing::TestWithParam<int> {};

TEST_P(GlooLanesTest, SendRecvIsExactOnBothLanes) {
  const std::vector<absl::Status> results = RunRanks(GetParam(), ShiftAndCheck);
  for (const absl::Status& result : results) EXPECT_TRUE(result.ok()) << result;
}

INSTANTIATE_TEST_SUITE_P(Ranks, GlooLanesTest, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return absl::StrCat("n", param.param);
                         });

}  // namespace
}  // namespace eb::transport
