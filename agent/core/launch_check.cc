#include "agent/core/launch_check.h"

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
  return absl::OkStatus();
}

}  // namespace eb::agent
