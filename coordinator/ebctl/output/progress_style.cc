#include "coordinator/ebctl/output/progress_style.h"

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace eb::ebctl {

absl::StatusOr<ProgressStyle> ProgressStyleFor(absl::string_view mode, bool stderr_is_terminal) {
  if (mode == "auto") return stderr_is_terminal ? ProgressStyle::kTerminal : ProgressStyle::kLog;
  if (mode == "always") return ProgressStyle::kLog;
  if (mode == "never") return ProgressStyle::kNone;
  return absl::InvalidArgumentError(
      absl::StrCat("--progress: '", mode, "' is not auto, always or never"));
}

std::string ProgressLine(ProgressStyle style, const common::Clock& clock, absl::string_view text) {
  switch (style) {
    case ProgressStyle::kNone:
      return "";
    case ProgressStyle::kTerminal:
      return absl::StrCat("ebctl: ", text, "\n");
    case ProgressStyle::kLog:
      // Seconds are enough for a log line (journald adds its own time too).
      return absl::StrCat(absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", clock.Now(), absl::UTCTimeZone()),
                          " ebctl: ", text, "\n");
  }
  return "";
}

}  // namespace eb::ebctl
