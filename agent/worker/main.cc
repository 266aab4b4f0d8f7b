// eb-worker: one rank of one test, spawned by eb-agent. Not meant to be run
// by hand: the agent passes every flag.

#include <signal.h>
#include <string.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/synchronization/mutex.h"
#include "agent/worker/nccl_version.h"
#include "agent/worker/worker_runtime.h"
#include "common/config/parse_command_line.h"
#include "common/logging/logging.h"
#include "common/process/parent_death.h"
#include "common/process/signals.h"
#include "common/spec/worker_token.h"
#include "common/version/version.h"
#include "spdlog/spdlog.h"

namespace {

constexpr char kPrintNcclVersion[] = "--print-nccl-version";

// The agent's probe: print the loaded NCCL's version (or "none") and exit,
// before anything else (no logging, no parent check, no CUDA).
int PrintNcclVersion() {
  absl::StatusOr<std::string> version = eb::worker::LoadedNcclVersion();
  if (!version.ok()) {
    std::fprintf(stderr, "eb-worker: %s\n", version.status().ToString().c_str());
    return eb::worker::kExitInternal;
  }
  std::printf("%s\n", version->c_str());
  return eb::worker::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Debian's Abseil is built without NDEBUG, so mutex deadlock detection
  // is on: every lock and unlock walks a process-wide lock graph
  // (GraphCycles: ~5% of the coordinator's CPU with a thousand agents,
  // issue 15). Lock order is checked by the tests (thread annotations,
  // TSan), not on every lock in production.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // NCCL writes its warnings with stdio to stdout, which is the rank's log
  // file, so fully buffered: a stop leaves with std::_Exit (below), which
  // drops what is still buffered, and the report lost the very lines that
  // explain a failure (seen on the H200). Line-buffered, each NCCL line is in
  // the log as soon as it is written (issue 12 item 5).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // Checked before the flags are parsed: the probe comes without the flags
  // a worker requires.
  if (argc == 2 && std::strcmp(argv[1], kPrintNcclVersion) == 0) return PrintNcclVersion();
  // Before any thread exists: SIGTERM (the agent's stop, the parent-death
  // signal) and SIGINT are read by ShutdownSignalWatcher below, in ordinary
  // code, not by a handler. Also ignores SIGPIPE: Gloo's TCP writes do not
  // suppress it, and a peer that died must turn into an error status, not
  // kill this rank silently.
  eb::common::BlockShutdownSignals();
  eb::worker::WorkerOptions options;
  std::string log_level = "info";

  // Only the worker's identity: the rest comes in the registration reply.
  CLI::App app{"eb-worker: one rank of an ebnccl test (started by eb-agent)"};
  app.set_version_flag("--version", std::string(eb::kVersion));
  app.add_option("--agent", options.agent_target, "WorkerControl target of the agent")->required();
  app.add_option("--agent-pid", options.agent_pid, "Pid of the agent; exit if it is not the parent")
      ->required();
  app.add_option("--test-id", options.test_id, "Test id")->required();
  app.add_option("--rank", options.rank, "Global rank")->required()->check(CLI::NonNegativeNumber);
  bool print_nccl_version = false;
  app.add_flag(kPrintNcclVersion, print_nccl_version,
               "Print the loaded NCCL library's version (or 'none') and exit; alone");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error");
  if (auto exit_code = eb::common::ParseCommandLine(app, argc, argv, eb::worker::kExitUsage)) {
    return *exit_code;
  }
  if (print_nccl_version) return PrintNcclVersion();
  // The token is a secret: taken from the environment, never argv, and
  // removed at once so that nothing this process starts inherits it.
  const char* token = std::getenv(eb::spec::kWorkerTokenVariable);
  if (token == nullptr || *token == '\0') {
    std::fprintf(stderr,
                 "eb-worker: %s is not set: eb-worker is started by eb-agent, which passes "
                 "each worker its token in the environment\n",
                 eb::spec::kWorkerTokenVariable);
    return eb::worker::kExitUsage;
  }
  options.token = token;
  unsetenv(eb::spec::kWorkerTokenVariable);

  if (auto status = eb::common::InitLogging({"eb-worker", log_level, ""}); !status.ok()) {
    std::fprintf(stderr, "eb-worker: %s\n", std::string(status.message()).c_str());
    return eb::worker::kExitUsage;
  }
  // A stop: say so and leave at once (the main thread may sit in a
  // collective; nothing of the test is worth finishing). spdlog's locks are
  // fine here: this is a thread of its own, not a signal handler.
  eb::common::ShutdownSignalWatcher stop_signals([](int signal_number) {
    spdlog::info("received SIG{}; stopping", sigabbrev_np(signal_number));
    spdlog::default_logger()->flush();
    std::_Exit(eb::worker::kExitStopped);
  });
  // A worker must not outlive its agent (STYLE.md rule 14).
  if (auto status = eb::common::DieWithParent(options.agent_pid, SIGTERM); !status.ok()) {
    spdlog::error("{}", status.ToString());
    return eb::worker::kExitStopped;
  }
  const char* fault_text = std::getenv("EB_WORKER_FAULT");
  auto fault = eb::worker::ParseFaultInjection(fault_text != nullptr ? fault_text : "");
  if (!fault.ok()) {
    spdlog::error("{}", fault.status().ToString());
    return eb::worker::kExitUsage;
  }
  options.fault = *fault;
  spdlog::info("eb-worker {} test={} rank={} agent={}", eb::kVersion, options.test_id, options.rank,
               options.agent_target);
  const int code = eb::worker::RunWorker(options);
  spdlog::default_logger()->flush();
  return code;
}
