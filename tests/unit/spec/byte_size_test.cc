#include "common/spec/byte_size.h"

#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kFlag[] = "-b/--minbytes";

int64_t Parsed(const char* text) {
  absl::StatusOr<int64_t> bytes = ParseSize(text, kFlag);
  EXPECT_TRUE(bytes.ok()) << text << ": " << bytes.status();
  return bytes.ok() ? *bytes : -1;
}

// The message of the INVALID_ARGUMENT that `text` must produce.
std::string Error(const char* text) {
  absl::StatusOr<int64_t> bytes = ParseSize(text, kFlag);
  if (bytes.ok()) {
    ADD_FAILURE() << text << " parsed as " << *bytes;
    return "";
  }
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(bytes.status().message());
}

TEST(ParseSizeTest, PlainBytes) {
  EXPECT_EQ(Parsed("8"), 8);
  EXPECT_EQ(Parsed("0"), 0);
  EXPECT_EQ(Parsed("1048576"), 1048576);
  EXPECT_EQ(Parsed("+16"), 16);
  EXPECT_EQ(Parsed(" 32 "), 32);
  EXPECT_EQ(Parsed("8B"), 8);
}

TEST(ParseSizeTest, BinarySuffixesAnyCase) {
  EXPECT_EQ(Parsed("1K"), 1024);
  EXPECT_EQ(Parsed("1k"), 1024);
  EXPECT_EQ(Parsed("64M"), int64_t{64} << 20);
  EXPECT_EQ(Parsed("64m"), int64_t{64} << 20);
  EXPECT_EQ(Parsed("1G"), int64_t{1} << 30);
  EXPECT_EQ(Parsed("2T"), int64_t{2} << 40);
  EXPECT_EQ(Parsed("512KiB"), int64_t{512} << 10);
  EXPECT_EQ(Parsed("512kib"), int64_t{512} << 10);
  EXPECT_EQ(Parsed("64MB"), int64_t{64} << 20);
  EXPECT_EQ(Parsed("64mb"), int64_t{64} << 20);
  EXPECT_EQ(Parsed("16 G"), int64_t{16} << 30);  // nccl-tests' sscanf allows the blank
}

TEST(ParseSizeTest, WholeFractions) {
  EXPECT_EQ(Parsed("1.5K"), 1536);
  EXPECT_EQ(Parsed("0.5G"), int64_t{512} << 20);
  EXPECT_EQ(Parsed("2.0"), 2);
  EXPECT_EQ(Parsed("1.50M"), int64_t{3} << 19);
  EXPECT_THAT(Error("1.5"), HasSubstr("is not a whole number of bytes"));
  EXPECT_THAT(Error("0.1K"), HasSubstr("is not a whole number of bytes"));
}

TEST(ParseSizeTest, NegativeNamesTheFlag) {
  EXPECT_EQ(Error("-8"), "-b/--minbytes: '-8' is negative");
  EXPECT_EQ(Error("-1M"), "-b/--minbytes: '-1M' is negative");
}

TEST(ParseSizeTest, NotASize) {
  for (const char* text :
       {"abc", "64X", "64MiBs", "M", "1e6", "0x10", "inf", "nan", "8iB", ".", "1..2", "64 M B"}) {
    EXPECT_THAT(Error(text), StartsWith(std::string(kFlag) + ": '" + text + "' is not a size"))
        << text;
  }
  EXPECT_THAT(Error(""), StartsWith("-b/--minbytes: '' is empty"));
  EXPECT_THAT(Error("  "), HasSubstr("is empty"));
}

TEST(ParseSizeTest, Overflow) {
  EXPECT_EQ(Parsed("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_THAT(Error("9223372036854775808"),
              StartsWith("-b/--minbytes: '9223372036854775808' is too large"));
  EXPECT_THAT(Error("99999999999999999999999"), HasSubstr("is too large"));
  EXPECT_EQ(Parsed("8388607T"), int64_t{8388607} << 40);
  EXPECT_THAT(Error("8388608T"), HasSubstr("is too large"));
  EXPECT_THAT(Error("8589934592G"), HasSubstr("is too large"));
  EXPECT_THAT(Error("8388607.99999T"), HasSubstr("is not a whole number of bytes"));
}

TEST(ParseSizeTest, FlagNameIsTheCallers) {
  EXPECT_THAT(std::string(ParseSize("x", "-e/--maxbytes").status().message()),
              StartsWith("-e/--maxbytes: "));
}

TEST(FormatSizeTest, LargestExactUnit) {
  EXPECT_EQ(FormatSize(0), "0");
  EXPECT_EQ(FormatSize(8), "8");
  EXPECT_EQ(FormatSize(1536), "1536");
  EXPECT_EQ(FormatSize(1024), "1K");
  EXPECT_EQ(FormatSize(int64_t{64} << 20), "64M");
  EXPECT_EQ(FormatSize(int64_t{1} << 30), "1G");
  EXPECT_EQ(FormatSize(int64_t{3} << 29), "1536M");
  EXPECT_EQ(FormatSize(int64_t{2} << 40), "2T");
  EXPECT_EQ(FormatSize(-(int64_t{64} << 20)), "-64M");
}

TEST(FormatSizeTest, RoundTrips) {
  for (int64_t bytes : {int64_t{0}, int64_t{7}, int64_t{4096}, int64_t{3} << 20, int64_t{5} << 30,
                        std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(Parsed(FormatSize(bytes).c_str()), bytes) << FormatSize(bytes);
  }
}

}  // namespace
}  // namespace eb::spec
