#pragma once

// How `validate`, `show v-... --follow` and `run-test` show progress on
// stderr (--progress auto|always|never, issue 33 item 3). Progress was
// printed only on a terminal, so the nightly service, the Slurm job and the
// Kubernetes CronJob logged nothing for hours. Pure apart from the clock (an
// interface: tests advance a fake one).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/time/clock.h"

namespace eb::ebctl {

enum class ProgressStyle {
  kNone,      // --progress never (and validate --detach)
  kTerminal,  // a person watching: "ebctl: ..." (and estimates)
  kLog,       // a log: "<UTC time> ebctl: ..."
};

// "auto" is kTerminal on a terminal and kLog elsewhere (a file, journald, a
// pipe); "always" is kLog wherever stderr goes (the lines a log gets, on a
// terminal too); "never" is kNone. INVALID_ARGUMENT naming --progress for
// another word.
absl::StatusOr<ProgressStyle> ProgressStyleFor(absl::string_view mode, bool stderr_is_terminal);

// One progress line: "ebctl: <text>\n", or with kLog
// "2030-01-15T08:00:05Z ebctl: <text>\n"; "" with kNone.
std::string ProgressLine(ProgressStyle style, const common::Clock& clock, absl::string_view text);

}  // namespace eb::ebctl
