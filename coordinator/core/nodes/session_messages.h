#pragma once

// What the coordinator does with one message of a registered agent's
// session (everything after RegisterAgent): heartbeats to the registry,
// worker events and WorkersStopped to the test manager, log pages to the
// log requests. The gRPC edge (coordinator/grpc/agent_service.cc) and the
// agent-messages fuzz target both call this, so the fuzzer exercises the
// routing the daemon runs.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/core/budget/audit_rate_limit.h"
#include "coordinator/core/collective_tests/collective_test_manager.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::coordinator {

struct SessionMessageTargets {
  NodeRegistry& registry;
  TestManager& tests;
  LogRequests& logs;
  // When set: the warnings about a node's messages that are not taken (an
  // unknown kind, a log page nobody asked of it) are logged at most once
  // per node and reason per interval, with the count left out (a node
  // flooding them is not a flood of log lines). Null: each is logged.
  AuditRateLimit* refused_log = nullptr;
  absl::Time now = absl::InfinitePast();
};

// Handles `message` (not a RegisterAgent: the caller handles those) from
// session `session_id` of node `node_name`. OK when
// it was handled or ignored (an unknown kind is logged and ignored: a newer
// agent's message). INVALID_ARGUMENT naming the field when the session must
// end: a WorkerEventBatch of more than spec::kMaxWorkerEventsPerBatch
// events, of which none is handled.
absl::Status HandleSessionMessage(const SessionMessageTargets& targets, uint64_t session_id,
                                  const std::string& node_name,
                                  const ebnccl::v1::AgentMessage& message);

}  // namespace eb::coordinator
