#pragma once

// Starts real ebnccl binaries on loopback for integration tests: one
// eb-coordinator (port 0), any number of eb-agents with distinct node
// names, and ebctl invocations, each with its own log file. The test
// process becomes a child subreaper so that workers orphaned by a killed
// agent are reaped here rather than escaping. On destruction every process
// is stopped (SIGTERM, then SIGKILL) and, if the test failed, every log is
// printed.

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/process/process_launcher.h"
#include "common/rpc/tls_files.h"

namespace eb::testing {

// Where CMake put the binaries under test.
std::string BinaryPath(const std::string& name);

// Every daemon a test starts runs on its flags alone: an installed package's
// /etc/ebnccl/*.toml (read by default) must not change what a test runs.
inline constexpr char kNoConfigFile[] = "--config=/dev/null";

// `ebctl run-test --json` of one size on host0,host1 that runs for minutes
// (2 x 200,000 calls of 256 KiB), for tests that stop a test in the middle.
// Its step deadline (100 h) is far longer than the size needs: the
// coordinator stops a size predicted to overrun its deadline at once (issue
// 29), which would end the test before the fault a test injects. 1 h was not
// enough under ASan: the first calls of a sweep (16 ms each there) predicted
// 6,480 s for the 400,002 calls.
std::vector<std::string> LongSweepArgs();
// `ebctl run-test --json` of a short sweep (8 B..64 KiB, 2 calls) on host0,host1.
std::vector<std::string> QuickTestArgs();

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  absl::Duration elapsed;
};

class LocalCluster {
 public:
  // Flags that keep tests fast: short heartbeats, grace and timeouts.
  static std::vector<std::string> FastCoordinatorFlags();
  static std::vector<std::string> FastAgentFlags();
  // EB_TEST_SLOWDOWN (1 to 20, default 1): how many times slower than
  // usual the daemons run (instrumented builds).
  static int TestSlowdown();

  LocalCluster();
  ~LocalCluster();

  // Starts eb-coordinator on 127.0.0.1:0 and waits for its port.
  absl::Status StartCoordinator(std::vector<std::string> extra_flags = FastCoordinatorFlags());
  // Sends `signal` to the coordinator, waits for it to exit, and starts a new
  // one on the same port with the same history file.
  absl::Status RestartCoordinator(int signal);
  // Starts an agent named `name` with `workers` slots, Gloo bound to
  // 127.0.0.1, and waits until the coordinator lists it.
  absl::Status StartAgent(const std::string& name, int workers,
                          std::vector<std::string> extra_flags = FastAgentFlags());
  // Sends `signal` to the agent process (not its workers).
  absl::Status SignalAgent(const std::string& name, int signal);
  // The agent process's pid, or -1 when there is no agent `name`.
  pid_t AgentPid(const std::string& name) const;
  absl::Status SignalCoordinator(int signal);
  // Waits until the coordinator lists `count` idle nodes.
  absl::Status WaitForIdleNodes(int count, absl::Duration timeout = absl::Seconds(20));

  // Runs ebctl with --coordinator set and waits for it.
  CliResult Ebctl(const std::vector<std::string>& args, absl::Duration timeout = absl::Seconds(90));
  // Starts ebctl in the background; collect it with WaitEbctl.
  int StartEbctl(const std::vector<std::string>& args);
  CliResult WaitEbctl(int handle, absl::Duration timeout = absl::Seconds(90));
  // Sends a signal to a background ebctl.
  void SignalEbctl(int handle, int signal);
  // Runs the binary `binary` (e.g. "eb-agent") with exactly `args` and the
  // test's environment plus `extra_env` ("KEY=VALUE", replacing inherited
  // ones), and
  // waits for it; needs no coordinator.
  CliResult Run(const std::string& binary, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env = {},
                absl::Duration timeout = absl::Seconds(60));

  // Runs `command` with /bin/sh -c through the cluster's process launcher
  // and waits for it. Tests use this, never std::system: the launcher reaps
  // every child it does not track (subreaper orphans), so a system() child
  // could be reaped under system()'s feet, which then returns -1.
  CliResult Shell(const std::string& command, absl::Duration timeout = absl::Seconds(60));

  std::string coordinator_address() const;
  // The client certificate with which the cluster polls the coordinator
  // (StartAgent, WaitForIdleNodes) and runs ebctl (--tls-* flags), for a
  // coordinator started with TLS flags.
  void set_client_tls(common::TlsFiles tls) { client_tls_ = std::move(tls); }
  const std::string& work_dir() const { return work_dir_; }
  // The coordinator's SQLite history (--history-path).
  std::string history_path() const { return work_dir_ + "/history.db"; }
  std::string agent_run_dir(const std::string& name) const { return work_dir_ + "/run-" + name; }

  // Live (non-zombie) eb-worker processes of this cluster (other tests may
  // run clusters beside it), optionally only of one test.
  std::vector<pid_t> WorkerPids(const std::string& test_id = "") const;
  // Live worker of `rank` (of any test of this cluster), or -1.
  pid_t WorkerPid(int rank) const;
  // Waits until a test of this cluster is RUNNING (every rank joined) and
  // returns the live worker of `rank`, or -1 after `timeout`.
  pid_t WaitForRunningWorker(int rank, absl::Duration timeout = absl::Seconds(30));
  // Waits until no live eb-worker of `test_id` (all when empty) remains.
  bool WaitForNoWorkers(const std::string& test_id, absl::Duration timeout) const;

  // Prints every log of this cluster to stderr.
  void DumpLogs() const;

 private:
  struct Process {
    std::string name;
    common::ChildHandle child;
    std::string log_path;
    std::shared_ptr<absl::Notification> exited;
    std::shared_ptr<common::ExitInfo> exit_info;
  };
  absl::StatusOr<Process> Spawn(const std::string& name, std::vector<std::string> argv,
                                const std::string& log_path, std::vector<std::string> env = {});
  void StopProcess(Process& process);
  // Starts `binary` with stdout and stderr to files; collect with WaitEbctl.
  int StartBinary(const std::string& binary, const std::vector<std::string>& args,
                  const std::vector<std::string>& extra_env);
  // Starts `/bin/sh -c "<command> >out 2>err"`, the files named after `label`.
  int StartCommand(const std::string& label, const std::string& command,
                   const std::vector<std::string>& extra_env);

  std::unique_ptr<common::ProcessLauncher> launcher_;
  std::string work_dir_;
  int coordinator_port_ = 0;
  common::TlsFiles client_tls_;
  int coordinator_starts_ = 0;
  std::unique_ptr<Process> coordinator_;
  std::map<std::string, Process> agents_;
  struct Cli {
    Process process;
    std::string out_path;
    std::string err_path;
    absl::Time started;
  };
  std::map<int, Cli> clis_;
  int next_cli_ = 1;
};

}  // namespace eb::testing
