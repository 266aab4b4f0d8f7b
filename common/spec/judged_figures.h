#pragma once

// The figures every check judges (VariantResult.judged_*, coordinator/
// core/collective_tests/judged_time.h): --min-busbw, validation's grades,
// rail ratios. Reports stored before the fields have them at 0 and are read
// by their shown figures. Pure; any thread.

#include "ebnccl/v1/common.pb.h"

namespace eb::spec {

// The busbw a check judges `variant` by.
inline double JudgedBusbw(const ebnccl::v1::VariantResult& variant) {
  return variant.judged_time_us() > 0 ? variant.judged_busbw_gbps() : variant.busbw_gbps();
}

// The mean of both variants' judged busbw: one row's figure.
inline double JudgedRowBusbw(const ebnccl::v1::SizeResult& row) {
  return (JudgedBusbw(row.out_of_place()) + JudgedBusbw(row.in_place())) / 2;
}

// A judged mean (TestReport, CollectiveSummary, RailResult
// .judged_avg_busbw_gbps), or the shown one where a stored report has none.
inline double JudgedMean(double judged_mean, double shown_mean) {
  return judged_mean > 0 ? judged_mean : shown_mean;
}

}  // namespace eb::spec
