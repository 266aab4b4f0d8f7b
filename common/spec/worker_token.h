#pragma once

// How the agent hands each worker its secret startup token (STYLE.md rule
// 15): in the worker's environment, which only the worker's user and root
// can read (/proc/<pid>/environ), never on its command line, which `ps`
// shows to every user. The agent sets it (agent/core/worker_spec.h) and
// never takes it from anywhere else (agent/core/env_policy.h); eb-worker
// reads it once at start and removes it from its environment, so that
// nothing it starts inherits it. A contract between the two binaries, so it
// lives with the other wire names (eb_spec_names).

namespace eb::spec {

inline constexpr char kWorkerTokenVariable[] = "EB_WORKER_TOKEN";

}  // namespace eb::spec
