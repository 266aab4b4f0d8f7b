#pragma once

// Composition root of eb-coordinator (like Ray's gcs_server.cc): one
// executor that owns all state, the registry, the rendezvous, the test
// manager, and the gRPC server that adapts them.

#include <memory>

#include "absl/status/statusor.h"
#include "common/exec/event_loop.h"
#include "common/rpc/server.h"
#include "coordinator/config.h"
#include "coordinator/core/log_requests.h"
#include "coordinator/core/node_registry.h"
#include "coordinator/core/rendezvous_kv.h"
#include "coordinator/core/test_manager.h"
#include "coordinator/grpc/agent_service.h"
#include "coordinator/grpc/control_service.h"

namespace eb::coordinator {

class CoordinatorServer {
 public:
  // Starts serving. UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<CoordinatorServer>> Start(const CoordinatorConfig& config);
  ~CoordinatorServer();

  // Port actually bound.
  int port() const { return server_->port(); }
  // Stops accepting calls and tears everything down (tests still running
  // are left to their agents, which stop them when the session drops).
  void Shutdown();

 private:
  explicit CoordinatorServer(const CoordinatorConfig& config);

  const CoordinatorConfig config_;
  common::EventLoop loop_;
  RendezvousKv rendezvous_;
  LogRequests logs_;
  std::unique_ptr<TestManager> tests_;
  std::unique_ptr<NodeRegistry> registry_;
  std::unique_ptr<ControlService> control_service_;
  std::unique_ptr<AgentServiceImpl> agent_service_;
  std::unique_ptr<common::RpcServer> server_;
  bool shut_down_ = false;
};

}  // namespace eb::coordinator
