#pragma once

// `ebctl audit`: the coordinator's audit log as a table or a JSON document
// (schema "ebnccl.audit_list"). Rendering only.

#include <string>

#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

inline constexpr char kAuditListSchema[] = "ebnccl.audit_list";

// One line per entry, newest first: TIME, WHO, ROLE, METHOD, TARGET,
// OUTCOME (with the message of a refusal).
std::string AuditTable(const ebnccl::v1::ListAuditReply& reply);
nlohmann::json AuditToJson(const ebnccl::v1::ListAuditReply& reply);

}  // namespace eb::ebctl
