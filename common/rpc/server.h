#pragma once

// A gRPC server with the settings every ebnccl daemon needs (STYLE.md
// rule 10): keepalive on both ends, the standard health service (server
// reflection: server_reflection.h), and port 0 resolved to the port the
// kernel picked.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/rpc/tls_files.h"
#include "grpcpp/server.h"

namespace eb::common {

struct RpcServerOptions {
  // "host:port" (port 0 = any free port) or "unix:/path/to.sock".
  std::string listen_address;
  // Services to register; not owned, must outlive the server.
  std::vector<grpc::Service*> services;
  // Interval between keepalive pings on idle connections.
  absl::Duration keepalive_time = absl::Seconds(10);
  // Time to wait for a ping ack before closing the connection.
  absl::Duration keepalive_timeout = absl::Seconds(5);
  // A new connection must finish its TLS handshake and send HTTP/2's
  // settings within this, or it is closed (gRPC's default is 120 s: a peer
  // that connects and says nothing held its connection that long).
  absl::Duration handshake_timeout = absl::Seconds(10);
  // Mutual TLS (client certificates required and verified) when it names
  // files; plaintext otherwise. Check the files first (CheckTlsFiles).
  TlsFiles tls;
  // gRPC's standard health service (grpc_health_probe), and reflection
  // (grpcurl) when the process called EnableServerReflection
  // (common/rpc/server_reflection.h). The agent's worker socket goes
  // without: they are synchronous services, whose polling threads woke an
  // idle agent ~6 times a second (issue 15). Per process: once a server has
  // them, later ones may too.
  bool introspection = true;
};

class RpcServer {
 public:
  // Builds and starts the server. UNAVAILABLE when the address cannot be
  // bound (the message names it); INVALID_ARGUMENT without a service.
  static absl::StatusOr<std::unique_ptr<RpcServer>> Start(const RpcServerOptions& options);
  ~RpcServer();

  // TCP port actually bound (0 for a Unix socket).
  int port() const { return port_; }
  // Flips the health service's overall status (false while draining).
  void SetServing(bool serving);
  // Stops accepting calls; cancels calls still running after `grace`.
  void Shutdown(absl::Duration grace);

 private:
  RpcServer(std::unique_ptr<grpc::Server> server, int port);
  std::unique_ptr<grpc::Server> server_;
  int port_;
  bool shut_down_ = false;
};

}  // namespace eb::common
