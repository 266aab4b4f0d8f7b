#include "tests/testutil/local_cluster.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/process/posix_process_launcher.h"
#include "common/process/subreaper.h"
#include "common/rpc/channel.h"
#include "ebnccl/v1/control.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/testutil/test_slowdown.h"

extern char** environ;

namespace eb::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

// Asks the coordinator at `address` with `probe(stub, context)` (a fresh
// context with a 2 s deadline each time) every `period` until it returns
// true (then true) or `timeout` has passed (then false).
template <typename Probe>
bool PollCoordinator(const std::string& address, const common::TlsFiles& tls,
                     absl::Duration timeout, absl::Duration period, Probe&& probe) {
  auto stub = ebnccl::v1::Control::NewStub(common::MakeChannel(address, tls));
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    grpc::ClientContext context;
    common::SetTimeout(context, absl::Seconds(2));
    if (probe(*stub, context)) return true;
    absl::SleepFor(period);
  }
  return false;
}

std::vector<std::string> BaseEnv() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    // Faults are injected per agent, never inherited by accident; nor the
    // fabric variables an agent refuses to inherit (agent/core/env_policy.h).
    if (absl::StartsWith(*entry, "EB_WORKER_FAULT=") || absl::StartsWith(*entry, "NCCL_IB_HCA=") ||
        absl::StartsWith(*entry, "NCCL_SOCKET_IFNAME=")) {
      continue;
    }
    env.emplace_back(*entry);
  }
  return env;
}

// argv of /proc/<pid>/cmdline, empty for zombies and vanished processes.
std::vector<std::string> LiveCmdline(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return {};
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z') return {};
  std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

// The lines of a sanitizer's report that name it: its headline and summary
// (ThreadSanitizer, AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer).
bool IsSanitizerFinding(const std::string& line) {
  return absl::StartsWith(line, "SUMMARY: ") ||
         absl::StrContains(line, "WARNING: ThreadSanitizer") ||
         absl::StrContains(line, "ERROR: AddressSanitizer") ||
         absl::StrContains(line, "ERROR: LeakSanitizer") ||
         absl::StrContains(line, "ThreadSanitizer: CHECK failed") ||
         absl::StrContains(line, ": runtime error: ");
}

}  // namespace

std::vector<std::string> QuickTestArgs() {
  return {"run-test", "--json", "--nodes", "host0,host1", "-b", "8",
          "-e",       "64K",    "-f",      "8",           "-n", "2"};
}

std::vector<std::string> LongSweepArgs() {
  return {"run-test",
          "--json",
          "--nodes",
          "host0,host1",
          "--collective",
          "all_reduce",
          "-b",
          "256K",
          "-e",
          "256K",
          "-i",
          "1",
          "-n",
          "200000",
          "-w",
          "0",
          "-c",
          "0",
          "--step-timeout",
          "100h"};
}

std::string BinaryPath(const std::string& name) {
  // EB_BIN_DIR in the environment runs the tests against another build (the
  // bundle on the GPU machine).
  const char* dir = std::getenv("EB_BIN_DIR");
  return absl::StrCat(dir != nullptr && *dir != '\0' ? dir : EB_BIN_DIR, "/", name);
}

// Instrumented daemons run several times slower (tests/testutil/test_slowdown.h):
// a node may miss that many times as many heartbeats before it is declared
// lost; the period, and so every other timing, stays.
int LocalCluster::TestSlowdown() { return eb::testing::TestSlowdown(); }

// The stall floor sits above FastAgentFlags' hang timeout and its check (4.4
// s), so that a stopped worker is named by its agent before its peers'
// stall names the path, and scales: under a sanitizer a rank's pattern
// fill and check between two calls take several times longer.
std::vector<std::string> LocalCluster::FastCoordinatorFlags() {
  return {"--heartbeat-period-ms=200",
          absl::StrCat("--heartbeat-miss-limit=", 3 * TestSlowdown()),
          "--stop-timeout-ms=8000",
          "--launch-timeout-ms=15000",
          "--init-timeout-ms=20000",
          "--step-timeout-ms=30000",
          absl::StrCat("--stall-timeout-ms=", 8000 * TestSlowdown())};
}

