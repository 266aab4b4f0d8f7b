// The one output sanitizer (common/spec/terminal_text.h; issue 32, item 6).

#include "common/spec/terminal_text.h"

#include <string>

#include "ebnccl/v1/control.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

TEST(TerminalTextTest, P2_2_18_EscapesControlsKeepsText) {
  EXPECT_EQ(Printable("plain text, 1.5 GB/s"), "plain text, 1.5 GB/s");
  EXPECT_EQ(Printable("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(Printable("line\r\n\ttab"), "line\\r\\n\\ttab");
  EXPECT_EQ(Printable("back\\slash"), "back\\\\slash");
  EXPECT_EQ(Printable("del\x7f"), "del\\x7f");
  // Well-formed UTF-8 is kept; C1 controls (U+009B is a CSI) are not.
  EXPECT_EQ(Printable("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(Printable("\xc2\x9b"
                      "2J"),
            "\\xc2\\x9b2J");
}

TEST(TerminalTextTest, P2_2_11_InvalidUtf8ShownAsBytes) {
  EXPECT_EQ(Printable("a\xff"
                      "b"),
            "a\\xffb");
  // A character cut in the middle: its bytes, never half a character.
  EXPECT_EQ(Printable("x\xe2\x82"), "x\\xe2\\x82");
}

TEST(TerminalTextTest, PrintableLinesKeepsLinesOnly) {
  EXPECT_EQ(PrintableLines("one\n\ttwo\r\x1b[2K"), "one\n\ttwo\\r\\x1b[2K");
}

TEST(TerminalTextTest, PrintableAsciiEscapesEveryOtherByte) {
  EXPECT_EQ(PrintableAscii("\xe2\x82\xac\n"), "\\xe2\\x82\\xac\\n");
}

TEST(TerminalTextTest, OneLineCollapsesAndCuts) {
  EXPECT_EQ(OneLine("a\n\x1b[2J  b\xe2\x82\xac", 100), "a [2J b???");
  EXPECT_EQ(OneLine("abcdefgh", 6), "abc...");
}

TEST(TerminalTextTest, P2_6_3_MakePrintableEveryStringField) {
  ebnccl::v1::ListAuditReply reply;
  ebnccl::v1::AuditEntry* entry = reply.add_entries();
  entry->set_target("t\x1b[2K\rforged");
  entry->set_identity("ok");
  EXPECT_EQ(MakePrintable(reply), 1);
  EXPECT_EQ(reply.entries(0).target(), "t\\x1b[2K\\rforged");
  EXPECT_EQ(reply.entries(0).identity(), "ok");
  EXPECT_EQ(MakePrintable(reply), 1);  // not idempotent: '\' is escaped again
}

}  // namespace
}  // namespace eb::spec
