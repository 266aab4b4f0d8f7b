// A stop is not a crash (issue 16): eb-worker and eb-agent stopped with
// SIGTERM exit at once with their normal code, write no crash dump
// ("SIGTERM received ... PC:") and leave no core file, every time, also
// while busy logging (the failure handler used to log through spdlog while
// the interrupted thread held its lock, and the process aborted 3 s later).
// A real crash still gets the failure handler's dump.

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testutil/local_cluster.h"

extern char** environ;

namespace eb::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kExitStopped = 143;  // eb-worker's kExitStopped

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Core files the kernel would write into `dir` (core_pattern "core" or
// "core.<pid>").
std::vector<std::string> CoreFiles(const std::string& dir) {
  std::vector<std::string> cores;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "core" || name.rfind("core.", 0) == 0) cores.push_back(name);
  }
  return cores;
}

class StopSignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/eb-stop-signal-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    // Cores, if any, land in the working directory: make one possible (a
    // limit of 0 would hide the very thing this test looks for) and put it
    // where the test looks.
    rlimit limit{};
    getrlimit(RLIMIT_CORE, &limit);
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? 64 << 20 : limit.rlim_max;
    setrlimit(RLIMIT_CORE, &limit);
    old_cwd_ = std::filesystem::current_path().string();
    std::filesystem::current_path(dir_);
  }
  void TearDown() override {
    std::filesystem::current_path(old_cwd_);
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  // Starts eb-worker as its own agent would, towards an agent socket nobody
  // serves (it waits to register), with `fault` in EB_WORKER_FAULT.
  absl::StatusOr<common::ChildHandle> StartWorker(int index, const std::string& fault) {
    common::ProcessSpec spec;
    spec.executable = BinaryPath("eb-worker");
    spec.argv = {spec.executable, "--agent=unix:" + dir_ + "/nobody.sock",
                 absl::StrCat("--agent-pid=", getpid()), "--test-id=t-stop",
                 absl::StrCat("--rank=", index)};
    for (char** entry = environ; *entry != nullptr; ++entry) {
      if (std::string(*entry).rfind("EB_WORKER_FAULT=", 0) != 0) spec.env.emplace_back(*entry);
    }
    spec.env.push_back("EB_WORKER_TOKEN=stop-signal-test");
    if (!fault.empty()) spec.env.push_back("EB_WORKER_FAULT=" + fault);
    spec.log_path = LogPath(index);
    return launcher_->Spawn(spec, Record());
  }

  std::string LogPath(int index) const { return absl::StrCat(dir_, "/worker-", index, ".log"); }

  common::ExitCallback Record() {
    return [this](const common::ExitInfo& exit) {
      absl::MutexLock lock(&mu_);
      exits_.push_back(exit);
    };
  }

  std::optional<common::ExitInfo> WaitExit(pid_t pid, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto exited = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const auto& exit : exits_)
        if (exit.pid == pid) return true;
      return false;
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&exited), timeout)) return std::nullopt;
    for (const auto& exit : exits_)
      if (exit.pid == pid) return exit;
    return std::nullopt;
  }

  std::string dir_;
  std::string old_cwd_;
  std::unique_ptr<common::PosixProcessLauncher> launcher_ = *common::PosixProcessLauncher::Create();
  absl::Mutex mu_;
  std::vector<common::ExitInfo> exits_ ABSL_GUARDED_BY(mu_);
};

