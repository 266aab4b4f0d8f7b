// What the agent reads and creates on the host for the coordinator
// (docs/SECURITY_FINDINGS.md, ../shared/docs): a log page only from a
// regular file inside its run directory (case 2), one page at a time (cases
// 4 and 7), and directories and logs that are its user's only (case 16).

#include "agent/host/log_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "agent/core/worker_spec.h"
#include "agent/host/directories.h"
#include "common/process/posix_process_launcher.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class LogReaderTest : public ::testing::Test {
 protected:
  LogReaderTest() {
    std::string dir_template = absl::StrCat(::testing::TempDir(), "/eb_logs_XXXXXX");
    EXPECT_NE(mkdtemp(dir_template.data()), nullptr);
    base_ = dir_template;
    run_dir_ = base_ + "/run";
    EXPECT_TRUE(CreateDirectories(run_dir_ + "/logs/t-1").ok());
  }
  ~LogReaderTest() override {
    std::error_code ignored;
    std::filesystem::remove_all(base_, ignored);
  }

  static void Write(const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }

  static int Mode(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
    return static_cast<int>(st.st_mode & 07777);
  }

  std::string base_;
  std::string run_dir_;
};

TEST_F(LogReaderTest, ReadsTheTailOrAPageFromAnOffset) {
  const std::string path = WorkerLogPath(run_dir_, "t-1", 0);
  Write(path, "0123456789");
  ebnccl::v1::LogContent tail = ReadLogPage(run_dir_, path, -1, 4);
  EXPECT_THAT(tail.error(), IsEmpty());
  EXPECT_EQ(tail.content(), "6789");
  EXPECT_EQ(tail.offset(), 6);
  EXPECT_EQ(tail.next_offset(), 10);
  EXPECT_EQ(tail.size(), 10);
  EXPECT_TRUE(tail.truncated());
  ebnccl::v1::LogContent page = ReadLogPage(run_dir_, path, 2, 3);
  EXPECT_EQ(page.content(), "234");
  EXPECT_EQ(page.next_offset(), 5);
  EXPECT_TRUE(page.truncated());
  ebnccl::v1::LogContent whole = ReadLogPage(run_dir_, path, -1, 100);
  EXPECT_EQ(whole.content(), "0123456789");
  EXPECT_FALSE(whole.truncated());
  ebnccl::v1::LogContent past = ReadLogPage(run_dir_, path, 50, 3);
  EXPECT_THAT(past.content(), IsEmpty());
  EXPECT_EQ(past.offset(), 10);
}

// Case 7: a 6 MB log is read in 1 MiB pages that cover it exactly.
TEST_F(LogReaderTest, Case7ALargeLogIsReadInPages) {
  const std::string path = WorkerLogPath(run_dir_, "t-1", 0);
  std::string log(6'000'000, '\0');
  for (size_t i = 0; i < log.size(); ++i) log[i] = static_cast<char>('a' + i % 26);
  Write(path, log);
  std::string read;
  for (int64_t offset = 0; offset < static_cast<int64_t>(log.size());) {
    ebnccl::v1::LogContent page = ReadLogPage(run_dir_, path, offset, 1 << 20);
    ASSERT_THAT(page.error(), IsEmpty());
    ASSERT_LE(page.content().size(), size_t{1} << 20);
    ASSERT_GT(page.next_offset(), offset);
    read += page.content();
    offset = page.next_offset();
  }
  EXPECT_EQ(read, log);
}

// Case 2: nothing outside the run directory, by path or by link, and no
// FIFO (it would block the agent).
TEST_F(LogReaderTest, Case2NothingOutsideTheRunDirectoryIsRead) {
  const std::string secret = base_ + "/secret";
  Write(secret, "root:x:0:0");
  const ebnccl::v1::LogContent by_path =
      ReadLogPage(run_dir_, run_dir_ + "/logs/t-1/../../../secret", -1, 100);
  EXPECT_THAT(by_path.error(), HasSubstr("not inside the agent's run directory"));
  EXPECT_THAT(by_path.content(), IsEmpty());
  const std::string link = WorkerLogPath(run_dir_, "t-1", 1);
  ASSERT_EQ(symlink(secret.c_str(), link.c_str()), 0);
  const ebnccl::v1::LogContent by_link = ReadLogPage(run_dir_, link, -1, 100);
  EXPECT_THAT(by_link.error(), HasSubstr("not inside the agent's run directory"));
  EXPECT_THAT(by_link.content(), IsEmpty());
  const std::string fifo = WorkerLogPath(run_dir_, "t-1", 2);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(ReadLogPage(run_dir_, fifo, -1, 100).error(), HasSubstr("not a regular file"));
  EXPECT_THAT(ReadLogPage(run_dir_, WorkerLogPath(run_dir_, "t-1", 3), -1, 100).error(),
              HasSubstr("No such file"));
}

// Case 16: run and log folders were 0755 and logs 0644.
TEST_F(LogReaderTest, Case16DirectoriesAndLogsAreTheAgentsUsersOnly) {
  EXPECT_EQ(Mode(run_dir_), 0700);
  EXPECT_EQ(Mode(run_dir_ + "/logs"), 0700);
  EXPECT_EQ(Mode(run_dir_ + "/logs/t-1"), 0700);
  // An existing directory is narrowed too.
  const std::string open_dir = base_ + "/open";
  ASSERT_EQ(mkdir(open_dir.c_str(), 0755), 0);
  ASSERT_TRUE(CreateDirectories(open_dir).ok());
  EXPECT_EQ(Mode(open_dir), 0700);
  // The worker's log, as the launcher creates it.
  auto launcher = common::PosixProcessLauncher::Create();
  ASSERT_TRUE(launcher.ok()) << launcher.status();
  common::ProcessSpec spec;
  spec.executable = "/bin/sh";
  spec.argv = {"/bin/sh", "-c", "echo hello"};
  spec.log_path = WorkerLogPath(run_dir_, "t-1", 0);
  absl::Notification exited;
  auto child = (*launcher)->Spawn(spec, [&](const common::ExitInfo&) { exited.Notify(); });
  ASSERT_TRUE(child.ok()) << child.status();
  exited.WaitForNotification();
  EXPECT_EQ(Mode(spec.log_path), 0600);
  // Never through a link.
  const std::string link = WorkerLogPath(run_dir_, "t-1", 1);
  ASSERT_EQ(symlink((base_ + "/elsewhere").c_str(), link.c_str()), 0);
  spec.log_path = link;
  EXPECT_FALSE((*launcher)->Spawn(spec, [](const common::ExitInfo&) {}).ok());
  EXPECT_FALSE(std::filesystem::exists(base_ + "/elsewhere"));
}

}  // namespace
}  // namespace eb::agent
