#include "common/status/grpc_status.h"

#include <string>

#include "common/spec/bounded_text.h"
#include "common/spec/limits.h"

namespace eb::common {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // Bounded: the message travels as the grpc-message trailer, and a
  // trailer over the peer's metadata limit (8 KiB in gRPC 1.51) broke the
  // peer's whole connection, its other calls and an agent's session
  // included ("received initial metadata size exceeds limit").
  // A message within the bound goes as it is, bytes and all.
  const absl::string_view message = status.message();
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      message.size() <= spec::kMaxStatusMessageBytes
                          ? std::string(message)
                          : spec::BoundedText(message, spec::kMaxStatusMessageBytes));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace eb::common
