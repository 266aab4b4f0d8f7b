#include "common/process/subreaper.h"

#include <string.h>
#include <sys/prctl.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace eb::common {

absl::Status Subreaper::Enable() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    return absl::InternalError(
        absl::StrCat("prctl(PR_SET_CHILD_SUBREAPER): ", strerrordesc_np(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Subreaper::IsEnabled() {
  int enabled = 0;
  if (prctl(PR_GET_CHILD_SUBREAPER, &enabled, 0, 0, 0) != 0) {
    return absl::InternalError(
        absl::StrCat("prctl(PR_GET_CHILD_SUBREAPER): ", strerrordesc_np(errno)));
  }
  return enabled != 0;
}

}  // namespace eb::common
