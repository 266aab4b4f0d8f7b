// The worker variables only the agent sets: refused in --worker-env and
// (for the NCCL ones) in the agent's own environment, warned about for the
// CUDA ones, with messages that name the flag to use instead.

#include "agent/core/env_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(EnvPolicyTest, AgentOwnedNames) {
  for (const char* name : {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "CUDA_VISIBLE_DEVICES",
                           "CUDA_DEVICE_ORDER", "EB_WORKER_TOKEN"}) {
    EXPECT_TRUE(IsAgentOwnedVariable(name)) << name;
  }
  for (const char* name : {"NCCL_DEBUG", "NCCL_IB_GID_INDEX", "NCCL_IB_HCAX", "nccl_ib_hca",
                           "CUDA_HOME", "NVIDIA_VISIBLE_DEVICES", ""}) {
    EXPECT_FALSE(IsAgentOwnedVariable(name)) << name;
  }
}

TEST(EnvPolicyTest, OtherWorkerVariablesAreFine) {
  EXPECT_TRUE(CheckWorkerEnvVariable("NCCL_DEBUG", "INFO").ok());
  EXPECT_TRUE(CheckWorkerEnvVariable("NCCL_IB_TC", "106").ok());
  EXPECT_TRUE(CheckWorkerEnvVariable("EB_WORKER_FAULT", "crash").ok());
}

TEST(EnvPolicyTest, TheWorkerTokenCannotBeSetInWorkerEnv) {
  const absl::Status status = CheckWorkerEnvVariable("EB_WORKER_TOKEN", "guess");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), AllOf(HasSubstr("EB_WORKER_TOKEN cannot be set"),
                                     HasSubstr("own random startup token")));
}

TEST(EnvPolicyTest, IbHcaInWorkerEnvPointsToTheFlagWithTheSameList) {
  for (const char* value : {"mlx5_100,mlx5_101", "=mlx5_100,mlx5_101"}) {
    const absl::Status status = CheckWorkerEnvVariable("NCCL_IB_HCA", value);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(status),
                AllOf(HasSubstr("NCCL_IB_HCA cannot be set"), HasSubstr("nccl.ib_hca"),
                      HasSubstr("mlx5_10..mlx5_19"), HasSubstr("use --ib-hca mlx5_100,mlx5_101")))
        << value;
  }
}

TEST(EnvPolicyTest, ExclusionListsAreRefusedTooWithoutASuggestedValue) {
  const absl::Status status = CheckWorkerEnvVariable("NCCL_IB_HCA", "^mlx5_0");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), HasSubstr("list what to use with --ib-hca"));
  EXPECT_THAT(Message(CheckWorkerEnvVariable("NCCL_SOCKET_IFNAME", "^docker,lo")),
              HasSubstr("list what to use with --bootstrap-interface"));
}

TEST(EnvPolicyTest, SocketIfnamePointsToTheBootstrapInterface) {
  const absl::Status status = CheckWorkerEnvVariable("NCCL_SOCKET_IFNAME", "eth1");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status), AllOf(HasSubstr("network.bootstrap_interface"),
                                     HasSubstr("use --bootstrap-interface eth1")));
}

TEST(EnvPolicyTest, CudaVisibleDevicesNamesTheKeyTheMappingAndNccl129) {
  const absl::Status status = CheckWorkerEnvVariable("CUDA_VISIBLE_DEVICES", "0,1");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status),
              AllOf(HasSubstr("CUDA_VISIBLE_DEVICES cannot be set"), HasSubstr("PCI order"),
                    HasSubstr("CUDA IPC"), HasSubstr("NVIDIA/nccl#129"), HasSubstr("--gpus")));
  EXPECT_THAT(Message(CheckWorkerEnvVariable("CUDA_DEVICE_ORDER", "FASTEST_FIRST")),
              HasSubstr("PCI_BUS_ID"));
}

TEST(EnvPolicyTest, AgentEnvironmentWithNcclFabricVariablesIsRefused) {
  EXPECT_TRUE(CheckAgentEnvironment({"PATH=/usr/bin", "NCCL_DEBUG=INFO", "NCCL_IB_HCA"}).ok());
  const absl::Status hca =
      CheckAgentEnvironment({"PATH=/usr/bin", "NCCL_IB_HCA=mlx5_1", "NCCL_SOCKET_IFNAME=eth0"});
  EXPECT_EQ(hca.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(hca),
              AllOf(HasSubstr("eb-agent's environment sets NCCL_IB_HCA=mlx5_1"),
                    HasSubstr("use --ib-hca mlx5_1"), HasSubstr("unset NCCL_IB_HCA")));
  EXPECT_THAT(Message(CheckAgentEnvironment({"NCCL_SOCKET_IFNAME==eth0"})),
              HasSubstr("use --bootstrap-interface eth0"));
}

TEST(EnvPolicyTest, AgentEnvironmentCudaVariablesAreWarnings) {
  EXPECT_TRUE(CheckAgentEnvironment({"CUDA_VISIBLE_DEVICES=0,1"}).ok());
  const std::vector<std::string> warnings = AgentEnvironmentWarnings(
      {"CUDA_VISIBLE_DEVICES=0,1", "CUDA_DEVICE_ORDER=PCI_BUS_ID", "PATH=/bin"});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], AllOf(HasSubstr("CUDA_VISIBLE_DEVICES=0,1"),
                                 HasSubstr("not passed on to the workers")));
  EXPECT_THAT(AgentEnvironmentWarnings({"CUDA_DEVICE_ORDER=FASTEST_FIRST"}),
              ElementsAre(HasSubstr("CUDA_DEVICE_ORDER=FASTEST_FIRST")));
  EXPECT_THAT(AgentEnvironmentWarnings({"PATH=/bin", "NCCL_DEBUG=WARN"}), IsEmpty());
}

}  // namespace
}  // namespace eb::agent
