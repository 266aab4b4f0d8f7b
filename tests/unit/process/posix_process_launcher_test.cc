// PosixProcessLauncher against real processes (the scripted child in
// test_child_main.cc). Each wait is bounded by a generous timeout and ends
// as soon as the awaited event happens.

#include "common/process/posix_process_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/process/parent_death.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/process/process_test_util.h"

namespace eb::testing {
namespace {

using common::ChildHandle;
using common::ExitInfo;
using common::PosixProcessLauncher;
using ::testing::HasSubstr;
using ::testing::Not;

class PosixProcessLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    auto launcher = PosixProcessLauncher::Create();
    ASSERT_TRUE(launcher.ok()) << launcher.status();
    launcher_ = std::move(*launcher);
  }

  // Spawns the child with `args`, logging to `log`; fails the test on error.
  ChildHandle Start(std::vector<std::string> args, const std::string& log = "") {
    auto child = launcher_->Spawn(ChildSpec(std::move(args), log), exits_.Callback());
    EXPECT_TRUE(child.ok()) << child.status();
    return child.ok() ? *child : ChildHandle{};
  }

  // Declared before the launcher: callbacks may run until it is destroyed.
  ExitRecorder exits_;
  TempDir dir_;
  std::unique_ptr<PosixProcessLauncher> launcher_;
};

TEST_F(PosixProcessLauncherTest, ReportsExitCode) {
  const ChildHandle child = Start({"exit", "3"});
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->pid, child.pid);
  EXPECT_EQ(exit->exit_code, 3);
  EXPECT_EQ(exit->signal, 0);
  EXPECT_EQ(exit->Describe(), "exit code 3");
}

TEST_F(PosixProcessLauncherTest, ReportsKillSignal) {
  const ChildHandle child = Start({"sleep", "60000"});
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGKILL);
  EXPECT_EQ(exit->exit_code, -1);
  EXPECT_EQ(exit->Describe(), "killed by signal 9 (SIGKILL)");
}

TEST_F(PosixProcessLauncherTest, PassesExactlyTheGivenArgvAndEnv) {
  ASSERT_EQ(setenv("EB_ONLY_IN_PARENT", "1", 1), 0);
  const std::string log = dir_.File("env.log");
  auto spec = ChildSpec({"print-env", "two words", ""}, log, {"EB_A=1", "EB_B=x y"});
  auto child = launcher_->Spawn(spec, exits_.Callback());
  ASSERT_TRUE(child.ok()) << child.status();
  const auto exit = exits_.WaitFor(child->pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0);
  const std::string expected = std::string("ARG ") + kChildPath +
                               "\nARG print-env\nARG two words\nARG \nENV EB_A=1\nENV EB_B=x y\n";
  EXPECT_EQ(ReadFile(log), expected);
  EXPECT_THAT(ReadFile(log), Not(HasSubstr("EB_ONLY_IN_PARENT")));
  unsetenv("EB_ONLY_IN_PARENT");
}

TEST_F(PosixProcessLauncherTest, AppendsStdoutAndStderrToTheLog) {
  const std::string log = dir_.File("echo.log");
  {
    std::FILE* f = std::fopen(log.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("earlier\n", f);
    std::fclose(f);
  }
  const ChildHandle child = Start({"echo", "hello"}, log);
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
  EXPECT_EQ(ReadFile(log), "earlier\nhello-out\nhello-err\n");
}

// SECURITY_FINDINGS case 16: worker logs were world-readable (0644).
TEST_F(PosixProcessLauncherTest, NewLogFileHasMode0600) {
  const std::string log = dir_.File("new.log");
  const mode_t old_umask = umask(0);
  const ChildHandle child = Start({"exit", "0"}, log);
  umask(old_umask);
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
  struct stat st {};
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(PosixProcessLauncherTest, ALogFdReceivesTheOutputAndStaysTheCallers) {
  // The agent's NCCL probe hands an in-memory file: its /proc/self/fd path is
  // a symbolic link, which a log path may never be.
  const std::string log = dir_.File("by-fd.log");
  const int fd = open(log.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  common::ProcessSpec spec = ChildSpec({"echo", "hello"});
  spec.log_fd = fd;
  auto child = launcher_->Spawn(spec, exits_.Callback());
  ASSERT_TRUE(child.ok()) << child.status();
  ASSERT_TRUE(exits_.WaitFor(child->pid).has_value());
  EXPECT_EQ(ReadFile(log), "hello-out\nhello-err\n");
  EXPECT_EQ(fcntl(fd, F_GETFD), FD_CLOEXEC);  // still open: the caller closes it
  close(fd);
}

TEST_F(PosixProcessLauncherTest, EmptyLogPathDiscardsOutput) {
  const ChildHandle child = Start({"echo", "dropped"});
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0);
}

TEST_F(PosixProcessLauncherTest, MissingExecutableIsNotFound) {
  common::ProcessSpec spec = ChildSpec({"exit", "0"});
  spec.executable = dir_.File("no-such-binary");
  const auto child = launcher_->Spawn(spec, exits_.Callback());
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(child.status().message()), HasSubstr(spec.executable));
}

TEST_F(PosixProcessLauncherTest, NonExecutableFileIsPermissionDenied) {
  const std::string path = dir_.File("not-executable");
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  close(fd);
  common::ProcessSpec spec = ChildSpec({"exit", "0"});
  spec.executable = path;
  const auto child = launcher_->Spawn(spec, exits_.Callback());
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(child.status().message()), HasSubstr(path));
}

