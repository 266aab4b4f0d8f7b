#include "agent/host/nccl_probe.h"

#include <utility>

#include "agent/host/child_probe.h"

namespace eb::agent {

absl::StatusOr<std::string> ProbeWorkerNcclVersion(common::ProcessLauncher& launcher,
                                                   common::ProcessSpec spec,
                                                   absl::Duration timeout) {
  absl::StatusOr<std::string> text = RunChildProbe(launcher, std::move(spec), timeout);
  if (!text.ok()) return text.status();
  return ParseNcclVersionOutput(*text);
}

}  // namespace eb::agent
