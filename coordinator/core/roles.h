#pragma once

// The roles of ebnccl's callers (docs/SECURITY.md, "Transport security and
// roles") and the parsing of their names: pure, so that the coordinator's
// config file ([tls.roles]) is checked without gRPC. Who holds which role
// and what each may call is coordinator/grpc/authz.h.

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::coordinator {

enum class Role { kNone = 0, kViewer = 1, kOperator = 2, kAdmin = 3, kAgent = 4 };

// "none", "viewer", "operator", "admin", "agent".
const char* RoleName(Role role);
// A role by name; nullopt for anything else.
std::optional<Role> ParseRole(absl::string_view name);
// The URI SAN prefix that carries a role: "ebnccl:role:".
inline constexpr char kRoleUriPrefix[] = "ebnccl:role:";

// Validates [tls.roles] values: identity -> role name (viewer, operator or
// admin). INVALID_ARGUMENT naming the identity otherwise.
absl::StatusOr<std::map<std::string, Role>> ParseRoleMap(
    const std::map<std::string, std::string>& table);

}  // namespace eb::coordinator
