#include "coordinator/core/collective_tests/sweep_plan.h"

#include "absl/strings/str_cat.h"
#include "common/spec/names.h"
#include "common/spec/proto_enums.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"

namespace eb::coordinator {

std::vector<ebnccl::v1::Collective> SpecCollectives(const ebnccl::v1::TestSpec& spec) {
  std::vector<ebnccl::v1::Collective> collectives;
  for (int c : spec.collectives()) collectives.push_back(static_cast<ebnccl::v1::Collective>(c));
  if (collectives.empty()) collectives.push_back(spec.collective());
  return collectives;
}

absl::StatusOr<std::vector<PlannedSize>> LayOutSweep(const ebnccl::v1::TestSpec& spec,
                                                     absl::Span<const int64_t> sizes_bytes,
                                                     int world_size) {
  EB_ASSIGN_OR_RETURN(transport::DataType type, spec::ToTransport(spec.data_type()));
  const std::vector<ebnccl::v1::Collective> collectives = SpecCollectives(spec);
  std::vector<PlannedSize> plan;
  plan.reserve(sizes_bytes.size() * collectives.size());
  for (const ebnccl::v1::Collective name : collectives) {
    EB_ASSIGN_OR_RETURN(transport::Collective collective, spec::ToTransport(name));
    for (int64_t size : sizes_bytes) {
      EB_ASSIGN_OR_RETURN(
          transport::CollectiveLayout layout,
          transport::ComputeLayout(collective, size, transport::DataTypeSize(type), world_size));
      plan.push_back({size, layout.printed_size_bytes(), layout.param_count, name});
    }
  }
  return plan;
}

absl::StatusOr<std::vector<PlannedSize>> PlanSweep(const ebnccl::v1::TestSpec& spec,
                                                   int world_size) {
  // The data type first, as before the sizes had their own step: a spec
  // without one is refused naming it even when its sizes are bad too.
  EB_RETURN_IF_ERROR(spec::ToTransport(spec.data_type()).status());
  EB_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                      transport::SweepSizes(spec.min_bytes(), spec.max_bytes(), spec.step_factor(),
                                            spec.step_bytes()));
  return LayOutSweep(spec, sizes, world_size);
}

std::vector<int64_t> SweepBytes(absl::Span<const PlannedSize> steps) {
  std::vector<int64_t> sizes;
  for (const PlannedSize& size : steps) {
    if (size.collective != steps.front().collective) break;
    sizes.push_back(size.sweep_bytes);
  }
  return sizes;
}

std::string TestSweep::StepName(size_t index) const {
  if (index < steps.size()) {
    // Several collectives: say whose size (one collective reads as before).
    const bool several = steps.front().collective != steps.back().collective;
    return absl::StrCat(several ? spec::DisplayName(steps[index].collective) : "",
                        several ? " " : "", "size ", steps[index].sweep_bytes);
  }
  if (index < size())
    return absl::StrCat("rail size ", rail_steps[index - steps.size()].sweep_bytes);
  return "finishing";
}

}  // namespace eb::coordinator
