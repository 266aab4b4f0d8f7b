#include "common/rpc/server.h"

#include <chrono>

#include "common/rpc/tls.h"
#include "common/spec/limits.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace eb::common {

absl::StatusOr<std::unique_ptr<RpcServer>> RpcServer::Start(const RpcServerOptions& options) {
  // gRPC cannot build a server without a method to serve, and says only
  // that it cannot listen.
  if (options.services.empty()) {
    return absl::InvalidArgumentError("no service to serve on '" + options.listen_address + "'");
  }
  grpc::EnableDefaultHealthCheckService(options.introspection);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(options.listen_address,
                           options.tls.enabled() ? MakeServerCredentials(options.tls)
                                                 : grpc::InsecureServerCredentials(),
                           &selected_port);
  for (grpc::Service* service : options.services) builder.RegisterService(service);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_time)));
  builder.AddChannelArgument(
      GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
      static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_timeout)));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Clients ping every few seconds; without this the server answers with
  // GOAWAY "too_many_pings" (STYLE.md pitfalls).
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  // No bandwidth-delay probes: with them every message read from an agent's
  // session may start a PING (and its ACK, and a timer), which doubled the
  // packets of a thousand agents' heartbeats (issue 15). The coordinator's
  // messages are small; the default windows suffice.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  // gRPC sets SO_REUSEPORT by default: a second coordinator on the same
  // port would start, and the kernel would split agents and ebctl calls
  // between the two. A port in use must be a start-up error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Explicit bounds (docs/SECURITY.md, "Limits"): the largest message either
  // way, and the calls one connection may have open at once.
  builder.SetMaxReceiveMessageSize(spec::kMaxRpcMessageBytes);
  builder.SetMaxSendMessageSize(spec::kMaxRpcMessageBytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, spec::kMaxCallsPerConnection);
  builder.AddChannelArgument(
      GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
      static_cast<int>(absl::ToInt64Milliseconds(options.handshake_timeout)));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    return absl::UnavailableError("cannot listen on '" + options.listen_address +
                                  "' (address in use, or not an address of this host?)");
  }
  const bool is_unix = options.listen_address.rfind("unix:", 0) == 0;
  if (!is_unix && selected_port == 0) {
    return absl::UnavailableError("cannot bind '" + options.listen_address + "'");
  }
  return std::unique_ptr<RpcServer>(new RpcServer(std::move(server), is_unix ? 0 : selected_port));
}

RpcServer::RpcServer(std::unique_ptr<grpc::Server> server, int port)
    : server_(std::move(server)), port_(port) {}

RpcServer::~RpcServer() { Shutdown(absl::ZeroDuration()); }

void RpcServer::SetServing(bool serving) {
  if (auto* health = server_->GetHealthCheckService()) health->SetServingStatus(serving);
}

void RpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_) return;
  shut_down_ = true;
  SetServing(false);
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(absl::ToInt64Milliseconds(grace)));
  server_->Wait();
}

}  // namespace eb::common
