// ParseSmaps on smaps text as the kernel writes it, and which mappings
// PagesAreFileCopies lets an idle process drop: only a file's read-only
// mappings with no page of their own (a relocated RELRO page, a swapped
// one) and nothing locked or special.

#include "common/memory/smaps.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A header and the fields this parser reads, the rest as the kernel has
// them.
std::string Entry(const std::string& header, int rss, int anonymous, int swap = 0, int locked = 0,
                  const std::string& flags = "rd mr mw me") {
  return header + "\n" + "Size:                 64 kB\nKernelPageSize:        4 kB\n" +
         "Rss:                  " + std::to_string(rss) + " kB\nPss:                  12 kB\n" +
         "Anonymous:            " + std::to_string(anonymous) + " kB\n" +
         "Swap:                 " + std::to_string(swap) + " kB\nSwapPss:               0 kB\n" +
         "Locked:               " + std::to_string(locked) + " kB\nTHPeligible:    0\n" +
         "ProtectionKey:         0\nVmFlags: " + flags + " \n";
}

TEST(SmapsTest, ParsesEachMappingWithItsPathSizesAndFlags) {
  const std::string text =
      Entry(
          "7f1c2a000000-7f1c2a010000 r-xp 00002000 fd:01 393   "
          "/usr/lib/x86_64-linux-gnu/libgrpc.so.29.0.0",
          48, 0, 0, 0, "rd ex mr mw me") +
      Entry("7f1c2a010000-7f1c2a014000 rw-p 00000000 00:00 0 ", 16, 16) +
      Entry("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                  [vdso]", 8, 0);
  absl::StatusOr<std::vector<Mapping>> mappings = ParseSmaps(text);
  ASSERT_TRUE(mappings.ok()) << mappings.status();
  ASSERT_EQ(mappings->size(), 3u);
  const Mapping& grpc = (*mappings)[0];
  EXPECT_EQ(grpc.start, 0x7f1c2a000000u);
  EXPECT_EQ(grpc.end, 0x7f1c2a010000u);
  EXPECT_EQ(grpc.permissions, "r-xp");
  EXPECT_EQ(grpc.path, "/usr/lib/x86_64-linux-gnu/libgrpc.so.29.0.0");
  EXPECT_EQ(grpc.rss_kb, 48);
  EXPECT_EQ(grpc.anonymous_kb, 0);
  EXPECT_THAT(grpc.vm_flags, ElementsAre("rd", "ex", "mr", "mw", "me"));
  EXPECT_EQ((*mappings)[1].path, "");
  EXPECT_EQ((*mappings)[1].anonymous_kb, 16);
  EXPECT_EQ((*mappings)[2].path, "[vdso]");
}

TEST(SmapsTest, APathWithSpacesIsKeptWhole) {
  absl::StatusOr<std::vector<Mapping>> mappings =
      ParseSmaps(Entry("1000-2000 r--p 00000000 fd:01 7 /opt/my tools/lib x.so", 4, 0));
  ASSERT_TRUE(mappings.ok()) << mappings.status();
  EXPECT_EQ(mappings->at(0).path, "/opt/my tools/lib x.so");
}

TEST(SmapsTest, OnlyCleanReadOnlyFileMappingsAreCopiesOfTheirFile) {
  const auto mapping = [](const std::string& header, int rss, int anonymous, int swap = 0,
                          int locked = 0, const std::string& flags = "rd mr mw me") {
    absl::StatusOr<std::vector<Mapping>> parsed =
        ParseSmaps(Entry(header, rss, anonymous, swap, locked, flags));
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    return parsed.ok() ? parsed->at(0) : Mapping{};
  };
  // Code and read-only data of a library: dropped.
  EXPECT_TRUE(PagesAreFileCopies(mapping("1000-9000 r-xp 0 fd:01 7 /usr/lib/libgrpc.so", 32, 0)));
  EXPECT_TRUE(PagesAreFileCopies(mapping("1000-9000 r--p 0 fd:01 7 /usr/lib/libgrpc.so", 32, 0)));
  // Its RELRO (read-only now, but relocated: pages of its own) or a
  // relocated page swapped out: kept, or the relocations would be lost.
  EXPECT_FALSE(PagesAreFileCopies(mapping("1000-9000 r--p 0 fd:01 7 /usr/lib/libgrpc.so", 32, 8)));
  EXPECT_FALSE(
      PagesAreFileCopies(mapping("1000-9000 r--p 0 fd:01 7 /usr/lib/libgrpc.so", 24, 0, 8)));
  // Writable data, anonymous memory, the heap, the vDSO: kept.
  EXPECT_FALSE(PagesAreFileCopies(mapping("1000-9000 rw-p 0 fd:01 7 /usr/lib/libgrpc.so", 32, 0)));
  EXPECT_FALSE(PagesAreFileCopies(mapping("1000-9000 r--p 0 00:00 0 ", 32, 0)));
  EXPECT_FALSE(PagesAreFileCopies(mapping("1000-9000 r--p 0 00:00 0 [heap]", 32, 0)));
  EXPECT_FALSE(PagesAreFileCopies(mapping("1000-9000 r-xp 0 00:00 0 [vdso]", 8, 0)));
  // Locked, I/O or PFN ranges, a deleted file, nothing resident: kept.
  EXPECT_FALSE(
      PagesAreFileCopies(mapping("1000-9000 r-xp 0 fd:01 7 /usr/lib/libgrpc.so", 32, 0, 0, 32)));
  EXPECT_FALSE(PagesAreFileCopies(
      mapping("1000-9000 r-xp 0 fd:01 7 /usr/lib/libgrpc.so", 32, 0, 0, 0, "rd ex lo")));
  EXPECT_FALSE(
      PagesAreFileCopies(mapping("1000-9000 r--s 0 00:05 7 /dev/mem", 32, 0, 0, 0, "rd sh io pf")));
  EXPECT_FALSE(
      PagesAreFileCopies(mapping("1000-9000 r-xp 0 fd:01 7 /usr/sbin/eb-agent (deleted)", 32, 0)));
  EXPECT_FALSE(PagesAreFileCopies(mapping("1000-9000 r-xp 0 fd:01 7 /usr/lib/libgrpc.so", 0, 0)));
}

TEST(SmapsTest, TextThatIsNotSmapsIsAnErrorNamingTheLine) {
  EXPECT_THAT(ParseSmaps("Rss: 4 kB\n").status().message(),
              HasSubstr("line 1 is a field before any mapping"));
  EXPECT_THAT(ParseSmaps("1000-2000 r--p 0 fd:01 7 /x\nRss: four kB\n").status().message(),
              HasSubstr("line 2: Rss is not a size in kB"));
  EXPECT_THAT(ParseSmaps("2000-1000 r--p 0 fd:01 7 /x\n").status().message(),
              HasSubstr("line 1 is neither a mapping nor a field"));
  EXPECT_THAT(ParseSmaps("hello world\n").status().message(),
              HasSubstr("line 1 is neither a mapping nor a field"));
  EXPECT_THAT(ParseSmaps(std::string(kMaxSmapsBytes + 1, 'x')).status().message(),
              HasSubstr("at most"));
  absl::StatusOr<std::vector<Mapping>> empty = ParseSmaps("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace eb::common
