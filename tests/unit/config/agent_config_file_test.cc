// agent.toml: the documented 8 x A800 example parses to the expected
// settings, every key is in the example and in docs/CONFIG.md, values are
// checked as the flags are, [worker.env] becomes KEY=VALUE entries, and
// flag > file.

#include <fstream>
#include <sstream>
#include <string>

#include "agent/config_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kExample = std::string(EB_DEPLOY_CONFIG_DIR) + "/agent.toml";
constexpr char kPath[] = "/etc/ebnccl/agent.toml";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status ApplyText(const std::string& text, AgentSettings* settings,
                       const std::set<std::string>& given = {}) {
  auto file = common::TomlFile::Parse(text, kPath);
  if (!file.ok()) return file.status();
  return AgentConfigSchema(settings).Apply(*file, given);
}

std::string ErrorOf(const std::string& text) {
  AgentSettings settings;
  return std::string(ApplyText(text, &settings).message());
}

TEST(AgentConfigFileTest, ExampleIsAnEightGpuRoceNode) {
  AgentSettings settings;
  const absl::Status status = ApplyAgentConfigFile(kExample, true, {}, &settings);
  ASSERT_TRUE(status.ok()) << status;
  const AgentConfig& config = settings.config;
  EXPECT_EQ(config.coordinator_address, "node0:29470");
  EXPECT_EQ(config.node_name, "");
  EXPECT_EQ(settings.workers, 8);
  EXPECT_THAT(config.gpu_indices, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_EQ(config.transport, "auto");
  EXPECT_EQ(config.bootstrap_interface, "eth0");
  ASSERT_EQ(config.ib_hcas.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(config.ib_hcas[i].name, "mlx5_10" + std::to_string(i));
    EXPECT_EQ(config.ib_hcas[i].port, 1);
  }
  EXPECT_EQ(NcclIbHcaValue(config.ib_hcas),
            "=mlx5_100:1,mlx5_101:1,mlx5_102:1,mlx5_103:1,mlx5_104:1,mlx5_105:"
            "1,mlx5_106:1,"
            "mlx5_107:1");
  EXPECT_EQ(config.ib_gid_index, 3);
  EXPECT_EQ(config.sysfs_infiniband, "/sys/class/infiniband");
  EXPECT_EQ(config.worker_binary, "");
  EXPECT_EQ(config.run_dir, "");
  const AgentConfig defaults;
  EXPECT_EQ(config.worker_grace, defaults.worker_grace);
  EXPECT_EQ(config.worker_hang_timeout, defaults.worker_hang_timeout);
  EXPECT_EQ(config.worker_heartbeat_period, defaults.worker_heartbeat_period);
  EXPECT_EQ(config.worker_socket_linger, defaults.worker_socket_linger);
  EXPECT_EQ(config.reconnect_initial, defaults.reconnect_initial);
  EXPECT_EQ(config.reconnect_max, defaults.reconnect_max);
  EXPECT_THAT(config.worker_env, ElementsAre("NCCL_DEBUG=INFO", "NCCL_DEBUG_SUBSYS=INIT,ENV,NET",
                                             "NCCL_IB_QPS_PER_CONNECTION=2", "NCCL_IB_TC=106"));
  EXPECT_EQ(settings.log_level, "info");
  EXPECT_EQ(settings.log_file, "");
  EXPECT_EQ(settings.config.metrics_listen, "");
}

TEST(AgentConfigFileTest, EveryKeyIsInTheExampleAndTheDocs) {
  AgentSettings settings;
  const common::ConfigSchema schema = AgentConfigSchema(&settings);
  auto example = common::TomlFile::Load(kExample, true);
  ASSERT_TRUE(example.ok()) << example.status();
  const std::string doc = ReadAll(EB_CONFIG_DOC);
  ASSERT_FALSE(doc.empty());
  for (const common::ConfigSchema::Key* key : schema.keys()) {
    EXPECT_TRUE(example->Contains(key->name())) << key->name();
    EXPECT_THAT(doc, HasSubstr("`" + key->name() + "`")) << key->name();
  }
}

TEST(AgentConfigFileTest, UnknownKeyMessageFromTheIssue) {
  EXPECT_EQ(ErrorOf("[agent]\ncoordinator = \"node0\"\n\n\n\n\n\n\n\n\n\nworkerz = 8\n"),
            "/etc/ebnccl/agent.toml:12: key 'agent.workerz': unknown key (did you "
            "mean "
            "'agent.workers'?)");
  EXPECT_EQ(ErrorOf("[agent]\n\n\n\n\n\nworkers = \"eight\"\n"),
            "/etc/ebnccl/agent.toml:7: key 'agent.workers': expected an "
            "integer, got string "
            "\"eight\"");
}

TEST(AgentConfigFileTest, MisplacedKeysPointToTheirSection) {
  EXPECT_THAT(ErrorOf("[agent]\nib_hca = [\"mlx5_0\"]\n"),
              HasSubstr("key 'agent.ib_hca': unknown key (did you mean 'nccl.ib_hca'?)"));
  EXPECT_THAT(ErrorOf("[agent]\nworker_binary = \"/x\"\n"),
              HasSubstr("(did you mean 'worker.binary'?)"));
  EXPECT_THAT(ErrorOf("[worker]\ngrace_ms = 100\n"), HasSubstr("(did you mean 'worker.grace'?)"));
  EXPECT_THAT(ErrorOf("[agent]\nbootstrap_interface = \"eth0\"\n"),
              HasSubstr("(did you mean 'network.bootstrap_interface'?)"));
}

TEST(AgentConfigFileTest, CoordinatorIsNormalised) {
  AgentSettings settings;
  ASSERT_TRUE(ApplyText("[agent]\ncoordinator = \"node0\"\n", &settings).ok());
  EXPECT_EQ(settings.config.coordinator_address, "node0:29470");
  ASSERT_TRUE(ApplyText("[agent]\ncoordinator = \"[fd00::1]:1234\"\n", &settings).ok());
  EXPECT_EQ(settings.config.coordinator_address, "[fd00::1]:1234");
  EXPECT_EQ(ErrorOf("[agent]\ncoordinator = \"node0:0\"\n"),
            "/etc/ebnccl/agent.toml:2: key 'agent.coordinator': 'node0:0' is "
            "not a valid "
            "address: port 0 is outside 1..65535");
}

TEST(AgentConfigFileTest, HcasAreParsedAsTheFlagIs) {
  AgentSettings settings;
  ASSERT_TRUE(ApplyText("[nccl]\nib_hca = [\"=mlx5_0\", \"mlx5_1:2\"]\n", &settings).ok());
  ASSERT_EQ(settings.config.ib_hcas.size(), 2u);
  EXPECT_EQ(settings.config.ib_hcas[0].name, "mlx5_0");
  EXPECT_EQ(settings.config.ib_hcas[0].port, 0);
  EXPECT_EQ(settings.config.ib_hcas[1].port, 2);
  EXPECT_EQ(ErrorOf("[nccl]\nib_hca = [\"^mlx5_0\"]\n"),
            "/etc/ebnccl/agent.toml:2: key 'nccl.ib_hca': exclusion lists "
            "('^...') are not "
            "supported; list the HCAs to use");
  EXPECT_EQ(ErrorOf("[nccl]\nib_hca = [\"mlx5_0:x\"]\n"),
            "/etc/ebnccl/agent.toml:2: key 'nccl.ib_hca': 'mlx5_0:x': bad port");
  EXPECT_THAT(ErrorOf("[nccl]\nib_hca = \"mlx5_0\"\n"),
              HasSubstr("expected a list of strings, got string \"mlx5_0\""));
  EXPECT_THAT(ErrorOf("[nccl]\nib_gid_index = 256\n"),
              HasSubstr("key 'nccl.ib_gid_index': must be between -1 and 255, got 256"));
}

TEST(AgentConfigFileTest, GpusAreUnique) {
  EXPECT_EQ(ErrorOf("[agent]\ngpus = [0, 3, 3]\n"),
            "/etc/ebnccl/agent.toml:2: key 'agent.gpus': GPU 3 is listed twice");
  EXPECT_THAT(ErrorOf("[agent]\ngpus = [-1]\n"), HasSubstr("GPU index -1 is outside 0..1023"));
}

TEST(AgentConfigFileTest, TransportAndWorkersAreChecked) {
  EXPECT_THAT(ErrorOf("[agent]\ntransport = \"ib\"\n"),
              HasSubstr("must be one of auto, gloo, nccl, got \"ib\""));
  EXPECT_THAT(ErrorOf("[agent]\nworkers = 2000\n"),
              HasSubstr("must be between 0 and 1024, got 2000"));
}

TEST(AgentConfigFileTest, WorkerEnvTableBecomesKeyValueEntries) {
  AgentSettings settings;
  ASSERT_TRUE(ApplyText(R"([worker.env]
NCCL_TOPO_FILE = "=/etc/topo.xml"
EB_WORKER_FAULT = "hang:rank=1"
"WITH.DOT" = ""
)",
                        &settings)
                  .ok());
  EXPECT_THAT(
      settings.config.worker_env,
      ElementsAre("EB_WORKER_FAULT=hang:rank=1", "NCCL_TOPO_FILE==/etc/topo.xml", "WITH.DOT="));
  // A table's setter sees the whole table: the line is the table's header.
  EXPECT_EQ(ErrorOf("[worker.env]\n\"A=B\" = \"x\"\n"),
            "/etc/ebnccl/agent.toml:1: key 'worker.env': \"A=B\" is not an "
            "environment "
            "variable name");
  EXPECT_EQ(ErrorOf("[worker.env]\nNCCL_DEBUG = 1\n"),
            "/etc/ebnccl/agent.toml:2: key 'worker.env.NCCL_DEBUG': expected a "
            "string, got "
            "integer 1");
}

