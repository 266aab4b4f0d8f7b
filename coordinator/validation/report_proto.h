#pragma once

// The core's verdicts (ValidationReport, verdict.h) as the wire's
// ValidationReport fields: nodes, paths, rails, findings, summary, any_bad;
// and the baselines table as BaselineUsed rows. Pure.

#include <cstdint>
#include <functional>
#include <string>

#include "coordinator/validation/baselines.h"
#include "coordinator/validation/verdict.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// The coordinator's test id of a planned test ("" when unknown).
using TestIdOf = std::function<std::string(int64_t planned_id)>;

// Replaces nodes, paths, rails, findings, summary and any_bad of `out`.
void FillVerdicts(const ValidationReport& report, const TestIdOf& test_id_of,
                  ebnccl::v1::ValidationReport& out);

// "4 nodes: 3 healthy, 1 degraded (node-c)".
std::string ValidationSummary(const ValidationReport& report);

// Replaces baselines (the figures of `table`), baselines_origin and
// baselines_error of `out`: where the figures came from, or why the file
// meant to give them could not be read (then `table` is empty and no file
// is named as used).
void FillBaselines(const BaselineTable& table, const std::string& origin, const std::string& error,
                   ebnccl::v1::ValidationReport& out);

}  // namespace eb::validation
