#include <string.h>

#include "absl/strings/str_cat.h"
#include "common/process/process_launcher.h"

namespace eb::common {

std::string ExitInfo::Describe() const {
  if (signal != 0) {
    const char* abbrev = sigabbrev_np(signal);
    return absl::StrCat("killed by signal ", signal,
                        abbrev ? absl::StrCat(" (SIG", abbrev, ")") : "");
  }
  return absl::StrCat("exit code ", exit_code);
}

}  // namespace eb::common
