#include "coordinator/ebctl/exit_codes.h"

#include "common/spec/failure_kinds.h"
#include "common/spec/validation_states.h"
#include "common/spec/verdicts.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
namespace {

int ExitCodeForFailure(v1::FailureKind kind) {
  switch (spec::RowOf(kind).exit) {
    case spec::FailureExit::kCheckFailed:
      return kExitCheckFailed;
    case spec::FailureExit::kCommunication:
      return kExitCommunication;
    case spec::FailureExit::kTimeout:
      return kExitTimeout;
    case spec::FailureExit::kInterrupted:
      return kExitInterrupted;
    case spec::FailureExit::kInternal:
      break;
  }
  return kExitInternal;
}

}  // namespace

int ExitCodeForReport(const v1::TestReport& report) {
  switch (report.state()) {
    case v1::TEST_STATE_PASSED:
      return kExitOk;
    case v1::TEST_STATE_TIMED_OUT:
      return kExitTimeout;
    case v1::TEST_STATE_CANCELLED:
    case v1::TEST_STATE_INTERRUPTED:  // the coordinator stopped mid-test
      return kExitInterrupted;
    case v1::TEST_STATE_FAILED:
      // The coordinator orders failures by cause: the first one is what
      // went wrong, later ones are usually consequences (peers of a dead
      // rank time out). A FAILED report without a cause is a bug.
      return report.failures().empty() ? kExitInternal
                                       : ExitCodeForFailure(report.failures(0).kind());
    case v1::TEST_STATE_LAUNCHING:
    case v1::TEST_STATE_INITIALIZING:
    case v1::TEST_STATE_RUNNING:
    case v1::TEST_STATE_STOPPING:
      return kExitOk;
    default:
      return kExitInternal;
  }
}

bool IsMessageSizeLimit(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kResourceExhausted) return false;
  const std::string message(status.message());
  return message.find("larger than max") != std::string::npos ||
         message.find("exceeds limit") != std::string::npos;
}

int ExitCodeForRpcError(const absl::Status& status, bool connected) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
      return kExitUsage;
    case absl::StatusCode::kResourceExhausted:
      // gRPC's own size limits are not a lack of free nodes or slots
      // (SECURITY_FINDINGS case 10 exited 5 for them).
      if (IsMessageSizeLimit(status)) return kExitInternal;
      return kExitResources;
    case absl::StatusCode::kFailedPrecondition:
      return kExitResources;
    case absl::StatusCode::kUnavailable:
      return kExitUnreachable;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return kExitPermissionDenied;
    case absl::StatusCode::kDeadlineExceeded:
      return connected ? kExitTimeout : kExitUnreachable;
    case absl::StatusCode::kCancelled:
      return kExitInterrupted;
    case absl::StatusCode::kAborted:
      return kExitCommunication;
    default:
      return kExitInternal;
  }
}

const char* ExitCodeMeaning(int code) {
  switch (code) {
    case kExitOk:
      return "success";
    case kExitInternal:
      return "internal error";
    case kExitUsage:
      return "usage error or request rejected as invalid";
    case kExitCommunication:
      return "a worker, node or communicator failed";
    case kExitTimeout:
      return "timeout";
    case kExitResources:
      return "not enough free resources";
    case kExitCheckFailed:
      return "wrong data or average bus bandwidth below --min-busbw";
    case kExitUnreachable:
      return "coordinator unreachable";
    case kExitPermissionDenied:
      return "permission denied (the caller's role does not allow it)";
    case kExitInterrupted:
      return "interrupted or cancelled";
    default:
      return "unknown exit code";
  }
}

int ExitCodeForValidation(const v1::ValidationReport& report) {
  bool unfit = false;
  bool untestable = false;
  for (const v1::NodeVerdict& node : report.nodes()) {
    switch (spec::WeightOf(node.verdict())) {
      case spec::VerdictWeight::kUnfit:
        unfit = true;
        break;
      case spec::VerdictWeight::kUnjudged:
        untestable = true;
        break;
      case spec::VerdictWeight::kBad:  // in any_bad, with bad paths, rails and findings
      case spec::VerdictWeight::kNone:
        break;
    }
  }
  for (const v1::ValidationFinding& finding : report.findings()) {
    if (spec::WeightOf(finding) == spec::VerdictWeight::kUnjudged) untestable = true;
  }
  if (report.any_bad() || unfit) return kExitCheckFailed;
  switch (spec::RowOf(report.state()).exit) {
    case spec::ValidationExit::kOk:
      return kExitOk;
    case spec::ValidationExit::kOkUnlessUntestable:
      return untestable ? kExitCommunication : kExitOk;
    case spec::ValidationExit::kInterrupted:
      return kExitInterrupted;
    case spec::ValidationExit::kTimeout:
      return kExitTimeout;
    case spec::ValidationExit::kInternal:
      break;
  }
  return kExitInternal;
}

}  // namespace eb::ebctl
