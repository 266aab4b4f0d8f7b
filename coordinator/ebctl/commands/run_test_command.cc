#include "coordinator/ebctl/commands/run_test_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
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

// The -J file, created as nccl-tests' jsonOutputInit does: exclusively,
// with ".1", ".2", ... appended while the name is taken; before the test
// runs, so that a path that cannot be written fails before anything starts.
struct JsonFile {
  int fd = -1;
  std::string name;
};

absl::StatusOr<JsonFile> CreateJsonFile(const std::string& path) {
  for (int suffix = 0; suffix < 1000; ++suffix) {
    const std::string name = suffix == 0 ? path : absl::StrCat(path, ".", suffix);
    const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return JsonFile{fd, name};
    if (errno != EEXIST) {
      return absl::InvalidArgumentError(
          absl::StrCat("-J/--output-file: cannot create ", name, ": ", std::strerror(errno)));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("-J/--output-file: ", path, " and ", path, ".1 to .999 all exist"));
}

// Writes `text` and closes the file (fd -1 afterwards).
absl::Status WriteAndClose(JsonFile& file, const std::string& text) {
  size_t written = 0;
  std::string error;
  while (written < text.size() && error.empty()) {
    const ssize_t n = write(file.fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::strerror(errno);
    } else {
      written += static_cast<size_t>(n);
    }
  }
  if (close(file.fd) != 0 && error.empty()) error = std::strerror(errno);
  file.fd = -1;
  if (!error.empty()) {
    return absl::InternalError(absl::StrCat("-J/--output-file: writing ", file.name, ": ", error));
  }
  return absl::OkStatus();
}

}  // namespace

int RunTestCommand::Execute(v1::Control::Stub& stub, const GlobalOptions& options) {
  absl::StatusOr<v1::TestSpec> spec = BuildSpec(flags);
  if (!spec.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(spec.status().message()).c_str());
    return kExitUsage;
  }
  JsonFile json_file;
  if (!flags.output_file.empty()) {
    absl::StatusOr<JsonFile> created = CreateJsonFile(flags.output_file);
    if (!created.ok()) {
      std::fprintf(stderr, "ebctl: %s\n", std::string(created.status().message()).c_str());
      return kExitUsage;
    }
    json_file = *created;
  }
  // No report came back (refused, unreachable, interrupted): no empty file.
  absl::Cleanup discard_json_file = [&json_file] {
    if (json_file.fd < 0) return;
    close(json_file.fd);
    unlink(json_file.name.c_str());
  };
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
  TablePrinter table(*spec);
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
        if (!options.json && !json_lines) {
          table = TablePrinter(accepted.spec());
          std::cout << TableHeader(accepted) << std::flush;
        }
        break;
      case v1::RunTestEvent::kStateChanged:
        if (progress && StateWord(event.state_changed())[0] != '\0') {
          std::fprintf(stderr, "ebctl: %s...\n", StateWord(event.state_changed()));
        }
        break;
      case v1::RunTestEvent::kSizeResult:
        if (json_lines) {
          std::cout << ToJsonLine(RowJsonLine(event.size_result(), accepted)) << std::flush;
        } else if (!options.json) {
          std::cout << table.Row(event.size_result()) << std::flush;
        }
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
    std::cout << table.Finish(finished) << std::flush;
  }
  if (json_file.fd >= 0) {
    // After the verdict, as nccl-tests finishes its file at the end.
    const absl::Status written = WriteAndClose(json_file, ReportToJson(finished).dump(2) + "\n");
    if (!written.ok()) {
      std::fprintf(stderr, "ebctl: %s\n", std::string(written.message()).c_str());
      const int code = ExitCodeForReport(finished);
      return code != kExitOk ? code : kExitInternal;
    }
    if (!options.json && !json_lines) {
      std::cout << "# Wrote JSON output to " << json_file.name << std::endl;
    }
  }
  return ExitCodeForReport(finished);
}

}  // namespace eb::ebctl
