#include "coordinator/ebctl/exit_codes.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/unit/ebctl/test_reports.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;

v1::TestReport WithState(v1::TestState state) {
  v1::TestReport report;
  report.set_state(state);
  return report;
}

v1::TestReport FailedWith(v1::FailureKind primary, v1::FailureKind secondary) {
  v1::TestReport report = WithState(v1::TEST_STATE_FAILED);
  report.add_failures()->set_kind(primary);
  report.add_failures()->set_kind(secondary);
  return report;
}

TEST(ExitCodesTest, DocumentedValues) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitInternal, 1);
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitCommunication, 3);
  EXPECT_EQ(kExitTimeout, 4);
  EXPECT_EQ(kExitResources, 5);
  EXPECT_EQ(kExitCheckFailed, 7);
  EXPECT_EQ(kExitUnreachable, 8);
  EXPECT_EQ(kExitPermissionDenied, 9);
  EXPECT_EQ(kExitInterrupted, 130);
}

TEST(ExitCodeForReportTest, EveryState) {
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_UNSPECIFIED)), kExitInternal);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_LAUNCHING)), kExitOk);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_INITIALIZING)), kExitOk);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_RUNNING)), kExitOk);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_STOPPING)), kExitOk);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_PASSED)), kExitOk);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_TIMED_OUT)), kExitTimeout);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_CANCELLED)), kExitInterrupted);
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_INTERRUPTED)), kExitInterrupted);
  EXPECT_EQ(ExitCodeForReport(WithState(static_cast<v1::TestState>(99))), kExitInternal);
  // FAILED without any failure is an inconsistent report.
  EXPECT_EQ(ExitCodeForReport(WithState(v1::TEST_STATE_FAILED)), kExitInternal);
}

TEST(ExitCodeForReportTest, FailedByEveryPrimaryFailureKind) {
  const struct {
    v1::FailureKind kind;
    int code;
  } kCases[] = {
      {v1::FAILURE_KIND_UNSPECIFIED, kExitInternal},
      {v1::FAILURE_KIND_WORKER_EXITED, kExitCommunication},
      {v1::FAILURE_KIND_WORKER_HUNG, kExitCommunication},
      {v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT, kExitTimeout},
      {v1::FAILURE_KIND_NODE_LOST, kExitCommunication},
      {v1::FAILURE_KIND_COMMUNICATION_ERROR, kExitCommunication},
      {v1::FAILURE_KIND_TIMEOUT, kExitTimeout},
      {v1::FAILURE_KIND_WRONG_DATA, kExitCheckFailed},
      {v1::FAILURE_KIND_BELOW_MIN_BUSBW, kExitCheckFailed},
      {v1::FAILURE_KIND_LAUNCH_FAILED, kExitCommunication},
      {v1::FAILURE_KIND_INTERNAL, kExitInternal},
      {v1::FAILURE_KIND_INTERRUPTED, kExitInterrupted},
      {v1::FAILURE_KIND_TOO_SLOW, kExitCheckFailed},
      {v1::FAILURE_KIND_NO_PROGRESS, kExitTimeout},
      {v1::FAILURE_KIND_UNEXPECTED_PATH, kExitCheckFailed},
      {static_cast<v1::FailureKind>(99), kExitInternal},
  };
  for (const auto& c : kCases) {
    // The secondary failure must not matter: only failures[0] decides.
    EXPECT_EQ(ExitCodeForReport(FailedWith(c.kind, v1::FAILURE_KIND_WRONG_DATA)), c.code)
        << v1::FailureKind_Name(c.kind);
    EXPECT_EQ(ExitCodeForReport(FailedWith(c.kind, v1::FAILURE_KIND_NODE_LOST)), c.code)
        << v1::FailureKind_Name(c.kind);
  }
  // Every known kind is covered above.
  EXPECT_EQ(v1::FailureKind_MAX, v1::FAILURE_KIND_UNEXPECTED_PATH);
}

