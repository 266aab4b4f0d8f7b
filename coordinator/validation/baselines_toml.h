#pragma once

// Parses the text of a baselines file (deploy/config/baselines.toml; the
// runner reads the file, `--baselines FILE` or the shipped one), through the
// one reader of our TOML data files (common/spec/toml_tables.h), so that the
// validation core links only Abseil:
//
//   version = 2                     optional, before any table; must be 2
//   [[intra]]                       one array-of-tables entry per figure
//   gpu_model = "H100"
//   gpu_count = 8                   a whole number
//   busbw_gbps = 475.0              a number
//   collective = "all_reduce"       where the figure holds: this collective
//   size = "8G"                     at this size and above
//   source = "nccl-tests #212"
//   [[pairs]]
//   hca_rate_gbps = 400
//   hca_count = 1                   1 = the per-NIC (per-rail) figure
//   busbw_gbps = 46
//   collective = "all_reduce"
//   size = "8G"
//   source = "..."
//   [[gloo_pairs]]                  a site's own figure for Gloo pair tests
//   link_mbps = 10000               optional: the bootstrap interface's speed
//   busbw_gbps = 0.1                (absent: any link; one entry per speed)
//   collective = "all_reduce"
//   size = "1M"
//   source = "measured here, ..."
//
// Anything else (other tables, unknown or repeated keys, a missing key, a
// figure that is not positive, finite and up to 1e6) is INVALID_ARGUMENT
// naming the line and the key.

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/validation/baselines.h"

namespace eb::validation {

absl::StatusOr<BaselineTable> ParseBaselinesToml(const std::string& text);

}  // namespace eb::validation
