// The agent's handling of what a coordinator sends, without gRPC: mutated
// CoordinatorMessages (LaunchTest, StopTest) to the WorkerSupervisor on a
// fake process launcher (nothing is spawned), interleaved with the workers'
// own calls (register, heartbeat, events), worker exits and clock steps.
// Nothing may crash, and once every test is stopped and every child has
// exited, no test or worker is left. As AgentServer::OnCommand; FetchLog
// reads files and is left to the unit tests.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "agent/config.h"
#include "agent/core/worker_supervisor.h"
#include "ebnccl/v1/agent.pb.h"
#include "ebnccl/v1/worker.pb.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/fake_process_launcher.h"
#include "tests/fakes/manual_executor.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_frames.h"
#include "tests/fuzz/fuzz_quiet.h"

namespace {

namespace v1 = ebnccl::v1;

class NullSink final : public eb::agent::CoordinatorSink {
 public:
  void SendToCoordinator(const v1::AgentMessage& /*message*/) override { ++sent; }
  int sent = 0;
};

eb::agent::AgentConfig Config() {
  eb::agent::AgentConfig config;
  config.node_name = "node-a";
  config.worker_slots = 4;
  config.worker_binary = "/nonexistent/eb-worker";
  config.run_dir = "/nonexistent/eb-fuzz-run";
  config.bootstrap_interface = "lo";
  config.worker_grace = absl::Seconds(5);
  config.worker_heartbeat_period = absl::Seconds(1);
  config.worker_hang_timeout = absl::Seconds(30);
  return config;
}

// The spawned spec's value of `name` in its environment ("" if absent).
std::string EnvValue(const eb::common::ProcessSpec& spec, absl::string_view name) {
  const std::string prefix = absl::StrCat(name, "=");
  for (const std::string& entry : spec.env) {
    if (entry.rfind(prefix, 0) == 0) return entry.substr(prefix.size());
  }
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  eb::fuzz::Quiet();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  eb::testing::FakeClock clock;
  eb::testing::ManualExecutor executor(clock);
  eb::testing::FakeProcessLauncher launcher;
  NullSink sink;
  int tokens = 0;
  eb::agent::SupervisorEnvironment environment;
  environment.agent_pid = 4242;
  environment.agent_target = "unix:/nonexistent/agent.sock";
  environment.agent_env = {"PATH=/usr/bin"};
  environment.make_token = [&tokens] { return absl::StrCat("token-", ++tokens); };
  eb::agent::WorkerSupervisor supervisor(Config(), std::move(environment), clock, executor,
                                         launcher, sink);

  eb::fuzz::FrameReader reader(data, size);
  eb::fuzz::Frame frame;
  while (reader.Next(&frame)) {
    const absl::string_view payload = frame.payload;
    const uint8_t pick = payload.empty() ? 0 : static_cast<uint8_t>(payload[0]);
    const absl::string_view rest = payload.empty() ? payload : payload.substr(1);
    switch (frame.op % 5) {
      case 0: {
        // [CoordinatorMessage], as AgentServer::OnCommand.
        v1::CoordinatorMessage command;
        if (!command.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) break;
        if (command.has_launch()) supervisor.Launch(command.launch());
        if (command.has_stop()) supervisor.Stop(command.stop().test_id(), command.stop().reason());
        break;
      }
      case 1: {
        // [which spawn][kind]: that worker registers, beats, or reports an
        // event with its own token and identity.
        const auto& specs = launcher.specs();
        if (specs.empty()) break;
        const eb::common::ProcessSpec& spec = specs[pick % specs.size()];
        const std::string token = EnvValue(spec, "EB_WORKER_TOKEN");
        const uint8_t kind = rest.empty() ? 0 : static_cast<uint8_t>(rest[0]);
        std::string test_id;
        int rank = 0;
        for (const std::string& arg : spec.argv) {
          if (arg.rfind("--test-id=", 0) == 0) test_id = arg.substr(10);
          if (arg.rfind("--rank=", 0) == 0) rank = std::atoi(arg.c_str() + 7);
        }
        if (kind % 3 == 0) {
          v1::RegisterWorkerRequest request;
          request.set_test_id(test_id);
          request.set_rank(rank);
          request.set_worker_token(token);
          request.set_pid(1);
          (void)supervisor.RegisterWorker(request);
        } else if (kind % 3 == 1) {
          v1::WorkerHeartbeatRequest request;
          request.set_test_id(test_id);
          request.set_rank(rank);
          request.set_worker_token(token);
          (void)supervisor.Heartbeat(request);
        } else {
          v1::ReportWorkerEventRequest request;
          if (!request.ParseFromArray(rest.data() + 1, static_cast<int>(rest.size()) - 1)) break;
          request.set_worker_token(token);
          (void)supervisor.ReportEvent(request);
        }
        break;
      }
      case 2: {
        // [which child][exit code]
        const auto running = launcher.Running();
        if (running.empty()) break;
        const int code = rest.empty() ? 0 : static_cast<uint8_t>(rest[0]);
        (void)launcher.Exit(running[pick % running.size()],
                            code >= 128 ? eb::testing::FakeProcessLauncher::Signaled(code - 128)
                                        : eb::testing::FakeProcessLauncher::Code(code));
        break;
      }
      case 3:
        executor.AdvanceTime(absl::Milliseconds(100 * static_cast<int64_t>(pick)));
        break;
      default:
        supervisor.Stop(absl::StrCat("t-", pick % 4), std::string(rest));
    }
    executor.RunUntilIdle();
  }
  supervisor.StopAll("fuzz input ended");
  executor.RunUntilIdle();
  for (const auto& child : launcher.Running()) {
    (void)launcher.Exit(child, eb::testing::FakeProcessLauncher::Signaled(9));
  }
  executor.AdvanceTime(absl::Hours(1));
  FUZZ_CHECK(supervisor.LiveWorkers() == 0);
  FUZZ_CHECK(supervisor.RunningTests().empty());
  return 0;
}
