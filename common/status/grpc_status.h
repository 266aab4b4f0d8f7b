#pragma once

// absl::Status <-> grpc::Status, code for code (STYLE.md rule 2). The two
// enums share their numbering, so no code is lost or mapped to UNKNOWN.

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace eb::common {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace eb::common
