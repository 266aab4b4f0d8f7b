#include "common/spec/failure_kinds.h"

#include "common/spec/wire_switch.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;

namespace {

using Exit = FailureExit;
using Blame = FailureBlame;
using Culprit = FailureCulprit;

// cause_priority, exit, timed_out, speaks_to_network, blame, culprit
constexpr FailureKindRow kNodeLost{0,     Exit::kCommunication,   false,
                                   false, Blame::kInfrastructure, Culprit::kNamedPart};
constexpr FailureKindRow kWorkerGone{1,     Exit::kCommunication, false,
                                     false, Blame::kNamedNode,    Culprit::kNamedPart};
constexpr FailureKindRow kLaunchFailed{2,     Exit::kCommunication,   false,
                                       false, Blame::kInfrastructure, Culprit::kNamedPart};
constexpr FailureKindRow kRegistrationTimeout{3,     Exit::kTimeout,         true,
                                              false, Blame::kInfrastructure, Culprit::kNamedPart};
constexpr FailureKindRow kTimeout{
    3, Exit::kTimeout, true, true, Blame::kNamedNodeOnceMeasuring, Culprit::kNamedPart};
constexpr FailureKindRow kNoProgress{3,    Exit::kTimeout,    true,
                                     true, Blame::kEveryNode, Culprit::kPath};
constexpr FailureKindRow kTooSlow{3,    Exit::kCheckFailed,  false,
                                  true, Blame::kMeasurement, Culprit::kMeasurements};
constexpr FailureKindRow kCommunicationError{4,    Exit::kCommunication, false,
                                             true, Blame::kNamedNode,    Culprit::kNamedPart};
constexpr FailureKindRow kWrongData{5,     Exit::kCheckFailed, false,
                                    false, Blame::kNamedNode,  Culprit::kMeasurements};
constexpr FailureKindRow kBelowMinBusbw{6,    Exit::kCheckFailed,  false,
                                        true, Blame::kMeasurement, Culprit::kMeasurements};
// NCCL took another path than configured or than the test's majority: the
// named rank's node (its configuration or hardware), whatever it measured.
constexpr FailureKindRow kUnexpectedPath{6,     Exit::kCheckFailed, false,
                                         false, Blame::kNamedNode,  Culprit::kMeasurements};
constexpr FailureKindRow kInterrupted{7,     Exit::kInterrupted,     false,
                                      false, Blame::kInfrastructure, Culprit::kMeasurements};
constexpr FailureKindRow kInternal{7,     Exit::kInternal,        false,
                                   false, Blame::kInfrastructure, Culprit::kNamedPart};

}  // namespace

const FailureKindRow& RowOf(v1::FailureKind kind) {
  switch (kind) {
    case v1::FAILURE_KIND_NODE_LOST:
      return kNodeLost;
    case v1::FAILURE_KIND_WORKER_EXITED:
    case v1::FAILURE_KIND_WORKER_HUNG:
      return kWorkerGone;
    case v1::FAILURE_KIND_LAUNCH_FAILED:
      return kLaunchFailed;
    case v1::FAILURE_KIND_WORKER_REGISTRATION_TIMEOUT:
      return kRegistrationTimeout;
    case v1::FAILURE_KIND_TIMEOUT:
      return kTimeout;
    case v1::FAILURE_KIND_NO_PROGRESS:
      return kNoProgress;
    case v1::FAILURE_KIND_TOO_SLOW:
      return kTooSlow;
    case v1::FAILURE_KIND_COMMUNICATION_ERROR:
      return kCommunicationError;
    case v1::FAILURE_KIND_WRONG_DATA:
      return kWrongData;
    case v1::FAILURE_KIND_BELOW_MIN_BUSBW:
      return kBelowMinBusbw;
    case v1::FAILURE_KIND_UNEXPECTED_PATH:
      return kUnexpectedPath;
    case v1::FAILURE_KIND_INTERRUPTED:
      return kInterrupted;
    case v1::FAILURE_KIND_INTERNAL:
    case v1::FAILURE_KIND_UNSPECIFIED:
    case EB_WIRE_ENUM_SENTINELS(v1::FailureKind):
      break;
  }
  return kInternal;
}

}  // namespace eb::spec
