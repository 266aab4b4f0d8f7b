#include "coordinator/ebctl/commands/validation_follow.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "common/time/clock.h"
#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "coordinator/ebctl/output/validation_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

ProgressStyle ProgressStyleOfStderr(const std::string& mode) {
  absl::StatusOr<ProgressStyle> style = ProgressStyleFor(mode, isatty(STDERR_FILENO) != 0);
  return style.ok() ? *style : ProgressStyle::kNone;
}

FollowResult FollowValidation(grpc::ClientReaderInterface<v1::ValidationEvent>& reader,
                              ProgressStyle style,
                              const std::function<bool(const v1::ValidationReport&)>& on_accepted) {
  FollowResult result;
  ValidationProgress progress(style, common::RealClock::Get());
  v1::ValidationEvent event;
  while (reader.Read(&event)) {
    result.connected = true;
    const std::string lines = progress.OnEvent(event);
    if (!lines.empty()) {
      std::fputs(lines.c_str(), stderr);
      std::fflush(stderr);  // a log sees each line as it happens
    }
    switch (event.event_case()) {
      case v1::ValidationEvent::kAccepted:
        result.validation_id = event.accepted().validation_id();
        if (!on_accepted(event.accepted())) return result;
        break;
      case v1::ValidationEvent::kFinished:
        result.report = event.finished();
        result.finished = true;
        break;
      default:
        break;
    }
  }
  return result;
}

int PrintValidation(const v1::ValidationReport& report, bool json) {
  if (json) {
    std::cout << ValidationToJson(report).dump(2) << std::endl;
  } else {
    std::cout << ValidationTable(report) << std::flush;
  }
  return ExitCodeForValidation(report);
}

}  // namespace eb::ebctl
