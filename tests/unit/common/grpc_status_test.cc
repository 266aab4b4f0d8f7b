// absl::Status <-> grpc::Status is 1:1 for every code (STYLE.md rule 2): no
// code is lost or folded into UNKNOWN, and the message survives.

#include "common/status/grpc_status.h"

#include <string>
#include <utility>
#include <vector>

#include "common/spec/limits.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

// Every canonical code, paired by name (not by number).
const std::vector<std::pair<absl::StatusCode, grpc::StatusCode>>& AllCodes() {
  static const auto* const kCodes = new std::vector<std::pair<absl::StatusCode, grpc::StatusCode>>{
      {absl::StatusCode::kOk, grpc::StatusCode::OK},
      {absl::StatusCode::kCancelled, grpc::StatusCode::CANCELLED},
      {absl::StatusCode::kUnknown, grpc::StatusCode::UNKNOWN},
      {absl::StatusCode::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
      {absl::StatusCode::kDeadlineExceeded, grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::StatusCode::kNotFound, grpc::StatusCode::NOT_FOUND},
      {absl::StatusCode::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {absl::StatusCode::kPermissionDenied, grpc::StatusCode::PERMISSION_DENIED},
      {absl::StatusCode::kResourceExhausted, grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::StatusCode::kFailedPrecondition, grpc::StatusCode::FAILED_PRECONDITION},
      {absl::StatusCode::kAborted, grpc::StatusCode::ABORTED},
      {absl::StatusCode::kOutOfRange, grpc::StatusCode::OUT_OF_RANGE},
      {absl::StatusCode::kUnimplemented, grpc::StatusCode::UNIMPLEMENTED},
      {absl::StatusCode::kInternal, grpc::StatusCode::INTERNAL},
      {absl::StatusCode::kUnavailable, grpc::StatusCode::UNAVAILABLE},
      {absl::StatusCode::kDataLoss, grpc::StatusCode::DATA_LOSS},
      {absl::StatusCode::kUnauthenticated, grpc::StatusCode::UNAUTHENTICATED},
  };
  return *kCodes;
}

TEST(GrpcStatusTest, CoversAll17Codes) { EXPECT_EQ(AllCodes().size(), 17u); }

TEST(GrpcStatusTest, AbslToGrpcKeepsCodeAndMessage) {
  for (const auto& [absl_code, grpc_code] : AllCodes()) {
    if (absl_code == absl::StatusCode::kOk) continue;
    const std::string message = "job=t-1 rank=3: " + absl::StatusCodeToString(absl_code);
    const grpc::Status converted = ToGrpcStatus(absl::Status(absl_code, message));
    EXPECT_EQ(converted.error_code(), grpc_code) << message;
    EXPECT_EQ(converted.error_message(), message);
    EXPECT_FALSE(converted.ok());
  }
}

TEST(GrpcStatusTest, GrpcToAbslKeepsCodeAndMessage) {
  for (const auto& [absl_code, grpc_code] : AllCodes()) {
    if (grpc_code == grpc::StatusCode::OK) continue;
    const std::string message = "peer said: " + std::to_string(static_cast<int>(grpc_code));
    const absl::Status converted = FromGrpcStatus(grpc::Status(grpc_code, message));
    EXPECT_EQ(converted.code(), absl_code) << message;
    EXPECT_EQ(converted.message(), message);
  }
}

TEST(GrpcStatusTest, RoundTripsBothWays) {
  for (const auto& [absl_code, grpc_code] : AllCodes()) {
    const absl::Status original(absl_code, absl_code == absl::StatusCode::kOk ? "" : "why: x=1");
    EXPECT_EQ(FromGrpcStatus(ToGrpcStatus(original)), original) << original;

    const grpc::Status wire(grpc_code, grpc_code == grpc::StatusCode::OK ? "" : "because");
    const grpc::Status back = ToGrpcStatus(FromGrpcStatus(wire));
    EXPECT_EQ(back.error_code(), wire.error_code());
    EXPECT_EQ(back.error_message(), wire.error_message());
  }
}

TEST(GrpcStatusTest, OkIsOk) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
}

TEST(GrpcStatusTest, EmptyAndBinaryMessagesSurvive) {
  EXPECT_EQ(FromGrpcStatus(ToGrpcStatus(absl::UnavailableError(""))), absl::UnavailableError(""));
  static constexpr char kOdd[] = "nul\0byte, utf-8 \xc3\xa9, newline\n";
  const std::string odd(kOdd, sizeof(kOdd) - 1);
  EXPECT_EQ(FromGrpcStatus(ToGrpcStatus(absl::AbortedError(odd))).message(), odd);
}

// A status message travels as the grpc-message trailer: one over the peer's
// metadata limit (8 KiB in gRPC 1.51) ended the peer's whole connection (a
// rendezvous timeout naming many long keys dropped an agent's session;
// issue 32, the compromised-agent benchmark). Cut to the bound, valid
// UTF-8, saying how much was cut; one at the bound goes as it is.
TEST(GrpcStatusTest, AMessageOverTheBoundIsCutToFitThePeersMetadataLimit) {
  const std::string at_bound(spec::kMaxStatusMessageBytes, 'k');
  EXPECT_EQ(ToGrpcStatus(absl::DeadlineExceededError(at_bound)).error_message(), at_bound);
  const grpc::Status cut = ToGrpcStatus(absl::DeadlineExceededError(std::string(100000, 'k')));
  EXPECT_EQ(cut.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LE(cut.error_message().size(), spec::kMaxStatusMessageBytes);
  EXPECT_NE(cut.error_message().find("[cut "), std::string::npos) << cut.error_message();
}

}  // namespace
}  // namespace eb::common
