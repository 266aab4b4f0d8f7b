#pragma once

#include <string>

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl cancel TEST`: asks the coordinator to stop a running test; its
// workers are stopped and the test ends CANCELLED.
class CancelCommand final : public Command {
 public:
  std::string test_id;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
