// Identifiers that cross the network (common/spec/identifiers.h) and the
// one NCCL allow-list shared by the coordinator and the agents
// (common/spec/nccl_env.h): SECURITY_FINDINGS cases 1, 2, 13 and 14.

#include "common/spec/identifiers.h"

#include <string>

#include "common/spec/limits.h"
#include "common/spec/nccl_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Message(const absl::Status& status) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(IdentifiersTest, TestIdsAreNamesNeverPaths) {
  for (const char* id : {"t-20261201-213000-abcd", "v-1.pair_3", "0", "A"}) {
    EXPECT_TRUE(CheckTestId(id, "test_id").ok()) << id;
  }
  EXPECT_TRUE(CheckTestId(std::string(kMaxTestIdLength, 'a'), "test_id").ok());
  EXPECT_EQ(Message(CheckTestId("", "test_id")), "test_id: must not be empty");
  EXPECT_THAT(Message(CheckTestId(std::string(kMaxTestIdLength + 1, 'a'), "test_id")),
              StartsWith("test_id: 129 characters, at most 128 allowed"));
  // Case 2.
  EXPECT_THAT(Message(CheckTestId("../../etc/shadow", "test_id")),
              HasSubstr("must start with a letter or digit"));
  EXPECT_THAT(Message(CheckTestId("..", "f")), StartsWith("f: "));
  EXPECT_THAT(Message(CheckTestId("a/../b", "test_id")), HasSubstr("holds '/'"));
  EXPECT_THAT(Message(CheckTestId(std::string("a\0b", 3), "test_id")), HasSubstr("\\x00"));
}

// Cases 13 and 14: a 1 MB name is refused in a short message.
TEST(IdentifiersTest, NodeNamesAreBoundedAndErrorsDoNotEchoThem) {
  EXPECT_TRUE(CheckNodeName("gpu-node-01.dc1.example.com", "node_name").ok());
  EXPECT_TRUE(CheckNodeName(std::string(kMaxNodeNameLength, 'n'), "node_name").ok());
  const std::string huge(1 << 20, 'n');
  const std::string message = Message(CheckNodeName(huge, "node_name"));
  EXPECT_THAT(message, StartsWith("node_name: 1048576 characters, at most 253 allowed"));
  EXPECT_LT(message.size(), 200u);
  EXPECT_THAT(Message(CheckNodeName("a b", "--nodes")), StartsWith("--nodes: 'a b' holds ' '"));
}

TEST(IdentifiersTest, QuoteCutsAndEscapes) {
  EXPECT_EQ(Quote("abc"), "'abc'");
  EXPECT_EQ(Quote("a'b\n"), "'a\\x27b\\n'");
  EXPECT_EQ(Quote(std::string(100, 'x')), "'" + std::string(64, 'x') + "'... (100 bytes)");
}

TEST(IdentifiersTest, RendezvousKeysArePrintableAndBounded) {
  EXPECT_TRUE(CheckRendezvousKey("gloo/rank:3", "key").ok());
  EXPECT_TRUE(CheckRendezvousKey(std::string(kMaxRendezvousKeyLength, 'k'), "key").ok());
  EXPECT_THAT(Message(CheckRendezvousKey(std::string(kMaxRendezvousKeyLength + 1, 'k'), "key")),
              StartsWith("key: 257 characters"));
  EXPECT_THAT(Message(CheckRendezvousKey("a b", "key")), HasSubstr("space or a control"));
}

// Case 1: the one allow-list the agents apply too.
TEST(NcclEnvTest, Case1RefusesLdPreloadAndBoundsTheEntries) {
  EXPECT_THAT(Message(CheckNcclEnv({{"LD_PRELOAD", "/tmp/x.so"}})),
              StartsWith("nccl_env: LD_PRELOAD may not be set by a test"));
  EXPECT_TRUE(CheckNcclEnv({{"NCCL_DEBUG", std::string(kMaxNcclEnvValueLength, 'x')}}).ok());
  EXPECT_THAT(Message(CheckNcclEnv({{"NCCL_DEBUG", std::string(kMaxNcclEnvValueLength + 1, 'x')}})),
              StartsWith("nccl_env: NCCL_DEBUG has a value of 1025 bytes"));
  EXPECT_THAT(Message(CheckNcclEnv({{"NCCL_DEBUG", std::string("IN\0FO", 5)}})),
              HasSubstr("single-line"));
  std::map<std::string, std::string> many;
  for (int i = 0; i <= kMaxNcclEnvEntries; ++i) many["NCCL_X" + std::to_string(i)] = "1";
  EXPECT_THAT(Message(CheckNcclEnv(many)), StartsWith("nccl_env: 65 variables, at most 64"));
  const std::string message = Message(CheckNcclEnv({{std::string(100'000, 'K'), "1"}}));
  EXPECT_LT(message.size(), 2000u);  // the allowed list, not the key
}

}  // namespace
}  // namespace eb::spec
