#pragma once

// Who is calling and what they may do (docs/SECURITY.md, "Transport security
// and roles"). Every handler of the Control and AgentService services starts
// with one line:
//   if (auto refused = authz_.Check(*context, Role::kViewer, "ListNodes"))
//     return RefuseUnary(context, *refused);
//
// Identity comes from the client certificate that mutual TLS verified: its
// CN is the identity, and its role is a URI SAN `ebnccl:role:<role>`
// (viewer, operator, admin, or agent for a node's certificate, whose DNS
// SANs are its node names). The coordinator's [tls.roles] table
// (identity = role) overrides the certificate's role. Without TLS
// (plaintext, loopback unless --insecure) every caller is "local" with role
// admin. Client roles are ordered viewer < operator < admin; agent is apart:
// an agent certificate cannot call Control, a client certificate cannot
// open an agent Session.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "coordinator/core/refusal_counter.h"
#include "coordinator/core/roles.h"
#include "coordinator/grpc/audit_log.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"

namespace eb::coordinator {

struct Caller {
  // The certificate's CN, or "local" without TLS.
  std::string identity = "local";
  Role role = Role::kAdmin;
  // DNS SANs of the certificate: the node names an agent may register.
  std::vector<std::string> dns_names;
  // Peer address, for the audit log.
  std::string peer;
};

// The caller a verified certificate describes (pure: the properties gRPC's
// AuthContext holds). Identity: the first CN, else the first DNS name, else
// "unknown". Role: the highest `ebnccl:role:` URI (agent only when no client
// role is present), replaced by `role_map[identity]` when that exists.
Caller CallerFromCertificate(const std::vector<std::string>& common_names,
                             const std::vector<std::string>& uris,
                             const std::vector<std::string>& dns_names,
                             const std::map<std::string, Role>& role_map);

// Whether `caller` may call a method that needs `needed`. Client roles
// include the ones below them; kAgent is allowed to agents only.
bool Allows(const Caller& caller, Role needed);

// PERMISSION_DENIED: "<method> needs role <needed>; <identity> has role
// <role>".
absl::Status NeedsRole(const Caller& caller, Role needed, absl::string_view method);

// `text` cut to `max` characters with "...(N bytes)" appended when longer:
// messages and audit entries never echo a huge input back (a 100 KB test id
// would not fit a status message; SECURITY_FINDINGS case 14).
std::string Abbreviate(absl::string_view text, size_t max = 128);

class Authorizer {
 public:
  // `tls`: whether the server verifies client certificates (else every
  // caller is local admin). Refusals of mutating methods go to `audit`
  // (may be null), which must outlive the authorizer.
  Authorizer(bool tls, std::map<std::string, Role> role_map, AuditLog* audit);

  // The caller of this call.
  Caller Identify(const grpc::ServerContextBase& context) const;
  // nullopt when the caller has `needed`; else the refusal, audited with
  // `target` (e.g. "test_id=t-..."): every refusal of a mutating method,
  // and a read's at its 1st, 2nd, 4th, 8th... refusal per identity and
  // method (issue 32, item 10: refused reads left no row; a prober must not
  // fill the log either). `caller`, when given, receives the caller either
  // way. Thread-safe.
  std::optional<absl::Status> Check(const grpc::ServerContextBase& context, Role needed,
                                    absl::string_view method, const std::string& target = "",
                                    Caller* caller = nullptr) const;

  bool tls() const { return tls_; }

 private:
  const bool tls_;
  const std::map<std::string, Role> role_map_;
  AuditLog* audit_;
  mutable absl::Mutex mu_;
  mutable RefusalCounter refused_reads_ ABSL_GUARDED_BY(mu_);
};

// A unary reactor finished at once with `status`.
grpc::ServerUnaryReactor* RefuseUnary(grpc::CallbackServerContext* context,
                                      const absl::Status& status);

// A server-streaming reactor finished at once with `status`.
template <typename Response>
grpc::ServerWriteReactor<Response>* RefuseStream(const absl::Status& status);

// A bidi reactor finished at once with `status`.
template <typename Request, typename Response>
grpc::ServerBidiReactor<Request, Response>* RefuseBidi(const absl::Status& status);

// ---- implementation of the templates ----

grpc::Status ToGrpcRefusal(const absl::Status& status);

template <typename Response>
grpc::ServerWriteReactor<Response>* RefuseStream(const absl::Status& status) {
  class Refused final : public grpc::ServerWriteReactor<Response> {
   public:
    explicit Refused(const absl::Status& status) { this->Finish(ToGrpcRefusal(status)); }
    void OnDone() override { delete this; }
  };
  return new Refused(status);
}

template <typename Request, typename Response>
grpc::ServerBidiReactor<Request, Response>* RefuseBidi(const absl::Status& status) {
  class Refused final : public grpc::ServerBidiReactor<Request, Response> {
   public:
    explicit Refused(const absl::Status& status) { this->Finish(ToGrpcRefusal(status)); }
    void OnDone() override { delete this; }
  };
  return new Refused(status);
}

}  // namespace eb::coordinator
