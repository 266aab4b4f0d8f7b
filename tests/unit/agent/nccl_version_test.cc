// NCCL's version code printed as `eb-worker --print-nccl-version` does.

#include "agent/worker/nccl_version.h"

#include "gtest/gtest.h"

namespace eb::worker {
namespace {

TEST(FormatNcclVersionCodeTest, CurrentScheme) {
  EXPECT_EQ(FormatNcclVersionCode(22809), "2.28.9");
  EXPECT_EQ(FormatNcclVersionCode(22803), "2.28.3");
  EXPECT_EQ(FormatNcclVersionCode(20900), "2.9.0");
  EXPECT_EQ(FormatNcclVersionCode(30001), "3.0.1");
}

TEST(FormatNcclVersionCodeTest, SchemeBefore29) {
  // NCCL_VERSION(2, 8, 4) = 2*1000 + 8*100 + 4.
  EXPECT_EQ(FormatNcclVersionCode(2804), "2.8.4");
  EXPECT_EQ(FormatNcclVersionCode(2708), "2.7.8");
}

TEST(LoadedNcclVersionTest, AVersionOrNone) {
  auto version = LoadedNcclVersion();
  ASSERT_TRUE(version.ok()) << version.status();
#ifdef EB_HAVE_NCCL
  EXPECT_NE(*version, "none");
  EXPECT_NE(version->find('.'), std::string::npos);
#else
  EXPECT_EQ(*version, "none");
#endif
}

}  // namespace
}  // namespace eb::worker
