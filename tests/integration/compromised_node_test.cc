// What the compromised-agent benchmark (eb-load-generator --compromised-agents,
// docs/BENCHMARKS.md section 9, round 10) found, each against the real
// eb-coordinator on loopback with a fake agent speaking our protos (a node
// with a valid registration that sends what the limits allow):
//  - a rendezvous timeout naming many long keys made a status message over
//    gRPC's metadata limit, and the agent's whole connection, its session
//    included, was dropped;
//  - a 15 MiB failure text was kept whole in the report and written whole
//    into the coordinator's log; a repeated FAILED of one rank added a
//    failure each time;
//  - each refused event (a rank the node does not run, a pid out of range)
//    was a log line: a node at its budget wrote ~5 MB of log a second;
//  - sessions that never register: one host could hold all 4,096 places,
//    and each one's end was an audit row.
// docs/SECURITY.md, "Limits", lists the bounds these tests hold.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "common/spec/bounded_text.h"
#include "common/spec/limits.h"
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

v1::AgentMessage CompromisedEvent(const std::string& test_id, int rank, v1::WorkerEventKind kind) {
  v1::AgentMessage message;
  v1::WorkerEvent& event = *message.mutable_worker_event();
  event.set_test_id(test_id);
  event.set_rank(rank);
  event.set_kind(kind);
  return message;
}

class CompromisedNodeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.StartCoordinator().ok()); }

  // A one-rank test on `node` that waits long at its rendezvous.
  int StartOwnTest(const std::string& node) {
    return cluster_.StartEbctl({"run-test", "--json", "--nodes", node, "-b", "8", "-e", "8", "-n",
                                "1", "-w", "0", "--init-timeout", "60s"});
  }

  // The coordinator's log lines (every start's log).
  std::vector<std::string> CoordinatorLogLines() {
    std::vector<std::string> lines;
    for (const auto& entry : std::filesystem::directory_iterator(cluster_.work_dir())) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("coordinator-", 0) != 0) continue;
      std::ifstream file(entry.path());
      for (std::string line; std::getline(file, line);) lines.push_back(line);
    }
    return lines;
  }

  nlohmann::json NodeState(const std::string& node) {
    CliResult nodes = cluster_.Ebctl({"nodes", "--json"});
    EXPECT_EQ(nodes.exit_code, 0) << nodes.err;
    const nlohmann::json listing = nlohmann::json::parse(nodes.out, nullptr, false);
    for (const nlohmann::json& entry : listing.value("nodes", nlohmann::json::array())) {
      if (entry.value("name", "") == node) return entry.value("state", nlohmann::json());
    }
    return nullptr;
  }

  LocalCluster cluster_;
};

// A wait of a 1-rank test may ask 66 keys (twice its ranks and 64) of 256
// characters each. Its timeout named every missing key, 17 KB in the
// grpc-message trailer, over the agent's 8 KiB metadata limit: gRPC ended
// the agent's whole connection ("received initial metadata size exceeds
// limit") and the node was lost. Now every status message is cut to
// kMaxStatusMessageBytes and the timeout names 8 keys and the count.
TEST_F(CompromisedNodeTest, ARendezvousTimeoutNamingManyLongKeysKeepsTheAgentsSession) {
  FakeNodeSession node(cluster_.coordinator_address(), "evil");
  ASSERT_TRUE(node.registered());
  const int own = StartOwnTest("evil");
  const std::string test_id = node.AwaitLaunch();
  ASSERT_FALSE(test_id.empty());

  v1::RendezvousWaitRequest wait;
  wait.set_test_id(test_id);
  for (int i = 0; i < 66; ++i) {
    std::string key = absl::StrCat("absent/", i, "/");
    key.resize(spec::kMaxRendezvousKeyLength, 'k');
    wait.add_keys(key);
  }
  wait.set_timeout_ms(100);
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(30));
  v1::RendezvousWaitReply reply;
  const grpc::Status status = node.stub().RendezvousWait(&context, wait, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("timed out waiting for 66 keys: absent/0/"));
  EXPECT_THAT(status.error_message(), HasSubstr("and 58 more"));
  EXPECT_LE(status.error_message().size(), spec::kMaxStatusMessageBytes);

  // The session on the same connection is still there: the node is busy
  // with its test, not lost.
  EXPECT_TRUE(node.Write(CompromisedEvent(test_id, 0, v1::WORKER_EVENT_KIND_REGISTERED)));
  EXPECT_EQ(NodeState("evil"), "busy");
  cluster_.Ebctl({"cancel", test_id});
  (void)cluster_.WaitEbctl(own);
}

