// The exact argv and environment the agent gives a worker and its NCCL
// probe (STYLE.md rules 13, 15, 19, 21): what is passed, what is withheld,
// and who wins on conflict.

#include "agent/core/worker_spec.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::Not;

// Splits "KEY=VALUE" entries into a map; fails the test on a duplicate key.
std::map<std::string, std::string> EnvMap(const std::vector<std::string>& env) {
  std::map<std::string, std::string> map;
  for (const std::string& entry : env) {
    const size_t eq = entry.find('=');
    EXPECT_NE(eq, std::string::npos) << entry;
    if (eq == std::string::npos) continue;
    const bool inserted = map.emplace(entry.substr(0, eq), entry.substr(eq + 1)).second;
    EXPECT_TRUE(inserted) << "duplicate key in " << entry;
  }
  return map;
}

class WorkerSpecTest : public ::testing::Test {
 protected:
  WorkerSpecTest() {
    config_.node_name = "node-a";
    config_.worker_binary = "/opt/eb/bin/eb-worker";
    config_.run_dir = "/run/eb";
    config_.worker_heartbeat_period = absl::Milliseconds(250);

    launch_.set_test_id("t-42");
    launch_.set_register_timeout_ms(10'000);
    launch_.set_init_timeout_ms(30'000);
    launch_.set_op_timeout_ms(5'000);

    assignment_.set_rank(3);
    assignment_.set_world_size(4);
    assignment_.set_node_name("node-a");
    assignment_.set_node_index(1);
    assignment_.set_local_rank(1);
    assignment_.set_device_index(1);
  }

  WorkerLaunch Worker(std::vector<std::string> agent_env = {}) const {
    WorkerLaunch worker;
    worker.launch = &launch_;
    worker.assignment = &assignment_;
    worker.token = "s3cr3t-token";
    worker.agent_pid = 1234;
    worker.agent_target = "unix:/run/eb/agent.sock";
    worker.log_path = "/run/eb/logs/t-42/rank-3.log";
    worker.agent_env = std::move(agent_env);
    return worker;
  }

  AgentCoreConfig config_;
  v1::LaunchTest launch_;
  v1::RankAssignment assignment_;
};

TEST_F(WorkerSpecTest, ArgvCarriesOnlyTheWorkersIdentity) {
  // GPU, bus id, deadlines and bootstrap settings travel in the
  // registration reply, however they are configured.
  config_.bootstrap_interface = "eth1";
  config_.bootstrap_address = "10.0.0.5";
  assignment_.set_gpu_pci_bus_id("0000:9a:00.0");
  const common::ProcessSpec spec = BuildWorkerSpec(config_, Worker());
  EXPECT_EQ(spec.executable, "/opt/eb/bin/eb-worker");
  EXPECT_THAT(spec.argv, ElementsAre("/opt/eb/bin/eb-worker", "--agent=unix:/run/eb/agent.sock",
                                     "--agent-pid=1234", "--test-id=t-42", "--rank=3"));
  EXPECT_EQ(spec.log_path, "/run/eb/logs/t-42/rank-3.log");
  assignment_.set_device_index(-1);
  config_.bootstrap_interface.clear();
  config_.bootstrap_address.clear();
  EXPECT_THAT(BuildWorkerSpec(config_, Worker()).argv,
              ElementsAre("/opt/eb/bin/eb-worker", "--agent=unix:/run/eb/agent.sock",
                          "--agent-pid=1234", "--test-id=t-42", "--rank=3"));
}

TEST_F(WorkerSpecTest, TheTokenIsInTheEnvironmentNeverInArgv) {
  // `ps` shows every user the command line; the environment only the
  // worker's user and root (SECURITY_FINDINGS case 16; the exact argv above
  // holds nothing secret either: who the worker is, not how it proves it).
  const common::ProcessSpec spec = BuildWorkerSpec(config_, Worker());
  EXPECT_EQ(EnvMap(spec.env).at("EB_WORKER_TOKEN"), "s3cr3t-token");
  for (const std::string& arg : spec.argv) {
    EXPECT_THAT(arg, Not(::testing::HasSubstr("s3cr3t-token")));
  }
  // Still sorted by name.
  EXPECT_TRUE(std::is_sorted(spec.env.begin(), spec.env.end()));
  // Nobody else sets it: not the agent's environment, --worker-env or the
  // test, and the NCCL probe gets none.
  config_.worker_env = {"EB_WORKER_TOKEN=from-config"};
  (*launch_.mutable_spec()->mutable_nccl_env())["EB_WORKER_TOKEN"] = "from-test";
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"EB_WORKER_TOKEN=inherited"})).env);
  EXPECT_EQ(env.at("EB_WORKER_TOKEN"), "s3cr3t-token");
  EXPECT_FALSE(EnvMap(BuildNcclProbeSpec(config_, {"EB_WORKER_TOKEN=inherited"}).env)
                   .contains("EB_WORKER_TOKEN"));
}

