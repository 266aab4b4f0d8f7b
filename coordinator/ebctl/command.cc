#include "coordinator/ebctl/command.h"

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/net/address.h"
#include "common/rpc/channel.h"
#include "common/rpc/tls.h"
#include "common/spec/limits.h"
#include "common/spec/terminal_text.h"
#include "common/status/grpc_status.h"
#include "coordinator/ebctl/exit_codes.h"

namespace eb::ebctl {

namespace {}  // namespace

int Command::Run(const GlobalOptions& options) {
  if (absl::Status usage = CheckUsage(); !usage.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(usage.message()).c_str());
    return kExitUsage;
  }
  if (options.coordinator.empty()) {
    std::fprintf(stderr,
                 "ebctl: --coordinator: not set (pass HOST[:PORT] or set EBCTL_COORDINATOR)\n");
    return kExitUsage;
  }
  auto address =
      common::ParseHostPort(options.coordinator, common::kDefaultCoordinatorPort, "--coordinator");
  if (!address.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(address.status().message()).c_str());
    return kExitUsage;
  }
  if (absl::Status files = common::CheckTlsFiles(options.tls); !files.ok()) {
    std::fprintf(stderr, "ebctl: %s\n", std::string(files.message()).c_str());
    return kExitUsage;
  }
  auto channel = common::MakeChannel(address->ToString(), options.tls);
  const auto deadline =
      std::chrono::system_clock::now() +
      std::chrono::milliseconds(absl::ToInt64Milliseconds(options.connect_timeout));
  if (!channel->WaitForConnected(deadline)) {
    std::fprintf(stderr, "ebctl: cannot reach the coordinator at %s within %s%s\n",
                 address->ToString().c_str(), absl::FormatDuration(options.connect_timeout).c_str(),
                 options.tls.enabled()
                     ? " (or the TLS handshake failed: is the certificate issued by the fleet "
                       "CA, still valid, and does the coordinator's name match?)"
                     : " (a coordinator with TLS needs --tls-ca, --tls-cert and --tls-key)");
    return kExitUnreachable;
  }
  auto stub = ebnccl::v1::Control::NewStub(channel);
  return Execute(*stub, options);
}

int Command::RpcFailed(const char* what, const grpc::Status& status, bool connected) {
  const absl::Status converted = common::FromGrpcStatus(status);
  // The message is the coordinator's (and may quote a node's): sanitized.
  std::string text = spec::Printable(converted.ToString());
  // A peer's message is printed, not a flood (SECURITY_FINDINGS case 14).
  constexpr size_t kMaxShown = 2000;
  if (text.size() > kMaxShown) text = absl::StrCat(text.substr(0, kMaxShown), "... (cut)");
  std::fprintf(stderr, "ebctl: %s: %s\n", what, text.c_str());
  if (IsMessageSizeLimit(converted)) {
    std::fprintf(stderr,
                 "ebctl: a message was over gRPC's size limit (%d MiB); this is a bug or a "
                 "coordinator of another version: please report it\n",
                 spec::kMaxRpcMessageBytes >> 20);
  }
  return ExitCodeForRpcError(converted, connected);
}

}  // namespace eb::ebctl
