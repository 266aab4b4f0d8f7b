#pragma once

// The smallest size a validation grades by default, per data plane: below
// it busbw measures latency, not the links (issue 33 item 4). The
// validation's intra sweeps start here (coordinator/validation/spec_proto.cc)
// and ebctl refuses a smaller graded size unless asked
// (coordinator/ebctl/input/validate_flags.cc): one number for both.

#include <cstdint>

namespace eb::spec {

inline constexpr int64_t kNcclGradedFloorBytes = int64_t{1} << 20;
inline constexpr int64_t kGlooGradedFloorBytes = int64_t{256} << 10;

}  // namespace eb::spec
