// PCI bus ids from the driver, NVML and CUDA compare equal once normalised;
// the worker's device check names both ids; memory sizes print as vendors
// print them.

#include "common/gpu/pci_bus_id.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(PciBusIdTest, DriverNvmlAndCudaFormsNormaliseToOne) {
  // /proc/driver/nvidia, NVML (8-digit domain, upper case), CUDA.
  for (const char* id : {"0000:0a:00.0", "00000000:0A:00.0", "0000:0A:00.0", " 0000:0a:00.0\n"}) {
    auto normalized = NormalizePciBusId(id);
    ASSERT_TRUE(normalized.ok()) << id << ": " << normalized.status();
    EXPECT_EQ(*normalized, "0000:0a:00.0") << id;
  }
}

TEST(PciBusIdTest, MissingDomainIsZeroAndShortFieldsArePadded) {
  EXPECT_EQ(*NormalizePciBusId("9a:0.1"), "0000:9a:00.1");
  EXPECT_EQ(*NormalizePciBusId("1:2:3.4"), "0001:02:03.4");
}

TEST(PciBusIdTest, WideDomainsKeepTheirDigits) {
  EXPECT_EQ(*NormalizePciBusId("10000:18:00.0"), "10000:18:00.0");
  EXPECT_EQ(*NormalizePciBusId("0001ABCD:18:1F.7"), "1abcd:18:1f.7");
}

TEST(PciBusIdTest, GarbageIsInvalidArgument) {
  for (const char* id :
       {"", "gpu0", "0000:18:00", "0000:18:00.0.1", "0000:118:00.0", "0000:18:20.0", "0000:18:00.8",
        "000000000:18:00.0", "0000:-1:00.0", "0x00:18:00.0", "a:b:c:d.0"}) {
    EXPECT_EQ(NormalizePciBusId(id).status().code(), absl::StatusCode::kInvalidArgument) << id;
  }
}

TEST(PciBusIdTest, CanonicalKeepsWhatItCannotParse) {
  EXPECT_EQ(CanonicalPciBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(CanonicalPciBusId("weird-id"), "weird-id");
}

TEST(PciBusIdTest, SameGpuInAnotherSpellingPasses) {
  EXPECT_TRUE(CheckSamePciBusId("0000:0A:00.0", "00000000:0a:00.0", 0, 3).ok());
  // Nothing to compare with: the agent did not know the bus id.
  EXPECT_TRUE(CheckSamePciBusId("0000:0a:00.0", "", 0, 3).ok());
}

TEST(PciBusIdTest, AnotherGpuIsFailedPreconditionNamingBothIdsAndTheRank) {
  const absl::Status status = CheckSamePciBusId("0000:18:00.0", "0000:9a:00.0", 2, 5);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("CUDA device 2"), HasSubstr("0000:18:00.0"),
                    HasSubstr("0000:9a:00.0"), HasSubstr("CUDA_VISIBLE_DEVICES")));
}

TEST(PciBusIdTest, MemoryInWholeGiB) {
  EXPECT_EQ(FormatGpuMemory(143771LL << 20), "140 GiB");  // H200, as NVML reports it
  EXPECT_EQ(FormatGpuMemory(81559LL << 20), "80 GiB");    // H100 80GB
  EXPECT_EQ(FormatGpuMemory(1LL << 30), "1 GiB");
  EXPECT_EQ(FormatGpuMemory(0), "");
  EXPECT_EQ(FormatGpuMemory(-1), "");
}

}  // namespace
}  // namespace eb::common
