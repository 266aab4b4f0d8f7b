#pragma once

// NVML's answer as text, for the agent's GPU-details probe: `eb-agent
// --print-gpu-details` runs the NVML query in a child process and prints
// it; the daemon parses what the child printed (agent/host/child_nvml.h).
//
// Why a child: libnvidia-ml loads libcuda, whose initialisation leaves a
// driver thread and ~14 MB of private memory in the process for good (seen
// on an H200 host, driver 580: an idle agent at 41 MB RSS instead of 22).
// The child takes that with it when it exits.
//
// One line per item, fields separated by tabs:
//   gpu <TAB> memory_bytes <TAB> pci_bus_id <TAB> name
//   problem <TAB> text
//   unavailable <TAB> message        (alone: NVML could not be queried)
// Pure.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/core/nvml.h"

namespace eb::agent {

// Bounds on what is parsed: a host has at most this many GPUs, lines, and
// bytes per line (NVML's names are at most 96 bytes, bus ids 32).
inline constexpr size_t kMaxGpuDetailLines = 1024;
inline constexpr size_t kMaxGpuDetailLineBytes = 1024;

// `report` as the text above (tabs and line breaks inside a field become
// spaces).
std::string FormatNvmlReport(const absl::StatusOr<NvmlReport>& report);

// The text above back into a report. UNAVAILABLE with the message for an
// `unavailable` line; INVALID_ARGUMENT naming the line for anything else
// that is not the format (an unknown kind, a missing field, a memory that
// is not a non-negative number, too many or too long lines).
absl::StatusOr<NvmlReport> ParseNvmlReportText(absl::string_view text);

}  // namespace eb::agent
