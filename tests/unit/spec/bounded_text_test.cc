// The one bound for free text (common/spec/bounded_text.h): valid UTF-8,
// cut at a character boundary with a marker, every string field of a
// message (issue 32, item 2; P2-6.4, P2-4f1).

#include "common/spec/bounded_text.h"

#include <string>

#include "ebnccl/v1/control.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

const std::string kEuro = "\xE2\x82\xAC";  // 3 bytes
const std::string kFffd = "\xEF\xBF\xBD";

TEST(BoundedTextTest, ValidTextThatFitsIsUnchanged) {
  EXPECT_EQ(BoundedText("rank 1 exited", 64), "rank 1 exited");
  EXPECT_EQ(BoundedText(kEuro + "x", 4), kEuro + "x");
  EXPECT_EQ(BoundedText("", 0), "");
}

TEST(BoundedTextTest, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(BoundedText("a\xFF"
                        "b",
                        64),
            "a" + kFffd + "b");
  // Overlong "/", a UTF-16 surrogate, above U+10FFFF, a lone continuation.
  for (const std::string& bad : {std::string("\xC0\xAF"), std::string("\xED\xA0\x80"),
                                 std::string("\xF4\x90\x80\x80"), std::string("\x80")}) {
    EXPECT_FALSE(IsValidUtf8(bad));
    EXPECT_TRUE(IsValidUtf8(BoundedText(bad, 64)));
  }
  EXPECT_TRUE(IsValidUtf8("\xF0\x9F\x98\x80"));  // U+1F600
}

// P2-6.4: "x" + 400 x "€" cut at byte 512 left half a character, and every
// later `ebctl audit` failed.
TEST(BoundedTextTest, P2_6_4_CutsAtACharacterBoundaryWithAMarker) {
  std::string target = "x";
  for (int i = 0; i < 400; ++i) target += kEuro;
  const std::string cut = BoundedText(target, 512);
  EXPECT_LE(cut.size(), 512u);
  EXPECT_TRUE(IsValidUtf8(cut));
  EXPECT_THAT(cut, HasSubstr("\xE2\x80\xA6[cut "));
  EXPECT_THAT(cut, EndsWith(" bytes]"));
}

TEST(BoundedTextTest, TextCutInTheMiddleOfACharacterIsRepaired) {
  const std::string half = "ok " + kEuro.substr(0, 2);
  // One U+FFFD per byte that begins no character.
  EXPECT_EQ(BoundedText(half, 64), "ok " + kFffd + kFffd);
}

TEST(BoundedTextTest, TheMarkerSaysHowMuchWasDropped) {
  const std::string text(100, 'a');
  const std::string cut = BoundedText(text, 50);
  EXPECT_LE(cut.size(), 50u);
  // 50 minus the room for the longest marker (35) = 15 kept, 85 dropped.
  EXPECT_EQ(cut, std::string(15, 'a') + "\xE2\x80\xA6[cut 85 bytes]");
}

TEST(BoundedTextTest, LimitsSmallerThanTheMarkerStillHold) {
  for (size_t limit : {0u, 1u, 2u, 5u}) {
    const std::string cut = BoundedText(std::string(100, 'a') + kEuro, limit);
    EXPECT_LE(cut.size(), limit);
    EXPECT_TRUE(IsValidUtf8(cut));
  }
}

// P2-4f1: failure messages of 8 MB were stored uncut.
TEST(BoundedTextTest, P2_4f1_EveryStringFieldOfAMessageIsBounded) {
  ebnccl::v1::TestReport report;
  report.set_test_id("t-1");
  report.set_summary("bad \xFF");
  report.add_failures()->set_message(std::string(8 << 20, 'm'));
  report.add_failures()->set_message("fine");
  report.mutable_spec()->add_node_names("node\xC3");
  EXPECT_TRUE(MessageTextNeedsBounding(report));
  EXPECT_EQ(BoundMessageText(report), 3);
  EXPECT_FALSE(MessageTextNeedsBounding(report));
  EXPECT_EQ(report.test_id(), "t-1");
  EXPECT_EQ(report.summary(), "bad " + kFffd);
  EXPECT_LE(report.failures(0).message().size(), kMaxStoredTextBytes);
  EXPECT_THAT(report.failures(0).message(), EndsWith(" bytes]"));
  EXPECT_EQ(report.failures(1).message(), "fine");
  EXPECT_EQ(report.spec().node_names(0), "node" + kFffd);
  std::string wire;
  ASSERT_TRUE(report.SerializeToString(&wire));
  ebnccl::v1::TestReport back;
  EXPECT_TRUE(back.ParseFromString(wire));
}

TEST(BoundedTextTest, ABoundedMessageIsUntouched) {
  ebnccl::v1::TestReport report;
  report.set_test_id("t-1");
  report.add_failures()->set_message("rank 1 exited");
  EXPECT_FALSE(MessageTextNeedsBounding(report));
  EXPECT_EQ(BoundMessageText(report), 0);
}

}  // namespace
}  // namespace eb::spec
