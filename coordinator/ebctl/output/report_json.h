#pragma once

// The --json output of ebctl: versioned documents whose field names follow
// nccl-tests -J where the two overlap (docs/JSON_SCHEMA.md documents every
// field and the differences). Pure functions, callable from any thread.

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "common/version/version.h"
#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

// "schema" values and the version of their layout: bumped on an
// incompatible change (a field removed, renamed or retyped), not when a
// field is added.
inline constexpr char kTestReportSchema[] = "ebnccl.test_report";
inline constexpr char kNodeListSchema[] = "ebnccl.node_list";
inline constexpr char kTestListSchema[] = "ebnccl.test_list";
inline constexpr int kJsonSchemaVersion = 1;
// The test report's layout: 2 since `version` became nccl-tests' integer
// file version (the ebnccl version moved to `ebnccl_version`).
inline constexpr int kTestReportSchemaVersion = 2;
// nccl-tests -J's file format version (util.cu JSON_FILE_VERSION), written
// as the report's `version`: our report is a superset of that format.
inline constexpr int kNcclTestsJsonVersion = 3;

// A test report, a superset of nccl-tests' -J file (format version 3):
// schema, version (3), ebnccl_version (the ebnccl version of the caller),
// nccl_version, test_id, state, transport, collective, start_time, end_time,
// config{}, devices[], results[], out_of_bounds{}, average_bus_bandwidth{},
// slowest_rank{} or null, failures[], errors[], summary and exit_code (what
// ebctl exits with for this report). Works on reports that are not final
// yet (end_time null, results so far).
nlohmann::json ReportToJson(const ebnccl::v1::TestReport& report,
                            absl::string_view version = kVersion);

// One result row (an element of ReportToJson's results[]), for streaming
// rows as JSON lines while a test runs.
nlohmann::json SizeResultToJson(const ebnccl::v1::SizeResult& row,
                                const ebnccl::v1::TestSpec& spec);

// The node list: schema, schema_version and nodes[] with every field of
// NodeStatus and its inventory.
nlohmann::json NodesToJson(const ebnccl::v1::ListNodesReply& reply);

// Writes NodesToJson(reply).dump(2) to `out`, a node at a time and without
// building trees (node_json_text.h): as one tree, a 1,024-node listing is
// ~20 MB of small allocations, which made up half of `ebctl nodes --json`'s
// 160-230 ms (issue 15).
void WriteNodesJson(const ebnccl::v1::ListNodesReply& reply, std::ostream& out);

// `ebctl tests --json`: schema, schema_version and tests[], each a test
// report (ReportToJson) without per-size results, newest first.
nlohmann::json TestListToJson(const ebnccl::v1::ListTestsReply& reply,
                              absl::string_view version = kVersion);

// `ebctl logs TEST --rank R --json`: test_id, rank, node, path, truncated
// and content (the end of the rank's worker log).
nlohmann::json LogToJson(absl::string_view test_id, int rank, const ebnccl::v1::GetLogReply& reply);

}  // namespace eb::ebctl