TEST_F(WorkerSpecTest, NoBootstrapInterfaceLeavesNcclToChoose) {
  config_.bootstrap_address = "192.168.1.7";
  const common::ProcessSpec spec = BuildWorkerSpec(config_, Worker());
  EXPECT_FALSE(EnvMap(spec.env).contains("NCCL_SOCKET_IFNAME"));
}

TEST_F(WorkerSpecTest, IsPassedThroughAcceptsOnlyTheAllowList) {
  for (const char* entry : {"PATH=/usr/bin", "LD_LIBRARY_PATH=/usr/local/cuda/lib64", "HOME=/root",
                            "TMPDIR=/tmp", "LANG=C.UTF-8", "TZ=UTC", "NCCL_DEBUG=INFO",
                            "CUDA_HOME=/usr/local/cuda", "NVIDIA_VISIBLE_DEVICES=all",
                            "PATH=", "TSAN_OPTIONS=halt_on_error=1", "ASAN_OPTIONS=detect_leaks=1",
                            "UBSAN_OPTIONS=print_stacktrace=1", "LSAN_OPTIONS=suppressions=x"}) {
    EXPECT_TRUE(IsPassedThrough(entry)) << entry;
  }
  for (const char* entry :
       {"AWS_SECRET=hunter2", "AWS_SECRET_ACCESS_KEY=abc", "PATHX=/evil", "LANGUAGE=en",
        "HOMEDIR=/x", "SHELL=/bin/bash", "LD_PRELOAD=/evil.so", "MY_NCCL_DEBUG=1",
        "nccl_debug=INFO", "PATH", "", "GRPC_TRACE=all", "TSAN_OPTIONSX=1", "MSAN_OPTIONS=1"}) {
    EXPECT_FALSE(IsPassedThrough(entry)) << entry;
  }
}

