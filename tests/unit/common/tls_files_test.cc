// CheckTlsFiles: all three files or none, PEM content, and a private key
// readable by group or others refused, naming the file; the in-memory
// copies gRPC's watcher reads (TlsFileMirror).

#include <sys/stat.h>

#include <cstdio>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/io/bounded_file.h"
#include "common/rpc/tls.h"
#include "common/rpc/tls_mirror.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/eb-tls-files-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    Write("ca.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n", 0644);
    Write("cert.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n", 0644);
    Write("key.pem", "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n", 0600);
    files_ = {dir_ + "/ca.pem", dir_ + "/cert.pem", dir_ + "/key.pem"};
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  void Write(const std::string& name, const std::string& text, mode_t mode) {
    std::ofstream(dir_ + "/" + name) << text;
    ASSERT_EQ(chmod((dir_ + "/" + name).c_str(), mode), 0);
  }

  std::string dir_;
  TlsFiles files_;
};

TEST_F(TlsFilesTest, NoneIsPlaintextAndAllThreeAreAccepted) {
  EXPECT_FALSE(TlsFiles{}.enabled());
  EXPECT_TRUE(CheckTlsFiles(TlsFiles{}).ok());
  EXPECT_TRUE(CheckTlsFiles(files_).ok());
}

TEST_F(TlsFilesTest, AMissingOneIsNamed) {
  files_.key.clear();
  absl::Status status = CheckTlsFiles(files_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--tls-key: not set"));
}

TEST_F(TlsFilesTest, KeyReadableByOthersIsRefused) {
  Write("key.pem", "-----BEGIN PRIVATE KEY-----\n", 0644);
  absl::Status status = CheckTlsFiles(files_);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr(files_.key + " is readable by group or others (mode "
                                                       "0644)"));
  Write("key.pem", "-----BEGIN PRIVATE KEY-----\n", 0640);
  EXPECT_FALSE(CheckTlsFiles(files_).ok());
}

TEST_F(TlsFilesTest, UnreadableOrNotPemIsNamed) {
  files_.ca = dir_ + "/missing.pem";
  EXPECT_THAT(CheckTlsFiles(files_).message(),
              HasSubstr("--tls-ca: " + files_.ca + ": TLS file does not exist"));
  files_.ca = dir_ + "/ca.pem";
  Write("cert.pem", "hello", 0644);
  EXPECT_THAT(CheckTlsFiles(files_).message(), HasSubstr("holds no PEM"));
}

// Issue 32, item 4: gRPC's file watcher reads in-memory copies that our
// bounded reader refreshes; a refresh that finds a FIFO, a device, no PEM
// or a key readable by others keeps the last good set and says why.
class TlsMirrorTest : public TlsFilesTest {
 protected:
  static std::string Content(const std::string& path) {
    absl::StatusOr<std::string> text = ReadBoundedFile(path, FileKind::kTlsPem);
    return text.ok() ? *text : std::string(text.status().message());
  }
  // Puts `name` in place as the operator's rotation script does: a new file
  // renamed over the old one.
  void Rotate(const std::string& name, const std::string& text, mode_t mode) {
    Write(name + ".new", text, mode);
    ASSERT_EQ(std::rename((dir_ + "/" + name + ".new").c_str(), (dir_ + "/" + name).c_str()), 0);
  }
  static constexpr const char* kNewCert =
      "-----BEGIN CERTIFICATE-----\nnew\n-----END CERTIFICATE-----\n";
};

TEST_F(TlsMirrorTest, CopiesHoldTheFilesAndFollowARotation) {
  absl::StatusOr<std::unique_ptr<TlsFileMirror>> mirror = TlsFileMirror::Start(files_, "--tls");
  ASSERT_TRUE(mirror.ok()) << mirror.status();
  const TlsFiles copies = (*mirror)->copies();
  EXPECT_THAT(copies.cert, ::testing::StartsWith("/proc/self/fd/"));
  EXPECT_EQ(Content(copies.key), Content(files_.key));
  Rotate("cert.pem", kNewCert, 0644);
  ASSERT_TRUE((*mirror)->Refresh().ok());
  EXPECT_EQ((*mirror)->copies().cert, copies.cert);  // the path gRPC holds
  EXPECT_EQ(Content(copies.cert), kNewCert);
  EXPECT_EQ((*mirror)->refused(), 0);
}

TEST_F(TlsMirrorTest, AFifoADeviceOrAnOpenKeyKeepTheLastGoodSet) {
  absl::StatusOr<std::unique_ptr<TlsFileMirror>> mirror = TlsFileMirror::Start(files_, "--tls");
  ASSERT_TRUE(mirror.ok()) << mirror.status();
  const std::string good_cert = Content((*mirror)->copies().cert);

  ASSERT_EQ(std::remove(files_.cert.c_str()), 0);
  ASSERT_EQ(mkfifo(files_.cert.c_str(), 0644), 0);  // nobody writes: a plain read blocks
  absl::Status fifo = (*mirror)->Refresh();
  EXPECT_THAT(fifo.message(), AllOf(HasSubstr("--tls-cert"), HasSubstr("FIFO")));
  EXPECT_EQ(Content((*mirror)->copies().cert), good_cert);

  ASSERT_EQ(std::remove(files_.cert.c_str()), 0);
  std::filesystem::create_symlink("/dev/zero", files_.cert);
  EXPECT_THAT((*mirror)->Refresh().message(), HasSubstr("--tls-cert"));
  EXPECT_EQ(Content((*mirror)->copies().cert), good_cert);

  ASSERT_EQ(std::remove(files_.cert.c_str()), 0);
  Write("cert.pem", kNewCert, 0644);
  Rotate("key.pem", "-----BEGIN PRIVATE KEY-----\nnew\n-----END PRIVATE KEY-----\n", 0644);
  EXPECT_THAT((*mirror)->Refresh().message(), HasSubstr("readable by group or others"));
  // The whole set stays: not the new certificate beside the old key.
  EXPECT_EQ(Content((*mirror)->copies().cert), good_cert);
  EXPECT_EQ((*mirror)->refused(), 3);

  ASSERT_EQ(chmod(files_.key.c_str(), 0600), 0);
  EXPECT_TRUE((*mirror)->Refresh().ok());
  EXPECT_EQ(Content((*mirror)->copies().cert), kNewCert);
}

}  // namespace
}  // namespace eb::common
