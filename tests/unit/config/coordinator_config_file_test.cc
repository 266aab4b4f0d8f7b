// coordinator.toml: the documented example parses and sets every field,
// every key is in the example and in docs/CONFIG.md, and flag > file.

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/config_file.h"
#include "coordinator/topology_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

using ::testing::HasSubstr;

const std::string kExample = std::string(EB_DEPLOY_CONFIG_DIR) + "/coordinator.toml";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status ApplyText(const std::string& text, CoordinatorSettings* settings,
                       const std::set<std::string>& given = {}) {
  auto file = common::TomlFile::Parse(text, "/etc/ebnccl/coordinator.toml");
  if (!file.ok()) return file.status();
  return CoordinatorConfigSchema(settings).Apply(*file, given);
}

TEST(CoordinatorConfigFileTest, ExampleParsesAndShowsTheDefaults) {
  CoordinatorSettings settings;
  ASSERT_TRUE(ApplyCoordinatorConfigFile(kExample, true, {}, &settings).ok());
  // The example shows every default: applying it changes nothing.
  const CoordinatorSettings defaults;
  EXPECT_EQ(settings.config.listen_address, defaults.config.listen_address);
  EXPECT_EQ(settings.config.heartbeat_period, defaults.config.heartbeat_period);
  EXPECT_EQ(settings.config.heartbeat_miss_limit, defaults.config.heartbeat_miss_limit);
  EXPECT_EQ(settings.config.default_test_timeout, defaults.config.default_test_timeout);
  EXPECT_EQ(settings.config.default_launch_timeout, defaults.config.default_launch_timeout);
  EXPECT_EQ(settings.config.default_init_timeout, defaults.config.default_init_timeout);
  EXPECT_EQ(settings.config.default_step_timeout, defaults.config.default_step_timeout);
  EXPECT_EQ(settings.config.stop_timeout, defaults.config.stop_timeout);
  EXPECT_EQ(settings.config.history_limit, defaults.config.history_limit);
  EXPECT_EQ(settings.history_path, "/var/lib/ebnccl/history.db");
  EXPECT_EQ(settings.config.metrics_listen, "");
  EXPECT_EQ(settings.log_level, "info");
  EXPECT_EQ(settings.log_file, "");
  const SentinelConfig& sentinel = settings.config.sentinel;
  EXPECT_EQ(sentinel.enabled, defaults.config.sentinel.enabled);
  EXPECT_EQ(sentinel.period, defaults.config.sentinel.period);
  EXPECT_EQ(sentinel.refresh_after, defaults.config.sentinel.refresh_after);
  EXPECT_EQ(sentinel.max_idle_percent, defaults.config.sentinel.max_idle_percent);
  EXPECT_EQ(sentinel.probe_duration, defaults.config.sentinel.probe_duration);
  EXPECT_EQ(sentinel.pair_unknown_nodes, defaults.config.sentinel.pair_unknown_nodes);
}

TEST(CoordinatorConfigFileTest, EveryKeyIsInTheExampleAndTheDocs) {
  CoordinatorSettings settings;
  const common::ConfigSchema schema = CoordinatorConfigSchema(&settings);
  auto example = common::TomlFile::Load(kExample, true);
  ASSERT_TRUE(example.ok()) << example.status();
  const std::string doc = ReadAll(EB_CONFIG_DOC);
  ASSERT_FALSE(doc.empty());
  for (const common::ConfigSchema::Key* key : schema.keys()) {
    EXPECT_TRUE(example->Contains(key->name())) << key->name();
    EXPECT_THAT(doc, HasSubstr("`" + key->name() + "`")) << key->name();
    // Every key can be overridden on the command line.
    EXPECT_FALSE(key->flag().empty()) << key->name();
  }
}