TEST_F(WorkerSpecTest, EnvKeepsTheAllowListAndDropsSecrets) {
  const common::ProcessSpec spec = BuildWorkerSpec(
      config_,
      Worker({"PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=/usr/local/cuda/lib64", "HOME=/var/lib/eb",
              "TMPDIR=/scratch", "LANG=C.UTF-8", "TZ=UTC", "NCCL_DEBUG=WARN",
              "CUDA_HOME=/usr/local/cuda", "NVIDIA_DRIVER_CAPABILITIES=compute",
              "AWS_SECRET=hunter2", "LD_PRELOAD=/evil.so", "SHELL=/bin/bash"}));
  EXPECT_EQ(EnvMap(spec.env), (std::map<std::string, std::string>{
                                  {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                                  {"CUDA_HOME", "/usr/local/cuda"},
                                  {"EB_WORKER_TOKEN", "s3cr3t-token"},
                                  {"HOME", "/var/lib/eb"},
                                  {"LANG", "C.UTF-8"},
                                  {"LD_LIBRARY_PATH", "/usr/local/cuda/lib64"},
                                  {"NCCL_DEBUG", "WARN"},
                                  {"NVIDIA_DRIVER_CAPABILITIES", "compute"},
                                  {"PATH", "/usr/bin:/bin"},
                                  {"TMPDIR", "/scratch"},
                                  {"TZ", "UTC"},
                              }));
  for (const std::string& entry : spec.env) {
    EXPECT_THAT(entry, Not(::testing::HasSubstr("hunter2")));
  }
}

TEST_F(WorkerSpecTest, EmptyAgentEnvGivesOnlyThePciDeviceOrder) {
  EXPECT_THAT(BuildWorkerSpec(config_, Worker()).env,
              ElementsAre("CUDA_DEVICE_ORDER=PCI_BUS_ID", "EB_WORKER_TOKEN=s3cr3t-token"));
}

TEST_F(WorkerSpecTest, NcclWorkersAlwaysLogAtLeastNcclsWarnings) {
  // Issue 12, part 5: a failure's report carries NCCL's last warnings, so
  // an NCCL worker always runs with NCCL_DEBUG=WARN or more verbose.
  launch_.mutable_spec()->set_transport(v1::TRANSPORT_NCCL);
  // Unset: INFO, for what NCCL used (issue 29, item 4).
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker()).env).at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker()).env).at("NCCL_DEBUG_SUBSYS"), "INIT,ENV,NET");
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_DEBUG=VERSION"})).env).at("NCCL_DEBUG"),
            "WARN");
  (*launch_.mutable_spec()->mutable_nccl_env())["NCCL_DEBUG"] = "INFO";
  const common::ProcessSpec spec = BuildWorkerSpec(config_, Worker({"NCCL_DEBUG=VERSION"}));
  EXPECT_EQ(EnvMap(spec.env).at("NCCL_DEBUG"), "INFO");
  EXPECT_TRUE(std::is_sorted(spec.env.begin(), spec.env.end()));
  EXPECT_EQ(NcclDebugAtLeastWarn({"NCCL_DEBUG=trace"}), "trace");
  EXPECT_EQ(NcclDebugAtLeastWarn({"NCCL_DEBUG=NONE"}), "WARN");
  EXPECT_EQ(NcclDebugAtLeastWarn({}), "INFO");
  // Gloo workers load no NCCL: their environment is left as it was.
  launch_.mutable_spec()->set_transport(v1::TRANSPORT_GLOO);
  launch_.mutable_spec()->clear_nccl_env();
  EXPECT_FALSE(EnvMap(BuildWorkerSpec(config_, Worker()).env).contains("NCCL_DEBUG"));
}

TEST_F(WorkerSpecTest, IbPortFailoverIsPinnedOffFromNccl2297UnlessSet) {
  // Issue 29, item 4: a dead port must fail the test, not pass it slower.
  launch_.mutable_spec()->set_transport(v1::TRANSPORT_NCCL);
  config_.nccl_version = "2.28.3";
  EXPECT_FALSE(
      EnvMap(BuildWorkerSpec(config_, Worker()).env).contains("NCCL_IB_RESILIENCY_PORT_FAILOVER"));
  config_.nccl_version = "2.29.7";
  const common::ProcessSpec spec = BuildWorkerSpec(config_, Worker());
  EXPECT_EQ(EnvMap(spec.env).at("NCCL_IB_RESILIENCY_PORT_FAILOVER"), "0");
  EXPECT_TRUE(std::is_sorted(spec.env.begin(), spec.env.end()));
  // The operator's choice stands (and NCCL's ENV line records it).
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_IB_RESILIENCY_PORT_FAILOVER=1"})).env)
                .at("NCCL_IB_RESILIENCY_PORT_FAILOVER"),
            "1");
  // A chosen NCCL_DEBUG_SUBSYS stands too.
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_DEBUG_SUBSYS=ALL"})).env)
                .at("NCCL_DEBUG_SUBSYS"),
            "ALL");
  EXPECT_TRUE(NcclVersionAtLeast("2.30.7", 2, 29, 7));
  EXPECT_TRUE(NcclVersionAtLeast("2.29.7+cuda13.0", 2, 29, 7));
  EXPECT_FALSE(NcclVersionAtLeast("2.29.3", 2, 29, 7));
  EXPECT_FALSE(NcclVersionAtLeast("", 2, 29, 7));
  EXPECT_FALSE(NcclVersionAtLeast("garbage", 2, 29, 7));
}

