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

VerdictWeight WeightOf(const v1::ValidationFinding& finding) {
  if (finding.bad()) return VerdictWeight::kBad;
  switch (finding.kind()) {
    case v1::FINDING_KIND_TESTS_UNJUDGED:
      return VerdictWeight::kUnjudged;
    case v1::FINDING_KIND_NO_TRUSTED_NODE:
    case v1::FINDING_KIND_FLEET_BELOW_EXPECTED:
    case v1::FINDING_KIND_NOT_JUDGED:
    case v1::FINDING_KIND_MEDIAN_ONLY:
    case v1::FINDING_KIND_FLEET_TEST_SLOW:
    case v1::FINDING_KIND_FLEET_TEST_FAILED:
    case v1::FINDING_KIND_ROUND_LIMIT:
    case v1::FINDING_KIND_TOO_FEW_NODES:
    case v1::FINDING_KIND_UNSPECIFIED:
    case EB_WIRE_ENUM_SENTINELS(v1::FindingKind):
      break;
  }
  return VerdictWeight::kNone;
}

bool IsBadVerdict(v1::Verdict verdict) { return WeightOf(verdict) == VerdictWeight::kBad; }

}  // namespace eb::spec
