// eb-coordinator: the master on node0. Registers agents, accepts tests from
// ebctl, assigns ranks, relays the rendezvous, enforces deadlines and
// aggregates results.

#include <signal.h>
#include <string.h>

#include <cstdio>
#include <cstdlib>

#include "CLI/CLI.hpp"
#include "common/logging/logging.h"
#include "common/net/address.h"
#include "common/process/signals.h"
#include "common/version/version.h"
#include "coordinator/coordinator_server.h"
#include "spdlog/spdlog.h"

namespace {

constexpr int kDefaultPort = 29470;

}  // namespace

int main(int argc, char** argv) {
  eb::common::BlockShutdownSignals();
  eb::coordinator::CoordinatorConfig config;
  std::string listen = "0.0.0.0:29470";
  std::string log_level = "info";
  std::string log_file;
  int64_t heartbeat_period_ms = absl::ToInt64Milliseconds(config.heartbeat_period);
  int64_t launch_timeout_ms = absl::ToInt64Milliseconds(config.default_launch_timeout);
  int64_t init_timeout_ms = absl::ToInt64Milliseconds(config.default_init_timeout);
  int64_t step_timeout_ms = absl::ToInt64Milliseconds(config.default_step_timeout);
  int64_t test_timeout_ms = absl::ToInt64Milliseconds(config.default_test_timeout);
  int64_t stop_timeout_ms = absl::ToInt64Milliseconds(config.stop_timeout);

  CLI::App app{"eb-coordinator: the ebnccl master (registers agents, runs tests)"};
  app.set_version_flag("--version", std::string(eb::kVersion));
  app.add_option("--listen", listen, "Address to serve on, HOST:PORT (port 0 = any free port)")
      ->capture_default_str();
  app.add_option("--heartbeat-period-ms", heartbeat_period_ms,
                 "Heartbeat period asked of agents")->capture_default_str()->check(CLI::Range(10, 600000));
  app.add_option("--heartbeat-miss-limit", config.heartbeat_miss_limit,
                 "Missed heartbeats before a node is lost")->capture_default_str()->check(CLI::Range(1, 100));
  app.add_option("--default-timeout-ms", test_timeout_ms, "Deadline of a whole test unless it sets one")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--launch-timeout-ms", launch_timeout_ms, "Default deadline for workers to start and register")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--init-timeout-ms", init_timeout_ms, "Default deadline for ranks to join the communicator")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--step-timeout-ms", step_timeout_ms, "Default deadline for one size step")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--stop-timeout-ms", stop_timeout_ms, "How long to wait for agents to reap a test's workers")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--history-limit", config.history_limit, "Finished tests kept in memory")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error")->capture_default_str();
  app.add_option("--log-file", log_file, "Also write the log to this file");
  CLI11_PARSE(app, argc, argv);

  if (auto status = eb::common::InitLogging({"eb-coordinator", log_level, log_file}); !status.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(status.message()).c_str());
    return 2;
  }
  auto address = eb::common::ParseHostPort(listen, kDefaultPort, "--listen", true);
  if (!address.ok()) {
    std::fprintf(stderr, "eb-coordinator: %s\n", std::string(address.status().message()).c_str());
    return 2;
  }
  config.listen_address = address->ToString();
  config.heartbeat_period = absl::Milliseconds(heartbeat_period_ms);
  config.default_launch_timeout = absl::Milliseconds(launch_timeout_ms);
  config.default_init_timeout = absl::Milliseconds(init_timeout_ms);
  config.default_step_timeout = absl::Milliseconds(step_timeout_ms);
  config.default_test_timeout = absl::Milliseconds(test_timeout_ms);
  config.stop_timeout = absl::Milliseconds(stop_timeout_ms);

  auto server = eb::coordinator::CoordinatorServer::Start(config);
  if (!server.ok()) {
    spdlog::error("cannot start: {}", server.status().ToString());
    return 1;
  }
  spdlog::info("eb-coordinator {} listening on {}:{} (heartbeat {} ms x {}, launch/init/step "
               "timeouts {}/{}/{} ms)",
               eb::kVersion, address->host, (*server)->port(), heartbeat_period_ms,
               config.heartbeat_miss_limit, launch_timeout_ms, init_timeout_ms, step_timeout_ms);
  const int signal_number = eb::common::WaitForShutdownSignal();
  spdlog::info("received {}; shutting down", sigabbrev_np(signal_number));
  (*server)->Shutdown();
  return 0;
}