TEST(AgentConfigFileTest, WorkerEnvRefusesTheVariablesTheAgentOwns) {
  // They would undo nccl.ib_hca's exact-match form or the GPU index
  // mapping (agent/core/env_policy.h): the error names the key to use.
  EXPECT_THAT(ErrorOf("[worker.env]\nNCCL_IB_HCA = \"mlx5_100\"\n"),
              AllOf(HasSubstr("key 'worker.env'"),
                    HasSubstr("NCCL_IB_HCA cannot be set in the workers' environment"),
                    HasSubstr("nccl.ib_hca")));
  EXPECT_THAT(ErrorOf("[worker.env]\nNCCL_SOCKET_IFNAME = \"eth0\"\n"),
              HasSubstr("network.bootstrap_interface"));
  EXPECT_THAT(ErrorOf("[worker.env]\nCUDA_VISIBLE_DEVICES = \"0,1\"\n"),
              AllOf(HasSubstr("CUDA_VISIBLE_DEVICES cannot be set"), HasSubstr("agent.gpus")));
  EXPECT_THAT(ErrorOf("[worker.env]\nCUDA_DEVICE_ORDER = \"FASTEST_FIRST\"\n"),
              HasSubstr("PCI_BUS_ID"));
}

TEST(AgentConfigFileTest, FlagsWinOverTheFile) {
  AgentSettings settings;
  // As main.cc leaves them after parsing --worker-env A=1 --workers 4.
  settings.config.worker_env = {"A=1"};
  settings.workers = 4;
  ASSERT_TRUE(ApplyText(R"([agent]
workers = 8
node_name = "from-file"
[worker.env]
B = "2"
)",
                        &settings, {"--worker-env", "--workers"})
                  .ok());
  EXPECT_THAT(settings.config.worker_env, ElementsAre("A=1"));
  EXPECT_EQ(settings.workers, 4);
  EXPECT_EQ(settings.config.node_name, "from-file");
}

