// The HTML page of `ebctl report -o` and `validate --report`
// (coordinator/ebctl/commands/report_file.h): only ever a regular file,
// never replaced without --force (issue 33 item 8), never a device, FIFO or
// symbolic link replaced (issue 32 item 9: as root `-o /dev/full` turned
// the device into a file), and no temporary file left behind.

#include "coordinator/ebctl/commands/report_file.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/output_dir_fixture.h"

namespace eb::ebctl {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ReportFileTest : public OutputDirTest {
 protected:
  // Names in the directory: no temporary file may stay.
  int Entries() const {
    int n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir_)) ++n;
    return n;
  }
  static std::string Message(const absl::Status& status) { return std::string(status.message()); }
};

TEST_F(ReportFileTest, ANewFileIsWrittenWhole) {
  const std::string path = Path("page.html");
  ASSERT_TRUE(CheckReportPath(path, "-o", Replace::kNo).ok());
  ASSERT_TRUE(WriteReportFile(path, "<html>1</html>", Replace::kNo).ok());
  EXPECT_EQ(Read(path), "<html>1</html>");
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
  EXPECT_EQ(Entries(), 1);
}

TEST_F(ReportFileTest, AnExistingFileIsKeptUnlessForced) {
  const std::string path = Path("page.html");
  std::ofstream(path) << "mine";
  const absl::Status check = CheckReportPath(path, "-o", Replace::kNo);
  EXPECT_EQ(check.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(check), AllOf(StartsWith("-o: "), HasSubstr("exists; --force")));
  // Appearing between the check and the write changes nothing.
  const absl::Status write = WriteReportFile(path, "theirs", Replace::kNo);
  EXPECT_EQ(write.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Read(path), "mine");
  EXPECT_EQ(Entries(), 1);
  // --force replaces a regular file.
  ASSERT_TRUE(CheckReportPath(path, "-o", Replace::kRegularFile).ok());
  ASSERT_TRUE(WriteReportFile(path, "theirs", Replace::kRegularFile).ok());
  EXPECT_EQ(Read(path), "theirs");
  EXPECT_EQ(Entries(), 1);
}

TEST_F(ReportFileTest, P2_7_2_ALinkAFifoOrADirectoryIsNeverReplacedEvenForced) {
  const std::string target = Path("target.html");
  std::ofstream(target) << "target";
  const std::string link = Path("link.html");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const std::string fifo = Path("fifo.html");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::string directory = Path("dir.html");
  ASSERT_TRUE(std::filesystem::create_directory(directory));
  for (const auto& [path, kind] : {std::pair{link, "a symbolic link"}, std::pair{fifo, "a FIFO"},
                                   std::pair{directory, "a directory"}}) {
    for (Replace replace : {Replace::kNo, Replace::kRegularFile}) {
      const absl::Status check = CheckReportPath(path, "-o", replace);
      EXPECT_EQ(check.code(), absl::StatusCode::kInvalidArgument) << path;
      EXPECT_THAT(Message(check), AllOf(HasSubstr(kind), HasSubstr("only regular files")));
      EXPECT_FALSE(WriteReportFile(path, "page", replace).ok()) << path;
    }
  }
  struct stat info {};
  ASSERT_EQ(lstat(link.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  ASSERT_EQ(lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(Read(target), "target");
  EXPECT_EQ(Entries(), 4);  // no temporary file left
}

// A character device, as /dev/full was: refused, never turned into a file.
TEST_F(ReportFileTest, P2_7_2_ADeviceIsRefused) {
  const absl::Status check = CheckReportPath("/dev/null", "-o", Replace::kRegularFile);
  EXPECT_EQ(check.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(check), HasSubstr("a device"));
  struct stat info {};
  ASSERT_EQ(lstat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST_F(ReportFileTest, AMissingDirectoryIsAUsageError) {
  const absl::Status check = CheckReportPath(Path("no/such/page.html"), "--report", Replace::kNo);
  EXPECT_EQ(check.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(check), StartsWith("--report: cannot write in "));
  EXPECT_EQ(CheckReportPath("", "-o", Replace::kNo).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace eb::ebctl