TEST_F(WorkerSpecTest, DeviceOrderIsAlwaysPciBusId) {
  // CUDA's default is "fastest first", which would make CUDA device i
  // another GPU than the agent's i-th in PCI order.
  config_.worker_env = {"CUDA_DEVICE_ORDER=FASTEST_FIRST"};
  const auto env =
      EnvMap(BuildWorkerSpec(config_, Worker({"CUDA_DEVICE_ORDER=FASTEST_FIRST"})).env);
  EXPECT_EQ(env.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
}

TEST_F(WorkerSpecTest, WorkerEnvOverridesAndExtendsTheAgentEnv) {
  config_.worker_env = {"NCCL_DEBUG=INFO", "EB_WORKER_FAULT=crash_at_size=2:rank=1",
                        "NCCL_TOPO_FILE==/etc/topo.xml"};
  const common::ProcessSpec spec =
      BuildWorkerSpec(config_, Worker({"NCCL_DEBUG=WARN", "PATH=/usr/bin"}));
  const auto env = EnvMap(spec.env);
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  // --worker-env is the operator's explicit choice: not filtered.
  EXPECT_EQ(env.at("EB_WORKER_FAULT"), "crash_at_size=2:rank=1");
  // Only the first '=' separates; a value starting with '=' survives.
  EXPECT_EQ(env.at("NCCL_TOPO_FILE"), "=/etc/topo.xml");
  EXPECT_EQ(env.at("PATH"), "/usr/bin");
  EXPECT_EQ(env.size(), 6u);  // and CUDA_DEVICE_ORDER, EB_WORKER_TOKEN
}

TEST_F(WorkerSpecTest, MalformedEntriesAreDropped) {
  config_.worker_env = {"NOEQUALS", "=value", "EMPTY="};
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_BAD", "NCCL_OK=1"})).env);
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                                                     {"EB_WORKER_TOKEN", "s3cr3t-token"},
                                                     {"EMPTY", ""},
                                                     {"NCCL_OK", "1"}}));
}

TEST_F(WorkerSpecTest, SocketIfnameDefaultsToExactMatchOfTheInterface) {
  config_.bootstrap_interface = "eth1";
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"PATH=/usr/bin"})).env);
  // "=eth1": exactly eth1, not every interface whose name starts with it.
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=eth1");
}

TEST_F(WorkerSpecTest, WorkerEnvCannotUndoTheExactMatchForms) {
  // The agent refuses these at start (env_policy.h); the builder is the
  // backstop, so that no source can turn '=eth1' back into a prefix.
  config_.bootstrap_interface = "eth1";
  config_.ib_hcas = {HcaPort{"mlx5_1", 1}};
  config_.worker_env = {"NCCL_SOCKET_IFNAME=eth", "NCCL_IB_HCA=mlx5_1"};
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker()).env);
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=eth1");
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_1:1");
}

TEST_F(WorkerSpecTest, WorkerEnvFabricVariablesAreIgnoredWithoutFabricConfig) {
  config_.worker_env = {"NCCL_SOCKET_IFNAME=ib0", "NCCL_IB_HCA=mlx5"};
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker()).env);
  EXPECT_FALSE(env.contains("NCCL_SOCKET_IFNAME"));
  EXPECT_FALSE(env.contains("NCCL_IB_HCA"));
}

TEST_F(WorkerSpecTest, ConfiguredInterfaceBeatsTheAgentsInheritedSocketIfname) {
  // The agent's --bootstrap-interface is explicit configuration; whatever the
  // service environment happens to carry is not.
  config_.bootstrap_interface = "eth1";
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_SOCKET_IFNAME=^docker"})).env);
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=eth1");
}