std::vector<std::string> LocalCluster::FastAgentFlags() {
  return {"--worker-grace-ms=1000", "--worker-hang-timeout-ms=4000", "--worker-heartbeat-ms=200"};
}

LocalCluster::LocalCluster() {
  (void)common::Subreaper::Enable();
  auto launcher = common::PosixProcessLauncher::Create();
  EXPECT_TRUE(launcher.ok()) << launcher.status();
  if (launcher.ok()) launcher_ = *std::move(launcher);
  char pattern[] = "/tmp/ebnccl-it-XXXXXX";
  work_dir_ = mkdtemp(pattern);
}

LocalCluster::~LocalCluster() {
  if (::testing::Test::HasFailure()) DumpLogs();
  for (auto& [handle, cli] : clis_) StopProcess(cli.process);
  // Agents first, so they stop their workers while the coordinator is up.
  for (auto& [name, agent] : agents_) StopProcess(agent);
  if (coordinator_) StopProcess(*coordinator_);
  WaitForNoWorkers("", absl::Seconds(10));
  launcher_.reset();
  if (!::testing::Test::HasFailure()) {
    std::error_code error;
    std::filesystem::remove_all(work_dir_, error);
    if (error)
      std::fprintf(stderr, "could not remove %s: %s\n", work_dir_.c_str(), error.message().c_str());
  }
}

absl::StatusOr<LocalCluster::Process> LocalCluster::Spawn(const std::string& name,
                                                          std::vector<std::string> argv,
                                                          const std::string& log_path,
                                                          std::vector<std::string> env) {
  Process process;
  process.name = name;
  process.log_path = log_path;
  process.exited = std::make_shared<absl::Notification>();
  process.exit_info = std::make_shared<common::ExitInfo>();
  common::ProcessSpec spec;
  spec.executable = argv.front();
  spec.argv = std::move(argv);
  spec.env = env.empty() ? BaseEnv() : std::move(env);
  spec.log_path = log_path;
  auto exited = process.exited;
  auto exit_info = process.exit_info;
  auto child = launcher_->Spawn(spec, [exited, exit_info](const common::ExitInfo& info) {
    *exit_info = info;
    exited->Notify();
  });
  if (!child.ok()) return child.status();
  process.child = *child;
  return process;
}

void LocalCluster::StopProcess(Process& process) {
  if (process.exited->HasBeenNotified()) return;
  (void)launcher_->SignalGroup(process.child, SIGTERM);
  if (!process.exited->WaitForNotificationWithTimeout(absl::Seconds(10))) {
    (void)launcher_->SignalGroup(process.child, SIGKILL);
    process.exited->WaitForNotificationWithTimeout(absl::Seconds(5));
  }
}

