#pragma once

// Everything that tunes eb-agent, with production defaults: what the core
// reads (AgentCoreConfig) and what only the daemon's wiring reads. Filled
// from flags in main.cc and passed by value (STYLE.md rule 21).

#include <string>

#include "absl/time/time.h"
#include "agent/core/agent_core_config.h"
#include "common/rpc/tls_files.h"

namespace eb::agent {

// Derived rather than composed so that every reader keeps writing
// `config.node_name`, and the core takes an AgentConfig as the
// AgentCoreConfig it is.
struct AgentConfig : AgentCoreConfig {
  // How long the workers' socket stays open after the last test ends
  // (agent/grpc/worker_endpoint.h); a timer started when it ends.
  absl::Duration worker_socket_linger = absl::Seconds(30);
  // "host:port" of the Prometheus /metrics endpoint (port 0 = any); "" = none.
  std::string metrics_listen;
  // systemd's WatchdogSec (from WATCHDOG_USEC, read in main); zero = no
  // watchdog pings.
  absl::Duration watchdog_timeout = absl::ZeroDuration();
  // Reconnect backoff towards the coordinator.
  absl::Duration reconnect_initial = absl::Milliseconds(100);
  absl::Duration reconnect_max = absl::Seconds(5);
  // Mutual TLS towards the coordinator ([tls] ca, cert, key): the
  // certificate carries this node's name as a DNS SAN. Plaintext when unset.
  common::TlsFiles tls;
};

}  // namespace eb::agent
