// Bounded inputs against the real eb-coordinator and eb-agent on loopback
// (docs/SECURITY.md, "Limits"; docs/SECURITY_FINDINGS.md in ../shared/docs):
// fake agents (gRPC clients speaking our protos) with huge slot counts and
// names (cases 6, 10, 13, 14), huge rendezvous values (case 13), a 6 MB
// rank log read through `ebctl logs` in pages while the node stays
// connected (case 7), empty --nodes lists (case 11) and ebctl's messages
// (case 15).

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "common/spec/limits.h"
#include "ebnccl/v1/agent.grpc.pb.h"
#include "ebnccl/v1/control.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class BoundedInputsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.StartCoordinator().ok()); }

  std::unique_ptr<v1::AgentService::Stub> Stub() {
    return v1::AgentService::NewStub(common::MakeChannel(cluster_.coordinator_address()));
  }

  // Registers a fake agent; returns the session's final status when the
  // coordinator refuses it, OK when it was accepted (then it disconnects).
  grpc::Status RegisterFake(const std::string& name, int slots) {
    auto stub = Stub();
    grpc::ClientContext context;
    common::SetTimeout(context, absl::Seconds(10));
    auto stream = stub->Session(&context);
    v1::AgentMessage hello;
    hello.mutable_register_()->set_node_name(name);
    hello.mutable_register_()->mutable_inventory()->set_worker_slots(slots);
    hello.mutable_register_()->mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
    v1::CoordinatorMessage reply;
    if (stream->Write(hello) && stream->Read(&reply) && reply.has_register_reply()) {
      context.TryCancel();
      (void)stream->Finish();
      return grpc::Status::OK;
    }
    return stream->Finish();
  }

  // The coordinator still answers and lists what it should.
  nlohmann::json Nodes() {
    CliResult nodes = cluster_.Ebctl({"nodes", "--json"});
    EXPECT_EQ(nodes.exit_code, 0) << nodes.err;
    return nlohmann::json::parse(nodes.out, nullptr, false);
  }

  LocalCluster cluster_;
};

// P2-4f3: sessions that never sent register stayed open forever (10,000 of
// them: +140 MB). One is now ended at its register deadline (the heartbeat
// period times the miss limit: 200 ms x 3 x slowdown here), named and
// audited, and the coordinator goes on answering.
TEST_F(BoundedInputsTest, P2_4f3_ASessionThatNeverRegistersIsEndedAtItsDeadline) {
  auto stub = Stub();
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(60));
  auto stream = stub->Session(&context);
  v1::CoordinatorMessage reply;
  const absl::Time opened = absl::Now();
  EXPECT_FALSE(stream->Read(&reply));  // nothing comes; the coordinator ends it
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("no register message within"));
  EXPECT_LT(absl::Now() - opened, absl::Seconds(30));
  EXPECT_EQ(RegisterFake("after-the-silent-one", 1).error_code(), grpc::StatusCode::OK);
  CliResult audit = cluster_.Ebctl({"audit", "--json"});
  EXPECT_THAT(audit.out, HasSubstr("no register message within"));
}

// Case 6: worker_slots = 2147483647 made AssignRanks throw std::bad_alloc
// and the coordinator die.
TEST_F(BoundedInputsTest, Case6HugeSlotCountsAreRefusedAtRegistration) {
  const grpc::Status refused = RegisterFake("fake-slots", 2147483647);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("inventory.worker_slots: at most 1024"));
  EXPECT_TRUE(RegisterFake("fake-edge", 1024).ok());
  CliResult run = cluster_.Ebctl({"run-test", "--nodes", "fake-slots", "-b", "8", "-e", "8"});
  EXPECT_EQ(run.exit_code, 2) << run.err;  // unknown node, not a crash
  EXPECT_TRUE(Nodes().is_object());
}

