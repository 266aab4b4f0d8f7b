// The one file reader (common/io/bounded_file.h): regular files are read
// whole up to their kind's limit; anything else is refused at once with an
// error naming what it is, never a hang (a FIFO without a writer) and never
// gigabytes read (/dev/zero). P2-2.13, P2-2.14, P2-2.16.

#include "common/io/bounded_file.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::HasSubstr;

class BoundedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/eb-bounded-file-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::string dir_;
};

TEST_F(BoundedFileTest, ReadsARegularFileWhole) {
  const std::string path = Write("a.toml", "[agent]\nworkers = 2\n");
  absl::StatusOr<std::string> text = ReadBoundedFile(path, FileKind::kConfig);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "[agent]\nworkers = 2\n");
}

TEST_F(BoundedFileTest, MissingFileIsNotFound) {
  absl::StatusOr<std::string> text = ReadBoundedFile(dir_ + "/absent", FileKind::kConfig);
  EXPECT_TRUE(absl::IsNotFound(text.status()));
  EXPECT_EQ(text.status().message(), dir_ + "/absent: config file does not exist");
}

// P2-2.13: a FIFO as the config, TLS or baselines file hung the programs.
TEST_F(BoundedFileTest, P2_2_13_FifoIsRefusedWithoutWaitingForAWriter) {
  const std::string path = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  for (FileKind kind : {FileKind::kConfig, FileKind::kTlsPem, FileKind::kBaselines,
                        FileKind::kSysfsValue, FileKind::kProcTable, FileKind::kTopology}) {
    absl::StatusOr<std::string> text = ReadBoundedFile(path, kind);
    EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(text.status().message(), HasSubstr("is a FIFO (named pipe), not a regular file"));
  }
}

// P2-2.14 / P2-2.16: /dev/zero and /dev/urandom were read for gigabytes.
TEST_F(BoundedFileTest, P2_2_14_And_P2_2_16_DevicesAreRefused) {
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    absl::StatusOr<std::string> text = ReadBoundedFile(device, FileKind::kTlsPem);
    EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition) << device;
    EXPECT_THAT(text.status().message(), HasSubstr("is a character device"));
  }
}

TEST_F(BoundedFileTest, DevNullReadsAsEmpty) {
  absl::StatusOr<std::string> text = ReadBoundedFile("/dev/null", FileKind::kConfig);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "");
}

TEST_F(BoundedFileTest, DirectoryIsRefused) {
  absl::StatusOr<std::string> text = ReadBoundedFile(dir_, FileKind::kBaselines);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(text.status().message(), dir_ + ": baselines file is a directory, not a regular file");
}

TEST_F(BoundedFileTest, SymlinkLoopIsRefused) {
  const std::string a = dir_ + "/a";
  const std::string b = dir_ + "/b";
  ASSERT_EQ(symlink(b.c_str(), a.c_str()), 0);
  ASSERT_EQ(symlink(a.c_str(), b.c_str()), 0);
  absl::StatusOr<std::string> text = ReadBoundedFile(a, FileKind::kConfig);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(text.status().message(), HasSubstr("symbolic link loop"));
}

TEST_F(BoundedFileTest, SymlinkToARegularFileIsFollowed) {
  const std::string target = Write("real.toml", "x = 1\n");
  const std::string link = dir_ + "/link.toml";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(ReadBoundedFile(link, FileKind::kConfig).value_or("?"), "x = 1\n");
}

TEST_F(BoundedFileTest, SocketIsRefused) {
  const std::string path = dir_ + "/sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  path.copy(address.sun_path, sizeof(address.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  absl::StatusOr<std::string> text = ReadBoundedFile(path, FileKind::kConfig);
  close(fd);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(text.status().message(), HasSubstr("socket"));
}

TEST_F(BoundedFileTest, EachKindHasItsLimit) {
  EXPECT_EQ(MaxFileBytes(FileKind::kConfig), kMaxConfigFileBytes);
  EXPECT_EQ(MaxFileBytes(FileKind::kTlsPem), kMaxTlsPemFileBytes);
  EXPECT_EQ(MaxFileBytes(FileKind::kBaselines), kMaxBaselinesFileBytes);
  EXPECT_EQ(MaxFileBytes(FileKind::kSysfsValue), kMaxSysfsValueFileBytes);
  EXPECT_EQ(MaxFileBytes(FileKind::kTopology), kMaxTopologyFileBytes);
  const std::string at_limit = Write("at", std::string(kMaxConfigFileBytes, 'x'));
  EXPECT_EQ(ReadBoundedFile(at_limit, FileKind::kConfig).value_or("").size(), kMaxConfigFileBytes);
  const std::string over = Write("over", std::string(kMaxConfigFileBytes + 1, 'x'));
  absl::StatusOr<std::string> text = ReadBoundedFile(over, FileKind::kConfig);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(text.status().message(),
            over + ": config file is larger than the limit of 1048576 bytes");
}

// /proc files report size 0: the read, not the size, is the bound.
TEST_F(BoundedFileTest, ProcFilesAreReadThoughTheirSizeIsZero) {
  absl::StatusOr<std::string> stat = ReadBoundedFile("/proc/self/stat", FileKind::kProcTable);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_FALSE(stat->empty());
  absl::StatusOr<std::string> small = ReadBoundedFile("/proc/self/status", 16, "file");
  EXPECT_EQ(small.status().code(), absl::StatusCode::kOutOfRange);
}

TEST_F(BoundedFileTest, ReadFirstLineStripsAndStopsAtTheNewline) {
  const std::string path = Write("speed", "  25000 \nsecond line\n");
  EXPECT_EQ(ReadFirstLine(path).value_or("?"), "25000");
}

TEST_F(BoundedFileTest, ZeroDeadlineGivesUp) {
  const std::string path = Write("slow", "x");
  absl::StatusOr<std::string> text =
      ReadBoundedFile(path, FileKind::kConfig, absl::ZeroDuration() - absl::Seconds(1));
  EXPECT_EQ(text.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(text.status().message(), HasSubstr("not read within"));
}

}  // namespace
}  // namespace eb::common
