#pragma once

#include <cstdint>
#include <string>

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl logs TEST --rank R`: the end of one rank's worker log, read by its
// agent (the worker's own output and NCCL's log).
class LogsCommand final : public Command {
 public:
  std::string test_id;
  int rank = 0;
  int64_t max_bytes = 1 << 20;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
