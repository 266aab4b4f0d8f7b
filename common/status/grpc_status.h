#pragma once

// absl::Status <-> grpc::Status, code for code (STYLE.md rule 2). The two
// enums share their numbering, so no code is lost or mapped to UNKNOWN. The
// message is cut to spec::kMaxStatusMessageBytes on the way out (valid
// UTF-8, "…[cut N bytes]"): it must fit the peer's metadata limit.

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace eb::common {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace eb::common
