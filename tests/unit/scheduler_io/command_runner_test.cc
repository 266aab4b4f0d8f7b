// LauncherCommandRunner with the real launcher and /bin/sh: the output
// comes back, a command that runs too long or prints too much is killed
// and refused (within the deadline, not after the command would end).

#include "coordinator/scheduler_io/command_runner.h"

#include "absl/time/clock.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::scheduler_io {
namespace {

using ::testing::HasSubstr;

class CommandRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto launcher = common::PosixProcessLauncher::Create();
    ASSERT_TRUE(launcher.ok()) << launcher.status();
    launcher_ = *std::move(launcher);
  }
  std::unique_ptr<common::PosixProcessLauncher> launcher_;
};

TEST_F(CommandRunnerTest, ReturnsOutputAndExitCode) {
  LauncherCommandRunner runner(*launcher_);
  auto result =
      runner.Run({"/bin/sh", "-c", "echo 'a|b'; echo $X; exit 3"}, {"X=y"}, absl::Seconds(10));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->output, "a|b\ny\n");
  EXPECT_EQ(result->exit_code, 3);
}

TEST_F(CommandRunnerTest, KillsACommandPastItsDeadline) {
  LauncherCommandRunner runner(*launcher_);
  const absl::Time start = absl::Now();
  auto result = runner.Run({"/bin/sh", "-c", "sleep 30"}, {}, absl::Milliseconds(300));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(result.status().message(), HasSubstr("/bin/sh -c sleep 30 did not end within"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_F(CommandRunnerTest, RefusesEndlessOutput) {
  LauncherCommandRunner runner(*launcher_, 64 << 10);
  auto result = runner.Run({"/bin/sh", "-c", "while :; do echo yyyyyyyyyyyyyyyy; done"}, {},
                           absl::Seconds(20));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(result.status().message(), HasSubstr("printed more than 65536 bytes"));
}

TEST_F(CommandRunnerTest, MissingToolIsAnError) {
  LauncherCommandRunner runner(*launcher_);
  EXPECT_FALSE(runner.Run({"/nonexistent/sinfo"}, {}, absl::Seconds(5)).ok());
}

}  // namespace
}  // namespace eb::scheduler_io
