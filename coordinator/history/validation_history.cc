#include "coordinator/history/validation_history.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

bool IsTerminalValidationState(v1::ValidationState state) {
  return state != v1::VALIDATION_STATE_UNSPECIFIED && state != v1::VALIDATION_STATE_RUNNING;
}

bool IsBadVerdict(const std::string& verdict) {
  return verdict == "degraded" || verdict == "failed";
}

v1::ValidationReport WithoutEvidence(const v1::ValidationReport& report) {
  v1::ValidationReport copy = report;
  for (v1::NodeVerdict& node : *copy.mutable_nodes()) node.clear_evidence();
  for (v1::PathVerdict& path : *copy.mutable_paths()) path.clear_evidence();
  return copy;
}

}  // namespace eb::coordinator
