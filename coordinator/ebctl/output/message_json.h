#pragma once

// A protobuf message as ebctl's --json documents print it, by one set of
// rules for every message (the validation report, the report pages' data):
// the proto3 JSON mapping with the field names of the .proto, zeros, false
// and empty fields included (a 0 is data, not absence), and then
//   - every enum as its display name (spec::WireName: "healthy",
//     "all_reduce", "infra_failure"), "" when unset (0): the words the
//     string fields these enums replaced held;
//   - every int64 as a JSON number (proto3 JSON writes them as strings);
//   - fields marked deprecated left out (kept only to read old history).
// Map fields are left as the mapping writes them. Pure.

#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

nlohmann::json MessageJson(const google::protobuf::Message& message);

}  // namespace eb::ebctl