TEST_F(WorkerSpecTest, InheritedFabricVariablesAreNotPassedOn) {
  // The agent refuses to start with them; the builder never passes them.
  const auto env = EnvMap(
      BuildWorkerSpec(config_, Worker({"NCCL_SOCKET_IFNAME=^docker", "NCCL_IB_HCA=mlx5"})).env);
  EXPECT_FALSE(env.contains("NCCL_SOCKET_IFNAME"));
  EXPECT_FALSE(env.contains("NCCL_IB_HCA"));
}

TEST_F(WorkerSpecTest, FabricSettingsInExactMatchForm) {
  config_.ib_hcas = {HcaPort{"mlx5_100", 1}, HcaPort{"mlx5_101", 0}};
  config_.ib_gid_index = 3;
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_IB_HCA=mlx5"})).env);
  // '=': exactly these devices (mlx5_1 would otherwise also match mlx5_10..).
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_100:1,mlx5_101");
  EXPECT_EQ(env.at("NCCL_IB_GID_INDEX"), "3");
}

// Configured HCAs must be used or the test fails: no silent TCP fallback.
TEST_F(WorkerSpecTest, ConfiguredHcasForceNcclsIbTransport) {
  config_.ib_hcas = {HcaPort{"mlx5_100", 1}};
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker()).env).at("NCCL_NET"), "IB");
  // The operator's choice wins: inherited by the service, or worker.env
  // (an external plugin).
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_NET=IBext"})).env).at("NCCL_NET"),
            "IBext");
  config_.worker_env = {"NCCL_NET=AWS Libfabric"};
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker()).env).at("NCCL_NET"), "AWS Libfabric");
  config_.worker_env.clear();
  // A test that turns IB off gets NCCL's own choice (sockets), not a forced
  // IB that could only fail.
  (*launch_.mutable_spec()->mutable_nccl_env())["NCCL_IB_DISABLE"] = "1";
  EXPECT_FALSE(EnvMap(BuildWorkerSpec(config_, Worker()).env).contains("NCCL_NET"));
  (*launch_.mutable_spec()->mutable_nccl_env())["NCCL_IB_DISABLE"] = "0";
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker()).env).at("NCCL_NET"), "IB");
}

TEST_F(WorkerSpecTest, NoFabricSettingsWhenUnconfigured) {
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"PATH=/usr/bin"})).env);
  EXPECT_FALSE(env.contains("NCCL_NET"));
  EXPECT_FALSE(env.contains("NCCL_IB_HCA"));
  EXPECT_FALSE(env.contains("NCCL_IB_GID_INDEX"));
  config_.ib_gid_index = 0;  // 0 is a real GID index.
  EXPECT_EQ(EnvMap(BuildWorkerSpec(config_, Worker()).env).at("NCCL_IB_GID_INDEX"), "0");
}

TEST_F(WorkerSpecTest, PrecedenceAgentEnvThenFabricThenWorkerEnvThenTestEnv) {
  config_.bootstrap_interface = "eth1";
  config_.ib_hcas = {HcaPort{"mlx5_0", 1}};
  config_.ib_gid_index = 3;
  config_.worker_env = {"NCCL_IB_GID_INDEX=5", "NCCL_DEBUG=INFO", "NCCL_PROTO=LL"};
  (*launch_.mutable_spec()->mutable_nccl_env())["NCCL_PROTO"] = "Simple";
  (*launch_.mutable_spec()->mutable_nccl_env())["NCCL_ALGO"] = "Ring";
  const auto env =
      EnvMap(BuildWorkerSpec(config_, Worker({"NCCL_DEBUG=WARN", "NCCL_SOCKET_IFNAME=lo"})).env);
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=eth1");  // Fabric over the agent's env.
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_0:1");     // Only from the fabric config.
  EXPECT_EQ(env.at("NCCL_IB_GID_INDEX"), "5");       // --worker-env over fabric.
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");           // --worker-env over the agent's env.
  EXPECT_EQ(env.at("NCCL_PROTO"), "Simple");         // The test's knobs last.
  EXPECT_EQ(env.at("NCCL_ALGO"), "Ring");
}

