#pragma once

// `ebctl version`: this ebctl's version and the coordinator's, so that an
// operator sees a mismatch before it matters. The coordinator reports its
// version in ListNodesReply.coordinator_version; an older coordinator
// leaves it empty ("unknown").

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

class VersionCommand final : public Command {
 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
