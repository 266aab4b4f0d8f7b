#include "common/spec/verdicts.h"

#include "common/spec/wire_switch.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;

VerdictWeight WeightOf(v1::Verdict verdict) {
  switch (verdict) {
    case v1::VERDICT_DEGRADED:
    case v1::VERDICT_FAILED:
      return VerdictWeight::kBad;
    case v1::VERDICT_UNFIT:
      return VerdictWeight::kUnfit;
    case v1::VERDICT_UNTESTABLE:
      return VerdictWeight::kUnjudged;
    case v1::VERDICT_HEALTHY:
    case v1::VERDICT_UNSPECIFIED:
    case EB_WIRE_ENUM_SENTINELS(v1::Verdict):
      break;
  }
  return VerdictWeight::kNone;
}

bool IsBadVerdict(v1::Verdict verdict) { return WeightOf(verdict) == VerdictWeight::kBad; }

}  // namespace eb::spec
