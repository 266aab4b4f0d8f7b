#pragma once

// A node holding a valid identity, speaking the agent protocol by hand over
// its own channel: registers with one Gloo worker slot, takes a launch, and
// then writes whatever a test makes it write (a flood, events for ranks it
// does not run, oversized texts). The integration tests' compromised node
// (docs/SECURITY.md, "Per-node budgets"); the real agent never does this.

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/rpc/channel.h"
#include "ebnccl/v1/agent.grpc.pb.h"

namespace eb::testing {

class FakeNodeSession {
 public:
  FakeNodeSession(const std::string& address, const std::string& name,
                  absl::Duration timeout = absl::Seconds(120))
      : stub_(ebnccl::v1::AgentService::NewStub(common::MakeChannel(address))) {
    common::SetTimeout(context_, timeout);
    stream_ = stub_->Session(&context_);
    ebnccl::v1::AgentMessage hello;
    hello.mutable_register_()->set_node_name(name);
    hello.mutable_register_()->mutable_inventory()->set_worker_slots(1);
    hello.mutable_register_()->mutable_inventory()->add_transports(ebnccl::v1::TRANSPORT_GLOO);
    ebnccl::v1::CoordinatorMessage reply;
    registered_ = stream_->Write(hello) && stream_->Read(&reply) && reply.has_register_reply();
  }
  ~FakeNodeSession() {
    if (finished_) return;
    context_.TryCancel();
    (void)stream_->Finish();
  }
  FakeNodeSession(const FakeNodeSession&) = delete;
  FakeNodeSession& operator=(const FakeNodeSession&) = delete;

  bool registered() const { return registered_; }
  ebnccl::v1::AgentService::Stub& stub() { return *stub_; }

  // The test id of the next LaunchTest ("" when the stream ends first).
  std::string AwaitLaunch() {
    ebnccl::v1::CoordinatorMessage message;
    while (stream_->Read(&message)) {
      if (message.has_launch()) return message.launch().test_id();
    }
    return "";
  }
  bool Write(const ebnccl::v1::AgentMessage& message) { return stream_->Write(message); }

  // Ends the writes, reads what is left and returns the session's status
  // (once: the destructor then does nothing).
  grpc::Status Finish() {
    stream_->WritesDone();
    ebnccl::v1::CoordinatorMessage ignored;
    while (stream_->Read(&ignored)) {
    }
    finished_ = true;
    return stream_->Finish();
  }

 private:
  std::unique_ptr<ebnccl::v1::AgentService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientReaderWriter<ebnccl::v1::AgentMessage, ebnccl::v1::CoordinatorMessage>>
      stream_;
  bool registered_ = false;
  bool finished_ = false;
};

}  // namespace eb::testing
