// PosixProcessLauncher in a child-subreaper process. A binary of its own:
// Subreaper::Enable() changes the whole test process for good.

#include "common/process/subreaper.h"

#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "common/process/posix_process_launcher.h"
#include "gtest/gtest.h"
#include "tests/unit/process/process_test_util.h"

namespace eb::testing {
namespace {

using common::ChildHandle;
using common::PosixProcessLauncher;
using common::Subreaper;

class SubreaperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    const absl::Status enabled = Subreaper::Enable();
    ASSERT_TRUE(enabled.ok()) << enabled;
    auto launcher = PosixProcessLauncher::Create();
    ASSERT_TRUE(launcher.ok()) << launcher.status();
    launcher_ = std::move(*launcher);
  }

  ChildHandle Start(std::vector<std::string> args, const std::string& log = "") {
    auto child = launcher_->Spawn(ChildSpec(std::move(args), log), exits_.Callback());
    EXPECT_TRUE(child.ok()) << child.status();
    return child.ok() ? *child : ChildHandle{};
  }

  ExitRecorder exits_;
  TempDir dir_;
  std::unique_ptr<PosixProcessLauncher> launcher_;
};

TEST_F(SubreaperTest, EnableIsIdempotentAndVisible) {
  EXPECT_TRUE(Subreaper::Enable().ok());
  const absl::StatusOr<bool> enabled = Subreaper::IsEnabled();
  ASSERT_TRUE(enabled.ok()) << enabled.status();
  EXPECT_TRUE(*enabled);
}

TEST_F(SubreaperTest, OrphanedGrandchildIsAdoptedAndReaped) {
  const std::string log = dir_.File("orphan.log");
  const ChildHandle child = Start({"spawn-grandchild"}, log);
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0);
  const pid_t grandchild = WaitForGrandchildPid(log);
  ASSERT_GT(grandchild, 0) << ReadFile(log);
  // Its parent exited, so the kernel hands it to us, the nearest subreaper.
  ASSERT_TRUE(PollUntil([&] { return ParentOf(grandchild) == getpid(); }));
  ASSERT_EQ(kill(grandchild, SIGKILL), 0);
  EXPECT_TRUE(PollUntil([&] { return ProcessGone(grandchild); }))
      << "left as " << (ProcStat(grandchild).empty() ? "?" : ProcStat(grandchild)[0]);
  // The orphan was not mistaken for a tracked child.
  EXPECT_EQ(exits_.Total(), 1);
}

TEST_F(SubreaperTest, TrackedChildrenKeepTheirStatusWhileOrphansAreReaped) {
  // Orphans die 50 ms after their parents, while the other tracked children
  // exit around them: the orphan path must never take a tracked status.
  constexpr int kEach = 8;
  std::vector<ChildHandle> parents;
  std::vector<ChildHandle> exiters;
  std::vector<ChildHandle> killed;
  std::vector<std::string> logs;
  for (int i = 0; i < kEach; ++i) {
    logs.push_back(dir_.File("parent" + std::to_string(i) + ".log"));
    parents.push_back(Start({"spawn-grandchild", "50"}, logs.back()));
    exiters.push_back(Start({"exit", std::to_string(10 + i)}));
    killed.push_back(Start({"sleep", "60000"}));
  }
  for (const ChildHandle& child : killed) ASSERT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  ASSERT_TRUE(exits_.WaitForTotal(3 * kEach));
  for (int i = 0; i < kEach; ++i) {
    EXPECT_EQ(exits_.WaitFor(parents[i].pid)->exit_code, 0);
    EXPECT_EQ(exits_.WaitFor(exiters[i].pid)->exit_code, 10 + i);
    EXPECT_EQ(exits_.WaitFor(killed[i].pid)->signal, SIGKILL);
  }
  for (const std::string& log : logs) {
    const pid_t grandchild = WaitForGrandchildPid(log);
    ASSERT_GT(grandchild, 0) << ReadFile(log);
    EXPECT_TRUE(PollUntil([&] { return ProcessGone(grandchild); })) << grandchild;
  }
  EXPECT_EQ(exits_.Total(), 3 * kEach);
}

TEST_F(SubreaperTest, GrandchildWithParentDeathSignalDiesWithItsParent) {
  const std::string log = dir_.File("pdeath.log");
  const ChildHandle child = Start({"orphan-pdeathsig"}, log);
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0) << ReadFile(log);
  const pid_t grandchild = WaitForGrandchildPid(log);
  ASSERT_GT(grandchild, 0) << ReadFile(log);
  // SIGKILLed by PR_SET_PDEATHSIG when its parent exited, then reaped here.
  EXPECT_TRUE(PollUntil([&] { return ProcessGone(grandchild); }));
}

}  // namespace
}  // namespace eb::testing

namespace eb::testing {
namespace {

// Voluntary context switches of every thread of this process named `name`.
int64_t SwitchesOfThreadsNamed(const std::string& name) {
  int64_t total = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    if (ReadFile(task.path() / "comm") != name + "\n") continue;
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) {
        total += std::stoll(line.substr(line.find(':') + 1));
      }
    }
  }
  return total;
}

// Issue 15: the reaper polls for orphans only while this process has
// children; once the last one is reaped it sleeps until the next spawn (it
// woke 5 times a second in an idle agent). A spawn wakes it again, and
// orphans are still reaped (the tests above).
TEST_F(SubreaperTest, AReaperWithoutChildrenSleeps) {
  const ChildHandle child = Start({"exit", "0"});
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
  absl::SleepFor(absl::Milliseconds(250));  // its last poll, then the long sleep
  const int64_t before = SwitchesOfThreadsNamed("eb-reaper");
  absl::SleepFor(absl::Milliseconds(450));  // two polls' worth
  EXPECT_EQ(SwitchesOfThreadsNamed("eb-reaper"), before);
  const ChildHandle next = Start({"exit", "3"});
  const auto exit = exits_.WaitFor(next.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 3);
}

}  // namespace
}  // namespace eb::testing
