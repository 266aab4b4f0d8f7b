// RingAllReduce (tcp_link/ring_all_reduce.h) on rings of 2-4 ranks as
// threads: exact sums for counts below, at and above the number of ranks
// and segments (uneven chunks, a short last segment, empty chunks), in
// place and out of place, and a failure of a neighbour fails the op.

#include "common/transport/tcp_link/ring_all_reduce.h"

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/unit/transport/ring_ranks.h"

namespace eb::transport {
namespace {

using ::eb::transport::testing::OnRanks;
using ::eb::transport::testing::Ring;
using std::chrono::seconds;

void SumUint32(void* out, const void* a, const void* b, size_t count) {
  auto* o = static_cast<uint32_t*>(out);
  const auto* x = static_cast<const uint32_t*>(a);
  const auto* y = static_cast<const uint32_t*>(b);
  for (size_t i = 0; i < count; ++i) o[i] = x[i] + y[i];
}

uint32_t Input(int rank, size_t i, int round) {
  return static_cast<uint32_t>(i * 2654435761u) ^ (static_cast<uint32_t>(rank + 1) << 24) ^
         static_cast<uint32_t>(round);
}

class RingAllReduceTest : public ::testing::TestWithParam<int> {};

TEST_P(RingAllReduceTest, SumsExactly) {
  const int n = GetParam();
  // Small segments, so that a small buffer has many (the pipeline's
  // bookkeeping is the same at any size).
  constexpr size_t kSegmentBytes = 4096;
  const size_t segment = kSegmentBytes / sizeof(uint32_t);
  // 1 element (chunks of 0 for all but one rank), n - 1, n + 1, a prime,
  // more than one segment per chunk with a short last one, and tens of
  // segments per chunk.
  const size_t counts[] = {1,
                           static_cast<size_t>(n - 1),
                           static_cast<size_t>(n + 1),
                           1009,
                           segment * static_cast<size_t>(n) * 2 + 13,
                           100003};
  std::vector<std::unique_ptr<RingLinks>> links = Ring(n);
  ASSERT_EQ(links.size(), static_cast<size_t>(n));
  std::vector<std::string> failures(static_cast<size_t>(n));
  OnRanks(n, [&](int rank) {
    int round = 0;
    for (size_t count : counts) {
      if (count == 0) continue;
      for (bool in_place : {false, true}) {
        ++round;
        std::vector<uint32_t> send(count);
        std::vector<uint32_t> recv(count + 16, 0xdeadbeef);
        for (size_t i = 0; i < count; ++i) send[i] = Input(rank, i, round);
        if (in_place) std::memcpy(recv.data(), send.data(), count * sizeof(uint32_t));
        std::vector<char> scratch(
            RingAllReduceScratchBytes(count, sizeof(uint32_t), n, kSegmentBytes));
        const absl::Status status =
            RingAllReduce(*links[static_cast<size_t>(rank)], in_place ? recv.data() : send.data(),
                          recv.data(), count, sizeof(uint32_t), &SumUint32, scratch.data(),
                          std::chrono::steady_clock::now() + seconds(20));
        const std::string what = absl::StrCat("count ", count, in_place ? " in place" : "");
        if (!status.ok()) {
          failures[static_cast<size_t>(rank)] = absl::StrCat(what, ": ", status.ToString());
          return;
        }
        for (size_t i = 0; i < count; ++i) {
          uint32_t want = 0;
          for (int peer = 0; peer < n; ++peer) want += Input(peer, i, round);
          if (recv[i] != want) {
            failures[static_cast<size_t>(rank)] = absl::StrCat(what, ": element ", i);
            return;
          }
        }
        for (size_t i = count; i < recv.size(); ++i) {
          if (recv[i] != 0xdeadbeef) {
            failures[static_cast<size_t>(rank)] = absl::StrCat(what, ": written past the end");
            return;
          }
        }
      }
    }
  });
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_EQ(failures[static_cast<size_t>(rank)], "") << "rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, RingAllReduceTest, ::testing::Values(2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return absl::StrCat("n", param.param);
                         });

TEST(RingAllReduceFailureTest, AnAbortedNeighbourFailsTheOp) {
  std::vector<std::unique_ptr<RingLinks>> links = Ring(3);
  ASSERT_EQ(links.size(), 3u);
  const size_t count = size_t{1} << 20;
  std::vector<absl::Status> results(3);
  OnRanks(3, [&](int rank) {
    if (rank == 2) {
      links[2]->Abort("rank 2 gone");
      return;
    }
    std::vector<uint32_t> buffer(count, 1);
    std::vector<char> scratch(RingAllReduceScratchBytes(count, sizeof(uint32_t), 3));
    results[static_cast<size_t>(rank)] = RingAllReduce(
        *links[static_cast<size_t>(rank)], buffer.data(), buffer.data(), count, sizeof(uint32_t),
        &SumUint32, scratch.data(), std::chrono::steady_clock::now() + seconds(60));
    // As a failed communicator does: the next rank learns by the reset.
    links[static_cast<size_t>(rank)]->Abort("failed");
  });
  EXPECT_EQ(results[0].code(), absl::StatusCode::kUnavailable) << results[0];
  EXPECT_EQ(results[1].code(), absl::StatusCode::kUnavailable) << results[1];
}

}  // namespace
}  // namespace eb::transport
