#include "common/spec/culprit_kinds.h"

#include "common/spec/wire_switch.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;

namespace {

using Part = CulpritPart;

// word, part, part_in_line
constexpr CulpritKindRow kUnspecified{"", Part::kNothing, false};
constexpr CulpritKindRow kLateRank{"late_rank", Part::kRank, false};
constexpr CulpritKindRow kDescheduledRank{"descheduled_rank", Part::kRank, false};
constexpr CulpritKindRow kDescheduledHost{"descheduled_host", Part::kNode, true};
constexpr CulpritKindRow kPath{"path", Part::kNothing, false};
constexpr CulpritKindRow kUnknown{"cannot tell", Part::kNothing, false};
constexpr CulpritKindRow kFailure{"failure", Part::kFailure, false};
constexpr CulpritKindRow kLinkErrors{"link_errors", Part::kPort, true};
constexpr CulpritKindRow kGpuThrottled{"gpu_throttled", Part::kGpu, true};

}  // namespace

const CulpritKindRow& RowOf(v1::Culprit kind) {
  switch (kind) {
    case v1::CULPRIT_UNSPECIFIED:
      return kUnspecified;
    case v1::CULPRIT_LATE_RANK:
      return kLateRank;
    case v1::CULPRIT_DESCHEDULED_RANK:
      return kDescheduledRank;
    case v1::CULPRIT_DESCHEDULED_HOST:
      return kDescheduledHost;
    case v1::CULPRIT_PATH:
      return kPath;
    case v1::CULPRIT_FAILURE:
      return kFailure;
    case v1::CULPRIT_LINK_ERRORS:
      return kLinkErrors;
    case v1::CULPRIT_GPU_THROTTLED:
      return kGpuThrottled;
    case v1::CULPRIT_UNKNOWN:
    case EB_WIRE_ENUM_SENTINELS(v1::Culprit):
      break;
  }
  return kUnknown;
}

}  // namespace eb::spec
