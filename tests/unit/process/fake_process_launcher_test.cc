// The fake launcher other components' unit tests rely on.

#include "tests/fakes/fake_process_launcher.h"

#include <signal.h>

#include <vector>

#include "gtest/gtest.h"

namespace eb::testing {
namespace {

using common::ChildHandle;
using common::ExitInfo;
using common::ProcessSpec;

ProcessSpec Spec(const std::string& name) {
  ProcessSpec spec;
  spec.executable = "/bin/" + name;
  spec.argv = {name, "--flag"};
  spec.env = {"A=1"};
  return spec;
}

TEST(FakeProcessLauncherTest, RecordsSpecsAndHandsOutPidsAboveTheKernelLimit) {
  FakeProcessLauncher launcher;
  auto first = launcher.Spawn(Spec("a"), nullptr);
  auto second = launcher.Spawn(Spec("b"), nullptr);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_GT(first->pid, FakeProcessLauncher::kPidMaxLimit);
  EXPECT_NE(first->pid, second->pid);
  EXPECT_NE(first->id, second->id);
  ASSERT_EQ(launcher.specs().size(), 2u);
  EXPECT_EQ(launcher.specs()[1].argv, (std::vector<std::string>{"b", "--flag"}));
  EXPECT_EQ(launcher.specs()[1].env, (std::vector<std::string>{"A=1"}));
  EXPECT_EQ(launcher.Running().size(), 2u);
}

TEST(FakeProcessLauncherTest, FailsTheNextSpawnOnce) {
  FakeProcessLauncher launcher;
  launcher.FailNextSpawn(absl::NotFoundError("no binary"));
  EXPECT_EQ(launcher.Spawn(Spec("a"), nullptr).status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(launcher.Spawn(Spec("a"), nullptr).ok());
  EXPECT_EQ(launcher.specs().size(), 2u);
  EXPECT_EQ(launcher.Running().size(), 1u);
}

TEST(FakeProcessLauncherTest, ExitRunsTheCallbackOnceSynchronously) {
  FakeProcessLauncher launcher;
  std::vector<ExitInfo> exits;
  auto child = launcher.Spawn(Spec("a"), [&](const ExitInfo& info) { exits.push_back(info); });
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(launcher.Exit(*child, FakeProcessLauncher::Signaled(SIGKILL)).ok());
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].pid, child->pid);
  EXPECT_EQ(exits[0].signal, SIGKILL);
  EXPECT_FALSE(launcher.IsRunning(*child));
  EXPECT_EQ(launcher.Exit(*child, FakeProcessLauncher::Code(0)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(exits.size(), 1u);
}

TEST(FakeProcessLauncherTest, ExitByPidAndSpawnFromTheCallback) {
  FakeProcessLauncher launcher;
  std::vector<ExitInfo> exits;
  auto child = launcher.Spawn(Spec("a"), [&](const ExitInfo& info) {
    exits.push_back(info);
    ASSERT_TRUE(launcher.Spawn(Spec("restart"), nullptr).ok());
  });
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(launcher.ExitPid(child->pid, FakeProcessLauncher::Code(3)).ok());
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].exit_code, 3);
  EXPECT_EQ(launcher.Running().size(), 1u);
  EXPECT_EQ(launcher.ExitPid(42, FakeProcessLauncher::Code(0)).code(), absl::StatusCode::kNotFound);
}

TEST(FakeProcessLauncherTest, RecordsSignals) {
  FakeProcessLauncher launcher;
  auto child = launcher.Spawn(Spec("a"), nullptr);
  ASSERT_TRUE(child.ok());
  EXPECT_TRUE(launcher.SignalGroup(*child, SIGTERM).ok());
  ASSERT_TRUE(launcher.Exit(*child, FakeProcessLauncher::Code(0)).ok());
  EXPECT_TRUE(launcher.SignalGroup(*child, SIGKILL).ok());  // After exit: OK, like the real one.
  EXPECT_EQ(launcher.SignalGroup(ChildHandle{999, 1}, SIGKILL).code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(launcher.signals().size(), 3u);
  EXPECT_EQ(launcher.signals()[0].child.id, child->id);
  EXPECT_EQ(launcher.signals()[0].signal, SIGTERM);
  EXPECT_EQ(launcher.signals()[1].signal, SIGKILL);
}

}  // namespace
}  // namespace eb::testing
