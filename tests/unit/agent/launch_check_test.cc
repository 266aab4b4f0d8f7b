// The agent's check of a LaunchTest from the coordinator: the sweep and the
// workers' deadlines, refused with INVALID_ARGUMENT naming the field.

#include "agent/core/launch_check.h"

#include <string>

#include "common/spec/limits.h"
#include "common/transport/collective_layout.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::LaunchTest ValidLaunch() {
  v1::LaunchTest launch;
  launch.set_test_id("t-1");
  launch.mutable_spec()->set_min_bytes(1024);
  launch.mutable_spec()->set_max_bytes(4096);
  for (int64_t size : {1024, 2048, 4096}) launch.add_sizes_bytes(size);
  launch.set_register_timeout_ms(60'000);
  launch.set_init_timeout_ms(30'000);
  launch.set_op_timeout_ms(5'000);
  v1::RankAssignment& rank = *launch.add_ranks();
  rank.set_rank(1);
  rank.set_world_size(2);
  rank.set_node_index(1);
  rank.set_local_rank(0);
  rank.set_device_index(0);
  return launch;
}

// This agent's worker slots.
constexpr int kSlots = 2;

std::string Refusal(const v1::LaunchTest& launch) {
  const absl::Status status = CheckLaunch(launch, kSlots);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(LaunchCheckTest, AcceptsTheCoordinatorsSweep) {
  EXPECT_TRUE(CheckLaunch(ValidLaunch(), kSlots).ok());
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_sizes_bytes()->Set(2, 3000);  // the sweep may end below max_bytes
  EXPECT_TRUE(CheckLaunch(launch, kSlots).ok());
}

TEST(LaunchCheckTest, RefusesAMissingSweep) {
  // What an older coordinator sends.
  v1::LaunchTest launch = ValidLaunch();
  launch.clear_sizes_bytes();
  EXPECT_EQ(Refusal(launch), "sizes_bytes: no size to run");
}

TEST(LaunchCheckTest, RefusesTooManySizes) {
  v1::LaunchTest launch = ValidLaunch();
  launch.clear_sizes_bytes();
  for (int64_t i = 0; i <= transport::kMaxSweepSizes; ++i) launch.add_sizes_bytes(8);
  EXPECT_THAT(Refusal(launch), StartsWith("sizes_bytes: 10001 sizes"));
}

TEST(LaunchCheckTest, RefusesANegativeSize) {
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_sizes_bytes()->Set(1, -2048);
  EXPECT_EQ(Refusal(launch), "sizes_bytes: size #1 (-2048) is negative");
}

TEST(LaunchCheckTest, RefusesADecreasingSweep) {
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_sizes_bytes()->Set(2, 1536);
  EXPECT_EQ(Refusal(launch),
            "sizes_bytes: size #2 (1536) is smaller than the size before it (2048)");
}

TEST(LaunchCheckTest, RefusesASizeAboveTheSpecsMaximum) {
  v1::LaunchTest launch = ValidLaunch();
  launch.mutable_spec()->set_max_bytes(2048);
  EXPECT_THAT(Refusal(launch), HasSubstr("sizes_bytes: size #2 (4096) is larger than max_bytes"));
}

TEST(LaunchCheckTest, RefusesMissingWorkerDeadlines) {
  v1::LaunchTest launch = ValidLaunch();
  launch.set_init_timeout_ms(0);
  EXPECT_EQ(Refusal(launch), "init_timeout_ms: 0 ms is too small; accepted: 1ms to 168h");
  launch = ValidLaunch();
  launch.set_op_timeout_ms(-5);
  EXPECT_EQ(Refusal(launch), "op_timeout_ms: -5 ms is negative; accepted: 1ms to 168h");
}

// --- Every field is untrusted (docs/SECURITY_FINDINGS.md, cases 1-5) ---------

// Case 1: a fake coordinator put LD_PRELOAD into a worker running as root.
// The agent applies the coordinator's own allow-list (one definition,
// common/spec/nccl_env.h).
TEST(LaunchCheckTest, Case1RefusesLdPreloadAndEveryVariableOffTheAllowList) {
  v1::LaunchTest launch = ValidLaunch();
  (*launch.mutable_spec()->mutable_nccl_env())["LD_PRELOAD"] = "/tmp/evil.so";
  EXPECT_THAT(Refusal(launch), StartsWith("spec.nccl_env: LD_PRELOAD may not be set by a test"));
  for (const char* name : {"NCCL_IB_HCA", "NCCL_RUNTIME_CONNECT", "PATH", "NCCL_NET_PLUGIN"}) {
    launch = ValidLaunch();
    (*launch.mutable_spec()->mutable_nccl_env())[name] = "x";
    EXPECT_THAT(Refusal(launch), HasSubstr(name));
  }
  launch = ValidLaunch();
  (*launch.mutable_spec()->mutable_nccl_env())["NCCL_DEBUG"] = "INFO\nLD_PRELOAD=x";
  EXPECT_THAT(Refusal(launch), HasSubstr("single-line"));
  launch = ValidLaunch();
  (*launch.mutable_spec()->mutable_nccl_env())["NCCL_DEBUG"] = "INFO";
  (*launch.mutable_spec()->mutable_nccl_env())["NCCL_ALGO"] = "Ring";
  EXPECT_TRUE(CheckLaunch(launch, kSlots).ok());
}

// Case 2: test ids are identifiers, never path fragments.
TEST(LaunchCheckTest, Case2RefusesATestIdThatIsAPath) {
  for (const std::string& id :
       {std::string("../../../../etc/shadow"), std::string("a/b"), std::string(".."),
        std::string("."), std::string(""), std::string("t-1\0x", 5), std::string("t 1"),
        std::string(129, 'a')}) {
    v1::LaunchTest launch = ValidLaunch();
    launch.set_test_id(id);
    EXPECT_THAT(Refusal(launch), StartsWith("test_id: ")) << id;
  }
  v1::LaunchTest launch = ValidLaunch();
  launch.set_test_id(std::string(128, 'a'));  // at the edge
  EXPECT_TRUE(CheckLaunch(launch, kSlots).ok());
}

// Case 3: 200 ranks for a 1-slot agent spawned 123 workers.
TEST(LaunchCheckTest, Case3RefusesMoreRanksThanThisAgentsSlots) {
  v1::LaunchTest launch = ValidLaunch();
  v1::RankAssignment second = launch.ranks(0);
  second.set_rank(0);
  second.set_local_rank(1);
  second.set_device_index(1);
  *launch.add_ranks() = second;
  EXPECT_TRUE(CheckLaunch(launch, 2).ok());  // at the edge
  const absl::Status status = CheckLaunch(launch, 1);
  EXPECT_EQ(std::string(status.message()),
            "ranks: 2 ranks for this node, which has 1 worker slots");
}

TEST(LaunchCheckTest, Case3RefusesRanksOutsideTheirRanges) {
  auto refuse = [](auto mutate, const std::string& expected) {
    v1::LaunchTest launch = ValidLaunch();
    mutate(*launch.mutable_ranks(0));
    EXPECT_THAT(Refusal(launch), StartsWith(expected));
  };
  refuse([](v1::RankAssignment& r) { r.set_rank(2); }, "ranks[0].rank: must be 0 to 1, got 2");
  refuse([](v1::RankAssignment& r) { r.set_rank(-1); }, "ranks[0].rank:");
  refuse([](v1::RankAssignment& r) { r.set_world_size(0); }, "ranks[0].world_size:");
  refuse([](v1::RankAssignment& r) { r.set_world_size(spec::kMaxRanksPerTest + 1); },
         "ranks[0].world_size:");
  refuse([](v1::RankAssignment& r) { r.set_local_rank(kSlots); }, "ranks[0].local_rank:");
  refuse([](v1::RankAssignment& r) { r.set_device_index(kSlots); }, "ranks[0].device_index:");
  refuse([](v1::RankAssignment& r) { r.set_device_index(-2); }, "ranks[0].device_index:");
  refuse([](v1::RankAssignment& r) { r.set_node_index(-1); }, "ranks[0].node_index:");
  v1::LaunchTest launch = ValidLaunch();
  *launch.add_ranks() = launch.ranks(0);
  launch.mutable_ranks(1)->set_local_rank(1);
  EXPECT_EQ(Refusal(launch), "ranks[1].rank: 1 repeats");
}

// Case 5 (deadlines): every timeout within (0, a week].
TEST(LaunchCheckTest, Case5RefusesTimeoutsOutOfBounds) {
  v1::LaunchTest launch = ValidLaunch();
  launch.set_register_timeout_ms(0);
  EXPECT_EQ(Refusal(launch), "register_timeout_ms: 0 ms is too small; accepted: 1ms to 168h");
  launch = ValidLaunch();
  launch.set_op_timeout_ms(spec::kMaxTimeoutMs);  // at the edge
  EXPECT_TRUE(CheckLaunch(launch, kSlots).ok());
  launch.set_op_timeout_ms(spec::kMaxTimeoutMs + 1);
  EXPECT_THAT(Refusal(launch),
              StartsWith("op_timeout_ms: 604800001 ms is too large; accepted: 1ms to 168h"));
}

v1::FetchLog ValidFetch() {
  v1::FetchLog fetch;
  fetch.set_request_id(7);
  fetch.set_test_id("t-1");
  fetch.set_rank(0);
  fetch.set_max_bytes(4096);
  return fetch;
}

// Cases 2 and 4: FetchLog's test id and max_bytes (-1 aborted the agent).
TEST(FetchLogCheckTest, Case2And4RefusesAPathTestIdAndBadSizes) {
  EXPECT_TRUE(CheckFetchLog(ValidFetch()).ok());
  v1::FetchLog fetch = ValidFetch();
  fetch.set_test_id(std::string("../../../../../../../../etc/shadow\0", 35));
  EXPECT_THAT(std::string(CheckFetchLog(fetch).message()), StartsWith("fetch_log.test_id: "));
  for (int64_t bad : {int64_t{-1}, int64_t{0}, spec::kMaxLogPageBytes + 1}) {
    fetch = ValidFetch();
    fetch.set_max_bytes(bad);
    const absl::Status status = CheckFetchLog(fetch);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(status.message()), StartsWith("fetch_log.max_bytes: must be 1 to"));
  }
  fetch = ValidFetch();
  fetch.set_max_bytes(spec::kMaxLogPageBytes);  // at the edge
  EXPECT_TRUE(CheckFetchLog(fetch).ok());
  fetch.set_rank(-1);
  EXPECT_THAT(std::string(CheckFetchLog(fetch).message()), StartsWith("fetch_log.rank: "));
  fetch = ValidFetch();
  fetch.set_offset(-1);
  EXPECT_THAT(std::string(CheckFetchLog(fetch).message()), StartsWith("fetch_log.offset: "));
  fetch.set_offset(0);
  EXPECT_TRUE(CheckFetchLog(fetch).ok());
}

TEST(StopCheckTest, Case2RefusesAPathTestIdAndAHugeReason) {
  v1::StopTest stop;
  stop.set_test_id("t-1");
  stop.set_reason("cancelled");
  EXPECT_TRUE(CheckStop(stop).ok());
  stop.set_reason(std::string(4097, 'x'));
  EXPECT_THAT(std::string(CheckStop(stop).message()), StartsWith("stop.reason: 4097 bytes"));
  stop.set_reason("");
  stop.set_test_id("../x");
  EXPECT_THAT(std::string(CheckStop(stop).message()), StartsWith("stop.test_id: "));
}

// Case 5: heartbeat_period_ms = 0 made the agent spin at 65% CPU.
TEST(RegisterReplyCheckTest, Case5RefusesAHeartbeatPeriodOutOfBounds) {
  v1::RegisterReply reply;
  for (int64_t bad : {int64_t{0}, int64_t{-1}, spec::kMinHeartbeatPeriodMs - 1,
                      spec::kMaxHeartbeatPeriodMs + 1}) {
    reply.set_heartbeat_period_ms(bad);
    const absl::StatusOr<absl::Duration> period = CheckRegisterReply(reply);
    ASSERT_FALSE(period.ok()) << bad;
    EXPECT_THAT(std::string(period.status().message()),
                StartsWith("register_reply.heartbeat_period_ms: must be 100 to 600000, got"));
  }
  reply.set_heartbeat_period_ms(spec::kMinHeartbeatPeriodMs);
  EXPECT_EQ(*CheckRegisterReply(reply), absl::Milliseconds(100));
  reply.set_heartbeat_period_ms(spec::kMaxHeartbeatPeriodMs);
  EXPECT_EQ(*CheckRegisterReply(reply), absl::Minutes(10));
}

// Found by tests/fuzz/agent_commands_fuzz: two workers of one rank, of which
// only one could ever be reaped, so the test never ended on this node.
TEST(LaunchCheckTest, RefusesARankAssignedTwice) {
  v1::LaunchTest launch = ValidLaunch();
  v1::RankAssignment twice = launch.ranks(0);
  twice.set_local_rank(1);
  twice.set_device_index(1);
  *launch.add_ranks() = twice;
  EXPECT_THAT(Refusal(launch), HasSubstr("].rank: " + std::to_string(twice.rank()) + " repeats"));
}

}  // namespace
}  // namespace eb::agent
