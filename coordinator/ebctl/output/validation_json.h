#pragma once

// `--json` of validate, show v-... and validations: the proto3 JSON mapping
// of ValidationReport with the proto's field names (docs/JSON_SCHEMA.md,
// "Validation report", versioned by schema_version). Pure.

#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

nlohmann::json ValidationToJson(const ebnccl::v1::ValidationReport& report);
// {"validations": [...]} for `ebctl validations --json`.
nlohmann::json ValidationListToJson(const ebnccl::v1::ListValidationsReply& reply);

}  // namespace eb::ebctl