TEST_F(PosixProcessLauncherTest, MissingLogDirectoryIsAnError) {
  const std::string log = dir_.File("no-such-dir/child.log");
  const auto child = launcher_->Spawn(ChildSpec({"exit", "0"}, log), exits_.Callback());
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(child.status().message()), HasSubstr(log));
}

TEST_F(PosixProcessLauncherTest, EmptyExecutableOrArgvIsInvalidArgument) {
  common::ProcessSpec spec = ChildSpec({"exit", "0"});
  spec.argv.clear();
  EXPECT_EQ(launcher_->Spawn(spec, exits_.Callback()).status().code(),
            absl::StatusCode::kInvalidArgument);
  spec = ChildSpec({"exit", "0"});
  spec.executable.clear();
  EXPECT_EQ(launcher_->Spawn(spec, exits_.Callback()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PosixProcessLauncherTest, NoFdLeaksIntoTheChild) {
  // Deliberately without O_CLOEXEC: only closefrom keeps these out.
  const int leaky_fd = open("/dev/null", O_RDONLY);
  ASSERT_GE(leaky_fd, 0);
  int leaky_pipe[2];
  ASSERT_EQ(pipe(leaky_pipe), 0);
  const std::string log = dir_.File("fds.log");
  const ChildHandle child = Start({"check-fds"}, log);
  const auto exit = exits_.WaitFor(child.pid);
  close(leaky_fd);
  close(leaky_pipe[0]);
  close(leaky_pipe[1]);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0) << ReadFile(log);
}

TEST_F(PosixProcessLauncherTest, SigtermStopsASleepingChild) {
  const ChildHandle child = Start({"sleep", "60000"});
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGTERM).ok());
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGTERM);
}

TEST_F(PosixProcessLauncherTest, ChildIgnoringSigtermSurvivesItAndDiesOnSigkill) {
  const std::string log = dir_.File("ignore.log");
  const ChildHandle child = Start({"ignore-sigterm"}, log);
  ASSERT_TRUE(PollUntil([&] { return ReadFile(log) == "ready\n"; }));
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGTERM).ok());
  // A negative check needs some wait; SIGTERM is delivered well within it.
  EXPECT_FALSE(exits_.WaitFor(child.pid, absl::Milliseconds(300)).has_value());
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGKILL);
}

TEST_F(PosixProcessLauncherTest, ResetsInheritedSignalMaskAndIgnoredSigterm) {
  // The agent blocks SIGTERM in its threads; an ignored disposition would be
  // inherited across exec too.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigset_t old_mask;
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &block, &old_mask), 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_action {};
  ASSERT_EQ(sigaction(SIGTERM, &ignore, &old_action), 0);
  const ChildHandle child = Start({"sleep", "60000"});
  sigaction(SIGTERM, &old_action, nullptr);
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGTERM).ok());
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->signal, SIGTERM);
}

TEST_F(PosixProcessLauncherTest, ChildLeadsItsOwnProcessGroup) {
  const ChildHandle child = Start({"sleep", "60000"});
  EXPECT_EQ(getpgid(child.pid), child.pid);
  EXPECT_NE(getpgrp(), child.pid);
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
}

TEST_F(PosixProcessLauncherTest, SignalGroupReachesTheChildsChildren) {
  const std::string log = dir_.File("group.log");
  const ChildHandle child = Start({"group-grandchild"}, log);
  const pid_t grandchild = WaitForGrandchildPid(log);
  ASSERT_GT(grandchild, 0) << ReadFile(log);
  EXPECT_EQ(getpgid(grandchild), child.pid);
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
  // Reaped by whoever inherited it, or a zombie if that is an init that
  // does not reap; either way it no longer runs.
  EXPECT_TRUE(PollUntil([&] { return GoneOrZombie(grandchild); }));
}

