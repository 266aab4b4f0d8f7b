// Per-node session budgets against the real eb-coordinator and eb-agents on
// loopback (issue 32, items 1 and 10; docs/SECURITY.md, "Per-node budget"):
// a "compromised" node (a fake agent speaking our protos) floods its
// session and is cut off and audited, its own test fails naming it, and an
// honest test beside it passes; repeated cut-offs refuse its registration
// for a while; registrations gRPC cannot parse are audited (P2-6.2).

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/fake_node_session.h"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::HasSubstr;

// A node holding a valid identity that sends far more than an honest agent:
// batches of 1,024 worker events, as fast as its stream takes them.
class FloodingNode {
 public:
  FloodingNode(const std::string& address, const std::string& name)
      : session_(address, name, absl::Seconds(60)) {}

  bool registered() const { return session_.registered(); }
  // Reads until the coordinator sends a LaunchTest (true) or the stream ends.
  bool AwaitLaunch() { return !session_.AwaitLaunch().empty(); }

  // Floods until the coordinator ends the session (at most `max_batches`
  // batches); returns the session's final status.
  grpc::Status Flood(int max_batches = 1000) {
    v1::AgentMessage batch;
    for (int i = 0; i < 1024; ++i) {
      v1::WorkerEvent* event = batch.mutable_worker_events()->add_events();
      event->set_test_id("no-such-test");
      event->set_rank(i);
    }
    for (sent_ = 0; sent_ < max_batches && session_.Write(batch); ++sent_) {
    }
    return session_.Finish();
  }

  int sent() const { return sent_; }

  // The status of a session whose registration was refused.
  grpc::Status Finish() { return session_.Finish(); }

 private:
  FakeNodeSession session_;
  int sent_ = 0;
};

class NodeQuotaTest : public ::testing::Test {
 protected:
  // The session budget set small (20,000 events at once, 2,000 a second):
  // a flood must outrun the refill, and under ASan on a loaded machine the
  // coordinator read fewer than the default 20,000 a second, so the default
  // never ran out and the flooding node was lost on its missing heartbeats
  // instead of being cut off.
  void SetUp() override {
    std::vector<std::string> flags = LocalCluster::FastCoordinatorFlags();
    flags.push_back("--agent-message-burst=20000");
    flags.push_back("--agent-messages-per-second=2000");
    ASSERT_TRUE(cluster_.StartCoordinator(flags).ok());
  }

  std::string AuditJson() {
    CliResult audit = cluster_.Ebctl({"audit", "--json", "--limit", "1000"});
    EXPECT_EQ(audit.exit_code, 0) << audit.err;
    return audit.out;
  }

  LocalCluster cluster_;
};

// Issue 32, item 1 (the class of P2-4f2: one node's messages froze the one
// event loop for every node): a node that floods its session is cut off
// RESOURCE_EXHAUSTED and audited naming it and its peer; its own test fails
// as an infrastructure failure naming it (node_lost); an honest test on
// other nodes passes meanwhile.
TEST_F(NodeQuotaTest, P2_4f2_AFloodingNodeIsCutOffAndAuditedWhileAnHonestTestPasses) {
  ASSERT_TRUE(cluster_.StartAgent("host0", 1).ok());
  ASSERT_TRUE(cluster_.StartAgent("host1", 1).ok());
  FloodingNode evil(cluster_.coordinator_address(), "evil");
  ASSERT_TRUE(evil.registered());
  const int honest = cluster_.StartEbctl(QuickTestArgs());
  const int own = cluster_.StartEbctl(
      {"run-test", "--json", "--nodes", "evil", "-b", "8", "-e", "8", "-n", "1", "-w", "0"});
  ASSERT_TRUE(evil.AwaitLaunch());
  const grpc::Status cut = evil.Flood();
  EXPECT_EQ(cut.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << cut.error_message();
  EXPECT_THAT(cut.error_message(), HasSubstr("session budget: more than 20000 messages or events"));
  // 20,000 events at once, and 2,000 a second beyond: cut off long before
  // 1,000 batches of 1,024.
  EXPECT_LT(evil.sent(), 1000);

  CliResult own_result = cluster_.WaitEbctl(own);
  EXPECT_EQ(own_result.exit_code, 3) << own_result.err;
  const nlohmann::json report = nlohmann::json::parse(own_result.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << own_result.out;
  EXPECT_EQ(report["failures"][0]["kind"], "node_lost") << report["failures"].dump(2);
  EXPECT_EQ(report["failures"][0]["node"], "evil");
  EXPECT_THAT(report["summary"].get<std::string>(), HasSubstr("cut off: session budget"));

  CliResult honest_result = cluster_.WaitEbctl(honest);
  EXPECT_EQ(honest_result.exit_code, 0) << honest_result.err;

  const std::string audit = AuditJson();
  EXPECT_THAT(audit, HasSubstr("node_name=evil peer="));
  EXPECT_THAT(audit, HasSubstr("session budget: more than 20000"));
  EXPECT_THAT(audit, HasSubstr("RESOURCE_EXHAUSTED"));
  // The honest nodes stay; the next test on them passes.
  CliResult again = cluster_.Ebctl(QuickTestArgs());
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

// A node cut off comes back with a fresh budget; cut off 3 times within 10
// minutes, its registration is refused until the first leaves the window.
TEST_F(NodeQuotaTest, P2_4f2_RepeatedCutOffsRefuseTheNodesRegistration) {
  for (int i = 0; i < 3; ++i) {
    FloodingNode evil(cluster_.coordinator_address(), "evil");
    ASSERT_TRUE(evil.registered()) << i;
    EXPECT_EQ(evil.Flood().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << i;
  }
  FloodingNode refused(cluster_.coordinator_address(), "evil");
  EXPECT_FALSE(refused.registered());
  const grpc::Status status = refused.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("node_name: evil was cut off 3 times within 10m"));
  // Another node is not concerned.
  FloodingNode other(cluster_.coordinator_address(), "other");
  EXPECT_TRUE(other.registered());
}

// P2-6.2: a registration whose node name is not valid UTF-8 never reaches
// our code (gRPC cannot parse it) and left no audit row. The session's
// early end is audited now, once a minute per peer host whatever the flood.
TEST_F(NodeQuotaTest, P2_6_2_UnparsableRegistrationsAreAuditedOncePerPeerAMinute) {
  for (int i = 0; i < 5; ++i) {
    FloodingNode bad(cluster_.coordinator_address(), absl::StrCat("bad\xff", i));
    EXPECT_FALSE(bad.registered()) << i;
    (void)bad.Finish();
  }
  FloodingNode good(cluster_.coordinator_address(), "good");
  EXPECT_TRUE(good.registered());
  const nlohmann::json audit = nlohmann::json::parse(AuditJson(), nullptr, false);
  int ended = 0;
  for (const nlohmann::json& entry : audit["entries"]) {
    if (entry.dump().find("ended before a valid register") != std::string::npos) ++ended;
  }
  EXPECT_EQ(ended, 1) << audit.dump(2);
}

}  // namespace
}  // namespace eb::testing
