// eb-agent --check-config: each check passing and failing against a fake
// host, the real probe on loopback and a temporary directory, and the
// effective configuration read back to the same settings.

#include "agent/core/config_check.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/effective_config.h"
#include "agent/host/real_host_probe.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FakeHostProbe : public HostProbe {
 public:
  absl::StatusOr<std::vector<common::InterfaceInfo>> Interfaces() const override {
    return interfaces;
  }
  absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> Hcas(
      const std::vector<HcaPort>& wanted, const std::string& sysfs_root) const override {
    last_sysfs_root = sysfs_root;
    std::vector<ebnccl::v1::HcaInfo> found;
    for (const HcaPort& hca : wanted) {
      auto it = hcas.find(hca.name);
      if (it == hcas.end()) {
        return absl::NotFoundError(absl::StrCat("--ib-hca: HCA ", hca.name, " does not exist"));
      }
      found.push_back(it->second);
    }
    return found;
  }
  DiscoveredGpus Gpus() const override { return {gpus, nvml_note}; }
  absl::Status Connect(const std::string& host_port, absl::Duration timeout) const override {
    last_connect = host_port;
    last_timeout = timeout;
    return connect;
  }
  absl::Status CheckExecutable(const std::string&) const override { return executable; }
  absl::StatusOr<std::string> CheckWritableDir(const std::string&) const override {
    return writable;
  }

  absl::StatusOr<std::vector<common::InterfaceInfo>> interfaces;
  std::map<std::string, ebnccl::v1::HcaInfo> hcas;
  std::vector<ebnccl::v1::GpuInfo> gpus;
  std::string nvml_note;
  absl::Status connect;
  absl::Status executable;
  absl::StatusOr<std::string> writable = std::string("exists, writable");
  mutable std::string last_connect;
  mutable absl::Duration last_timeout;
  mutable std::string last_sysfs_root;
};

// A healthy 8 x A800 node with mlx5_100..107 on RoCE and eth0.
class ConfigCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.coordinator_address = "node0:29470";
    config_.node_name = "host0";
    config_.worker_slots = 8;
    config_.bootstrap_interface = "eth0";
    config_.ib_gid_index = 3;
    config_.worker_binary = "/usr/bin/eb-worker";
    config_.run_dir = "/run/ebnccl/host0";
    config_.worker_env = {"NCCL_DEBUG=WARN"};
    config_.nccl_version = "2.28.9";
    common::InterfaceInfo lo{"lo", {"127.0.0.1"}, true, true, 65536, 0};
    common::InterfaceInfo eth0{"eth0", {"10.0.0.2"}, true, false, 1500, 100000};
    probe_.interfaces = std::vector<common::InterfaceInfo>{eth0, lo};
    for (int i = 0; i < 8; ++i) {
      const std::string name = absl::StrCat("mlx5_10", i);
      config_.ib_hcas.push_back({name, 1});
      ebnccl::v1::HcaInfo hca;
      hca.set_name(name);
      hca.set_port(1);
      hca.set_state("ACTIVE");
      hca.set_link_layer("Ethernet");
      hca.set_rate_gbps(200);
      probe_.hcas[name] = hca;
      ebnccl::v1::GpuInfo gpu;
      gpu.set_index(i);
      gpu.set_name("NVIDIA A800-SXM4-80GB");
      gpu.set_memory_bytes(int64_t{81920} << 20);
      probe_.gpus.push_back(gpu);
    }
  }

  std::vector<CheckResult> Run() { return CheckAgentConfig(config_, probe_); }

  // The result named `name`; fails the test when absent.
  CheckResult Find(const std::string& name) {
    for (const CheckResult& result : Run()) {
      if (result.name == name) return result;
    }
    ADD_FAILURE() << "no check named " << name;
    return {};
  }

  AgentConfig config_;
  FakeHostProbe probe_;
};

