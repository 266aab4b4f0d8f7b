#pragma once

// `ebctl jobs`, `ebctl show TEST` and `ebctl cancel TEST`: the coordinator's
// record of tests.

#include <string>

#include "coordinator/ebctl/command.h"

namespace eb::ebctl {

class JobsCommand final : public Command {
 public:
  int limit = 20;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

class ShowCommand final : public Command {
 public:
  std::string test_id;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

class CancelCommand final : public Command {
 public:
  std::string test_id;

 protected:
  int Execute(ebnccl::v1::Control::Stub& stub, const GlobalOptions& options) override;
};

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
