#include "coordinator/scheduler/drain_reason.h"

#include <string>

#include "gtest/gtest.h"

namespace eb::scheduler {
namespace {

TEST(DrainReasonTest, NamesPrefixValidationAndEvidence) {
  EXPECT_EQ(DrainReason("ebnccl", "v-20261206-1200-ab12", "rail 3 at 52% of expected", false),
            "ebnccl v-20261206-1200-ab12: rail 3 at 52% of expected");
  EXPECT_EQ(DrainReason("ebnccl", "v-1", "rail 3 slow", true),
            "ebnccl v-1: repeat offender: rail 3 slow");
}

TEST(DrainReasonTest, UntrustedEvidenceBecomesOneBoundedPrintableLine) {
  const std::string evidence =
      "rail 3\nState=RESUME\r\t\x1b[31mred\x7f caf\xc3\xa9 " + std::string(1000, 'x');
  const std::string reason = DrainReason("ebnccl", "v-1", evidence, false);
  EXPECT_EQ(reason.size(), kMaxReasonBytes);
  EXPECT_EQ(reason.substr(reason.size() - 3), "...");
  EXPECT_EQ(reason.rfind("ebnccl v-1: rail 3 State=RESUME [31mred? caf?? xxx", 0), 0u) << reason;
  for (char c : reason) {
    const unsigned char u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 && u < 0x7f) << static_cast<int>(u);
  }
}

TEST(DrainReasonTest, OneLineTable) {
  struct Case {
    std::string in;
    size_t max;
    std::string out;
  };
  const Case cases[] = {
      {"", 10, ""},
      {"plain", 10, "plain"},
      {"  a \n\n b  ", 10, "a b"},
      {"exactly10!", 10, "exactly10!"},
      {"eleven chars", 10, "eleven..."},
      {"abcdefghijk", 10, "abcdefg..."},
      {"abcdef", 2, ".."},
      {std::string("nul\0byte", 8), 20, "nul byte"},
  };
  for (const Case& c : cases) EXPECT_EQ(OneLine(c.in, c.max), c.out) << c.in;
}

TEST(DrainReasonTest, OwnershipByPrefix) {
  struct Case {
    std::string reason;
    bool ours;
  };
  const Case cases[] = {
      {"ebnccl v-1: rail 3 slow", true},
      {"ebnccl", true},
      {"ebnccl: by hand", true},
      {"ebncclx v-1", false},  // another tool's prefix that starts like ours
      {"Ebnccl v-1", false},
      {"maintenance: fan 2 (ebnccl v-1 said so)", false},
      {" ebnccl v-1", false},
      {"", false},
  };
  for (const Case& c : cases) EXPECT_EQ(IsOurReason(c.reason, "ebnccl"), c.ours) << c.reason;
  EXPECT_FALSE(IsOurReason("anything", ""));
}

}  // namespace
}  // namespace eb::scheduler