TEST_F(ConfigCheckTest, HealthyNodePassesEveryCheck) {
  const std::vector<CheckResult> results = Run();
  EXPECT_TRUE(AllChecksPassed(results));
  std::vector<std::string> names;
  for (const CheckResult& result : results) {
    names.push_back(result.name);
    EXPECT_TRUE(result.ok) << FormatCheckResult(result);
  }
  EXPECT_THAT(names, ElementsAre("node_name", "coordinator", "bootstrap_interface",
                                 "ib_hca mlx5_100:1", "ib_hca mlx5_101:1", "ib_hca mlx5_102:1",
                                 "ib_hca mlx5_103:1", "ib_hca mlx5_104:1", "ib_hca mlx5_105:1",
                                 "ib_hca mlx5_106:1", "ib_hca mlx5_107:1", "gpus", "nccl",
                                 "worker_binary", "run_dir", "worker_env"));
  EXPECT_EQ(probe_.last_connect, "node0:29470");
  EXPECT_EQ(probe_.last_timeout, absl::Seconds(2));
  EXPECT_EQ(probe_.last_sysfs_root, "/sys/class/infiniband");
  EXPECT_EQ(FormatCheckResult(results[3]),
            "ok    ib_hca mlx5_100:1: ACTIVE, Ethernet (RoCE), 200 Gb/s, GID "
            "index 3");
  EXPECT_EQ(FormatCheckResult(results[2]),
            "ok    bootstrap_interface: eth0 up, 10.0.0.2, MTU 1500, 100000 Mb/s");
  EXPECT_EQ(Find("gpus").detail, "8 GPUs [0,1,2,3,4,5,6,7] NVIDIA A800-SXM4-80GB, 80 GiB each");
  EXPECT_EQ(Find("nccl").detail, "NCCL 2.28.9, 8 slots on 8 GPUs");
}

TEST_F(ConfigCheckTest, GpuMemoryUnknownWithoutNvmlSaysWhy) {
  for (auto& gpu : probe_.gpus) gpu.set_memory_bytes(0);
  probe_.nvml_note = "GPU memory unknown: libnvidia-ml.so.1 cannot be loaded (not found)";
  const CheckResult result = Find("gpus");
  EXPECT_TRUE(result.ok);  // informational: NCCL does not need NVML
  EXPECT_EQ(result.detail,
            "8 GPUs [0,1,2,3,4,5,6,7] NVIDIA A800-SXM4-80GB (GPU memory unknown: "
            "libnvidia-ml.so.1 cannot be loaded (not found))");
}

TEST_F(ConfigCheckTest, MixedGpuMemoryIsListedPerGpu) {
  config_.gpu_indices = {0, 1};
  config_.worker_slots = 2;
  probe_.gpus[1].set_memory_bytes(int64_t{40960} << 20);
  EXPECT_EQ(Find("gpus").detail, "2 GPUs [0,1] NVIDIA A800-SXM4-80GB, 80 GiB / 40 GiB");
  config_.gpu_indices = {0};
  config_.worker_slots = 1;
  EXPECT_EQ(Find("gpus").detail, "1 GPU [0] NVIDIA A800-SXM4-80GB, 80 GiB");
}

TEST_F(ConfigCheckTest, NodeName) {
  config_.node_name.clear();
  EXPECT_FALSE(Find("node_name").ok);
}

TEST_F(ConfigCheckTest, CoordinatorUnreachable) {
  probe_.connect = absl::UnavailableError("Connection refused");
  const CheckResult result = Find("coordinator");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(FormatCheckResult(result), "FAIL  coordinator: node0:29470: Connection refused");
  EXPECT_FALSE(AllChecksPassed(Run()));
}

TEST_F(ConfigCheckTest, CoordinatorTimeoutIsPassedOn) {
  probe_.connect = absl::DeadlineExceededError("no answer within 500ms");
  const auto results = CheckAgentConfig(config_, probe_, {absl::Milliseconds(500)});
  EXPECT_EQ(probe_.last_timeout, absl::Milliseconds(500));
  EXPECT_FALSE(AllChecksPassed(results));
}

TEST_F(ConfigCheckTest, CoordinatorNotSet) {
  config_.coordinator_address.clear();
  EXPECT_EQ(Find("coordinator").detail, "not set (agent.coordinator or --coordinator)");
  EXPECT_EQ(probe_.last_connect, "");
}

