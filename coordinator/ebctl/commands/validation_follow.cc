#include "coordinator/ebctl/commands/validation_follow.h"

#include <cstdio>
#include <iostream>

#include "coordinator/ebctl/exit_codes.h"
#include "coordinator/ebctl/output/validation_json.h"
#include "coordinator/ebctl/output/validation_table.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;

FollowResult FollowValidation(grpc::ClientReaderInterface<v1::ValidationEvent>& reader,
                              bool progress,
                              const std::function<bool(const v1::ValidationReport&)>& on_accepted) {
  FollowResult result;
  v1::ValidationEvent event;
  while (reader.Read(&event)) {
    result.connected = true;
    switch (event.event_case()) {
      case v1::ValidationEvent::kAccepted:
        result.validation_id = event.accepted().validation_id();
        if (progress) {
          std::fprintf(stderr, "ebctl: validation %s over %d node(s)\n",
                       result.validation_id.c_str(), event.accepted().nodes_size());
        }
        if (!on_accepted(event.accepted())) return result;
        break;
      case v1::ValidationEvent::kRoundStarted:
        if (progress) std::fprintf(stderr, "ebctl: %s\n", RoundLine(event.round_started()).c_str());
        break;
      case v1::ValidationEvent::kTestFinished:
        if (progress) std::fprintf(stderr, "ebctl: %s\n", TestLine(event.test_finished()).c_str());
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
