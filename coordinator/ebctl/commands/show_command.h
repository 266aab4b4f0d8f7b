#pragma once

#include <string>

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl show TEST`: one test's report, running or recorded, as the
// nccl-tests table (or JSON); the exit code is the test's.
class ShowCommand final : public Command {
 public:
  std::string test_id;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