TEST_F(PosixProcessLauncherTest, SignalGroupAfterReapIsAnOkNoOp) {
  const ChildHandle child = Start({"exit", "0"});
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
  EXPECT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  EXPECT_TRUE(launcher_->SignalGroup(child, SIGTERM).ok());
  EXPECT_EQ(exits_.CountFor(child.pid), 1);
}

TEST_F(PosixProcessLauncherTest, SignalGroupRejectsUnknownHandleAndBadSignal) {
  EXPECT_EQ(launcher_->SignalGroup(ChildHandle{12345, 1}, SIGTERM).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(launcher_->SignalGroup(ChildHandle{}, SIGTERM).code(), absl::StatusCode::kNotFound);
  const ChildHandle child = Start({"sleep", "60000"});
  EXPECT_EQ(launcher_->SignalGroup(child, -1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(launcher_->SignalGroup(child, 100000).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(launcher_->SignalGroup(child, SIGKILL).ok());
  ASSERT_TRUE(exits_.WaitFor(child.pid).has_value());
}

TEST_F(PosixProcessLauncherTest, ManyConcurrentExitsGetExactlyOneCallbackEach) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5;
  std::vector<std::vector<ChildHandle>> children(kThreads);
  std::vector<std::thread> spawners;
  spawners.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    spawners.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto child = launcher_->Spawn(ChildSpec({"exit", std::to_string(t * kPerThread + i)}),
                                      exits_.Callback());
        if (child.ok()) children[t].push_back(*child);
      }
    });
  }
  for (std::thread& spawner : spawners) spawner.join();
  ASSERT_TRUE(exits_.WaitForTotal(kThreads * kPerThread));
  launcher_.reset();  // Joins the reaper: no callback can still be on its way.
  EXPECT_EQ(exits_.Total(), kThreads * kPerThread);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(children[t].size(), static_cast<size_t>(kPerThread));
    for (int i = 0; i < kPerThread; ++i) {
      const ChildHandle& child = children[t][i];
      EXPECT_EQ(exits_.CountFor(child.pid), 1);
      EXPECT_EQ(exits_.WaitFor(child.pid)->exit_code, t * kPerThread + i);
    }
  }
}

TEST_F(PosixProcessLauncherTest, ExitCallbackMaySpawnAgain) {
  pid_t second_pid = 0;
  absl::Mutex mu;
  auto first = launcher_->Spawn(ChildSpec({"exit", "1"}), [&](const ExitInfo&) {
    auto second = launcher_->Spawn(ChildSpec({"exit", "2"}), exits_.Callback());
    absl::MutexLock lock(&mu);
    second_pid = second.ok() ? second->pid : -1;
  });
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(PollUntil([&] {
    absl::MutexLock lock(&mu);
    return second_pid != 0;
  }));
  absl::MutexLock lock(&mu);
  ASSERT_GT(second_pid, 0);
  const auto exit = exits_.WaitFor(second_pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 2);
}

TEST_F(PosixProcessLauncherTest, DestroyingTheLauncherLeavesRunningChildrenAlone) {
  const ChildHandle child = Start({"sleep", "60000"});
  launcher_.reset();
  EXPECT_EQ(kill(child.pid, 0), 0);
  EXPECT_EQ(exits_.Total(), 0);
  // The launcher is gone, so the test reaps this one child itself.
  kill(child.pid, SIGKILL);
  int status = 0;
  EXPECT_EQ(waitpid(child.pid, &status, 0), child.pid);
  EXPECT_EQ(exits_.Total(), 0);
}

TEST_F(PosixProcessLauncherTest, DieWithParentAcceptsTheRealParent) {
  const std::string log = dir_.File("pdeath_ok.log");
  const ChildHandle child = Start({"die-with-parent", std::to_string(getpid())}, log);
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 0) << ReadFile(log);
  EXPECT_EQ(ReadFile(log), "ok\n");
}

TEST_F(PosixProcessLauncherTest, DieWithParentRejectsAnotherParent) {
  const std::string log = dir_.File("pdeath_gone.log");
  const ChildHandle child = Start({"die-with-parent", "4194305"}, log);
  const auto exit = exits_.WaitFor(child.pid);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 7);
  EXPECT_THAT(ReadFile(log), HasSubstr("FAILED_PRECONDITION: parent already gone"));
}

TEST(DieWithParentTest, RejectsBadArguments) {
  EXPECT_EQ(common::DieWithParent(getppid(), 0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(common::DieWithParent(0, SIGTERM).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::testing
