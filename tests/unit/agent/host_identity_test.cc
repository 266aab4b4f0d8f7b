// The host identity from fake boot_id / machine-id files.

#include "agent/host/host_identity.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace fs = std::filesystem;

class HostIdentityTest : public ::testing::Test {
 protected:
  HostIdentityTest() {
    std::string dir = absl::StrCat(::testing::TempDir(), "/eb_host_id_XXXXXX");
    EXPECT_NE(mkdtemp(dir.data()), nullptr);
    root_ = dir;
    sources_.boot_id_file = (root_ / "boot_id").string();
    sources_.machine_id_file = (root_ / "machine-id").string();
  }
  ~HostIdentityTest() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  void Write(const std::string& file, const std::string& text) {
    std::ofstream(root_ / file) << text;
  }

  fs::path root_;
  HostIdentitySources sources_;
};

TEST_F(HostIdentityTest, BootIdFirst) {
  Write("boot_id", "5f2a7c1e-0b7d-4a53-9d1e-8c2f3b4a5d6e\n");
  Write("machine-id", "0123456789abcdef0123456789abcdef\n");
  EXPECT_EQ(HostIdentity("gpu-01", sources_), "boot_id:5f2a7c1e-0b7d-4a53-9d1e-8c2f3b4a5d6e");
}

TEST_F(HostIdentityTest, MachineIdWhenThereIsNoBootId) {
  Write("machine-id", "0123456789abcdef0123456789abcdef\n");
  EXPECT_EQ(HostIdentity("gpu-01", sources_), "machine_id:0123456789abcdef0123456789abcdef");
  // An empty file (a container's unset machine-id) counts as none.
  Write("boot_id", "\n");
  EXPECT_EQ(HostIdentity("gpu-01", sources_), "machine_id:0123456789abcdef0123456789abcdef");
}

TEST_F(HostIdentityTest, HostNameLast) {
  Write("machine-id", "  \n");
  EXPECT_EQ(HostIdentity("gpu-01", sources_), "hostname:gpu-01");
}

TEST_F(HostIdentityTest, TwoAgentsOfOneHostAgree) {
  Write("boot_id", "same-kernel\n");
  EXPECT_EQ(HostIdentity("a", sources_), HostIdentity("b", sources_));
}

TEST(HostIdentityRealTest, ThisHostHasOne) { EXPECT_NE(HostIdentity("here"), ""); }

}  // namespace
}  // namespace eb::agent
