#pragma once

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl validations`: recent validations, newest first (running ones and
// the history).
class ValidationsCommand final : public Command {
 public:
  int limit = 0;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
