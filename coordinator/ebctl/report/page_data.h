#pragma once

// The JSON a report page embeds (html_page.h): the very documents `--json`
// prints (ReportToJson, ValidationToJson, NodesToJson, TestListToJson,
// ValidationListToJson), wrapped with what the page needs to know which
// view to draw. Nothing here computes a verdict or a figure; the page's
// script only draws. Pure functions, any thread.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/version/version.h"
#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl::report {

inline constexpr char kReportPageSchema[] = "ebnccl.report_page";

// {"schema", "kind": "test", "version", "generated_at", "report":
// ReportToJson(report), "inventories": the node inventories the report
// carries (TestReport.node_inventories, proto3 JSON), which `--json` leaves
// out (the node list has them) and the page's header shows: GPUs, HCAs,
// NCCL version}. `generated_at` is a time string, shown as is.
nlohmann::json TestPageData(const ebnccl::v1::TestReport& report, absl::string_view generated_at,
                            absl::string_view version = kVersion);

// {"schema", "kind": "validation", "version", "generated_at", "report":
// ValidationToJson(report), "node_list": NodesToJson(*nodes) or null (from
// it the page reads each node's repeat-offender count)}.
nlohmann::json ValidationPageData(const ebnccl::v1::ValidationReport& report,
                                  const ebnccl::v1::ListNodesReply* nodes,
                                  absl::string_view generated_at,
                                  absl::string_view version = kVersion);

// With the coordinator's topology, fabric_data.h adds the fabric (issue 31).

// The tests of `tests` that ran on `node` (a rank on it, or it named in the
// spec), newest first as given.
ebnccl::v1::ListTestsReply TestsOfNode(const ebnccl::v1::ListTestsReply& tests,
                                       absl::string_view node);
// The validations of `validations` that included `node`.
ebnccl::v1::ListValidationsReply ValidationsOfNode(
    const ebnccl::v1::ListValidationsReply& validations, absl::string_view node);

// {"schema", "kind": "node", "version", "generated_at", "node", "tests":
// TestListToJson(TestsOfNode(tests)), "validations":
// ValidationListToJson(ValidationsOfNode(validations)), "history": {
// "tests_listed", "validations_listed": how many the coordinator returned
// before the filter, "filtered_by": "client"}}. ListTests and
// ListValidations have no node filter, so the page says that the history
// is the newest `tests_listed` tests of the whole fleet, filtered here.
nlohmann::json NodePageData(absl::string_view node, const ebnccl::v1::ListTestsReply& tests,
                            const ebnccl::v1::ListValidationsReply& validations,
                            absl::string_view generated_at, absl::string_view version = kVersion);

}  // namespace eb::ebctl::report
