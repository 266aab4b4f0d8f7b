#include "coordinator/ebctl/commands/run_test_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "common/spec/counted.h"
#include "common/spec/names.h"
#include "common/spec/terminal_text.h"
#include "common/time/clock.h"
#include "coordinator/ebctl/commands/interrupt_watcher.h"
#include "coordinator/ebctl/commands/json_output_file.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/json_lines.h"
#include "coordinator/ebctl/output/progress_style.h"
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

// How the test is shown while it runs and when it ends.
struct RunTestOutput {
  // Progress lines on stderr (--progress).
  ProgressStyle progress = ProgressStyle::kNone;
  // --json: the report only, at the end.
  bool json = false;
  // --json-lines: a line per row as it arrives, then the report.
  bool json_lines = false;
  // The command line, for the report's `args` (nccl-tests -J writes its own).
  const std::vector<std::string>* args = nullptr;
  // For the snapshot the table's header is printed from (HeaderReport).
  v1::Control::Stub* stub = nullptr;
};

// How long the header's snapshot may take before the accepted report is
// used instead (without pids).
constexpr absl::Duration kSnapshotTimeout = absl::Seconds(10);

// What the RunTest stream brought.
struct StreamedTest {
  v1::TestReport accepted;
  v1::TestReport finished;
  // An event arrived: the coordinator took the test.
  bool connected = false;
  // `finished` arrived: the test reached its verdict.
  bool done = false;
  // The table's header waits for the workers: its "#  Rank" lines carry
  // their pids, which the accepted report (sent before any worker was
  // started) does not have.
  bool header_pending = false;
};

int UsageError(const absl::Status& status) {
  std::fprintf(stderr, "ebctl: %s\n", std::string(status.message()).c_str());
  return kExitUsage;
}

void Progress(const RunTestOutput& output, absl::string_view text) {
  const std::string line =
      ProgressLine(output.progress, common::RealClock::Get(), spec::Printable(text));
  if (line.empty()) return;
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

// The test as the coordinator has it once every rank registered, with each
// worker's pid; `accepted` (no pids) when the call fails.
v1::TestReport HeaderReport(const RunTestOutput& output, const v1::TestReport& accepted) {
  grpc::ClientContext context;
  common::SetTimeout(context, kSnapshotTimeout);
  v1::GetTestRequest request;
  request.set_test_id(accepted.test_id());
  v1::GetTestReply reply;
  if (output.stub == nullptr || !output.stub->GetTest(&context, request, &reply).ok()) {
    return accepted;
  }
  return reply.report();
}

void PrintHeader(const v1::TestReport& report, StreamedTest& test) {
  if (!test.header_pending) return;
  test.header_pending = false;
  std::cout << TableHeader(report) << std::flush;
}

// Shows one event as it arrives: progress on stderr, the table's header
// and rows (or JSON lines) on stdout; keeps the accepted and finished
// reports.
void ShowEvent(const v1::RunTestEvent& event, const RunTestOutput& output, TablePrinter& table,
               StreamedTest& test) {
  switch (event.event_case()) {
    case v1::RunTestEvent::kAccepted:
      test.accepted = event.accepted();
      Progress(output, absl::StrCat("test ", test.accepted.test_id(), " accepted: ",
                                    spec::Counted(test.accepted.ranks_size(), "rank"), " over ",
                                    spec::DisplayName(test.accepted.transport())));
      if (!output.json && !output.json_lines) {
        table = TablePrinter(test.accepted.spec());
        test.header_pending = true;
      }
      break;
    case v1::RunTestEvent::kStateChanged:
      if (StateWord(event.state_changed())[0] != '\0') {
        Progress(output, absl::StrCat(StateWord(event.state_changed()), "..."));
      }
      // Every rank registered: the pids are known (nccl-tests prints its
      // devices once its processes are up).
      if (test.header_pending && event.state_changed() == v1::TEST_STATE_INITIALIZING) {
        PrintHeader(HeaderReport(output, test.accepted), test);
      }
      break;
    case v1::RunTestEvent::kSizeResult:
      if (output.json_lines) {
        std::cout << ToJsonLine(RowJsonLine(event.size_result(), test.accepted)) << std::flush;
      } else if (!output.json) {
        PrintHeader(test.accepted, test);  // (a row before INITIALIZING: never)
        std::cout << table.Row(event.size_result()) << std::flush;
      }
      break;
    case v1::RunTestEvent::kFinished:
      test.finished = event.finished();
      // Ended before every rank registered: the pids of those that did.
      PrintHeader(test.finished, test);
      test.done = true;
      break;
    default:
      break;
  }
}

StreamedTest ReadTestStream(grpc::ClientReaderInterface<v1::RunTestEvent>& reader,
                            const RunTestOutput& output, TablePrinter& table) {
  StreamedTest test;
  v1::RunTestEvent event;
  while (reader.Read(&event)) {
    test.connected = true;
    ShowEvent(event, output, table, test);
  }
  return test;
}

// The verdict on stdout: the table's footer, the report or its JSON line.
void ShowFinished(const v1::TestReport& finished, const RunTestOutput& output,
                  TablePrinter& table) {
  if (output.json_lines) {
    std::cout << ToJsonLine(FinishedJsonLine(finished)) << std::flush;
  } else if (output.json) {
    std::cout << ReportToJson(finished, kVersion, *output.args).dump(2) << std::endl;
  } else {
    std::cout << table.Finish(finished) << std::flush;
  }
}

// After the verdict, as nccl-tests finishes its file at the end. Returns
// what ebctl exits with: the report's code, or kExitInternal for a file
// that could not be written after a test that passed.
int WriteJsonFile(JsonOutputFile& file, const v1::TestReport& finished,
                  const std::vector<std::string>& args) {
  const absl::Status written =
      file.WriteAndClose(ReportToJson(finished, kVersion, args).dump(2) + "\n");
  if (!written.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(written.message()).c_str());
    const int code = ExitCodeForReport(finished);
    return code != kExitOk ? code : kExitInternal;
  }
  return ExitCodeForReport(finished);
}

}  // namespace

int RunTestCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  absl::StatusOr<v1::TestSpec> spec = BuildSpec(flags);
  if (!spec.ok()) return UsageError(spec.status());
  // Created before the test starts; removed if no report comes back.
  JsonOutputFile json_file;
  if (!flags.output_file.empty()) {
    absl::StatusOr<JsonOutputFile> created = JsonOutputFile::Create(flags.output_file);
    if (!created.ok()) return UsageError(created.status());
    json_file = *std::move(created);
    // nccl-tests says so first, before its preamble (jsonOutputInit).
    if (!options.json && !json_lines) {
      std::cout << "# Writing JSON output to " << json_file.name() << std::endl;
    }
  }
  absl::StatusOr<ProgressStyle> style = ProgressStyleFor(progress, isatty(STDERR_FILENO) != 0);
  if (!style.ok()) return UsageError(style.status());
  const RunTestOutput output{*style, options.json, json_lines, &options.args, &stub};
  grpc::ClientContext context;
  // The test has its own deadlines; this one only guards the call itself.
  const int64_t test_ms = spec->timeout_ms() > 0 ? spec->timeout_ms() : 3'600'000;
  common::SetTimeout(context, absl::Milliseconds(test_ms) + absl::Minutes(2));
  v1::RunTestRequest request;
  *request.mutable_spec() = *spec;

  InterruptWatcher interrupts(context, "cancelling the test");
  auto reader = stub.RunTest(&context, request);
  TablePrinter table(*spec);
  const StreamedTest test = ReadTestStream(*reader, output, table);
  const grpc::Status status = reader->Finish();
  if (!test.done) {
    if (interrupts.interrupted()) return kExitInterrupted;
    return RpcFailed(test.connected ? "the test stream broke" : "the coordinator refused the test",
                     status, test.connected);
  }
  ShowFinished(test.finished, output, table);
  if (json_file.is_open()) return WriteJsonFile(json_file, test.finished, options.args);
  return ExitCodeForReport(test.finished);
}

}  // namespace eb::ebctl
