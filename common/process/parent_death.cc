#include "common/process/parent_death.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace eb::common {

absl::Status DieWithParent(pid_t expected_parent, int signal) {
  if (signal <= 0 || signal >= NSIG) {
    return absl::InvalidArgumentError(absl::StrCat("bad parent-death signal ", signal));
  }
  if (expected_parent <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("bad expected parent pid ", expected_parent));
  }
  if (prctl(PR_SET_PDEATHSIG, static_cast<unsigned long>(signal), 0, 0, 0) != 0) {
    return absl::InternalError(absl::StrCat("prctl(PR_SET_PDEATHSIG): ", strerrordesc_np(errno)));
  }
  // Checked after the prctl: a parent that dies from here on triggers the
  // signal, one that died before shows up as a different parent pid.
  const pid_t parent = getppid();
  if (parent != expected_parent) {
    return absl::FailedPreconditionError(absl::StrCat("parent already gone: expected parent pid ",
                                                      expected_parent, ", now ", parent));
  }
  return absl::OkStatus();
}

}  // namespace eb::common
