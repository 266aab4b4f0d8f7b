#pragma once

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl tests` (alias `jobs`, its name before the nouns were settled): the
// coordinator's running and recorded tests, newest first.
class TestsCommand final : public Command {
 public:
  int limit = 20;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
