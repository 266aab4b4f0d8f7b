#pragma once

// `ebctl validate` / `show v-...` / `validations` as text: one progress line
// per round and per test (stderr), then one row per node (verdict,
// confidence, the evidence), the bad paths and rails, the findings and the
// summary. Pure functions, callable from any thread.

#include <string>

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// "running", "done", "cancelled", ...; "unknown(<n>)" for a newer state.
std::string ValidationStateName(ebnccl::v1::ValidationState state);

// "round 2 (pair round 1): 2 tests: a+b, c+d"
std::string RoundLine(const ebnccl::v1::ValidationRound& round);
// "  t-3 a+b: completed, 11.2 GB/s"
std::string TestLine(const ebnccl::v1::ValidationTest& test);

// The verdict table, bad paths and rails, findings and the summary line.
std::string ValidationTable(const ebnccl::v1::ValidationReport& report);

// `ebctl validations`: one row per validation, newest first.
std::string ValidationListTable(const ebnccl::v1::ListValidationsReply& reply);

}  // namespace eb::ebctl
