#pragma once

// `ebctl run-test --json-lines`: the test as a stream of JSON Lines
// (https://jsonlines.org), one compact object per line, written as the
// results arrive, for dashboards and log shippers that read line by line:
//
//   {"schema":"ebnccl.test_row","schema_version":1,"test_id":"t-...","collective":"all_reduce",
//    "transport":"gloo","ranks":4,"size":8,...}                       one per result row
//   {"schema":"ebnccl.test_report",...}                                the last line
//
// A row line carries the test's identity beside the fields of one element
// of the --json report's results[] (SizeResultToJson), so that a reader
// needs no state across lines. The last line is the --json report without
// results[] (they were the rows). docs/JSON_SCHEMA.md describes both.
// Pure functions, callable from any thread.

#include <string>

#include "absl/strings/string_view.h"
#include "common/version/version.h"
#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

inline constexpr char kTestRowSchema[] = "ebnccl.test_row";

// One result row of the test `accepted` (the report of its accepted
// event: id, spec, ranks, transport).
nlohmann::json RowJsonLine(const ebnccl::v1::SizeResult& row,
                           const ebnccl::v1::TestReport& accepted);

// The last line: ReportToJson(finished) without results[].
nlohmann::json FinishedJsonLine(const ebnccl::v1::TestReport& finished,
                                absl::string_view version = kVersion);

// `line` on one line (compact; newlines inside strings are escaped) and
// '\n'.
std::string ToJsonLine(const nlohmann::json& line);

}  // namespace eb::ebctl
