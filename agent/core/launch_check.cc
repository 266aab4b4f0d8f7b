#include "agent/core/launch_check.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "common/transport/collective_layout.h"

namespace eb::agent {

absl::Status CheckLaunch(const ebnccl::v1::LaunchTest& launch) {
  if (absl::Status sizes = transport::CheckSweepSizes(launch.sizes_bytes(),
                                                      launch.spec().max_bytes(), "sizes_bytes");
      !sizes.ok()) {
    return sizes;
  }
  if (launch.init_timeout_ms() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("init_timeout_ms: must be > 0, got ", launch.init_timeout_ms()));
  }
  if (launch.op_timeout_ms() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("op_timeout_ms: must be > 0, got ", launch.op_timeout_ms()));
  }
  // The supervisor knows a worker by its rank (exits, registrations): two
  // workers of one rank could never both be reaped, and the test would
  // never end (found by tests/fuzz/agent_commands_fuzz).
  std::set<int> ranks;
  for (const ebnccl::v1::RankAssignment& assignment : launch.ranks()) {
    if (!ranks.insert(assignment.rank()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("ranks: rank ", assignment.rank(), " is assigned twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace eb::agent
