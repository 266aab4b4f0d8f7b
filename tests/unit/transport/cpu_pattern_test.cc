#include "common/transport/cpu_pattern.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/transport/types.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

constexpr int kPatternRanks = 3;
constexpr size_t kPatternCount = 6;

// Buffers of every rank for one call, sized for the largest region.
struct World {
  std::vector<std::vector<float>> send{kPatternRanks,
                                       std::vector<float>(kPatternCount* kPatternRanks)};
  std::vector<std::vector<float>> recv{kPatternRanks,
                                       std::vector<float>(kPatternCount* kPatternRanks)};
};

DataPattern PatternFor(Collective c, World& w, int rank, uint32_t seed) {
  DataPattern p;
  p.call.collective = c;
  p.call.type = DataType::kFloat;
  p.call.op = ReduceOp::kSum;
  p.call.root = 1;
  p.call.count = kPatternCount;
  p.call.send = w.send[rank].data();
  p.call.recv = w.recv[rank].data();
  p.world_size = kPatternRanks;
  p.seed = seed;
  return p;
}

// A straightforward reference of each collective on the filled send
// buffers (sum), independent of pattern::Expected.
void Simulate(Collective c, World& w) {
  for (int r = 0; r < kPatternRanks; ++r) {
    for (size_t i = 0; i < kPatternCount * kPatternRanks; ++i) {
      const size_t q = i / kPatternCount;
      const size_t j = i % kPatternCount;
      float& out = w.recv[r][i];
      switch (c) {
        case Collective::kAllReduce:
        case Collective::kReduce:
          if (i < kPatternCount && (c == Collective::kAllReduce || r == 1)) {
            out = w.send[0][i] + w.send[1][i] + w.send[2][i];
          }
          break;
        case Collective::kReduceScatter:
          if (i < kPatternCount) {
            out = w.send[0][r * kPatternCount + i] + w.send[1][r * kPatternCount + i] +
                  w.send[2][r * kPatternCount + i];
          }
          break;
        case Collective::kBroadcast:
          if (i < kPatternCount) out = w.send[1][i];
          break;
        case Collective::kAllGather:
          out = w.send[q][j];
          break;
        case Collective::kAllToAll:
          out = w.send[q][r * kPatternCount + j];
          break;
        case Collective::kSendRecv:
          if (i < kPatternCount) out = w.send[(r + kPatternRanks - 1) % kPatternRanks][i];
          break;
      }
    }
  }
}

TEST(CpuPatternTest, FillThenReferenceCollectiveVerifiesAndOneFlipIsCounted) {
  for (Collective c : kAllCollectives) {
    World w;
    for (int r = 0; r < kPatternRanks; ++r) {
      ASSERT_TRUE(CpuFillInput(PatternFor(c, w, r, 42), r).ok());
    }
    Simulate(c, w);
    for (int r = 0; r < kPatternRanks; ++r) {
      auto wrong = CpuCountWrong(PatternFor(c, w, r, 42), r);
      ASSERT_TRUE(wrong.ok()) << wrong.status();
      EXPECT_EQ(*wrong, 0) << Name(c) << " rank " << r;
    }
    // Flip one element of the receive region of the root (defined on every
    // collective, reduce included).
    w.recv[1][kPatternCount - 1] += 1000.0f;
    auto wrong = CpuCountWrong(PatternFor(c, w, 1, 42), 1);
    ASSERT_TRUE(wrong.ok());
    EXPECT_EQ(*wrong, 1) << Name(c);
    // A different seed expects different data.
    auto stale = CpuCountWrong(PatternFor(c, w, 0, 43), 0);
    ASSERT_TRUE(stale.ok());
    if (c != Collective::kReduce) {
      EXPECT_GT(*stale, 0) << Name(c);
    }
  }
}

TEST(CpuPatternTest, FillPoisonsTheReceiveRegion) {
  World w;
  DataPattern p = PatternFor(Collective::kAllGather, w, 0, 1);
  ASSERT_TRUE(CpuFillInput(p, 0).ok());
  for (float v : w.recv[0]) EXPECT_TRUE(std::isnan(v));
  auto wrong = CpuCountWrong(p, 0);
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(*wrong, static_cast<int64_t>(kPatternCount * kPatternRanks));
}

TEST(CpuPatternTest, InPlaceAllGatherFillsTheRanksSlotAfterPoisoning) {
  World w;
  DataPattern p = PatternFor(Collective::kAllGather, w, 2, 1);
  p.call.send = w.recv[2].data() + 2 * kPatternCount;  // nccl-tests in-place
  ASSERT_TRUE(CpuFillInput(p, 2).ok());
  const pattern::PatternSpec spec = ToPatternSpec(p);
  for (size_t i = 0; i < kPatternCount; ++i) {
    EXPECT_EQ(w.recv[2][2 * kPatternCount + i], pattern::Input<float>(spec, 2, i));
    EXPECT_TRUE(std::isnan(w.recv[2][i]));
  }
}

TEST(CpuPatternTest, ReduceNonRootHasNothingToCheck) {
  World w;
  auto wrong = CpuCountWrong(PatternFor(Collective::kReduce, w, 0, 5), 0);
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(*wrong, 0);
}

TEST(CpuPatternTest, IntegerTypesWork) {
  std::vector<int8_t> send(16), recv(16);
  DataPattern p;
  p.call.collective = Collective::kSendRecv;
  p.call.type = DataType::kInt8;
  p.call.count = 16;
  p.call.send = send.data();
  p.call.recv = recv.data();
  p.world_size = 1;
  p.seed = 9;
  ASSERT_TRUE(CpuFillInput(p, 0).ok());
  recv = send;  // a one-rank ring shift is a copy
  EXPECT_EQ(*CpuCountWrong(p, 0), 0);
  recv[3] ^= 1;
  EXPECT_EQ(*CpuCountWrong(p, 0), 1);
}

TEST(CpuPatternTest, Errors) {
  World w;
  DataPattern p = PatternFor(Collective::kAllReduce, w, 0, 1);
  p.call.type = DataType::kHalf;
  EXPECT_EQ(CpuFillInput(p, 0).code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(CpuCountWrong(p, 0).status().code(), absl::StatusCode::kUnimplemented);
  p.call.type = DataType::kFloat;
  EXPECT_EQ(CpuFillInput(p, 3).code(), absl::StatusCode::kInvalidArgument);
  p.call.recv = nullptr;
  EXPECT_EQ(CpuFillInput(p, 0).code(), absl::StatusCode::kInvalidArgument);
  p.call.count = 0;
  EXPECT_TRUE(CpuFillInput(p, 0).ok());
  EXPECT_EQ(*CpuCountWrong(p, 0), 0);
  p = PatternFor(Collective::kBroadcast, w, 0, 1);
  p.call.root = 7;
  EXPECT_EQ(CpuFillInput(p, 0).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::transport