TEST_F(ConfigCheckTest, BootstrapInterfaceMissingDownOrWithoutAddress) {
  config_.bootstrap_interface = "eth9";
  CheckResult result = Find("bootstrap_interface");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, "eth9 does not exist (this host has eth0, lo)");

  config_.bootstrap_interface = "eth0";
  (*probe_.interfaces)[0].up = false;
  result = Find("bootstrap_interface");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, "eth0 is down");

  (*probe_.interfaces)[0].up = true;
  (*probe_.interfaces)[0].addresses.clear();
  EXPECT_EQ(Find("bootstrap_interface").detail, "eth0 has no address");

  probe_.interfaces = absl::InternalError("getifaddrs: Permission denied");
  result = Find("bootstrap_interface");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, "getifaddrs: Permission denied");
}

TEST_F(ConfigCheckTest, BootstrapNotSetIsFine) {
  config_.bootstrap_interface.clear();
  EXPECT_TRUE(Find("bootstrap_interface").ok);
}

TEST_F(ConfigCheckTest, BootstrapAddressMustBeLocal) {
  config_.bootstrap_address = "10.0.0.2";
  CheckResult result = Find("bootstrap_address");
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.detail, "10.0.0.2 on eth0");
  config_.bootstrap_address = "10.9.9.9";
  result = Find("bootstrap_address");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, "10.9.9.9 is not an address of this host");
}

TEST_F(ConfigCheckTest, MissingHcaFailsOnlyItsOwnLine) {
  probe_.hcas.erase("mlx5_103");
  const std::vector<CheckResult> results = Run();
  EXPECT_FALSE(AllChecksPassed(results));
  int failed = 0;
  for (const CheckResult& result : results) {
    if (result.ok) continue;
    ++failed;
    EXPECT_EQ(FormatCheckResult(result), "FAIL  ib_hca mlx5_103:1: HCA mlx5_103 does not exist");
  }
  EXPECT_EQ(failed, 1);
}

TEST_F(ConfigCheckTest, HcaPortDown) {
  probe_.hcas["mlx5_105"].set_state("DOWN");
  const CheckResult result = Find("ib_hca mlx5_105:1");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.detail, HasSubstr("DOWN, Ethernet (RoCE), 200 Gb/s, GID index 3: not ACTIVE"));
}

TEST_F(ConfigCheckTest, NoHcasConfigured) {
  config_.ib_hcas.clear();
  EXPECT_EQ(FormatCheckResult(Find("ib_hca")), "ok    ib_hca: not set: NCCL picks the HCAs itself");
}

TEST_F(ConfigCheckTest, GpuIndexThatDoesNotExist) {
  config_.gpu_indices = {0, 8};
  config_.worker_slots = 2;
  const CheckResult result = Find("gpus");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.detail, "GPU 8 does not exist (this host has 8)");
}

TEST_F(ConfigCheckTest, OwnedGpusAreCounted) {
  config_.gpu_indices = {4, 5};
  config_.worker_slots = 2;
  EXPECT_EQ(Find("gpus").detail, "2 GPUs [4,5] NVIDIA A800-SXM4-80GB, 80 GiB each");
  EXPECT_TRUE(Find("nccl").ok);
}

TEST_F(ConfigCheckTest, NoGpus) {
  probe_.gpus.clear();
  EXPECT_TRUE(Find("gpus").ok);
  EXPECT_TRUE(Find("nccl").ok);
  config_.transport = "nccl";
  EXPECT_FALSE(Find("gpus").ok);
}

TEST_F(ConfigCheckTest, NcclMissingOnAGpuNode) {
  config_.nccl_version.clear();
  config_.nccl_problem =
      "/usr/bin/eb-worker --print-nccl-version: exit code 127; output: libnccl.so.2: cannot open";
  const CheckResult result = Find("nccl");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.detail, HasSubstr("no usable NCCL library for the workers"));
  EXPECT_THAT(result.detail, HasSubstr("libnccl.so.2: cannot open"));
  config_.transport = "gloo";
  EXPECT_TRUE(Find("nccl").ok);
}

TEST_F(ConfigCheckTest, MoreSlotsThanGpusLosesNccl) {
  config_.worker_slots = 16;
  const CheckResult result = Find("nccl");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.detail, HasSubstr("16 worker slots on 8 GPUs"));
}

