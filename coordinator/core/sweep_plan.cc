#include "coordinator/core/sweep_plan.h"

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

absl::StatusOr<std::vector<PlannedSize>> PlanSweep(const ebnccl::v1::TestSpec& spec,
                                                   int world_size) {
  EB_ASSIGN_OR_RETURN(transport::DataType type, spec::ToTransport(spec.data_type()));
  EB_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                      transport::SweepSizes(spec.min_bytes(), spec.max_bytes(), spec.step_factor(),
                                            spec.step_bytes()));
  const std::vector<ebnccl::v1::Collective> collectives = SpecCollectives(spec);
  std::vector<PlannedSize> plan;
  plan.reserve(sizes.size() * collectives.size());
  for (const ebnccl::v1::Collective name : collectives) {
    EB_ASSIGN_OR_RETURN(transport::Collective collective, spec::ToTransport(name));
    for (int64_t size : sizes) {
      EB_ASSIGN_OR_RETURN(
          transport::CollectiveLayout layout,
          transport::ComputeLayout(collective, size, transport::DataTypeSize(type), world_size));
      plan.push_back({size, layout.printed_size_bytes(), layout.param_count, name});
    }
  }
  return plan;
}

}  // namespace eb::coordinator
