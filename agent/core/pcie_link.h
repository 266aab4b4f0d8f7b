#pragma once

// A PCIe link and an IB port's width from the text of their sysfs files
// (issue 29, item 5: hardware that trained down). agent/host reads the
// files (bounded, agent/host/sysfs_file.h); this parses what they held.
// Unknown stays unknown: an empty value or 0, never a guess. Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/core/pci_affinity.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

// current_link_speed / max_link_speed: "<number> GT/s", then optionally more
// words ("32.0 GT/s PCIe" since Linux 5.x; "16.0 GT/s" before), returned
// as read. "" for "Unknown" or "Unknown speed" (a link that is down, or an
// older kernel's unknown generation). INVALID_ARGUMENT for anything else.
absl::StatusOr<std::string> ParsePcieSpeed(absl::string_view text);

// current_link_width / max_link_width: lanes in decimal, 0 (unknown) to 32.
// INVALID_ARGUMENT for anything else.
absl::StatusOr<uint32_t> ParsePcieWidth(absl::string_view text);

// An IB port's rate file, "400 Gb/sec (4X NDR)": the lanes of "4X" (1, 2,
// 4, 8 or 12). 0 when the text names no width ("10 Gb/sec", an Ethernet
// port's rate without the parenthesis). INVALID_ARGUMENT when it has a
// parenthesis whose first word is not <lanes>X.
absl::StatusOr<uint32_t> ParsePortWidth(absl::string_view rate_text);

// What the four files of a PCI device held, or why each could not be read
// (NOT_FOUND: the file does not exist).
struct PcieLinkFiles {
  std::string dir;  // the device's sysfs directory, for error texts
  absl::StatusOr<std::string> current_speed;
  absl::StatusOr<std::string> current_width;
  absl::StatusOr<std::string> max_speed;
  absl::StatusOr<std::string> max_width;
};

// The link the files describe: each value parsed, unknown where its file
// is missing or bad; error lists each file that exists but could not be
// read or parsed (its path and why), "; "-separated.
ebnccl::v1::PcieLink PcieLinkFromFiles(const PcieLinkFiles& files);

// Whether any value or error is set: a link worth putting in the inventory.
bool HasPcieLink(const ebnccl::v1::PcieLink& link);

// Sets pcie_link of each GPU whose bus id (canonical form) is one of
// `topology.gpus` with a link read; others are left as they are.
void ApplyPcieLinks(const PciTopology& topology, std::vector<ebnccl::v1::GpuInfo>& gpus);

}  // namespace eb::agent
