// Bad requests get a clear error naming the field, the documented exit code,
// and nothing is started.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/testutil/local_cluster.h"

namespace eb::testing {
namespace {

using ::testing::HasSubstr;

class EbctlCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.StartCoordinator().ok());
    ASSERT_TRUE(cluster_.StartAgent("host0", 2).ok());
    ASSERT_TRUE(cluster_.StartAgent("host1", 2).ok());
  }

  // Runs `args` and checks the exit code, the message, and that no test was
  // started.
  void ExpectRejected(const std::vector<std::string>& args, int exit_code,
                      const std::string& message) {
    std::vector<std::string> full = {"run-test"};
    full.insert(full.end(), args.begin(), args.end());
    CliResult result = cluster_.Ebctl(full);
    EXPECT_EQ(result.exit_code, exit_code) << result.err;
    EXPECT_THAT(result.err, HasSubstr(message));
    EXPECT_TRUE(cluster_.WorkerPids().empty());
    CliResult jobs = cluster_.Ebctl({"jobs", "--json"});
    nlohmann::json list = nlohmann::json::parse(jobs.out, nullptr, false);
    EXPECT_EQ(list["schema"], "ebnccl.test_list") << jobs.out;
    EXPECT_EQ(list["tests"].size(), 0u) << jobs.out;
  }

  LocalCluster cluster_;
};

TEST_F(EbctlCliTest, NegativeSizeIsAUsageError) {
  ExpectRejected({"-b", "-8", "-e", "64"}, 2, "-b/--minbytes");
}

TEST_F(EbctlCliTest, MaxBelowMinIsAUsageError) {
  ExpectRejected({"-b", "1M", "-e", "8"}, 2, "-e/--maxbytes");
}

TEST_F(EbctlCliTest, UnknownCollectiveIsAUsageError) {
  ExpectRejected({"--collective", "all_party", "-b", "8", "-e", "8"}, 2, "--collective");
}

TEST_F(EbctlCliTest, UnknownNodeIsNamed) {
  ExpectRejected({"--nodes", "host0,host9", "-b", "8", "-e", "8"}, 2, "host9");
}

TEST_F(EbctlCliTest, MoreRanksThanSlotsIsRefused) {
  ExpectRejected({"--nodes", "host0,host1", "--workers-per-node", "8", "-b", "8", "-e", "8"}, 5,
                 "node host0 has 2 worker slots");
}

TEST_F(EbctlCliTest, RootOutsideTheWorldIsRefused) {
  ExpectRejected({"--collective", "broadcast", "-r", "4", "-b", "8", "-e", "8"}, 2, "root_rank");
}

TEST_F(EbctlCliTest, UnsupportedTypeOnGlooIsRefused) {
  ExpectRejected({"-d", "half", "-b", "8", "-e", "8"}, 2, "data_type: half");
}

TEST_F(EbctlCliTest, FabricSettingsCannotComeFromATest) {
  ExpectRejected({"--nccl-env", "NCCL_IB_HCA=mlx5_1", "-b", "8", "-e", "8"}, 2,
                 "nccl_env: NCCL_IB_HCA may not be set by a test");
}

TEST_F(EbctlCliTest, UnknownFlagIsAUsageError) {
  CliResult result = cluster_.Ebctl({"run-test", "--bogus"});
  EXPECT_EQ(result.exit_code, 2);
}

TEST_F(EbctlCliTest, UnreachableCoordinatorExitsEight) {
  CliResult result = cluster_.Ebctl({"--coordinator=127.0.0.1:1", "--connect-timeout=1", "nodes"});
  EXPECT_EQ(result.exit_code, 8) << result.err;
  EXPECT_THAT(result.err, HasSubstr("cannot reach the coordinator"));
}

// Issue 33 item 5: `ebctl help` and a bare `ebctl` list the commands;
// CLI11's own messages carry the `ebctl:` prefix; nccl-tests' -g 1 -t 1 are
// a note, other values refused.
TEST_F(EbctlCliTest, HelpAndABareEbctlListTheCommands) {
  CliResult help = cluster_.Ebctl({"help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  for (const char* command : {"run-test", "validate", "report", "show", "help"}) {
    EXPECT_THAT(help.out, HasSubstr(command));
  }
  CliResult one = cluster_.Ebctl({"help", "validate"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("--allow-small-sizes"));
  CliResult bare = cluster_.Ebctl({});
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_THAT(bare.err, ::testing::StartsWith("ebctl: no command given"));
  EXPECT_THAT(bare.err, HasSubstr("validate"));
  CliResult bogus = cluster_.Ebctl({"run-test", "--bogus"});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_THAT(bogus.err, ::testing::StartsWith("ebctl: "));
}

TEST_F(EbctlCliTest, NcclTestsThreadingFlagsOneIsANoteOthersAreRefused) {
  ExpectRejected({"-g", "2"}, 2, "ebctl: run-test: -g/--ngpus: 2 is not supported");
  ExpectRejected({"-t", "4"}, 2, "-t/--nthreads: 4 is not supported");
  CliResult ok = cluster_.Ebctl({"run-test", "-g", "1", "-t", "1", "-b", "1K", "-e", "1K"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.err, HasSubstr("ebctl: note: -g/--ngpus 1: ignored"));
}

// Issue 33 items 1 and 4: refused before anything starts, with exit 2.
TEST_F(EbctlCliTest, ValidateRefusesAListOfCollectivesAndALatencyBoundSize) {
  CliResult list = cluster_.Ebctl({"validate", "--collective", "all_reduce,broadcast"});
  EXPECT_EQ(list.exit_code, 2) << list.err;
  EXPECT_THAT(list.err, HasSubstr("ebctl: --collective: validate grades one collective"));
  CliResult small = cluster_.Ebctl({"validate", "-b", "8", "-e", "64"});
  EXPECT_EQ(small.exit_code, 2) << small.err;
  EXPECT_THAT(small.err, HasSubstr("--allow-small-sizes"));
  CliResult none = cluster_.Ebctl({"validations", "--json"});
  EXPECT_EQ(nlohmann::json::parse(none.out, nullptr, false)["validations"].size(), 0u) << none.out;
}

}  // namespace
}  // namespace eb::testing
