#pragma once

// The "schema" of each --json document ebctl prints and the version of its
// layout, in one place so that a bump is one edit (docs/JSON_SCHEMA.md,
// "Versioning and general rules").

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

}  // namespace eb::ebctl
