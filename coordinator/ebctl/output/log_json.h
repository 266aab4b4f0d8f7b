#pragma once

// `ebctl logs TEST --rank R --json`: the end of one rank's worker log.
// Pure, callable from any thread.

#include "absl/strings/string_view.h"
#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

// test_id, rank, node, path, truncated and content (the end of the rank's
// worker log).
nlohmann::json LogToJson(absl::string_view test_id, int rank, const ebnccl::v1::GetLogReply& reply);

}  // namespace eb::ebctl
