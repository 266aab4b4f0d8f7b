#pragma once

// PCI bus ids of GPUs in one canonical text form, so that ids from the
// driver's /proc tree ("0000:18:00.0"), NVML ("00000000:18:00.0", upper
// case) and CUDA (cudaDeviceGetPCIBusId, "0000:18:00.0") compare equal.
// Pure; shared by the agent, the coordinator and the worker.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::common {

// "[domain:]bus:device.function" in hex, any case, the domain 4 or 8 digits
// wide (missing = 0) -> lower case with a 4-digit domain (wider only when
// the domain needs it), 2-digit bus and device, 1-digit function:
// "00000000:0A:00.0" -> "0000:0a:00.0". INVALID_ARGUMENT for anything else.
absl::StatusOr<std::string> NormalizePciBusId(absl::string_view text);

// NormalizePciBusId, or `text` unchanged when it is not a bus id (so that an
// odd id from a driver is still shown, and still compares equal to itself).
std::string CanonicalPciBusId(absl::string_view text);

// OK when `actual` (what CUDA says device `cuda_device` is) names the same
// PCI function as `expected` (what the agent's inventory says); an empty
// `expected` is not checked. FAILED_PRECONDITION naming both ids, the
// device and the rank otherwise: the worker would measure another GPU than
// the one the report names (a remapped CUDA_VISIBLE_DEVICES or device
// order).
absl::Status CheckSamePciBusId(absl::string_view actual, absl::string_view expected,
                               int cuda_device, int rank);

// "140 GiB" for a GPU's memory (rounded to whole GiB, as vendors print it:
// an H200's 143771 MiB is "140 GiB"); "" for 0 = unknown.
std::string FormatGpuMemory(int64_t bytes);

}  // namespace eb::common
