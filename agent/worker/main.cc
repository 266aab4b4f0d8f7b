// eb-worker: one rank of one test, spawned by eb-agent. Not meant to be run
// by hand: the agent passes every flag.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "CLI/CLI.hpp"
#include "agent/worker/nccl_version.h"
#include "agent/worker/worker_runtime.h"
#include "common/config/parse_command_line.h"
#include "common/logging/logging.h"
#include "common/process/parent_death.h"
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
  // Checked before the flags are parsed: the probe comes without the flags
  // a worker requires.
  if (argc == 2 && std::strcmp(argv[1], kPrintNcclVersion) == 0) return PrintNcclVersion();
  // Gloo's TCP writes do not suppress SIGPIPE: a peer that died must turn
  // into an error status, not kill this rank silently.
  signal(SIGPIPE, SIG_IGN);
  eb::worker::WorkerOptions options;
  int64_t heartbeat_ms = 1000;
  int64_t init_timeout_ms = 60000;
  int64_t op_timeout_ms = 60000;
  std::string log_level = "info";

  CLI::App app{"eb-worker: one rank of an ebnccl test (started by eb-agent)"};
  app.set_version_flag("--version", std::string(eb::kVersion));
  app.add_option("--agent", options.agent_target, "WorkerControl target of the agent")->required();
  app.add_option("--agent-pid", options.agent_pid, "Pid of the agent; exit if it is not the parent")
      ->required();
  app.add_option("--test-id", options.test_id, "Test id")->required();
  app.add_option("--rank", options.rank, "Global rank")->required()->check(CLI::NonNegativeNumber);
  app.add_option("--worker-token", options.token, "Secret token from the agent")->required();
  app.add_option("--heartbeat-period-ms", heartbeat_ms, "Heartbeat period")
      ->check(CLI::PositiveNumber);
  app.add_option("--init-timeout-ms", init_timeout_ms, "Deadline to join the communicator")
      ->check(CLI::PositiveNumber);
  app.add_option("--op-timeout-ms", op_timeout_ms, "Deadline of one collective call")
      ->check(CLI::PositiveNumber);
  app.add_option("--bootstrap-interface", options.bootstrap_interface, "NIC for bootstrap/Gloo");
  app.add_option("--bootstrap-address", options.bootstrap_address, "Address to bind for Gloo");
  app.add_option("--cuda-device", options.cuda_device, "GPU index (NCCL)");
  app.add_option("--gpu-bus-id", options.gpu_bus_id,
                 "PCI bus id the agent expects at --cuda-device (checked before NCCL init)");
  bool print_nccl_version = false;
  app.add_flag(kPrintNcclVersion, print_nccl_version,
               "Print the loaded NCCL library's version (or 'none') and exit; alone");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error");
  if (auto exit_code = eb::common::ParseCommandLine(app, argc, argv, eb::worker::kExitUsage)) {
    return *exit_code;
  }
  if (print_nccl_version) return PrintNcclVersion();

  if (auto status = eb::common::InitLogging({"eb-worker", log_level, ""}); !status.ok()) {
    std::fprintf(stderr, "eb-worker: %s\n", std::string(status.message()).c_str());
    return eb::worker::kExitUsage;
  }
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
  options.heartbeat_period = absl::Milliseconds(heartbeat_ms);
  options.init_timeout = absl::Milliseconds(init_timeout_ms);
  options.op_timeout = absl::Milliseconds(op_timeout_ms);
  spdlog::info(
      "eb-worker {} test={} rank={} agent={} init_timeout={}ms op_timeout={}ms "
      "bootstrap_interface={} bootstrap_address={} cuda_device={} gpu_bus_id={}",
      eb::kVersion, options.test_id, options.rank, options.agent_target, init_timeout_ms,
      op_timeout_ms, options.bootstrap_interface, options.bootstrap_address, options.cuda_device,
      options.gpu_bus_id);
  const int code = eb::worker::RunWorker(options);
  spdlog::default_logger()->flush();
  return code;
}
