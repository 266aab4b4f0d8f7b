// eb-worker's check of its agent's registration reply: everything beyond
// its identity comes from there, so a reply without a sweep or deadlines
// (an older agent) is refused, naming the field.

#include <string>

#include "agent/worker/worker_runtime.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::worker {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::StartsWith;

v1::RegisterWorkerReply ValidReply() {
  v1::RegisterWorkerReply reply;
  reply.mutable_spec()->set_max_bytes(4096);
  for (int64_t size : {1024, 2048, 4096}) reply.add_sizes_bytes(size);
  reply.set_heartbeat_period_ms(1000);
  reply.set_init_timeout_ms(32'000);
  reply.set_op_timeout_ms(32'000);
  return reply;
}

std::string Refusal(const v1::RegisterWorkerReply& reply) {
  const absl::Status status = CheckRegistration(reply);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(CheckRegistrationTest, AcceptsACompleteReply) {
  EXPECT_TRUE(CheckRegistration(ValidReply()).ok());
}

TEST(CheckRegistrationTest, RefusesAReplyWithoutASweep) {
  v1::RegisterWorkerReply reply = ValidReply();
  reply.clear_sizes_bytes();
  EXPECT_EQ(Refusal(reply), "sizes_bytes: no size to run");
  reply = ValidReply();
  reply.set_sizes_bytes(1, 512);
  EXPECT_THAT(Refusal(reply), StartsWith("sizes_bytes: size #1 (512) is smaller"));
  reply = ValidReply();
  reply.mutable_spec()->set_max_bytes(2048);
  EXPECT_THAT(Refusal(reply), StartsWith("sizes_bytes: size #2 (4096) is larger"));
}

TEST(CheckRegistrationTest, RefusesMissingPeriodsAndDeadlines) {
  v1::RegisterWorkerReply reply = ValidReply();
  reply.set_heartbeat_period_ms(0);
  EXPECT_EQ(Refusal(reply), "heartbeat_period_ms: must be > 0, got 0");
  reply = ValidReply();
  reply.clear_init_timeout_ms();
  EXPECT_EQ(Refusal(reply), "init_timeout_ms: must be > 0, got 0");
  reply = ValidReply();
  reply.set_op_timeout_ms(-1);
  EXPECT_EQ(Refusal(reply), "op_timeout_ms: must be > 0, got -1");
}

}  // namespace
}  // namespace eb::worker