// A failure text of 15 MiB is kept as its first 64 KiB in the report and in
// the log; a rank's repeated FAILED adds at most kMaxFailuresPerRank
// failures; events for a rank the node does not run, by the thousand, are
// one log line (with the count of the ones left out at the next).
TEST_F(CompromisedNodeTest, AFloodOfFailuresAndRefusedEventsIsBoundedInTheReportAndTheLog) {
  FakeNodeSession node(cluster_.coordinator_address(), "evil");
  ASSERT_TRUE(node.registered());
  const int own = StartOwnTest("evil");
  const std::string test_id = node.AwaitLaunch();
  ASSERT_FALSE(test_id.empty());

  v1::AgentMessage foreign;
  for (int i = 0; i < 1024; ++i) {
    v1::WorkerEvent& event = *foreign.mutable_worker_events()->add_events();
    event.set_test_id(test_id);
    event.set_rank(1 + i);  // the test has rank 0 only
    event.set_kind(v1::WORKER_EVENT_KIND_JOINED);
  }
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(node.Write(foreign));
  v1::AgentMessage huge = CompromisedEvent(test_id, 0, v1::WORKER_EVENT_KIND_FAILED);
  huge.mutable_worker_event()->mutable_failure()->set_kind(v1::FAILURE_KIND_INTERNAL);
  huge.mutable_worker_event()->mutable_failure()->set_message(std::string(size_t{15} << 20, 'X'));
  ASSERT_TRUE(node.Write(huge));
  v1::AgentMessage again = CompromisedEvent(test_id, 0, v1::WORKER_EVENT_KIND_FAILED);
  again.mutable_worker_event()->mutable_failure()->set_message("again");
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(node.Write(again));
  v1::AgentMessage stopped;
  stopped.mutable_workers_stopped()->set_test_id(test_id);
  ASSERT_TRUE(node.Write(stopped));

  const CliResult result = cluster_.WaitEbctl(own);
  EXPECT_NE(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << result.out.substr(0, 2000);
  int rank0 = 0;
  for (const nlohmann::json& failure : report["failures"]) {
    if (failure.value("rank", -1) == 0) ++rank0;
    // The text as taken (64 KiB), and the rank and node it is prefixed with.
    EXPECT_LE(failure.value("message", "").size(), spec::kMaxStoredTextBytes + 1024);
  }
  EXPECT_EQ(rank0, spec::kMaxFailuresPerRank) << report["failures"].dump(2).substr(0, 4000);
  EXPECT_THAT(report["failures"][0].value("message", ""), HasSubstr("[cut "));

  int foreign_lines = 0;
  for (const std::string& line : CoordinatorLogLines()) {
    EXPECT_LE(line.size(), 2 * spec::kMaxStoredTextBytes) << line.substr(0, 200);
    if (line.find("which it does not run") != std::string::npos) ++foreign_lines;
  }
  // 5,120 refused events; the first is logged, the rest within 10 s are not.
  EXPECT_GE(foreign_lines, 1);
  EXPECT_LE(foreign_lines, 2);
}

// One host holds at most kMaxUnregisteredSessionsPerHost sessions without a
// register (it held every one of the 4,096 places, keeping the fleet's
// agents from reconnecting), and their ends at the register deadline are
// one audit row a minute, not one each.
TEST_F(CompromisedNodeTest, SessionsThatNeverRegisterAreCappedPerHostAndAuditedOnceAMinute) {
  auto stub = v1::AgentService::NewStub(common::MakeChannel(cluster_.coordinator_address()));
  struct Silent {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::AgentMessage, v1::CoordinatorMessage>> stream;
  };
  std::vector<std::unique_ptr<Silent>> sessions;
  for (int i = 0; i < spec::kMaxUnregisteredSessionsPerHost + 1; ++i) {
    auto session = std::make_unique<Silent>();
    common::SetTimeout(session->context, absl::Seconds(120));
    session->stream = stub->Session(&session->context);
    sessions.push_back(std::move(session));
  }
  int refused_per_host = 0, ended_at_deadline = 0;
  for (auto& session : sessions) {
    v1::CoordinatorMessage ignored;
    while (session->stream->Read(&ignored)) {
    }
    const grpc::Status status = session->stream->Finish();
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
        status.error_message().find("from one host") != std::string::npos) {
      ++refused_per_host;
    } else if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      ++ended_at_deadline;
    }
  }
  EXPECT_EQ(refused_per_host, 1);
  EXPECT_EQ(ended_at_deadline, spec::kMaxUnregisteredSessionsPerHost);

  // Every place is given back: a node registers from the same host.
  FakeNodeSession node(cluster_.coordinator_address(), "after");
  EXPECT_TRUE(node.registered());
  CliResult audit = cluster_.Ebctl({"audit", "--json", "--limit", "1000"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  int rows = 0;
  const nlohmann::json listing = nlohmann::json::parse(audit.out);
  for (const nlohmann::json& entry : listing["entries"]) {
    if (entry.dump().find("no register message within") != std::string::npos) ++rows;
  }
  EXPECT_EQ(rows, 1) << audit.out.substr(0, 4000);
}

}  // namespace
}  // namespace eb::testing
