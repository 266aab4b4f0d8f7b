#pragma once

// The --json test report of ebctl (run-test, show) and the test list, whose
// field names follow nccl-tests -J where the two overlap (docs/JSON_SCHEMA.md
// documents every field and the differences). The node list is
// nodes_json.h, a rank's log log_json.h. Pure functions, callable from any
// thread.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/version/version.h"
#include "coordinator/ebctl/output/json_schema.h"
#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

// A test report, a superset of nccl-tests' -J file (format version 3):
// schema, version (3), ebnccl_version (the ebnccl version of the caller),
// args (`args`: the caller's command line, argv[0] first), env (the test's
// NCCL_* overrides, "NAME=value" by name), nccl_version, test_id, state, transport, collective,
// start_time, end_time, config{}, devices[], results[], out_of_bounds{}, average_bus_bandwidth{},
// slowest_rank{} or null, failures[], errors[], summary and exit_code (what
// ebctl exits with for this report). Works on reports that are not final
// yet (end_time null, results so far).
nlohmann::json ReportToJson(const ebnccl::v1::TestReport& report,
                            absl::string_view version = kVersion,
                            const std::vector<std::string>& args = {});

// One result row (an element of ReportToJson's results[]), for streaming
// rows as JSON lines while a test runs.
nlohmann::json SizeResultToJson(const ebnccl::v1::SizeResult& row,
                                const ebnccl::v1::TestSpec& spec);

// `ebctl tests --json`: schema, schema_version and tests[], each a test
// report (ReportToJson) without per-size results and without args (the
// list's command line is not the tests'), newest first.
nlohmann::json TestListToJson(const ebnccl::v1::ListTestsReply& reply,
                              absl::string_view version = kVersion);

}  // namespace eb::ebctl
