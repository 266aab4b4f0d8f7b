#include "coordinator/core/collective_tests/gpu_throttle_check.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/spec/limits.h"
#include "common/spec/numbers.h"
#include "common/status/status_macros.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;
namespace {

absl::Status CheckPlacement(const v1::RankTiming& timing, absl::string_view field) {
  if (!timing.has_gpu_throttle()) return absl::OkStatus();
  const v1::GpuThrottle& gpu = timing.gpu_throttle();
  EB_RETURN_IF_ERROR(spec::CheckShare(gpu.wall_us(), absl::StrCat(field, ".wall_us"), 0,
                                      spec::kMaxReportedBatchUs));
  const std::pair<absl::string_view, double> policies[] = {
      {"power_us", gpu.power_us()},
      {"thermal_us", gpu.thermal_us()},
      {"sync_boost_us", gpu.sync_boost_us()},
      {"board_limit_us", gpu.board_limit_us()},
      {"low_utilization_us", gpu.low_utilization_us()},
      {"reliability_us", gpu.reliability_us()},
  };
  for (const auto& [name, us] : policies) {
    EB_RETURN_IF_ERROR(spec::CheckShare(us, absl::StrCat(field, ".", name), 0, gpu.wall_us()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckReportedGpuThrottle(const v1::RankSizeResult& result) {
  EB_RETURN_IF_ERROR(CheckPlacement(result.out_of_place(), "out_of_place.gpu_throttle"));
  return CheckPlacement(result.in_place(), "in_place.gpu_throttle");
}

}  // namespace eb::coordinator
