#pragma once

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl topology` (issue 31): the fabric the coordinator loaded and what
// it and the agents' inventories disagree on. Exit 7 when they disagree, 0
// when they agree or no topology is loaded (docs/EXIT_CODES.md).
class TopologyCommand final : public Command {
 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