TEST(CoordinatorConfigFileTest, EveryFieldIsSet) {
  CoordinatorSettings settings;
  ASSERT_TRUE(ApplyText(R"(
[coordinator]
listen = ":29999"
[heartbeat]
period = "500ms"
miss_limit = 5
[timeouts]
test = "10m"
launch = 15000
init = "45s"
step = "1m30s"
stop = "5s"
[history]
limit = 50
path = "/srv/ebnccl/history.db"
[metrics]
listen = "0.0.0.0:9470"
[log]
level = "debug"
file = "/var/log/ebnccl/coordinator.log"
)",
                        &settings)
                  .ok());
  EXPECT_EQ(settings.config.listen_address, "0.0.0.0:29999");
  EXPECT_EQ(settings.config.heartbeat_period, absl::Milliseconds(500));
  EXPECT_EQ(settings.config.heartbeat_miss_limit, 5);
  EXPECT_EQ(settings.config.default_test_timeout, absl::Minutes(10));
  EXPECT_EQ(settings.config.default_launch_timeout, absl::Seconds(15));
  EXPECT_EQ(settings.config.default_init_timeout, absl::Seconds(45));
  EXPECT_EQ(settings.config.default_step_timeout, absl::Seconds(90));
  EXPECT_EQ(settings.config.stop_timeout, absl::Seconds(5));
  EXPECT_EQ(settings.config.history_limit, 50);
  EXPECT_EQ(settings.history_path, "/srv/ebnccl/history.db");
  EXPECT_EQ(settings.config.metrics_listen, "0.0.0.0:9470");
  EXPECT_EQ(settings.log_level, "debug");
  EXPECT_EQ(settings.log_file, "/var/log/ebnccl/coordinator.log");
}

// [topology] (issue 31): none by default; the file is read through the
// bounded reader and refused naming the key, the file and its line.
TEST(CoordinatorConfigFileTest, TopologySection) {
  CoordinatorSettings settings;
  EXPECT_EQ(settings.config.topology.file, "");
  auto none = LoadTopologyFile(settings.config.topology);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, nullptr);  // no topology: everything as today

  const std::string dir = ::testing::TempDir();
  const std::string map = dir + "/fabric.map";
  std::ofstream(map) << "# two nodes on one leaf\n[[cable]]\nnode = \"n1\"\nhca = \"mlx5_0\"\n"
                        "leaf = \"leaf-1\"\nleaf_port = 1\n[[cable]]\nnode = \"n2\"\n"
                        "hca = \"mlx5_0\"\nleaf = \"leaf-1\"\nleaf_port = 2\n";
  ASSERT_TRUE(
      ApplyText(absl::StrCat("[topology]\nfile = \"", map, "\"\nformat = \"auto\"\n"), &settings)
          .ok());
  EXPECT_EQ(settings.config.topology.file, map);
  auto loaded = LoadTopologyFile(settings.config.topology);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_NE(*loaded, nullptr);
  EXPECT_EQ((*loaded)->format, "toml");
  EXPECT_EQ((*loaded)->fabric.cables.size(), 2u);

  // Forced to the other reader: refused, naming the key, the file and the line.
  settings.config.topology.format = "ibnetdiscover";
  auto forced = LoadTopologyFile(settings.config.topology);
  EXPECT_EQ(forced.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(forced.status().message(), HasSubstr("topology.file: " + map + ": "));
  EXPECT_THAT(forced.status().message(), HasSubstr("line 2"));
  // A missing file names the key and the path.
  settings.config.topology.file = dir + "/absent.topo";
  auto absent = LoadTopologyFile(settings.config.topology);
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(absent.status().message(), HasSubstr("topology.file: " + dir + "/absent.topo"));
  // A format outside the choice is refused by the schema, naming the key.
  CoordinatorSettings other;
  absl::Status bad = ApplyText("[topology]\nformat = \"yaml\"\n", &other);
  EXPECT_THAT(bad.message(), HasSubstr("topology.format"));
}

TEST(CoordinatorConfigFileTest, SchedulerSection) {
  CoordinatorSettings settings;
  EXPECT_EQ(settings.config.scheduler.kind, "none");  // today's behaviour by default
  ASSERT_TRUE(ApplyText(R"(
[scheduler]
kind = "slurm"
partition = "gpu-a"
dry_run = true
confirmations_to_drain = 2
passes_to_resume = 3
flap_window = "48h"
max_drained_percent = 25
slurm_conf = "/etc/slurm-test/slurm.conf"
slurm_bin_dir = "/opt/slurm/bin"
command_timeout = "3s"
)",
                        &settings)
                  .ok());
  const SchedulerConfig& scheduler = settings.config.scheduler;
  EXPECT_EQ(scheduler.kind, "slurm");
  EXPECT_EQ(scheduler.partition, "gpu-a");
  EXPECT_TRUE(scheduler.dry_run);
  EXPECT_EQ(scheduler.confirmations_to_drain, 2);
  EXPECT_EQ(scheduler.passes_to_resume, 3);
  EXPECT_EQ(scheduler.flap_window, absl::Hours(48));
  EXPECT_EQ(scheduler.max_drained_percent, 25);
  EXPECT_EQ(scheduler.slurm_conf, "/etc/slurm-test/slurm.conf");
  EXPECT_EQ(scheduler.slurm_bin_dir, "/opt/slurm/bin");
  EXPECT_EQ(scheduler.command_timeout, absl::Seconds(3));
}

