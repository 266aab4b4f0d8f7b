#include "coordinator/ebctl/output/validation_json.h"

#include <cstdint>
#include <set>
#include <string>

#include "absl/strings/numbers.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/validation_table.h"
#include "google/protobuf/util/json_util.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

nlohmann::json MessageJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;     // snake_case, as the schema documents
  options.always_print_primitive_fields = true;  // a 0 or false is data, not absence
  std::string text;
  // Serializing a valid message cannot fail; an empty object if it did.
  if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) return {};
  return nlohmann::json::parse(text);
}

// proto3 JSON writes int64 fields as strings; the schema has numbers, like
// the test report (every int64 of ValidationReport is one of these keys).
void Int64sAsNumbers(nlohmann::json& value) {
  static const std::set<std::string> kInt64Keys = {
      "start_time_unix_ms", "end_time_unix_ms", "planned_id",      "min_bytes",
      "max_bytes",          "step_factor",      "test_timeout_ms", "launch_timeout_ms",
      "init_timeout_ms",    "step_timeout_ms",  "timeout_ms",      "hca_rate_gbps"};
  if (value.is_array()) {
    for (nlohmann::json& item : value) Int64sAsNumbers(item);
    return;
  }
  if (!value.is_object()) return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    int64_t number = 0;
    if (it->is_string() && kInt64Keys.count(it.key()) > 0 &&
        absl::SimpleAtoi(it->get<std::string>(), &number)) {
      *it = number;
    } else {
      Int64sAsNumbers(*it);
    }
  }
}

nlohmann::json ReportJson(const v1::ValidationReport& report) {
  nlohmann::json out = MessageJson(report);
  Int64sAsNumbers(out);
  out["state"] = ValidationStateName(report.state());
  return out;
}

}  // namespace

nlohmann::json ValidationToJson(const v1::ValidationReport& report) {
  nlohmann::json out = ReportJson(report);
  out["schema"] = "ebnccl.validation_report";
  out["exit_code"] = ExitCodeForValidation(report);
  return out;
}

nlohmann::json ValidationListToJson(const v1::ListValidationsReply& reply) {
  nlohmann::json out;
  out["schema"] = "ebnccl.validation_list";
  out["schema_version"] = 1;
  out["validations"] = nlohmann::json::array();
  for (const v1::ValidationReport& report : reply.validations()) {
    out["validations"].push_back(ReportJson(report));
  }
  return out;
}

}  // namespace eb::ebctl
