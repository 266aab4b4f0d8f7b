#include "coordinator/ebctl/report/page_data.h"

#include <algorithm>
#include <string>
#include <utility>

#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/message_json.h"
#include "coordinator/ebctl/output/nodes_json.h"
#include "coordinator/ebctl/output/report_json.h"
#include "coordinator/ebctl/output/validation_json.h"

namespace eb::ebctl::report {
namespace v1 = ebnccl::v1;
using nlohmann::json;

namespace {

json Envelope(const char* kind, absl::string_view generated_at, absl::string_view version) {
  return json{{"schema", kReportPageSchema},
              {"schema_version", 1},
              {"kind", kind},
              {"version", std::string(version)},
              {"generated_at", std::string(generated_at)}};
}

bool Contains(const std::vector<std::string>& names, absl::string_view node) {
  return std::find(names.begin(), names.end(), node) != names.end();
}

}  // namespace

json TestPageData(const v1::TestReport& report, absl::string_view generated_at,
                  absl::string_view version) {
  json page = Envelope("test", generated_at, version);
  page["report"] = ReportToJson(report, version);
  json inventories = json::array();
  for (const v1::NodeInventory& inventory : report.node_inventories()) {
    inventories.push_back(MessageJson(inventory));
  }
  page["inventories"] = std::move(inventories);
  return page;
}

json ValidationPageData(const v1::ValidationReport& report, const v1::ListNodesReply* nodes,
                        absl::string_view generated_at, absl::string_view version) {
  json page = Envelope("validation", generated_at, version);
  page["report"] = ValidationToJson(report);
  page["node_list"] = nodes != nullptr ? NodesToJson(*nodes) : json();
  return page;
}

v1::ListTestsReply TestsOfNode(const v1::ListTestsReply& tests, absl::string_view node) {
  v1::ListTestsReply out;
  for (const v1::TestReport& report : tests.tests()) {
    const bool in_spec =
        std::find(report.spec().node_names().begin(), report.spec().node_names().end(), node) !=
        report.spec().node_names().end();
    if (in_spec || Contains(TestNodeNames(report), node)) *out.add_tests() = report;
  }
  return out;
}

v1::ListValidationsReply ValidationsOfNode(const v1::ListValidationsReply& validations,
                                           absl::string_view node) {
  v1::ListValidationsReply out;
  for (const v1::ValidationReport& report : validations.validations()) {
    bool included = std::find(report.spec().node_names().begin(), report.spec().node_names().end(),
                              node) != report.spec().node_names().end();
    for (const v1::NodeVerdict& verdict : report.nodes()) {
      included = included || verdict.node_name() == node;
    }
    if (included) *out.add_validations() = report;
  }
  return out;
}

json NodePageData(absl::string_view node, const v1::ListTestsReply& tests,
                  const v1::ListValidationsReply& validations, absl::string_view generated_at,
                  absl::string_view version) {
  json page = Envelope("node", generated_at, version);
  page["node"] = std::string(node);
  page["tests"] = TestListToJson(TestsOfNode(tests, node), version);
  page["validations"] = ValidationListToJson(ValidationsOfNode(validations, node));
  page["history"] = json{{"tests_listed", tests.tests_size()},
                         {"validations_listed", validations.validations_size()},
                         {"filtered_by", "client"}};
  return page;
}

}  // namespace eb::ebctl::report