// Cases 10, 13 and 14: 1 MB names were accepted, broke listings for good
// (exit 5) and came back in error messages.
TEST_F(BoundedInputsTest, Case10And13And14HugeNamesAreRefusedAndListingsStayUsable) {
  const grpc::Status refused = RegisterFake(std::string(1 << 20, 'n'), 1);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("node_name: 1048576 characters, at most 253"));
  EXPECT_LT(refused.error_message().size(), 300u);
  // Names at the edge register, and the listing still works once they are
  // lost.
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(RegisterFake(absl::StrCat(i, std::string(252, 'x')), 1).ok());
  }
  const nlohmann::json nodes = Nodes();
  EXPECT_EQ(nodes["nodes"].size(), 5u) << nodes.dump();
  // Case 14: a 100 KB test id is refused without being echoed.
  CliResult show = cluster_.Ebctl({"show", std::string(100'000, 't')});
  EXPECT_EQ(show.exit_code, 2) << show.err;
  EXPECT_THAT(show.err, HasSubstr("test_id: 100000 characters, at most 128"));
  EXPECT_LT(show.err.size(), 1000u);
}

// Case 13: RendezvousSet accepted 60 values of 3.9 MB.
TEST_F(BoundedInputsTest, Case13HugeRendezvousValuesAreRefused) {
  auto stub = Stub();
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::RendezvousSetRequest request;
  request.set_test_id("t-1");
  request.set_key("k");
  request.set_value(std::string(3'900'000, 'v'));
  v1::RendezvousSetReply reply;
  const grpc::Status status = stub->RendezvousSet(&context, request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("value: 3900000 bytes, at most 1048576"));
}

// Case 7: a 6 MB log read ended the agent's session and failed the test
// running on the node. It is now read in pages, and the node stays.
TEST_F(BoundedInputsTest, Case7ASixMegabyteLogIsReadInPagesAndTheNodeStays) {
  ASSERT_TRUE(cluster_.StartAgent("host0", 1).ok());
  ASSERT_TRUE(cluster_.StartAgent("host1", 1).ok());
  CliResult run = cluster_.Ebctl(
      {"run-test", "--json", "--nodes", "host0,host1", "-b", "8", "-e", "8", "-n", "1", "-w", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
  const std::string test_id = report.value("test_id", "");
  ASSERT_FALSE(test_id.empty()) << run.out;
  // A verbose NCCL_DEBUG log is that big: append 6 MB to rank 0's log.
  const std::string log = cluster_.agent_run_dir("host0") + "/logs/" + test_id + "/rank-0.log";
  std::string line = "NCCL INFO padding line to make the log large .................\n";
  {
    std::ofstream out(log, std::ios::app | std::ios::binary);
    ASSERT_TRUE(out.good()) << log;
    for (int written = 0; written < 6'000'000; written += static_cast<int>(line.size()))
      out << line;
  }
  std::ifstream in(log, std::ios::binary | std::ios::ate);
  const int64_t size = in.tellg();
  CliResult logs = cluster_.Ebctl({"logs", test_id, "--rank", "0", "--max-bytes", "6000000"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err.substr(0, 2000);
  EXPECT_EQ(static_cast<int64_t>(logs.out.size()), std::min<int64_t>(size, 6'000'000));
  EXPECT_THAT(logs.err, Not(HasSubstr("larger than max")));
  // The whole log, more than it holds: every byte once.
  CliResult all = cluster_.Ebctl({"logs", test_id, "--rank", "0", "--max-bytes", "100000000"});
  EXPECT_EQ(all.exit_code, 0) << all.err.substr(0, 2000);
  EXPECT_EQ(static_cast<int64_t>(all.out.size()), size);
  // The node was never lost.
  const nlohmann::json listed = Nodes();  // A temporary's ["nodes"] would dangle.
  for (const auto& node : listed["nodes"]) {
    EXPECT_NE(node.value("state", ""), "lost") << node.dump();
  }
  CliResult again = cluster_.Ebctl(
      {"run-test", "--nodes", "host0,host1", "-b", "8", "-e", "8", "-n", "1", "-w", "0"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

// Case 11: `--nodes ''`, `,,` and `' , '` meant "every idle node".
TEST_F(BoundedInputsTest, Case11EmptyNodeListsAreUsageErrors) {
  for (const char* empty : {"", ",,", " , "}) {
    CliResult run = cluster_.Ebctl({"run-test", "--nodes", empty, "-b", "8", "-e", "8"});
    EXPECT_EQ(run.exit_code, 2) << empty;
    EXPECT_THAT(run.err, HasSubstr("--nodes: an empty list")) << empty;
  }
}

// Case 15: ebctl's messages.
TEST_F(BoundedInputsTest, Case15MessagesNameTheProblem) {
  CliResult unknown = cluster_.Ebctl({"nodez"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown command 'nodez'"));
  CliResult factor =
      cluster_.Ebctl({"run-test", "-f", "99999999999999999999", "-b", "8", "-e", "8"});
  EXPECT_EQ(factor.exit_code, 2);
  EXPECT_THAT(factor.err, HasSubstr("'99999999999999999999' is not a whole number from 0 to"));
  CliResult limit = cluster_.Ebctl({"jobs", "--limit", "0"});
  EXPECT_EQ(limit.exit_code, 2);
  EXPECT_THAT(limit.err, AllOf(HasSubstr("'0' is not a whole number from 1 to 1000"),
                               Not(HasSubstr("1797693"))));
}

// P2-7.3: a RunValidation whose baselines_toml (64 KB) holds a bad table
// name. The error echoed the input into the status, over gRPC's metadata
// limit: the client saw only "metadata size exceeds limit". Now every status
// leaving the coordinator is cut to spec::kMaxStatusMessageBytes, and the
// client reads INVALID_ARGUMENT naming the field.
TEST_F(BoundedInputsTest, P2_7_3_AHugeBadBaselinesTableIsRefusedNamingTheField) {
  auto stub = v1::Control::NewStub(common::MakeChannel(cluster_.coordinator_address()));
  grpc::ClientContext context;
  common::SetTimeout(context, absl::Seconds(10));
  v1::RunValidationRequest request;
  request.mutable_spec()->set_baselines_toml(absl::StrCat("[", std::string(65536, 'x'), "]\n"));
  auto stream = stub->RunValidation(&context, request);
  v1::ValidationEvent event;
  while (stream->Read(&event)) {
  }
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("baselines_toml"));
  EXPECT_THAT(status.error_message(), Not(HasSubstr("metadata")));
  EXPECT_LE(status.error_message().size(), spec::kMaxStatusMessageBytes);
}

}  // namespace
}  // namespace eb::testing
