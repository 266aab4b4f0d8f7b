#include "coordinator/coordinator_server.h"

#include "absl/synchronization/notification.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {

CoordinatorServer::CoordinatorServer(const CoordinatorConfig& config)
    : config_(config),
      loop_("eb-coord-loop"),
      rendezvous_(loop_),
      logs_(loop_, absl::Seconds(10)) {
  registry_ = std::make_unique<NodeRegistry>(common::RealClock::Get(), loop_, config_, nullptr);
  tests_ = std::make_unique<TestManager>(common::RealClock::Get(), loop_, *registry_, rendezvous_,
                                         config_);
  registry_->set_on_lost([manager = tests_.get()](const std::string& node,
                                                  const std::string& reason) {
    manager->OnNodeLost(node, reason);
  });
  control_service_ = std::make_unique<ControlService>(loop_, *tests_, *registry_, logs_);
  agent_service_ =
      std::make_unique<AgentServiceImpl>(loop_, *registry_, *tests_, rendezvous_, logs_, config_);
}

absl::StatusOr<std::unique_ptr<CoordinatorServer>> CoordinatorServer::Start(
    const CoordinatorConfig& config) {
  std::unique_ptr<CoordinatorServer> coordinator(new CoordinatorServer(config));
  common::RpcServerOptions options;
  options.listen_address = config.listen_address;
  options.services = {coordinator->control_service_.get(), coordinator->agent_service_.get()};
  auto server = common::RpcServer::Start(options);
  if (!server.ok()) return server.status();
  coordinator->server_ = *std::move(server);
  coordinator->loop_.Post([registry = coordinator->registry_.get()] { registry->Start(); });
  return coordinator;
}

CoordinatorServer::~CoordinatorServer() { Shutdown(); }

void CoordinatorServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  // Calls in flight finish or are cancelled; their reactors post to the
  // loop, which is still running.
  if (server_) server_->Shutdown(absl::Seconds(2));
  // Drain the loop on its own thread before destroying what it uses.
  absl::Notification drained;
  loop_.Post([&drained] { drained.Notify(); });
  drained.WaitForNotificationWithTimeout(absl::Seconds(5));
  loop_.Stop();
}

}  // namespace eb::coordinator
