#pragma once

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

// `ebctl audit`: the coordinator's audit log, newest first (role admin:
// it names every identity and every refused attempt).
class AuditCommand final : public Command {
 public:
  int limit = 50;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

}  // namespace eb::ebctl
