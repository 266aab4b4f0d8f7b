#include "coordinator/core/roles.h"

#include "absl/strings/str_cat.h"

namespace eb::coordinator {

const char* RoleName(Role role) {
  switch (role) {
    case Role::kViewer:
      return "viewer";
    case Role::kOperator:
      return "operator";
    case Role::kAdmin:
      return "admin";
    case Role::kAgent:
      return "agent";
    default:
      return "none";
  }
}

std::optional<Role> ParseRole(absl::string_view name) {
  for (Role role : {Role::kViewer, Role::kOperator, Role::kAdmin, Role::kAgent}) {
    if (name == RoleName(role)) return role;
  }
  return std::nullopt;
}

absl::StatusOr<std::map<std::string, Role>> ParseRoleMap(
    const std::map<std::string, std::string>& table) {
  std::map<std::string, Role> roles;
  for (const auto& [identity, name] : table) {
    std::optional<Role> role = ParseRole(name);
    if (!role || *role == Role::kAgent) {
      return absl::InvalidArgumentError(
          absl::StrCat("role of '", identity, "': '", name, "' is not viewer, operator or admin"));
    }
    roles[identity] = *role;
  }
  return roles;
}

}  // namespace eb::coordinator
