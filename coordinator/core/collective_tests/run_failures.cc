#include "coordinator/core/collective_tests/run_failures.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// Lower sorts first: the failure most likely to be the root cause leads.
int CausePriority(v1::FailureKind kind) {
  switch (kind) {
    case v1::FAILURE_KIND_NODE_LOST:
      return 0;
    case v1::FAILURE_KIND_WORKER_EXITED:
    case v1::FAILURE_KIND_WORKER_HUNG:
      return 1;
    case v1::FAILURE_KIND_LAUNCH_FAILED:
      return 2;
    case v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT:
    case v1::FAILURE_KIND_TIMEOUT:
    case v1::FAILURE_KIND_TOO_SLOW:
      return 3;
    case v1::FAILURE_KIND_COMMUNICATION_ERROR:
      return 4;
    case v1::FAILURE_KIND_WRONG_DATA:
      return 5;
    case v1::FAILURE_KIND_BELOW_MIN_BUSBW:
      return 6;
    default:
      return 7;
  }
}

}  // namespace

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
                     return CausePriority(a.kind()) < CausePriority(b.kind());
                   });
}

}  // namespace eb::coordinator
