#include "coordinator/core/sweep_plan.h"

#include "common/spec/proto_enums.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"

namespace eb::coordinator {

absl::StatusOr<std::vector<PlannedSize>> PlanSweep(const ebnccl::v1::TestSpec& spec,
                                                   int world_size) {
  EB_ASSIGN_OR_RETURN(transport::Collective collective, spec::ToTransport(spec.collective()));
  EB_ASSIGN_OR_RETURN(transport::DataType type, spec::ToTransport(spec.data_type()));
  EB_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                      transport::SweepSizes(spec.min_bytes(), spec.max_bytes(), spec.step_factor(),
                                            spec.step_bytes()));
  std::vector<PlannedSize> plan;
  plan.reserve(sizes.size());
  for (int64_t size : sizes) {
    EB_ASSIGN_OR_RETURN(
        transport::CollectiveLayout layout,
        transport::ComputeLayout(collective, size, transport::DataTypeSize(type), world_size));
    plan.push_back({size, layout.printed_size_bytes(), layout.param_count});
  }
  return plan;
}

}  // namespace eb::coordinator