TEST_F(WorkerSpecTest, InheritedCudaVisibleDevicesIsNotPassedOn) {
  // It would remap the device index (the agent's index is the host's PCI
  // order) and, narrowed, disable CUDA IPC (NVIDIA/nccl#129).
  config_.bootstrap_interface = "eth1";
  assignment_.set_device_index(2);
  const common::ProcessSpec spec =
      BuildWorkerSpec(config_, Worker({"CUDA_VISIBLE_DEVICES=3,2,1,0"}));
  EXPECT_FALSE(EnvMap(spec.env).contains("CUDA_VISIBLE_DEVICES"));
}

TEST_F(WorkerSpecTest, TestEnvCannotSetAgentOwnedVariables) {
  // The coordinator's allow-list refuses them; this is the backstop.
  (*launch_.mutable_spec()->mutable_nccl_env())["NCCL_IB_HCA"] = "mlx5";
  (*launch_.mutable_spec()->mutable_nccl_env())["CUDA_VISIBLE_DEVICES"] = "0";
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker()).env);
  EXPECT_FALSE(env.contains("NCCL_IB_HCA"));
  EXPECT_FALSE(env.contains("CUDA_VISIBLE_DEVICES"));
}

TEST_F(WorkerSpecTest, CudaVisibleDevicesIsNotAddedWhenTheAgentHasNone) {
  const auto env = EnvMap(BuildWorkerSpec(config_, Worker({"PATH=/usr/bin"})).env);
  EXPECT_FALSE(env.contains("CUDA_VISIBLE_DEVICES"));
}

TEST_F(WorkerSpecTest, EnvIsSortedByKeyForReproducibleLaunches) {
  config_.worker_env = {"ZZZ=1", "AAA=2"};
  const common::ProcessSpec spec = BuildWorkerSpec(config_, Worker({"TZ=UTC", "HOME=/h"}));
  EXPECT_THAT(spec.env, ElementsAre("AAA=2", "CUDA_DEVICE_ORDER=PCI_BUS_ID",
                                    "EB_WORKER_TOKEN=s3cr3t-token", "HOME=/h", "TZ=UTC", "ZZZ=1"));
}

TEST_F(WorkerSpecTest, NcclProbeGetsTheWorkersEnvironmentWithoutATest) {
  config_.worker_env = {"LD_LIBRARY_PATH=/opt/nccl-2.28/lib", "NCCL_DEBUG=WARN"};
  config_.bootstrap_interface = "eth1";
  const std::vector<std::string> agent_env = {"PATH=/usr/bin", "LD_LIBRARY_PATH=/usr/lib",
                                              "AWS_SECRET=hunter2"};
  const common::ProcessSpec probe = BuildNcclProbeSpec(config_, agent_env);
  EXPECT_EQ(probe.executable, "/opt/eb/bin/eb-worker");
  EXPECT_THAT(probe.argv, ElementsAre("/opt/eb/bin/eb-worker", "--print-nccl-version"));
  // Exactly what a worker gets but its token: --worker-env's library path
  // decides which libnccl.so.2 is loaded.
  EXPECT_EQ(probe.env, BuildWorkerEnv(config_, agent_env));
  EXPECT_EQ(EnvMap(probe.env).at("LD_LIBRARY_PATH"), "/opt/nccl-2.28/lib");
  std::vector<std::string> worker_env = BuildWorkerSpec(config_, Worker(agent_env)).env;
  std::erase(worker_env, "EB_WORKER_TOKEN=s3cr3t-token");
  EXPECT_EQ(probe.env, worker_env);
}

TEST(WorkerLogPathTest, Layout) {
  EXPECT_EQ(WorkerLogPath("/run/eb", "t-42", 3), "/run/eb/logs/t-42/rank-3.log");
  EXPECT_EQ(WorkerLogPath("/var/run/ebnccl", "t-20261129-154501-3f2a", 0),
            "/var/run/ebnccl/logs/t-20261129-154501-3f2a/rank-0.log");
  EXPECT_EQ(WorkerLogPath("/r", "t", 127), "/r/logs/t/rank-127.log");
}

}  // namespace
}  // namespace eb::agent