TEST(CoordinatorConfigFileTest, SchedulerValuesAreChecked) {
  for (const char* bad :
       {"kind = \"kubernetes-ish\"", "partition = \"gpu --wrap=x\"", "confirmations_to_drain = 0",
        "max_drained_percent = 101", "command_timeout = \"1h\""}) {
    CoordinatorSettings settings;
    const absl::Status status = ApplyText(absl::StrCat("[scheduler]\n", bad, "\n"), &settings);
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_THAT(status.message(), HasSubstr("scheduler.")) << bad;
  }
}

TEST(CoordinatorConfigFileTest, SentinelSection) {
  CoordinatorSettings settings;
  EXPECT_FALSE(settings.config.sentinel.enabled);  // opt-in
  EXPECT_TRUE(CheckSentinelConfig(settings.config.sentinel, settings.config.scheduler).ok());
  ASSERT_TRUE(ApplyText(R"(
[scheduler]
kind = "slurm"
[sentinel]
enabled = true
period = "12h"
refresh_after = "10h"
max_idle_percent = 5
probe_duration = "45s"
pair_unknown_nodes = false
partition = "gpu-a"
qos = "scavenger"
)",
                        &settings)
                  .ok());
  const SentinelConfig& sentinel = settings.config.sentinel;
  EXPECT_TRUE(sentinel.enabled);
  EXPECT_EQ(sentinel.period, absl::Hours(12));
  EXPECT_EQ(sentinel.refresh_after, absl::Hours(10));
  EXPECT_EQ(sentinel.max_idle_percent, 5);
  EXPECT_EQ(sentinel.probe_duration, absl::Seconds(45));
  EXPECT_FALSE(sentinel.pair_unknown_nodes);
  EXPECT_EQ(sentinel.partition, "gpu-a");
  EXPECT_EQ(sentinel.qos, "scavenger");
  EXPECT_TRUE(CheckSentinelConfig(sentinel, settings.config.scheduler).ok());
}

TEST(CoordinatorConfigFileTest, SentinelValuesAreCheckedNamingTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"period = \"30m\"", "sentinel.period"},
      {"period = \"1000h\"", "sentinel.period"},
      {"refresh_after = \"0s\"", "sentinel.refresh_after"},
      {"max_idle_percent = 101", "sentinel.max_idle_percent"},
      {"max_idle_percent = -1", "sentinel.max_idle_percent"},
      {"probe_duration = \"2s\"", "sentinel.probe_duration"},
      {"probe_duration = \"2h\"", "sentinel.probe_duration"},
      {"enabled = \"yes\"", "sentinel.enabled"},
      {"qos = \"low --wrap=x\"", "sentinel.qos"},
      {"partition = \"a;b\"", "sentinel.partition"},
      {"probes = 3", "sentinel.probes"},
  };
  for (const auto& [bad, key] : cases) {
    CoordinatorSettings settings;
    const absl::Status status = ApplyText(absl::StrCat("[sentinel]\n", bad, "\n"), &settings);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(status.message(), HasSubstr(key)) << bad;
  }
}

TEST(CoordinatorConfigFileTest, SentinelKeysAreCheckedTogether) {
  SchedulerConfig slurm;
  slurm.kind = "slurm";
  SentinelConfig sentinel;
  sentinel.enabled = true;
  EXPECT_THAT(CheckSentinelConfig(sentinel, SchedulerConfig()).message(),
              HasSubstr("sentinel.enabled"));  // no scheduler to borrow from
  EXPECT_TRUE(CheckSentinelConfig(sentinel, slurm).ok());
  sentinel.refresh_after = absl::Hours(25);
  EXPECT_THAT(CheckSentinelConfig(sentinel, slurm).message(), HasSubstr("sentinel.refresh_after"));
  sentinel.refresh_after = absl::Seconds(30);
  EXPECT_THAT(CheckSentinelConfig(sentinel, slurm).message(), HasSubstr("sentinel.probe_duration"));
  sentinel.refresh_after = absl::Hours(20);
  sentinel.qos = "low --wrap=x";  // from --sentinel-qos, unchecked by the file's schema
  EXPECT_THAT(CheckSentinelConfig(sentinel, slurm).message(), HasSubstr("sentinel.qos"));
  sentinel.enabled = false;  // off: nothing to relate
  EXPECT_TRUE(CheckSentinelConfig(sentinel, SchedulerConfig()).ok());
}

