#pragma once

// Reads a RunValidation or WatchValidation stream to its end: progress per
// round and test on stderr (--progress: output/validation_progress.h), then
// the verdict table or the JSON on stdout. Shared by `validate` and `show
// v-... --follow`.

#include <memory>
#include <string>

#include "coordinator/ebctl/output/validation_progress.h"
#include "ebnccl/v1/control.grpc.pb.h"
#include "grpcpp/support/sync_stream.h"

namespace eb::ebctl {

struct FollowResult {
  bool finished = false;   // the `finished` event came
  bool connected = false;  // any event came
  std::string validation_id;
  ebnccl::v1::ValidationReport report;  // the final one when finished
};

// --progress's word (checked by the parser) for this process's stderr:
// kNone for a word it does not know.
ProgressStyle ProgressStyleOfStderr(const std::string& mode);

// `on_accepted` runs after the first event (e.g. to print the id); it
// returns false to stop reading at once (--detach). Progress lines go to
// stderr in `style`.
FollowResult FollowValidation(
    grpc::ClientReaderInterface<ebnccl::v1::ValidationEvent>& reader, ProgressStyle style,
    const std::function<bool(const ebnccl::v1::ValidationReport&)>& on_accepted);

// The report on stdout (JSON or table) and its exit code.
int PrintValidation(const ebnccl::v1::ValidationReport& report, bool json);

}  // namespace eb::ebctl