TEST(ExitCodeForReportTest, StateWinsOverFailureKind) {
  v1::TestReport report = FailedWith(v1::FAILURE_KIND_WRONG_DATA, v1::FAILURE_KIND_WRONG_DATA);
  report.set_state(v1::TEST_STATE_TIMED_OUT);
  EXPECT_EQ(ExitCodeForReport(report), kExitTimeout);
  report.set_state(v1::TEST_STATE_CANCELLED);
  EXPECT_EQ(ExitCodeForReport(report), kExitInterrupted);
  EXPECT_EQ(ExitCodeForReport(testing::TwoRankReport()), kExitCommunication);
}

TEST(ExitCodeForRpcErrorTest, EveryStatusCode) {
  const struct {
    absl::StatusCode code;
    int before_connect;
    int after_connect;
  } kCases[] = {
      {absl::StatusCode::kOk, kExitOk, kExitOk},
      {absl::StatusCode::kCancelled, kExitInterrupted, kExitInterrupted},
      {absl::StatusCode::kUnknown, kExitInternal, kExitInternal},
      {absl::StatusCode::kInvalidArgument, kExitUsage, kExitUsage},
      {absl::StatusCode::kDeadlineExceeded, kExitUnreachable, kExitTimeout},
      {absl::StatusCode::kNotFound, kExitUsage, kExitUsage},
      {absl::StatusCode::kAlreadyExists, kExitUsage, kExitUsage},
      {absl::StatusCode::kPermissionDenied, kExitPermissionDenied, kExitPermissionDenied},
      {absl::StatusCode::kResourceExhausted, kExitResources, kExitResources},
      {absl::StatusCode::kFailedPrecondition, kExitResources, kExitResources},
      {absl::StatusCode::kAborted, kExitCommunication, kExitCommunication},
      {absl::StatusCode::kOutOfRange, kExitInternal, kExitInternal},
      {absl::StatusCode::kUnimplemented, kExitInternal, kExitInternal},
      {absl::StatusCode::kInternal, kExitInternal, kExitInternal},
      {absl::StatusCode::kUnavailable, kExitUnreachable, kExitUnreachable},
      {absl::StatusCode::kDataLoss, kExitInternal, kExitInternal},
      {absl::StatusCode::kUnauthenticated, kExitPermissionDenied, kExitPermissionDenied},
  };
  for (const auto& c : kCases) {
    const absl::Status status(c.code, "x");
    EXPECT_EQ(ExitCodeForRpcError(status, /*connected=*/false), c.before_connect) << status;
    EXPECT_EQ(ExitCodeForRpcError(status, /*connected=*/true), c.after_connect) << status;
  }
}

// SECURITY_FINDINGS case 10: "Received message larger than max (7144159 vs
// 4194304)" exited 5, "not enough resources".
TEST(ExitCodeForRpcErrorTest, Case10GrpcSizeLimitsAreNotAShortageOfResources) {
  const absl::Status too_large =
      absl::ResourceExhaustedError("Received message larger than max (7144159 vs. 4194304)");
  EXPECT_TRUE(IsMessageSizeLimit(too_large));
  EXPECT_EQ(ExitCodeForRpcError(too_large, true), kExitInternal);
  const absl::Status metadata =
      absl::ResourceExhaustedError("received initial metadata size exceeds limit");
  EXPECT_EQ(ExitCodeForRpcError(metadata, true), kExitInternal);
  const absl::Status busy = absl::ResourceExhaustedError("node 'a' is busy with test t-1");
  EXPECT_FALSE(IsMessageSizeLimit(busy));
  EXPECT_EQ(ExitCodeForRpcError(busy, true), kExitResources);
}

TEST(ExitCodeMeaningTest, EveryCodeHasAMeaning) {
  for (int code :
       {kExitOk, kExitInternal, kExitUsage, kExitCommunication, kExitTimeout, kExitResources,
        kExitCheckFailed, kExitUnreachable, kExitPermissionDenied, kExitInterrupted}) {
    EXPECT_NE(std::string(ExitCodeMeaning(code)), "unknown exit code") << code;
  }
  EXPECT_EQ(std::string(ExitCodeMeaning(6)), "unknown exit code");
  EXPECT_EQ(std::string(ExitCodeMeaning(kExitCheckFailed)),
            "wrong data or average bus bandwidth below --min-busbw");
}

}  // namespace
}  // namespace eb::ebctl