TEST(AgentConfigFileTest, DurationsInEveryForm) {
  AgentSettings settings;
  ASSERT_TRUE(ApplyText(R"([agent]
reconnect_initial = 250
reconnect_max = "1m"
[worker]
grace = "500ms"
hang_timeout = "2m30s"
heartbeat_period = 2000
socket_linger = "0s"
)",
                        &settings)
                  .ok());
  EXPECT_EQ(settings.config.reconnect_initial, absl::Milliseconds(250));
  EXPECT_EQ(settings.config.reconnect_max, absl::Minutes(1));
  EXPECT_EQ(settings.config.worker_grace, absl::Milliseconds(500));
  EXPECT_EQ(settings.config.worker_hang_timeout, absl::Seconds(150));
  EXPECT_EQ(settings.config.worker_heartbeat_period, absl::Seconds(2));
  EXPECT_EQ(settings.config.worker_socket_linger, absl::ZeroDuration());
}

TEST(AgentConfigFileTest, MissingFiles) {
  AgentSettings settings;
  EXPECT_TRUE(ApplyAgentConfigFile("/nonexistent/agent.toml", false, {}, &settings).ok());
  EXPECT_EQ(ApplyAgentConfigFile("/nonexistent/agent.toml", true, {}, &settings).message(),
            "/nonexistent/agent.toml: config file does not exist");
}

}  // namespace
}  // namespace eb::agent
