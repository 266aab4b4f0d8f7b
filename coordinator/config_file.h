#pragma once

// /etc/ebnccl/coordinator.toml: the keys eb-coordinator reads from its config
// file (docs/CONFIG.md documents each one), bound to the fields they fill.
// main.cc parses the flags, then applies the file skipping the keys whose
// flags were given (flag > file > default).

#include <set>
#include <string>

#include "absl/status/status.h"
#include "common/config/toml_file.h"
#include "coordinator/config.h"

namespace eb::coordinator {

inline constexpr char kDefaultConfigPath[] = "/etc/ebnccl/coordinator.toml";

// Everything the coordinator's file and flags set: the CoordinatorConfig the
// service runs on, plus what only main() uses.
struct CoordinatorSettings {
  CoordinatorConfig config;
  // spdlog level name and optional log file (main() passes them to
  // InitLogging).
  std::string log_level = "info";
  std::string log_file;
  // Where finished tests are kept across restarts. Not yet a
  // CoordinatorConfig field.
  std::string history_path = "/var/lib/ebnccl/history.db";
  // Whether coordinator.listen or --listen was set: without TLS an unset
  // address means loopback (main()).
  bool listen_set = false;
};

// The schema of coordinator.toml bound to `settings`, which must outlive it.
// Each key names the flag that overrides it (Key::flag()). The listen address
// is checked and normalised ("HOST:PORT").
common::ConfigSchema CoordinatorConfigSchema(CoordinatorSettings* settings);

// Loads `path` and applies it to `settings`, skipping the keys whose flags
// are in `given_flags` (e.g. "--listen"). A missing file is an error when
// `required` (--config was given) and ignored otherwise. INVALID_ARGUMENT
// naming the file, line and key (see common::ConfigSchema::Apply).
// Plaintext only where it is safe: without TLS, `host` (of the listen
// address) must be a loopback address unless `config.insecure`.
// FAILED_PRECONDITION naming --listen, --insecure and the [tls] keys.
absl::Status CheckListenSecurity(const CoordinatorConfig& config, const std::string& host);
// Whether `host` is 127.0.0.0/8, ::1 or localhost.
bool IsLoopbackHost(const std::string& host);

// The [sentinel] keys together, once flags and file are applied: enabled
// needs a [scheduler] kind, refresh_after <= period, probe_duration <
// refresh_after. INVALID_ARGUMENT naming the key.
absl::Status CheckSentinelConfig(const SentinelConfig& sentinel, const SchedulerConfig& scheduler);

absl::Status ApplyCoordinatorConfigFile(const std::string& path, bool required,
                                        const std::set<std::string>& given_flags,
                                        CoordinatorSettings* settings);

}  // namespace eb::coordinator
