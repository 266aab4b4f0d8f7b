// The ring link's wire records (ring_frame.h): what one side encodes the
// other accepts, and every field a peer gets wrong is refused naming the
// peer's rank and the field.

#include "common/transport/tcp_link/ring_frame.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Bytes(const auto& array) { return std::string(array.data(), array.size()); }

TEST(RingFrameTest, HelloRoundTrips) {
  const RingHello hello{3, 4, 5, 0x0123456789abcdefu};
  const std::string bytes = Bytes(EncodeRingHello(hello));
  ASSERT_EQ(bytes.size(), kRingHelloBytes);
  EXPECT_EQ(bytes.substr(0, 4), "EBRH");
  EXPECT_TRUE(CheckRingHello(bytes, hello).ok());
}

TEST(RingFrameTest, HelloNamesTheFieldThatDiffers) {
  const RingHello want{3, 4, 5, 77};
  struct Case {
    RingHello got;
    const char* field;
  };
  const Case cases[] = {
      {{2, 4, 5, 77}, "hello from_rank: 2, expected 3"},
      {{3, 0, 5, 77}, "hello to_rank: 0, expected 4"},
      {{3, 4, 6, 77}, "hello world_size: 6, expected 5"},
      {{3, 4, 5, 78}, "hello token: not the one published for rank 3"},
  };
  for (const Case& c : cases) {
    const absl::Status status = CheckRingHello(Bytes(EncodeRingHello(c.got)), want);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("ring link from rank 3"), HasSubstr(c.field)));
  }
  std::string bytes = Bytes(EncodeRingHello(want));
  EXPECT_THAT(std::string(CheckRingHello(bytes.substr(1), want).message()),
              HasSubstr("hello size: 31 bytes, expected 32"));
  std::string bad = bytes;
  bad[0] = 'X';
  EXPECT_THAT(std::string(CheckRingHello(bad, want).message()), HasSubstr("hello magic"));
  bad = bytes;
  bad[7] = 9;  // version 9
  EXPECT_THAT(std::string(CheckRingHello(bad, want).message()),
              HasSubstr("hello version: 9, expected 1"));
  bad = bytes;
  bad[21] = 1;
  EXPECT_THAT(std::string(CheckRingHello(bad, want).message()), HasSubstr("hello padding"));
  // The token's value never appears in the message.
  EXPECT_THAT(std::string(CheckRingHello(bytes, RingHello{3, 4, 5, 123456789}).message()),
              ::testing::Not(HasSubstr("123456789")));
}

TEST(RingFrameTest, FrameRoundTrips) {
  const RingFrame frame{uint64_t{1} << 40, (uint64_t{1} << 33) + 5};
  const std::string bytes = Bytes(EncodeRingFrame(frame));
  ASSERT_EQ(bytes.size(), kRingFrameBytes);
  EXPECT_EQ(bytes.substr(0, 4), "EBRF");
  EXPECT_TRUE(CheckRingFrame(bytes, frame, 2).ok());
  EXPECT_TRUE(CheckRingFrame(Bytes(EncodeRingFrame({0, 0})), RingFrame{0, 0}, 2).ok());
}

TEST(RingFrameTest, FrameNamesThePeerAndTheField) {
  const RingFrame want{7, 4096};
  absl::Status status = CheckRingFrame(Bytes(EncodeRingFrame({8, 4096})), want, 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("ring link from rank 2"), HasSubstr("frame seq: 8, expected 7")));
  status = CheckRingFrame(Bytes(EncodeRingFrame({7, 4097})), want, 2);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("rank 2"), HasSubstr("frame bytes: 4097, expected 4096")));
  std::string bytes = Bytes(EncodeRingFrame(want));
  EXPECT_THAT(std::string(CheckRingFrame(bytes.substr(0, 23), want, 2).message()),
              HasSubstr("frame size: 23 bytes, expected 24"));
  std::string bad = bytes;
  bad[3] = 'H';
  EXPECT_THAT(std::string(CheckRingFrame(bad, want, 2).message()), HasSubstr("frame magic"));
  bad = bytes;
  bad[5] = 1;
  EXPECT_THAT(std::string(CheckRingFrame(bad, want, 2).message()), HasSubstr("frame padding"));
}

}  // namespace
}  // namespace eb::transport
