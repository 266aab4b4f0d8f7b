#include "coordinator/grpc/authz.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status/grpc_status.h"
#include "grpc/grpc_security_constants.h"
#include "grpcpp/security/auth_context.h"

namespace eb::coordinator {

namespace {

// The methods whose refusals are audited (their outcomes are audited by
// the handlers).
bool IsMutating(absl::string_view method) {
  return method == "RunTest" || method == "CancelTest" || method == "RunValidation" ||
         method == "CancelValidation" || method == "Session";
}

std::vector<std::string> Values(const grpc::AuthContext& auth, const char* name) {
  std::vector<std::string> values;
  for (const grpc::string_ref& value : auth.FindPropertyValues(name)) {
    values.emplace_back(value.data(), value.size());
  }
  return values;
}

}  // namespace

Caller CallerFromCertificate(const std::vector<std::string>& common_names,
                             const std::vector<std::string>& uris,
                             const std::vector<std::string>& dns_names,
                             const std::map<std::string, Role>& role_map) {
  Caller caller;
  caller.dns_names = dns_names;
  if (!common_names.empty()) {
    caller.identity = common_names.front();
  } else if (!dns_names.empty()) {
    caller.identity = dns_names.front();
  } else {
    caller.identity = "unknown";
  }
  Role client = Role::kNone;
  bool agent = false;
  for (const std::string& uri : uris) {
    if (!absl::StartsWith(uri, kRoleUriPrefix)) continue;
    std::optional<Role> role = ParseRole(absl::string_view(uri).substr(sizeof(kRoleUriPrefix) - 1));
    if (!role) continue;
    if (*role == Role::kAgent) {
      agent = true;
    } else {
      client = std::max(client, *role);
    }
  }
  caller.role = client != Role::kNone ? client : (agent ? Role::kAgent : Role::kNone);
  if (auto it = role_map.find(caller.identity); it != role_map.end()) caller.role = it->second;
  return caller;
}

bool Allows(const Caller& caller, Role needed) {
  if (needed == Role::kAgent) return caller.role == Role::kAgent;
  if (caller.role == Role::kAgent || caller.role == Role::kNone) return false;
  return static_cast<int>(caller.role) >= static_cast<int>(needed);
}

absl::Status NeedsRole(const Caller& caller, Role needed, absl::string_view method) {
  if (needed == Role::kAgent) {
    return absl::PermissionDeniedError(absl::StrCat(method, " needs an agent certificate (role ",
                                                    RoleName(needed), "); ", caller.identity,
                                                    " has role ", RoleName(caller.role)));
  }
  return absl::PermissionDeniedError(absl::StrCat(method, " needs role ", RoleName(needed), "; ",
                                                  caller.identity, " has role ",
                                                  RoleName(caller.role)));
}

std::string Abbreviate(absl::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  return absl::StrCat(text.substr(0, max), "...(", text.size(), " bytes)");
}

Authorizer::Authorizer(bool tls, std::map<std::string, Role> role_map, AuditLog* audit)
    : tls_(tls), role_map_(std::move(role_map)), audit_(audit) {}

Caller Authorizer::Identify(const grpc::ServerContextBase& context) const {
  Caller caller;
  caller.peer = context.peer();
  if (!tls_) return caller;  // plaintext: local admin
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) {
    caller.identity = "unauthenticated";
    caller.role = Role::kNone;
    return caller;
  }
  Caller from_cert = CallerFromCertificate(Values(*auth, GRPC_X509_CN_PROPERTY_NAME),
                                           Values(*auth, GRPC_PEER_URI_PROPERTY_NAME),
                                           Values(*auth, GRPC_PEER_DNS_PROPERTY_NAME), role_map_);
  from_cert.peer = caller.peer;
  return from_cert;
}

std::optional<absl::Status> Authorizer::Check(const grpc::ServerContextBase& context, Role needed,
                                              absl::string_view method, const std::string& target,
                                              Caller* caller) const {
  Caller who = Identify(context);
  std::optional<absl::Status> refused;
  // Plaintext (loopback, or --insecure): everyone may do everything.
  if (tls_ && !Allows(who, needed)) {
    refused = NeedsRole(who, needed, method);
    bool audited = IsMutating(method);
    if (!audited && audit_ != nullptr) {
      absl::MutexLock lock(&mu_);
      audited = refused_reads_.Count(absl::StrCat(who.identity, " ", method));
    }
    if (audit_ != nullptr && audited) {
      audit_->Record(who, std::string(method), target, *refused);
    }
  }
  if (caller != nullptr) *caller = std::move(who);
  return refused;
}

grpc::Status ToGrpcRefusal(const absl::Status& status) { return common::ToGrpcStatus(status); }

grpc::ServerUnaryReactor* RefuseUnary(grpc::CallbackServerContext* context,
                                      const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcRefusal(status));
  return reactor;
}

}  // namespace eb::coordinator
