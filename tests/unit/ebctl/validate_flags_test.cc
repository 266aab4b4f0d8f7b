#include "coordinator/ebctl/input/validate_flags.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ValidateFlagsTest, FlagsBecomeTheSpec) {
  ValidateFlags flags;
  flags.test.nodes = "a,b";
  flags.test.min_bytes = "4K";
  flags.test.max_bytes = "1M";
  flags.test.iterations = 3;
  flags.sweep_given = true;
  flags.iterations_given = true;
  flags.test.transport = "gloo";
  flags.test.timeout = "90s";
  flags.suites = "preflight,pairs";
  flags.strategy = "all-pairs";
  flags.tolerance = 0.2;
  flags.timeout = "1h";
  flags.soak = "30m";
  absl::StatusOr<v1::ValidationSpec> spec = BuildValidationSpec(flags, "version = 2\n");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->node_names(), ElementsAre("a", "b"));
  EXPECT_THAT(spec->suites(), ElementsAre(v1::SUITE_PREFLIGHT, v1::SUITE_PAIRS));
  EXPECT_EQ(spec->strategy(), "all-pairs");
  EXPECT_DOUBLE_EQ(spec->tolerance(), 0.2);
  EXPECT_EQ(spec->collective(), v1::COLLECTIVE_ALL_REDUCE);
  EXPECT_EQ(spec->min_bytes(), 4096);
  EXPECT_EQ(spec->max_bytes(), 1 << 20);
  EXPECT_EQ(spec->step_factor(), 2);  // no additive step in a validation
  EXPECT_EQ(spec->iterations(), 3);
  EXPECT_EQ(spec->transport(), v1::TRANSPORT_GLOO);
  EXPECT_EQ(spec->test_timeout_ms(), 90'000);
  EXPECT_EQ(spec->timeout_ms(), 3'600'000);
  EXPECT_EQ(spec->soak_ms(), 1'800'000);
  EXPECT_EQ(spec->baselines_toml(), "version = 2\n");
}

// Without -b/-e the coordinator grades each test at its plateau; without
// -n it makes enough calls for 1 GiB per rail (issue 29, item 3).
TEST(ValidateFlagsTest, WithoutSizesOrItersTheCoordinatorPicksThem) {
  ValidateFlags flags;
  absl::StatusOr<v1::ValidationSpec> spec = BuildValidationSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->min_bytes(), 0);
  EXPECT_EQ(spec->max_bytes(), 0);
  EXPECT_EQ(spec->iterations(), 0);
  flags.sweep_given = true;
  spec = BuildValidationSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->max_bytes(), 32 << 20);  // run-test's defaults for what was not given
  EXPECT_EQ(spec->iterations(), 0);
}

TEST(ValidateFlagsTest, ErrorsNameTheFlag) {
  ValidateFlags flags;
  flags.tolerance = 0.6;
  EXPECT_THAT(std::string(BuildValidationSpec(flags, "").status().message()),
              HasSubstr("--tolerance"));
  flags = ValidateFlags();
  flags.test.max_bytes = "1K";
  flags.test.min_bytes = "1M";
  EXPECT_THAT(std::string(BuildValidationSpec(flags, "").status().message()),
              HasSubstr("-e/--maxbytes"));
  flags = ValidateFlags();
  flags.soak = "a while";
  EXPECT_THAT(std::string(BuildValidationSpec(flags, "").status().message()), HasSubstr("--soak"));
  flags = ValidateFlags();
  flags.timeout = "soon";
  EXPECT_THAT(std::string(BuildValidationSpec(flags, "").status().message()),
              HasSubstr("--validation-timeout"));
}

// Issue 33 item 1: a validation grades one collective; a list (or `all`)
// was silently cut to its first.
TEST(ValidateFlagsTest, AListOfCollectivesIsRefusedNamingTheFlag) {
  for (const char* list : {"all_reduce,broadcast", "all"}) {
    ValidateFlags flags;
    flags.test.collective = list;
    absl::StatusOr<v1::ValidationSpec> spec = BuildValidationSpec(flags, "");
    ASSERT_FALSE(spec.ok()) << list;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(spec.status().message()),
                AllOf(StartsWith("--collective: "), HasSubstr("one collective")));
  }
  ValidateFlags one;
  one.test.collective = "broadcast";
  absl::StatusOr<v1::ValidationSpec> spec = BuildValidationSpec(one, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->collective(), v1::COLLECTIVE_BROADCAST);
}

// Issue 33 item 4: -b 8 -e 64 graded a 64-byte all_reduce and called a node
// degraded on noise. Below 1 MiB (NCCL, or auto) / 256 KiB (Gloo) the graded
// size is refused unless --allow-small-sizes asks for it.
TEST(ValidateFlagsTest, ALatencyBoundGradedSizeIsRefusedUnlessAsked) {
  ValidateFlags flags;
  flags.sweep_given = true;
  flags.test.min_bytes = "8";
  flags.test.max_bytes = "64";
  absl::StatusOr<v1::ValidationSpec> spec = BuildValidationSpec(flags, "");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(spec.status().message()),
      AllOf(StartsWith("-e/--maxbytes: "), HasSubstr("1M"), HasSubstr("--allow-small-sizes")));
  flags.allow_small_sizes = true;
  spec = BuildValidationSpec(flags, "");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->max_bytes(), 64);

  // The floors: 1M for NCCL and auto, 256K for Gloo; at the floor is fine.
  EXPECT_EQ(MinGradedBytes(v1::TRANSPORT_NCCL), 1 << 20);
  EXPECT_EQ(MinGradedBytes(v1::TRANSPORT_AUTO), 1 << 20);
  EXPECT_EQ(MinGradedBytes(v1::TRANSPORT_GLOO), 256 << 10);
  ValidateFlags gloo;
  gloo.sweep_given = true;
  gloo.test.transport = "gloo";
  gloo.test.min_bytes = "256K";
  gloo.test.max_bytes = "256K";
  EXPECT_TRUE(BuildValidationSpec(gloo, "").ok());
  gloo.test.transport = "nccl";
  EXPECT_FALSE(BuildValidationSpec(gloo, "").ok());
  // Without -b/-e each test runs at its plateau: nothing to refuse.
  ValidateFlags plateau;
  plateau.test.max_bytes = "64";
  plateau.test.min_bytes = "8";
  EXPECT_TRUE(BuildValidationSpec(plateau, "").ok());
}

}  // namespace
}  // namespace eb::ebctl
