#pragma once

#include <string>

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl tests` (alias `jobs`, its name before the nouns were settled): the
// coordinator's running and recorded tests, newest first, optionally only
// those on some nodes, in some states or started since a time (filtered
// here, over the newest spec::kMaxListedTests the coordinator lists).
class TestsCommand final : public Command {
 public:
  int limit = 20;
  // --node, --state, --since as typed (see ParseTestsFilter).
  std::string nodes;
  std::string states;
  std::string since;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
