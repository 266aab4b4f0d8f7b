#pragma once

// Base of every ebctl subcommand (STYLE.md rule 23, after DCGM's dcgmi
// Command): Run() connects to the coordinator and calls Execute(); the
// exit code comes from the result (docs/EXIT_CODES.md).

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/rpc/tls_files.h"
#include "ebnccl/v1/control.grpc.pb.h"
#include "grpcpp/channel.h"

namespace eb::ebctl {

struct GlobalOptions {
  // Coordinator "host[:port]" (--coordinator or EBCTL_COORDINATOR).
  std::string coordinator;
  // How long to try to reach the coordinator.
  absl::Duration connect_timeout = absl::Seconds(5);
  // Print JSON instead of tables.
  bool json = false;
  // ebctl's whole command line, argv[0] first: a JSON test report's `args`,
  // as nccl-tests -J writes its own.
  std::vector<std::string> args;
  // Mutual TLS (--tls-ca/--tls-cert/--tls-key or EBNCCL_TLS_CA/_CERT/_KEY);
  // plaintext when none is set.
  common::TlsFiles tls;
};

class Command {
 public:
  virtual ~Command() = default;
  // CheckUsage(), connects, then Execute(). Returns the process exit code.
  int Run(const GlobalOptions& options);

 protected:
  // The command line's own errors (INVALID_ARGUMENT naming the flag), found
  // before connecting: a usage error is exit 2 whether or not the
  // coordinator is up (`validate --collective a,b` once said "cannot reach
  // the coordinator").
  virtual absl::Status CheckUsage() const { return absl::OkStatus(); }
  // Runs the subcommand against a connected coordinator.
  virtual int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) = 0;
  // Reports an RPC failure on stderr and returns its exit code.
  static int RpcFailed(const char* what, const grpc::Status& status, bool connected);
};

}  // namespace eb::ebctl
