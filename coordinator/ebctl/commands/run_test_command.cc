#include "coordinator/ebctl/commands/run_test_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "common/rpc/channel.h"
#include "common/spec/names.h"
#include "coordinator/ebctl/commands/interrupt_watcher.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/json_lines.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/report_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

const char* StateWord(v1::TestState state) {
  switch (state) {
    case v1::TEST_STATE_LAUNCHING:
      return "launching workers";
    case v1::TEST_STATE_INITIALIZING:
      return "ranks joining the communicator";
    case v1::TEST_STATE_RUNNING:
      return "running the sweep";
    case v1::TEST_STATE_STOPPING:
      return "stopping workers";
    default:
      return "";
  }
}

}  // namespace

int RunTestCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  absl::StatusOr<v1::TestSpec> spec = BuildSpec(flags);
  if (!spec.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(spec.status().message()).c_str());
    return kExitUsage;
  }
  const bool progress = isatty(STDERR_FILENO) != 0;
  grpc::ClientContext context;
  // The test has its own deadlines; this one only guards the call itself.
  const int64_t test_ms = spec->timeout_ms() > 0 ? spec->timeout_ms() : 3'600'000;
  common::SetTimeout(context, absl::Milliseconds(test_ms) + absl::Minutes(2));
  v1::RunTestRequest request;
  *request.mutable_spec() = *spec;

  InterruptWatcher interrupts(context, "cancelling the test");
  auto reader = stub.RunTest(&context, request);
  v1::RunTestEvent event;
  v1::TestReport accepted;
  v1::TestReport finished;
  bool connected = false;
  bool done = false;
  while (reader->Read(&event)) {
    connected = true;
    switch (event.event_case()) {
      case v1::RunTestEvent::kAccepted:
        accepted = event.accepted();
        if (progress) {
          std::fprintf(stderr, "ebctl: test %s accepted: %d ranks over %s\n",
                       accepted.test_id().c_str(), accepted.ranks_size(),
                       spec::DisplayName(accepted.transport()));
        }
        if (!options.json && !json_lines) std::cout << TableHeader(accepted) << std::flush;
        break;
      case v1::RunTestEvent::kStateChanged:
        if (progress && StateWord(event.state_changed())[0] != '\0') {
          std::fprintf(stderr, "ebctl: %s...\n", StateWord(event.state_changed()));
        }
        break;
      case v1::RunTestEvent::kSizeResult:
        if (json_lines) {
          std::cout << ToJsonLine(RowJsonLine(event.size_result(), accepted)) << std::flush;
        } else if (!options.json)
          std::cout << TableRow(event.size_result(), accepted.spec()) << std::flush;
        break;
      case v1::RunTestEvent::kFinished:
        finished = event.finished();
        done = true;
        break;
      default:
        break;
    }
  }
  const grpc::Status status = reader->Finish();
  if (!done) {
    if (interrupts.interrupted()) return kExitInterrupted;
    return RpcFailed(connected ? "the test stream broke" : "the coordinator refused the test",
                     status, connected);
  }
  if (json_lines) {
    std::cout << ToJsonLine(FinishedJsonLine(finished)) << std::flush;
  } else if (options.json) {
    std::cout << ReportToJson(finished).dump(2) << std::endl;
  } else {
    std::cout << TableFooter(finished) << std::flush;
  }
  return ExitCodeForReport(finished);
}

}  // namespace eb::ebctl