TEST_F(ConfigCheckTest, WorkerBinary) {
  probe_.executable = absl::InvalidArgumentError("/usr/bin/eb-worker: No such file or directory");
  EXPECT_EQ(FormatCheckResult(Find("worker_binary")),
            "FAIL  worker_binary: /usr/bin/eb-worker: No such file or directory");
  probe_.executable = absl::OkStatus();
  config_.worker_binary.clear();
  EXPECT_FALSE(Find("worker_binary").ok);
}

TEST_F(ConfigCheckTest, RunDir) {
  EXPECT_EQ(Find("run_dir").detail, "/run/ebnccl/host0: exists, writable");
  probe_.writable = absl::InvalidArgumentError("/run is not writable: Permission denied");
  EXPECT_EQ(FormatCheckResult(Find("run_dir")),
            "FAIL  run_dir: /run is not writable: Permission denied");
}

TEST_F(ConfigCheckTest, WorkerEnv) {
  EXPECT_EQ(Find("worker_env").detail, "NCCL_DEBUG");
  config_.worker_env.emplace_back("=oops");
  EXPECT_FALSE(Find("worker_env").ok);
}

TEST_F(ConfigCheckTest, WorkerEnvWithAnAgentOwnedVariableFails) {
  config_.worker_env.emplace_back("NCCL_IB_HCA=mlx5_100");
  const CheckResult result = Find("worker_env");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.detail, HasSubstr("NCCL_IB_HCA cannot be set in the workers' environment"));
  EXPECT_THAT(result.detail, HasSubstr("--ib-hca"));
}

// The real probe, on what every machine has: loopback, /bin/sh, /tmp.
TEST(RealHostProbeTest, ConnectsToAListeningSocketAndNotToAClosedOne) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t length = sizeof(address);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int port = ntohs(address.sin_port);
  RealHostProbe probe;
  EXPECT_TRUE(probe.Connect(absl::StrCat("127.0.0.1:", port), absl::Seconds(2)).ok());
  close(listener);
  const absl::Status closed = probe.Connect(absl::StrCat("127.0.0.1:", port), absl::Seconds(2));
  EXPECT_EQ(closed.code(), absl::StatusCode::kUnavailable) << closed;
  EXPECT_FALSE(probe.Connect("no-such-host.invalid:1", absl::Seconds(2)).ok());
}

TEST(RealHostProbeTest, ExecutableAndWritableDir) {
  RealHostProbe probe;
  EXPECT_TRUE(probe.CheckExecutable("/bin/sh").ok());
  EXPECT_FALSE(probe.CheckExecutable("/nonexistent/eb-worker").ok());
  EXPECT_FALSE(probe.CheckExecutable("/tmp").ok());

  char pattern[] = "/tmp/eb_check_test_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string file = dir + "/plain";
  std::ofstream(file) << "x";
  EXPECT_FALSE(probe.CheckExecutable(file).ok());
  auto exists = probe.CheckWritableDir(dir);
  ASSERT_TRUE(exists.ok()) << exists.status();
  EXPECT_EQ(*exists, "exists, writable");
  auto later = probe.CheckWritableDir(dir + "/a/b");
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ(*later, "will be created in " + dir);
  EXPECT_FALSE(probe.CheckWritableDir(file + "/sub").ok());
  std::remove(file.c_str());
  rmdir(dir.c_str());
}

