#include "coordinator/ebctl/output/validation_json.h"

#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/message_json.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

namespace {

nlohmann::json ReportJson(const v1::ValidationReport& report) { return MessageJson(report); }

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
