#pragma once

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl nodes`: the agents the coordinator knows, with state and inventory.
class NodesCommand final : public Command {
 public:
  // --gpus: a line per GPU after the table (GpusTable).
  bool gpus = false;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
