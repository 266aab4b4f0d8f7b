#pragma once

// PCIe links that trained down (issue 29, item 5): a GPU or HCA whose
// link runs below what the device and its slot support, as the agent read
// it from sysfs (common.proto PcieLink). The fleet's majority judges the
// same links through inventory_facts.h ("PCIe link" per GPU and HCA port);
// this judges each device against its own maximum, which needs no fleet.
// Pure.

#include <string>
#include <vector>

#include "ebnccl/v1/common.pb.h"

namespace eb::validation {

// The number of GT/s in a speed as sysfs writes it ("32.0 GT/s PCIe" ->
// 32); 0 when unknown or not that form.
double PcieSpeedGts(const std::string& speed);

// A link as printed: "x16 32.0 GT/s" (the word after the speed dropped, so
// that kernels that write "PCIe" and those that do not agree); a part that
// is unknown is left out; "" when both are.
std::string PcieLinkText(uint32_t width_lanes, const std::string& speed);

// Whose link it is. An idle NVIDIA GPU lowers its link to the first
// generation's 2.5 GT/s to save power and raises it under load (nvidia-smi:
// the current link "may be reduced when the GPU is not in use"); the agent
// reads the inventory when the node is idle. So a GPU link at 2.5 GT/s
// that can run faster says nothing about its speed: it is not judged on
// speed (its width still is). A link that trained down lands at another
// generation (a Gen5 link at 16 GT/s) and is judged. HCAs keep their link
// speed when idle.
enum class LinkOwner { kGpu, kHca };

// 2.5 GT/s on a GPU whose maximum is faster: maybe power saving.
bool MaybePowerSaving(const ebnccl::v1::PcieLink& link, LinkOwner owner);

// The current link's width ("x16") and speed ("32.0 GT/s"), each "" when
// unknown, the speed also when it may be power saving (MaybePowerSaving):
// the values the fleet's majority compares, apart, so that an unknown part
// never hides or makes a difference in the other.
std::string CurrentPcieWidth(const ebnccl::v1::PcieLink& link);
std::string CurrentPcieSpeed(const ebnccl::v1::PcieLink& link, LinkOwner owner);

// One line per GPU and per HCA (once, however many of its ports are
// listed) whose current width or speed is below its maximum, e.g.
// "GPU 3 (0000:1b:00.0) PCIe link x8 16.0 GT/s, capable of x16 32.0 GT/s".
// A value that is unknown on either side is not compared, nor the speed
// of a GPU that may be saving power. GPUs by index, then HCAs in
// inventory order.
std::vector<std::string> TrainedDownLinks(const ebnccl::v1::NodeInventory& inventory);

}  // namespace eb::validation