// Two threads that keep both cores busy while they live.
class Load {
 public:
  Load() {
    for (int i = 0; i < 2; ++i) {
      threads_.emplace_back([this] {
        volatile uint64_t x = 0;
        while (!done_.load(std::memory_order_relaxed)) x = x + 1;
      });
    }
  }
  ~Load() {
    done_ = true;
    for (auto& thread : threads_) thread.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::vector<std::thread> threads_;
};

TEST_F(StopSignalTest, WorkerStoppedWithSigtermExitsCleanlyEveryTime) {
  Load load;
  std::mt19937 random(16);
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE(absl::StrCat("stop ", i));
    // Half of them inside spdlog when the signal comes.
    auto child = StartWorker(i, i % 2 == 0 ? "log_flood" : "");
    ASSERT_TRUE(child.ok()) << child.status();
    // Anywhere from start-up (before main blocked SIGTERM) to waiting for
    // the agent.
    absl::SleepFor(absl::Milliseconds(std::uniform_int_distribution<int>(0, 150)(random)));
    ASSERT_EQ(kill(child->pid, SIGTERM), 0);
    const absl::Time sent = absl::Now();
    std::optional<common::ExitInfo> exit = WaitExit(child->pid, absl::Seconds(10));
    ASSERT_TRUE(exit.has_value()) << "still running 10 s after SIGTERM";
    // Prompt: 2 s, times the build's slowdown (EB_TEST_SLOWDOWN: 3 under
    // ASan+UBSan, where CI's run of cbb70fb took 2.7 s once beside the
    // test's own load threads on 2 cores); a hang is the 10 s above.
    EXPECT_LT(absl::Now() - sent, absl::Seconds(2) * LocalCluster::TestSlowdown())
        << "a stop must be prompt";
    // Before main blocks it, SIGTERM's default action (no core) ends it.
    EXPECT_TRUE(exit->exit_code == kExitStopped || exit->signal == SIGTERM) << exit->Describe();
    const std::string log = ReadFile(LogPath(i));
    EXPECT_THAT(log, Not(HasSubstr("PC:")));
    EXPECT_THAT(log, Not(HasSubstr("SIGTERM received")));
    if (exit->exit_code == kExitStopped) {
      EXPECT_THAT(log, HasSubstr("received SIGTERM; stopping"));
    }
    std::filesystem::remove(LogPath(i));
  }
  EXPECT_THAT(CoreFiles(dir_), ::testing::IsEmpty());
}

TEST_F(StopSignalTest, AgentStoppedWithSigtermExitsZeroWithoutADump) {
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE(absl::StrCat("stop ", i));
    common::ProcessSpec spec;
    spec.executable = BinaryPath("eb-agent");
    // A coordinator nobody serves: the agent keeps trying to connect.
    spec.argv = {spec.executable,
                 kNoConfigFile,
                 "--coordinator=127.0.0.1:1",
                 absl::StrCat("--node-name=stop", i),
                 "--workers=1",
                 "--bootstrap-address=127.0.0.1",
                 "--run-dir=" + dir_ + "/run" + std::to_string(i)};
    for (char** entry = environ; *entry != nullptr; ++entry) spec.env.emplace_back(*entry);
    spec.log_path = LogPath(i);
    auto child = launcher_->Spawn(spec, Record());
    ASSERT_TRUE(child.ok()) << child.status();
    absl::SleepFor(absl::Milliseconds(300 + 100 * i));
    ASSERT_EQ(kill(child->pid, SIGTERM), 0);
    std::optional<common::ExitInfo> exit = WaitExit(child->pid, absl::Seconds(15));
    ASSERT_TRUE(exit.has_value()) << "eb-agent still running 15 s after SIGTERM";
    const std::string log = ReadFile(LogPath(i));
    EXPECT_TRUE(exit->exit_code == 0 || exit->signal == SIGTERM) << exit->Describe() << "\n" << log;
    EXPECT_THAT(log, Not(HasSubstr("PC:")));
    EXPECT_THAT(log, Not(HasSubstr("SIGTERM received")));
  }
  EXPECT_THAT(CoreFiles(dir_), ::testing::IsEmpty());
}

// The failure handler still serves real crashes, with its dump written by
// write(2) (no lock): the crash is reported, not hidden.
TEST_F(StopSignalTest, WorkerCrashStillDumps) {
  // No core for this deliberate crash.
  rlimit none{0, 0};
  rlimit saved{};
  getrlimit(RLIMIT_CORE, &saved);
  none.rlim_max = saved.rlim_max;
  setrlimit(RLIMIT_CORE, &none);
  // The worker faults on its own main thread, after its start line (the
  // handlers are installed by then). A SIGSEGV sent with kill() instead
  // landed, under ThreadSanitizer, on whichever thread the kernel chose:
  // one still being born failed a CHECK in TSan's interceptor, and one
  // blocked in uninstrumented gRPC code never ran the handler (hangs), 3 in
  // 220 runs of that tree, once in CI; a real crash is the faulting thread's.
  auto child = StartWorker(0, "segv_before_register");
  ASSERT_TRUE(child.ok()) << child.status();
  std::optional<common::ExitInfo> exit = WaitExit(child->pid, absl::Seconds(10));
  setrlimit(RLIMIT_CORE, &saved);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGSEGV) << exit->Describe();
  EXPECT_THAT(ReadFile(LogPath(0)), HasSubstr("SIGSEGV"));
}

}  // namespace
}  // namespace eb::testing
