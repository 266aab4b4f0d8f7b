#pragma once

// Parses the text of a baselines file (deploy/config/baselines.toml; the
// runner reads the file, `--baselines FILE` or the shipped one). A small
// parser for the subset that file needs, so that the validation core links
// only Abseil:
//
//   # comment                       whole-line or trailing
//   version = 1                     optional, before any table; must be 1
//   [[intra]]                       one array-of-tables entry per figure
//   gpu_model = "H100"              basic strings ("..." with \" \\ \n \t)
//   gpu_count = 8                   integers
//   busbw_gbps = 475.0              integers or decimals
//   source = "nccl-tests #212"
//   [[pairs]]
//   hca_rate_gbps = 400
//   hca_count = 1                   1 = the per-NIC (per-rail) figure
//   busbw_gbps = 46
//   source = "..."
//
// Anything else (other tables, unknown or repeated keys, a missing key, a
// non-positive figure) is INVALID_ARGUMENT naming the line and the key.

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/validation/baselines.h"

namespace eb::validation {

absl::StatusOr<BaselineTable> ParseBaselinesToml(const std::string& text);

}  // namespace eb::validation
