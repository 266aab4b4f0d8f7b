#include "coordinator/core/collective_tests/run_failures.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/spec/failure_kinds.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

v1::Failure RankFailure(const v1::TestReport& report, int rank, v1::FailureKind kind,
                        const std::string& message) {
  const v1::RankAssignment& assignment = report.ranks(rank);
  v1::Failure failure;
  failure.set_kind(kind);
  failure.set_rank(rank);
  failure.set_node_name(assignment.node_name());
  failure.set_local_rank(assignment.local_rank());
  failure.set_device_index(assignment.device_index());
  failure.set_message(message);
  return failure;
}

v1::Failure UnattributedFailure(v1::FailureKind kind, const std::string& message,
                                const std::string& node) {
  v1::Failure failure;
  failure.set_kind(kind);
  failure.set_rank(-1);
  failure.set_node_name(node);
  failure.set_local_rank(-1);
  failure.set_device_index(-1);
  failure.set_message(message);
  return failure;
}

std::string DescribeRank(const v1::TestReport& report, int rank) {
  const v1::RankAssignment& assignment = report.ranks(rank);
  std::string text = absl::StrCat("rank ", rank, " (node ", assignment.node_name(), ", slot ",
                                  assignment.local_rank());
  if (assignment.device_index() >= 0) absl::StrAppend(&text, ", GPU ", assignment.device_index());
  return text + ")";
}

void OrderFailuresByCause(v1::TestReport& report) {
  std::stable_sort(report.mutable_failures()->begin(), report.mutable_failures()->end(),
                   [](const v1::Failure& a, const v1::Failure& b) {
                     return spec::RowOf(a.kind()).cause_priority <
                            spec::RowOf(b.kind()).cause_priority;
                   });
}

}  // namespace eb::coordinator