TEST(CoordinatorConfigFileTest, TlsFilesRolesAndInsecure) {
  CoordinatorSettings settings;
  ASSERT_TRUE(ApplyText(R"(
[coordinator]
insecure = true
[tls]
ca = "/etc/ebnccl/tls/ca.pem"
cert = "/etc/ebnccl/tls/coordinator.pem"
key = "/etc/ebnccl/tls/coordinator.key"
reload_period = "30s"
[tls.roles]
alice = "operator"
"ci bot" = "viewer"
)",
                        &settings)
                  .ok());
  EXPECT_TRUE(settings.config.insecure);
  EXPECT_EQ(settings.config.tls.ca, "/etc/ebnccl/tls/ca.pem");
  EXPECT_EQ(settings.config.tls.cert, "/etc/ebnccl/tls/coordinator.pem");
  EXPECT_EQ(settings.config.tls.key, "/etc/ebnccl/tls/coordinator.key");
  EXPECT_EQ(settings.config.tls.reload_period, absl::Seconds(30));
  EXPECT_EQ(settings.config.tls_roles.at("alice"), "operator");
  EXPECT_EQ(settings.config.tls_roles.at("ci bot"), "viewer");
  EXPECT_THAT(std::string(ApplyText("[tls.roles]\nmallory = \"root\"\n", &settings).message()),
              HasSubstr("key 'tls.roles': role of 'mallory': 'root' is not viewer, operator or "
                        "admin"));
}

TEST(CoordinatorConfigFileTest, BadValuesNameTheKey) {
  CoordinatorSettings settings;
  EXPECT_EQ(ApplyText("[coordinator]\nlisten = \"host:99999\"\n", &settings).message(),
            "/etc/ebnccl/coordinator.toml:2: key 'coordinator.listen': "
            "'host:99999' is not a "
            "valid address: port 99999 is outside 0..65535");
  EXPECT_EQ(ApplyText("[heartbeat]\nperiod = \"1ms\"\n", &settings).message(),
            "/etc/ebnccl/coordinator.toml:2: key 'heartbeat.period': must be "
            "between 100ms and "
            "10m, got 1ms");
  EXPECT_EQ(ApplyText("[log]\nlevel = \"verbose\"\n", &settings).message(),
            "/etc/ebnccl/coordinator.toml:2: key 'log.level': must be one of "
            "trace, debug, info, "
            "warn, error, critical, off, got \"verbose\"");
  EXPECT_EQ(ApplyText("[timeouts]\nlaunch_timeout = \"1s\"\n", &settings).message(),
            "/etc/ebnccl/coordinator.toml:2: key 'timeouts.launch_timeout': unknown "
            "key (did "
            "you mean 'timeouts.launch'?)");
}

TEST(CoordinatorConfigFileTest, FlagsWin) {
  CoordinatorSettings settings;
  settings.config.history_limit = 7;  // From --history-limit 7.
  ASSERT_TRUE(
      ApplyText("[history]\nlimit = 50\n[log]\nlevel = \"warn\"\n", &settings, {"--history-limit"})
          .ok());
  EXPECT_EQ(settings.config.history_limit, 7);
  EXPECT_EQ(settings.log_level, "warn");
}

TEST(CoordinatorConfigFileTest, MissingFiles) {
  CoordinatorSettings settings;
  EXPECT_TRUE(
      ApplyCoordinatorConfigFile("/nonexistent/coordinator.toml", false, {}, &settings).ok());
  const absl::Status status =
      ApplyCoordinatorConfigFile("/nonexistent/coordinator.toml", true, {}, &settings);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("/nonexistent/coordinator.toml"));
}

}  // namespace
}  // namespace eb::coordinator
