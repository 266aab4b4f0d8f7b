#include "agent/grpc/worker_endpoint.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/grpc/worker_control_service.h"
#include "common/rpc/channel.h"
#include "spdlog/spdlog.h"

namespace eb::agent {

// One opening: the service (with its relay channel) and its server.
struct WorkerEndpoint::Served {
  std::string target;
  std::unique_ptr<WorkerControlService> service;
  std::unique_ptr<common::RpcServer> server;
};

WorkerEndpoint::WorkerEndpoint(Options options, common::Executor& executor,
                               WorkerSupervisor& supervisor)
    : options_(std::move(options)), executor_(executor), supervisor_(supervisor) {}

WorkerEndpoint::~WorkerEndpoint() {
  Close(absl::ZeroDuration());
  WaitClosed();
}

void WorkerEndpoint::RemoveStaleSockets() const {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(options_.run_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, "agent") && absl::EndsWith(name, ".sock")) {
      std::error_code ignored;
      std::filesystem::remove(entry.path(), ignored);
    }
  }
}

absl::StatusOr<std::string> WorkerEndpoint::Open() {
  ReapClosings();
  if (open_ != nullptr) return open_->target;
  auto served = std::make_unique<Served>();
  served->target = absl::StrCat("unix:", options_.run_dir, "/agent-", ++openings_, ".sock");
  served->service = std::make_unique<WorkerControlService>(
      executor_, supervisor_,
      common::MakeChannel(options_.coordinator_address, options_.coordinator_tls));
  common::RpcServerOptions server_options;
  server_options.listen_address = served->target;
  server_options.services = {served->service.get()};
  // Only its own workers talk to this socket: no health or reflection
  // service (and no threads polling for them).
  server_options.introspection = false;
  auto server = common::RpcServer::Start(server_options);
  if (!server.ok()) return server.status();
  served->server = *std::move(server);
  spdlog::debug("serving workers on {}", served->target);
  open_ = std::move(served);
  return open_->target;
}

void WorkerEndpoint::Close(absl::Duration grace) {
  if (open_ == nullptr) return;
  spdlog::debug("closing the worker endpoint {}", open_->target);
  auto done = std::make_shared<std::atomic<bool>>(false);
  // Off the executor: the server's shutdown waits for calls in flight, and
  // those finish on the executor.
  std::thread thread([served = std::move(open_), grace, done]() mutable {
    served->service->CancelRelays();
    served->server->Shutdown(grace);
    served.reset();  // the server, then the service and its channel
    done->store(true);
  });
  closings_.push_back(Closing{std::move(thread), std::move(done)});
}

void WorkerEndpoint::ReapClosings() {
  for (auto it = closings_.begin(); it != closings_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = closings_.erase(it);
    } else {
      ++it;
    }
  }
}

void WorkerEndpoint::WaitClosed() {
  for (Closing& closing : closings_) closing.thread.join();
  closings_.clear();
}

}  // namespace eb::agent