absl::Status LocalCluster::StartCoordinator(std::vector<std::string> extra_flags) {
  // The history in the cluster's directory (the default's /var/lib/ebnccl
  // may not exist, and clusters must not share one).
  // A restarted coordinator takes the same port, so that agents find it again.
  // --config=/dev/null: flags only, whatever an installed package left in
  // /etc/ebnccl (its agent.toml names GPUs 0-7, which this host may lack).
  std::vector<std::string> argv = {BinaryPath("eb-coordinator"), std::string(kNoConfigFile),
                                   absl::StrCat("--listen=127.0.0.1:", coordinator_port_),
                                   "--history-path=" + history_path()};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  ++coordinator_starts_;
  auto process = Spawn("coordinator", argv,
                       absl::StrCat(work_dir_, "/coordinator-", coordinator_starts_, ".log"));
  if (!process.ok()) return process.status();
  coordinator_ = std::make_unique<Process>(*std::move(process));
  static const std::regex kListening(R"(listening on [^ ]+:(\d+))");
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (absl::Now() < deadline) {
    std::smatch match;
    const std::string log = ReadFile(coordinator_->log_path);
    if (std::regex_search(log, match, kListening)) {
      coordinator_port_ = std::stoi(match.str(1));
      return absl::OkStatus();
    }
    if (coordinator_->exited->HasBeenNotified()) {
      return absl::InternalError("eb-coordinator exited: " + coordinator_->exit_info->Describe());
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError("eb-coordinator did not report its port");
}

absl::Status LocalCluster::RestartCoordinator(int signal) {
  if (!coordinator_) return absl::FailedPreconditionError("no coordinator");
  kill(coordinator_->child.pid, signal);
  if (!coordinator_->exited->WaitForNotificationWithTimeout(absl::Seconds(15))) {
    return absl::DeadlineExceededError("the coordinator did not exit");
  }
  return StartCoordinator();
}

std::string LocalCluster::coordinator_address() const {
  return absl::StrCat("127.0.0.1:", coordinator_port_);
}

absl::Status LocalCluster::StartAgent(const std::string& name, int workers,
                                      std::vector<std::string> extra_flags) {
  std::vector<std::string> argv = {BinaryPath("eb-agent"),
                                   std::string(kNoConfigFile),
                                   "--coordinator=" + coordinator_address(),
                                   "--node-name=" + name,
                                   absl::StrCat("--workers=", workers),
                                   "--bootstrap-address=127.0.0.1",
                                   "--run-dir=" + agent_run_dir(name)};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  if (auto it = agents_.find(name); it != agents_.end()) {
    StopProcess(it->second);
    agents_.erase(it);
  }
  auto process = Spawn("agent " + name, argv, absl::StrCat(work_dir_, "/agent-", name, ".log"));
  if (!process.ok()) return process.status();
  agents_.emplace(name, *std::move(process));
  // Registered means listed by the coordinator and not lost.
  const Process& agent = agents_.at(name);
  bool exited = false;
  const bool registered = PollCoordinator(
      coordinator_address(), client_tls_, absl::Seconds(20), absl::Milliseconds(20),
      [&](ebnccl::v1::Control::Stub& stub, grpc::ClientContext& context) {
        ebnccl::v1::ListNodesReply reply;
        if (stub.ListNodes(&context, {}, &reply).ok()) {
          for (const auto& node : reply.nodes()) {
            if (node.node_name() == name && node.state() != ebnccl::v1::NODE_STATE_LOST) {
              return true;
            }
          }
        }
        exited = agent.exited->HasBeenNotified();
        return exited;
      });
  if (exited) {
    return absl::InternalError("eb-agent " + name + " exited: " + agent.exit_info->Describe());
  }
  if (!registered) return absl::DeadlineExceededError("agent " + name + " did not register");
  return absl::OkStatus();
}

absl::Status LocalCluster::WaitForIdleNodes(int count, absl::Duration timeout) {
  int idle = 0;
  const bool enough =
      PollCoordinator(coordinator_address(), client_tls_, timeout, absl::Milliseconds(20),
                      [&](ebnccl::v1::Control::Stub& stub, grpc::ClientContext& context) {
                        ebnccl::v1::ListNodesReply reply;
                        idle = 0;
                        if (stub.ListNodes(&context, {}, &reply).ok()) {
                          for (const auto& node : reply.nodes())
                            idle += node.state() == ebnccl::v1::NODE_STATE_IDLE;
                        }
                        return idle >= count;
                      });
  if (!enough) return absl::DeadlineExceededError(absl::StrCat("only ", idle, " idle nodes"));
  return absl::OkStatus();
}

absl::Status LocalCluster::SignalAgent(const std::string& name, int signal) {
  auto it = agents_.find(name);
  if (it == agents_.end()) return absl::NotFoundError("no agent " + name);
  // Only the agent itself: its workers are in their own process groups.
  if (kill(it->second.child.pid, signal) != 0) return absl::InternalError("kill failed");
  return absl::OkStatus();
}

pid_t LocalCluster::AgentPid(const std::string& name) const {
  auto it = agents_.find(name);
  return it == agents_.end() ? -1 : it->second.child.pid;
}

absl::Status LocalCluster::SignalCoordinator(int signal) {
  if (!coordinator_) return absl::NotFoundError("no coordinator");
  if (kill(coordinator_->child.pid, signal) != 0) return absl::InternalError("kill failed");
  return absl::OkStatus();
}

int LocalCluster::StartEbctl(const std::vector<std::string>& args) {
  std::vector<std::string> full = {"--coordinator=" + coordinator_address()};
  if (client_tls_.enabled()) {
    full.insert(full.end(), {"--tls-ca=" + client_tls_.ca, "--tls-cert=" + client_tls_.cert,
                             "--tls-key=" + client_tls_.key});
  }
  full.insert(full.end(), args.begin(), args.end());
  return StartBinary("ebctl", full, {});
}

int LocalCluster::StartBinary(const std::string& binary, const std::vector<std::string>& args,
                              const std::vector<std::string>& extra_env) {
  std::vector<std::string> quoted = {ShellQuote(BinaryPath(binary))};
  for (const std::string& arg : args) quoted.push_back(ShellQuote(arg));
  // exec keeps the pid, so signals reach the binary itself.
  return StartCommand(binary, absl::StrCat("exec ", absl::StrJoin(quoted, " ")), extra_env);
}

int LocalCluster::StartCommand(const std::string& label, const std::string& shell_command,
                               const std::vector<std::string>& extra_env) {
  const int handle = next_cli_++;
  Cli cli;
  cli.out_path = absl::StrCat(work_dir_, "/", label, "-", handle, ".out");
  cli.err_path = absl::StrCat(work_dir_, "/", label, "-", handle, ".err");
  const std::string command =
      absl::StrCat(shell_command, " >", ShellQuote(cli.out_path), " 2>", ShellQuote(cli.err_path));
  std::vector<std::string> env;
  if (!extra_env.empty()) {
    // getenv finds the first of two equal names: drop the inherited one.
    for (std::string& entry : BaseEnv()) {
      const std::string name = entry.substr(0, entry.find('=') + 1);
      const bool replaced =
          std::any_of(extra_env.begin(), extra_env.end(),
                      [&](const std::string& e) { return absl::StartsWith(e, name); });
      if (!replaced) env.push_back(std::move(entry));
    }
    env.insert(env.end(), extra_env.begin(), extra_env.end());
  }
  auto process = Spawn(absl::StrCat(label, " #", handle), {"/bin/sh", "-c", command},
                       absl::StrCat(work_dir_, "/", label, "-", handle, ".sh.log"), std::move(env));
  EXPECT_TRUE(process.ok()) << process.status();
  cli.process = *std::move(process);
  cli.started = absl::Now();
  clis_.emplace(handle, std::move(cli));
  return handle;
}

CliResult LocalCluster::WaitEbctl(int handle, absl::Duration timeout) {
  Cli& cli = clis_.at(handle);
  CliResult result;
  if (!cli.process.exited->WaitForNotificationWithTimeout(timeout)) {
    ADD_FAILURE() << "ebctl did not finish within " << timeout;
    StopProcess(cli.process);
  }
  result.elapsed = absl::Now() - cli.started;
  result.exit_code = cli.process.exit_info->exit_code;
  result.out = ReadFile(cli.out_path);
  result.err = ReadFile(cli.err_path);
  return result;
}

void LocalCluster::SignalEbctl(int handle, int signal) {
  kill(clis_.at(handle).process.child.pid, signal);
}

CliResult LocalCluster::Ebctl(const std::vector<std::string>& args, absl::Duration timeout) {
  return WaitEbctl(StartEbctl(args), timeout);
}

CliResult LocalCluster::Run(const std::string& binary, const std::vector<std::string>& args,
                            const std::vector<std::string>& extra_env, absl::Duration timeout) {
  return WaitEbctl(StartBinary(binary, args, extra_env), timeout);
}

CliResult LocalCluster::Shell(const std::string& command, absl::Duration timeout) {
  // The group sends the output of every part of `command` to the files.
  return WaitEbctl(StartCommand("sh", absl::StrCat("{ ", command, "\n}"), {}), timeout);
}

std::vector<pid_t> LocalCluster::WorkerPids(const std::string& test_id) const {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* entry = readdir(proc)) {
    const std::string pid = entry->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::vector<std::string> argv = LiveCmdline(pid);
    if (argv.empty() || !absl::EndsWith(argv[0], "eb-worker")) continue;
    // Ours: it dials an agent socket under this cluster's directory.
    const bool ours = std::any_of(argv.begin(), argv.end(), [this](const std::string& arg) {
      return absl::StartsWith(arg, "--agent=unix:" + work_dir_ + "/");
    });
    if (!ours) continue;
    if (!test_id.empty() &&
        std::find(argv.begin(), argv.end(), "--test-id=" + test_id) == argv.end()) {
      continue;
    }
    pids.push_back(std::stoi(pid));
  }
  closedir(proc);
  return pids;
}

pid_t LocalCluster::WorkerPid(int rank) const {
  for (pid_t pid : WorkerPids()) {
    const std::vector<std::string> argv = LiveCmdline(std::to_string(pid));
    if (std::find(argv.begin(), argv.end(), absl::StrCat("--rank=", rank)) != argv.end())
      return pid;
  }
  return -1;
}

pid_t LocalCluster::WaitForRunningWorker(int rank, absl::Duration timeout) {
  const bool running =
      PollCoordinator(coordinator_address(), client_tls_, timeout, absl::Milliseconds(50),
                      [](ebnccl::v1::Control::Stub& stub, grpc::ClientContext& context) {
                        ebnccl::v1::ListTestsReply reply;
                        if (!stub.ListTests(&context, {}, &reply).ok()) return false;
                        for (const auto& test : reply.tests()) {
                          if (test.state() == ebnccl::v1::TEST_STATE_RUNNING) return true;
                        }
                        return false;
                      });
  return running ? WorkerPid(rank) : -1;
}

bool LocalCluster::WaitForNoWorkers(const std::string& test_id, absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (!WorkerPids(test_id).empty()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

// In-process (no child): the launcher reaps children it does not track.
void LocalCluster::DumpLogs() const {
  constexpr size_t kTailLines = 60;
  constexpr int kFindingLinesPerLog = 8;
  std::vector<std::filesystem::path> logs;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(work_dir_, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    const std::string extension = it->path().extension().string();
    if (it->is_regular_file() &&
        (extension == ".log" || extension == ".out" || extension == ".err"))
      logs.push_back(it->path());
  }
  std::sort(logs.begin(), logs.end());
  // First what explains most failures in a few lines (CI shows the head of a
  // failing test's output, and a cluster's logs run to hundreds of lines):
  // the daemons that died, and the sanitizer findings any process wrote.
  std::vector<const Process*> daemons;
  if (coordinator_) daemons.push_back(coordinator_.get());
  for (const auto& [name, agent] : agents_) daemons.push_back(&agent);
  for (const Process* daemon : daemons) {
    if (daemon->exited->HasBeenNotified()) {
      std::fprintf(stderr, "===== %s (pid %d) exited before the end of the test: %s\n",
                   daemon->name.c_str(), static_cast<int>(daemon->child.pid),
                   daemon->exit_info->Describe().c_str());
    }
  }
  // One read of each log: its findings are printed as they come, its tail
  // after every log's findings.
  std::vector<std::deque<std::string>> tails(logs.size());
  for (size_t i = 0; i < logs.size(); ++i) {
    std::ifstream file(logs[i]);
    int findings = 0;
    for (std::string line; std::getline(file, line);) {
      if (findings < kFindingLinesPerLog && IsSanitizerFinding(line)) {
        std::fprintf(stderr, "===== finding in %s: %s\n", logs[i].c_str(), line.c_str());
        ++findings;
      }
      tails[i].push_back(std::move(line));
      if (tails[i].size() > kTailLines) tails[i].pop_front();
    }
  }
  for (size_t i = 0; i < logs.size(); ++i) {
    std::fprintf(stderr, "===== %s\n", logs[i].c_str());
    for (const std::string& line : tails[i]) std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace eb::testing
