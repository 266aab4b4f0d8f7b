#pragma once

// Everything that tunes eb-coordinator, with production defaults. Filled from
// flags in main.cc and passed by value (STYLE.md rule 21); tests shorten the
// timeouts.

#include <string>

#include "absl/time/time.h"

namespace eb::coordinator {

struct CoordinatorConfig {
  // Address to listen on ("host:port"; port 0 = any).
  std::string listen_address = "0.0.0.0:29470";
  // Heartbeat period the agents are asked to keep.
  absl::Duration heartbeat_period = absl::Seconds(2);
  // Heartbeats an agent may miss before its node is declared lost.
  int heartbeat_miss_limit = 3;
  // Defaults for tests that do not set their own deadlines.
  absl::Duration default_test_timeout = absl::Minutes(30);
  absl::Duration default_launch_timeout = absl::Seconds(30);
  absl::Duration default_init_timeout = absl::Seconds(60);
  absl::Duration default_step_timeout = absl::Seconds(120);
  // How long to wait for agents to confirm that a test's workers are gone
  // before the test is finalized anyway.
  absl::Duration stop_timeout = absl::Seconds(20);
  // Finished tests kept in memory for GetTest/ListTests.
  int history_limit = 1000;
};

}  // namespace eb::coordinator