TEST(FormatEffectiveConfigTest, ReadsBackToTheSameSettings) {
  AgentSettings settings;
  AgentConfig& config = settings.config;
  config.coordinator_address = "node0:29470";
  config.node_name = "host0";
  config.worker_slots = 8;
  config.bootstrap_interface = "eth0";
  config.bootstrap_address = "10.0.0.2";
  config.transport = "nccl";
  config.ib_hcas = {{"mlx5_100", 1}, {"mlx5_101", 0}};
  config.ib_gid_index = 3;
  config.sysfs_infiniband = "/tmp/fake \"sysfs\"";
  config.gpu_indices = {3, 1};
  config.worker_binary = "/usr/lib/ebnccl/eb-worker";
  config.run_dir = "/run/ebnccl/host0";
  config.worker_env = {"NCCL_DEBUG=INFO", "A=x=y", "EMPTY="};
  config.worker_grace = absl::Milliseconds(1500);
  config.worker_hang_timeout = absl::Minutes(2);
  config.worker_heartbeat_period = absl::Milliseconds(250);
  config.worker_socket_linger = absl::Seconds(90);
  config.reconnect_initial = absl::Milliseconds(50);
  config.reconnect_max = absl::Seconds(10);
  settings.log_level = "debug";
  settings.log_file = "/var/log/eb-agent.log";
  settings.config.metrics_listen = "0.0.0.0:9471";

  const std::string text = FormatEffectiveConfig(settings);
  EXPECT_THAT(text, HasSubstr("[agent]\ncoordinator = \"node0:29470\"\n"));
  EXPECT_THAT(text, HasSubstr("workers = 8\n"));
  EXPECT_THAT(text, HasSubstr("ib_hca = [\"mlx5_100:1\", \"mlx5_101\"]\n"));
  EXPECT_THAT(text, HasSubstr("[worker.env]\nA = \"x=y\"\nEMPTY = \"\"\nNCCL_DEBUG = \"INFO\"\n"));

  auto file = common::TomlFile::Parse(text, "effective.toml");
  ASSERT_TRUE(file.ok()) << file.status() << "\n" << text;
  AgentSettings back;
  const absl::Status status = AgentConfigSchema(&back).Apply(*file);
  ASSERT_TRUE(status.ok()) << status << "\n" << text;
  EXPECT_EQ(back.workers, 8);
  EXPECT_EQ(back.config.coordinator_address, config.coordinator_address);
  EXPECT_EQ(back.config.node_name, config.node_name);
  EXPECT_EQ(back.config.bootstrap_interface, config.bootstrap_interface);
  EXPECT_EQ(back.config.bootstrap_address, config.bootstrap_address);
  EXPECT_EQ(back.config.transport, config.transport);
  ASSERT_EQ(back.config.ib_hcas.size(), 2u);
  EXPECT_EQ(NcclIbHcaValue(back.config.ib_hcas), NcclIbHcaValue(config.ib_hcas));
  EXPECT_EQ(back.config.ib_gid_index, config.ib_gid_index);
  EXPECT_EQ(back.config.sysfs_infiniband, config.sysfs_infiniband);
  EXPECT_EQ(back.config.gpu_indices, config.gpu_indices);
  EXPECT_EQ(back.config.worker_binary, config.worker_binary);
  EXPECT_EQ(back.config.run_dir, config.run_dir);
  // Sorted by name: a table has no order.
  EXPECT_THAT(back.config.worker_env, ElementsAre("A=x=y", "EMPTY=", "NCCL_DEBUG=INFO"));
  EXPECT_EQ(back.config.worker_grace, config.worker_grace);
  EXPECT_EQ(back.config.worker_hang_timeout, config.worker_hang_timeout);
  EXPECT_EQ(back.config.worker_heartbeat_period, config.worker_heartbeat_period);
  EXPECT_EQ(back.config.worker_socket_linger, config.worker_socket_linger);
  EXPECT_EQ(back.config.reconnect_initial, config.reconnect_initial);
  EXPECT_EQ(back.config.reconnect_max, config.reconnect_max);
  EXPECT_EQ(back.log_level, settings.log_level);
  EXPECT_EQ(back.log_file, settings.log_file);
  EXPECT_EQ(back.config.metrics_listen, settings.config.metrics_listen);
  // And a second round, once main() has resolved the slots, gives the same
  // text.
  back.config.worker_slots = back.workers;
  EXPECT_EQ(FormatEffectiveConfig(back), text);
}

TEST(FormatEffectiveConfigTest, DuplicateEnvNamesKeepTheLast) {
  AgentSettings settings;
  settings.config.worker_env = {"A=1", "B=2", "A=3"};
  const std::string text = FormatEffectiveConfig(settings);
  EXPECT_THAT(text, HasSubstr("[worker.env]\nA = \"3\"\nB = \"2\"\n"));
  auto file = common::TomlFile::Parse(text, "effective.toml");
  ASSERT_TRUE(file.ok()) << file.status();
}

}  // namespace
}  // namespace eb::agent
