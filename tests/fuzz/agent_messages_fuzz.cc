// The coordinator's handling of what agents send, without gRPC: mutated
// AgentMessages (register, heartbeat, worker events, workers stopped, log
// content) from four sessions, interleaved with sessions ending, clock steps,
// client tests started (with mutated specs) and cancelled. Two agents are
// registered and a test runs on both before the input plays, so worker
// events reach a live TestRun. Nothing may crash, and once the coordinator
// interrupts everything and time passes, every accepted test has ended with
// exactly one final event.
//
// Dispatch() mirrors AgentServiceImpl::HandleMessage (coordinator/grpc),
// the gRPC edge: registration, then HandleSessionMessage, which both call.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "coordinator/core/nodes/session_messages.h"
#include "coordinator/history/in_memory_history.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/control.pb.h"
#include "tests/fakes/fake_agent_channel.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_frames.h"
#include "tests/fuzz/fuzz_quiet.h"

namespace {

namespace v1 = ebnccl::v1;
using eb::coordinator::CoordinatorConfig;
using eb::coordinator::LogRequests;
using eb::coordinator::NodeRecord;
using eb::coordinator::NodeRegistry;
using eb::coordinator::RendezvousKv;
using eb::coordinator::TestManager;
using eb::coordinator::TestObserver;
using eb::testing::FakeAgentChannel;

constexpr uint64_t kSessions = 4;

// Counts each test's events; the last one must be its only `finished`.
class CountingObserver final : public TestObserver {
 public:
  void OnEvent(const v1::RunTestEvent& event) override {
    FUZZ_CHECK(finished == 0);
    if (event.has_finished()) ++finished;
  }
  int finished = 0;
};

CoordinatorConfig Config() {
  CoordinatorConfig config;
  config.heartbeat_period = absl::Seconds(2);
  config.heartbeat_miss_limit = 3;
  config.stop_timeout = absl::Seconds(5);
  config.history_path = "";
  return config;
}

v1::AgentMessage Registration(const std::string& name) {
  v1::AgentMessage message;
  v1::RegisterAgent& request = *message.mutable_register_();
  request.set_node_name(name);
  request.mutable_inventory()->set_hostname(name);
  request.mutable_inventory()->set_worker_slots(2);
  request.mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
  return message;
}

v1::TestSpec Spec() {
  v1::TestSpec spec;
  spec.set_collective(v1::COLLECTIVE_ALL_REDUCE);
  spec.set_min_bytes(1024);
  spec.set_max_bytes(2048);
  spec.set_step_factor(2);
  spec.set_iterations(5);
  spec.add_node_names("node-a");
  spec.add_node_names("node-b");
  return spec;
}

struct Coordinator {
  Coordinator()
      : executor(clock),
        config(Config()),
        registry(clock, executor, config, nullptr),
        rendezvous(executor),
        manager(clock, executor, registry, rendezvous, config, history,
                [this] { return absl::StrCat("t-", ++tests_made); }),
        logs(executor, absl::Seconds(10)) {
    registry.set_on_lost([this](const std::string& node, const std::string& reason) {
      manager.OnNodeLost(node, reason);
    });
    registry.Start();
    for (uint64_t session = 1; session <= kSessions; ++session) {
      channels[session] = std::make_shared<FakeAgentChannel>(absl::StrCat("ipv4:10.0.0.", session));
    }
  }

  // As AgentServiceImpl::HandleMessage.
  void Dispatch(uint64_t session, const v1::AgentMessage& message) {
    const std::shared_ptr<FakeAgentChannel>& channel = channels[session];
    if (message.has_register_()) {
      absl::Status status = registry.Register(session, message.register_(), channel);
      if (!status.ok()) channel->Close(status);
      return;
    }
    NodeRecord* node = registry.FindBySession(session);
    if (node == nullptr) {
      channel->Close(absl::FailedPreconditionError("the first message must be register"));
      return;
    }
    const std::string node_name = node->name;
    absl::Status handled = eb::coordinator::HandleSessionMessage({registry, manager, logs}, session,
                                                                 node_name, message);
    if (!handled.ok()) channel->Close(handled);
  }

  void StartTest(const v1::TestSpec& spec) {
    auto observer = std::make_shared<CountingObserver>();
    if (manager.StartTest(spec, observer).ok()) observers.push_back(observer);
  }

  eb::testing::FakeClock clock;
  eb::testing::ManualExecutor executor;
  const CoordinatorConfig config;
  eb::coordinator::InMemoryTestHistory history;
  NodeRegistry registry;
  RendezvousKv rendezvous;
  int tests_made = 0;
  TestManager manager;
  LogRequests logs;
  std::map<uint64_t, std::shared_ptr<FakeAgentChannel>> channels;
  std::vector<std::shared_ptr<CountingObserver>> observers;
};

uint64_t Session(absl::string_view payload) {
  return payload.empty() ? 1 : 1 + static_cast<uint8_t>(payload[0]) % kSessions;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  eb::fuzz::Quiet();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Coordinator c;
  c.Dispatch(1, Registration("node-a"));
  c.Dispatch(2, Registration("node-b"));
  c.StartTest(Spec());
  c.executor.RunUntilIdle();
  FUZZ_CHECK(c.observers.size() == 1);

  eb::fuzz::FrameReader reader(data, size);
  eb::fuzz::Frame frame;
  int log_answers = 0;
  int log_requests = 0;
  while (reader.Next(&frame)) {
    const absl::string_view payload = frame.payload;
    const absl::string_view rest = payload.empty() ? payload : payload.substr(1);
    switch (frame.op % 6) {
      case 0: {
        // [session][AgentMessage]
        v1::AgentMessage message;
        if (message.ParseFromArray(rest.data(), static_cast<int>(rest.size()))) {
          c.Dispatch(Session(payload), message);
        }
        break;
      }
      case 1:
        c.registry.SessionClosed(Session(payload));
        break;
      case 2: {
        const int64_t tenths = payload.empty() ? 0 : static_cast<uint8_t>(payload[0]);
        c.executor.AdvanceTime(absl::Milliseconds(100 * tenths));
        break;
      }
      case 3: {
        // [TestSpec]; unparsable bytes start the default test.
        v1::TestSpec spec;
        if (!spec.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) spec = Spec();
        c.StartTest(spec);
        break;
      }
      case 4:
        (void)c.manager.CancelTest(absl::StrCat("t-", payload.empty() ? 1 : payload[0] % 4),
                                   std::string(rest));
        break;
      default:
        ++log_requests;
        c.logs.Add(payload.empty() || payload[0] % 2 == 0 ? "node-a" : "node-b",
                   [&log_answers](absl::StatusOr<v1::LogContent>) { ++log_answers; });
    }
    c.executor.RunUntilIdle();
  }
  c.manager.InterruptAll("fuzz input ended");
  c.executor.AdvanceTime(2 * c.config.stop_timeout);
  FUZZ_CHECK(c.manager.RunningCount() == 0);
  for (const auto& observer : c.observers) FUZZ_CHECK(observer->finished == 1);
  FUZZ_CHECK(log_answers == log_requests);
  return 0;
}
