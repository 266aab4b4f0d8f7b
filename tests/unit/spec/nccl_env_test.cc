// The NCCL variables a test may set (nccl_env): tuning and debugging knobs
// only; never the fabric, never what the worker itself must control.

#include "common/spec/nccl_env.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(NcclEnvPolicyTest, AllowListIsSortedAndHasTheTuningKnobs) {
  const std::vector<std::string>& allowed = AllowedNcclEnv();
  EXPECT_TRUE(std::is_sorted(allowed.begin(), allowed.end()));
  for (const char* name : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS",
                           "NCCL_NVLS_ENABLE", "NCCL_MIN_NCHANNELS"}) {
    EXPECT_THAT(allowed, Contains(name));
  }
}

TEST(NcclEnvPolicyTest, RuntimeConnectIsTheWorkersAndSaysWhy) {
  // The worker connects peers during the deadline-guarded init; lazy
  // connects would escape the deadline and break CUDA-graph capture.
  EXPECT_THAT(AllowedNcclEnv(), Not(Contains("NCCL_RUNTIME_CONNECT")));
  const absl::Status status = CheckNcclEnv({{"NCCL_RUNTIME_CONNECT", "1"}});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("nccl_env: NCCL_RUNTIME_CONNECT may not be set by a test"),
                    HasSubstr("deadline"), HasSubstr("--cudagraph")));
}

TEST(NcclEnvPolicyTest, NotAnNcclVariableIsNotAllowed) {
  // NCCL_ALGO_PROFILE is no NCCL variable (NCCL would ignore it silently).
  EXPECT_THAT(AllowedNcclEnv(), Not(Contains("NCCL_ALGO_PROFILE")));
  EXPECT_EQ(CheckNcclEnv({{"NCCL_ALGO_PROFILE", "1"}}).code(), absl::StatusCode::kInvalidArgument);
}

TEST(NcclEnvPolicyTest, FabricSettingsAreRefusedNamingTheAgentsConfiguration) {
  for (const char* name : {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX"}) {
    const absl::Status status = CheckNcclEnv({{name, "x"}});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr(name), HasSubstr("each agent's configuration")));
  }
}

TEST(NcclEnvPolicyTest, AllowedKnobsNeedASingleLineValue) {
  EXPECT_TRUE(CheckNcclEnv({{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}}).ok());
  EXPECT_EQ(CheckNcclEnv({{"NCCL_ALGO", ""}}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckNcclEnv({{"NCCL_DEBUG", "INFO\nNCCL_IB_HCA=x"}}).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::spec
