#include "coordinator/grpc/handshake_audit.h"

#include <grpc/support/log.h>

#include <cstdio>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "coordinator/grpc/authz.h"

namespace eb::coordinator {
namespace {

constexpr absl::string_view kHandshakeFailed = "Handshake failed with fatal error ";

ABSL_CONST_INIT absl::Mutex g_mu(absl::kConstInit);
ABSL_CONST_INIT HandshakeAudit* g_current ABSL_GUARDED_BY(g_mu) = nullptr;

// Writes the line to stderr as gRPC's default function does (severity,
// file:line, message), then offers it to the current HandshakeAudit. It
// takes no gRPC lock and calls into gRPC for nothing.
void LogToStderrAndAudit(gpr_log_func_args* args) {
  std::fprintf(stderr, "%s %s:%d] %s\n", gpr_log_severity_string(args->severity), args->file,
               args->line, args->message);
  if (args->severity != GPR_LOG_SEVERITY_ERROR) return;
  absl::MutexLock lock(&g_mu);
  if (g_current != nullptr) g_current->OnGrpcLog(args->message);
}

}  // namespace

HandshakeAudit::HandshakeAudit(AuditLog& audit, common::Clock& clock)
    : audit_(audit), clock_(clock) {
  {
    absl::MutexLock lock(&g_mu);
    g_current = this;
  }
  gpr_set_log_function(LogToStderrAndAudit);
}

HandshakeAudit::~HandshakeAudit() {
  // The function stays installed (it only writes to stderr without us):
  // gRPC may log from its threads until the process ends.
  absl::MutexLock lock(&g_mu);
  if (g_current == this) g_current = nullptr;
}

bool HandshakeAudit::OnGrpcLog(absl::string_view message) {
  if (!absl::StartsWith(message, kHandshakeFailed)) return false;
  // "SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify failed."
  const std::string reason(message.substr(kHandshakeFailed.size(), 256));
  std::optional<uint64_t> left_out;
  {
    absl::MutexLock lock(&mu_);
    left_out = limit_.Admit(reason, clock_.Now());
  }
  if (!left_out.has_value()) return true;
  Caller caller;
  caller.identity = "(no certificate accepted)";
  caller.role = Role::kNone;
  caller.peer = "unknown (gRPC does not say)";
  audit_.Record(
      caller, kMethod, "",
      WithLeftOut(absl::UnauthenticatedError(absl::StrCat("TLS handshake failed: ", reason)),
                  *left_out, "more failed with this reason since the last record"));
  return true;
}

}  // namespace eb::coordinator
