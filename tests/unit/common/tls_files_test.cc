// CheckTlsFiles: all three files or none, PEM content, and a private key
// readable by group or others refused, naming the file.

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/rpc/tls.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

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

}  // namespace
}  // namespace eb::common
