#pragma once

// How a finished test counts for the validation (issue 11): a measurement,
// an infrastructure failure (never a hardware verdict), or a hardware
// failure attributed to a node. Pure.

#include <cstdint>

#include "coordinator/validation/plan.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// The busbw of the largest size (the last row of the sweep): the mean of
// the out-of-place and in-place variants, GB/s, as judged (common/spec/
// judged_figures.h: no node's ranks can raise it); 0 without rows.
double LargestSizeBusbw(const ebnccl::v1::TestReport& report);

// Maps the final report of planned test `planned_id`:
//  * PASSED, or FAILED only below --min-busbw: Completed with the busbw of
//    the largest size (the validation grades it, not --min-busbw), that
//    size, and the sweep's plateau (graded_size.h, PlateauBytes);
//  * node_lost, launch_failed, worker_registration_timeout, a timeout
//    before any row, cancelled, interrupted, internal, or a failure naming
//    no node: InfraFailure naming the nodes the primary kind names;
//  * wrong_data, communication_error, worker_exited, worker_hung, or a
//    timeout after some rows, attributed to a rank: HardwareFailure naming
//    the node of the primary failure (peers' errors follow from it).
TestResult ResultFromReport(int64_t planned_id, const ebnccl::v1::TestReport& report);

}  // namespace eb::validation
