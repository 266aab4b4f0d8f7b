#pragma once

// ValidationHistory kept in memory: unit tests and `--history-path ''`.

#include <map>
#include <string>
#include <vector>

#include "coordinator/history/validation_history.h"

namespace eb::coordinator {

class InMemoryValidationHistory final : public ValidationHistory {
 public:
  absl::Status Save(const ebnccl::v1::ValidationReport& report) override;
  absl::StatusOr<ebnccl::v1::ValidationReport> Get(const std::string& id) const override;
  absl::StatusOr<std::vector<ebnccl::v1::ValidationReport>> List(int limit) const override;
  absl::StatusOr<std::vector<NodeVerdictRecord>> LastVerdicts() const override;

 private:
  std::map<std::string, ebnccl::v1::ValidationReport> reports_;
  std::map<std::string, NodeVerdictRecord> verdicts_;  // by node
};

}  // namespace eb::coordinator
