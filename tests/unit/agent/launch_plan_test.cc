// The plan of a launch's workers (pure): one token, log and spec per rank in
// rank order, a rank on a GPU an earlier rank uses refused with nothing
// planned to start, the RAS address given until a spec turns RAS off, and
// what a registering worker is told.

#include "agent/core/launch_plan.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class LaunchPlanTest : public ::testing::Test {
 protected:
  LaunchPlanTest() {
    config_.node_name = "node-a";
    config_.worker_slots = 4;
    config_.worker_binary = "/opt/eb/bin/eb-worker";
    config_.run_dir = "/run/eb";
    launch_.set_test_id("t-7");
    launch_.mutable_spec()->set_transport(v1::TRANSPORT_NCCL);
    site_.agent_pid = 4242;
    site_.agent_target = "unix:/run/eb/agent-1.sock";
  }

  void AddRank(int rank, int device) {
    v1::RankAssignment& assignment = *launch_.add_ranks();
    assignment.set_rank(rank);
    assignment.set_world_size(8);
    assignment.set_node_name("node-a");
    assignment.set_local_rank(launch_.ranks_size() - 1);
    assignment.set_device_index(device);
  }

  LaunchPlan Plan() {
    return PlanLaunch(config_, launch_, site_, [this] { return absl::StrCat("tok-", ++tokens_); });
  }

  AgentCoreConfig config_;
  v1::LaunchTest launch_;
  LaunchSite site_;
  int tokens_ = 0;
};

bool HasEnv(const common::ProcessSpec& spec, const std::string& prefix) {
  return std::any_of(spec.env.begin(), spec.env.end(), [&prefix](const std::string& entry) {
    return absl::StartsWith(entry, prefix);
  });
}

TEST_F(LaunchPlanTest, EachRankGetsItsTokenLogAndSpecInRankOrder) {
  AddRank(4, 0);
  AddRank(5, 1);
  const LaunchPlan plan = Plan();
  ASSERT_EQ(plan.workers.size(), 2u);
  EXPECT_FALSE(plan.refused());
  EXPECT_EQ(plan.workers[0].token, "tok-1");
  EXPECT_EQ(plan.workers[1].token, "tok-2");
  EXPECT_EQ(plan.workers[1].log_path, "/run/eb/logs/t-7/rank-5.log");
  EXPECT_EQ(plan.workers[1].spec.log_path, plan.workers[1].log_path);
  EXPECT_THAT(plan.workers[1].spec.env, Contains("EB_WORKER_TOKEN=tok-2"));
  EXPECT_THAT(plan.workers[1].spec.argv, Contains("--rank=5"));
  EXPECT_EQ(plan.ras_port, 0);
  EXPECT_FALSE(HasEnv(plan.workers[0].spec, "NCCL_RAS_ADDR="));
}

TEST_F(LaunchPlanTest, ASharedGpuRefusesTheLaterRankAndPlansNoSpec) {
  AddRank(4, 2);
  AddRank(5, 2);
  AddRank(6, -1);
  AddRank(7, -1);
  const LaunchPlan plan = Plan();
  ASSERT_EQ(plan.workers.size(), 4u);
  EXPECT_TRUE(plan.refused());
  EXPECT_THAT(plan.workers[0].refusal, IsEmpty());
  EXPECT_THAT(plan.workers[1].refusal, HasSubstr("GPU 2 is already used by rank 4"));
  // Ranks without a GPU (-1) never share one.
  EXPECT_THAT(plan.workers[2].refusal, IsEmpty());
  EXPECT_THAT(plan.workers[3].refusal, IsEmpty());
  for (const PlannedWorker& worker : plan.workers) EXPECT_THAT(worker.spec.argv, IsEmpty());
}

TEST_F(LaunchPlanTest, TheRasPortIsKeptUnlessTheEnvironmentTurnsRasOff) {
  AddRank(4, 0);
  site_.ras_port = 28101;
  LaunchPlan plan = Plan();
  EXPECT_EQ(plan.ras_port, 28101);
  EXPECT_THAT(plan.workers[0].spec.env, Contains("NCCL_RAS_ADDR=127.0.0.1:28101"));

  config_.worker_env = {"NCCL_RAS_ENABLE=0"};
  plan = Plan();
  EXPECT_EQ(plan.ras_port, 0);
  EXPECT_THAT(plan.workers[0].spec.env, Contains("NCCL_RAS_ENABLE=0"));
}

TEST_F(LaunchPlanTest, TheRegisterReplyCarriesTheTestAndTheNodesSettings) {
  AddRank(4, 0);
  launch_.add_sizes_bytes(1024);
  launch_.set_init_timeout_ms(30'000);
  launch_.set_op_timeout_ms(5'000);
  config_.worker_heartbeat_period = absl::Milliseconds(250);
  config_.bootstrap_interface = "eth1";
  config_.bootstrap_address = "10.0.0.5";
  const v1::RegisterWorkerReply reply = RegisterReplyFor(config_, launch_, launch_.ranks(0));
  EXPECT_EQ(reply.assignment().rank(), 4);
  EXPECT_EQ(reply.spec().transport(), v1::TRANSPORT_NCCL);
  EXPECT_EQ(reply.heartbeat_period_ms(), 250);
  ASSERT_EQ(reply.sizes_bytes_size(), 1);
  EXPECT_EQ(reply.init_timeout_ms(), 30'000);
  EXPECT_EQ(reply.op_timeout_ms(), 5'000);
  EXPECT_EQ(reply.bootstrap_interface(), "eth1");
  EXPECT_EQ(reply.bootstrap_address(), "10.0.0.5");
}

}  // namespace
}  // namespace eb::agent
