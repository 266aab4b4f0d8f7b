#pragma once

// GPU names, bus ids and memory from NVML: the few NVML types the agent
// uses, and the queries over a table of entry points. The table is filled
// at run time by agent/host/system_nvml.h (dlopen("libnvidia-ml.so.1")), so
// that the agent builds without nvml.h and runs on hosts without the
// library, and by fakes in tests. NVML loads the CUDA driver (libcuda, seen
// with driver 580), whose thread and memory stay in a process for good: the
// daemon asks NVML in a child process (agent/host/child_nvml.h). Pure:
// loads nothing itself.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace eb::agent {

// The few NVML types the agent uses, declared here with nvml.h's layout.
namespace nvml {
using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
using Device = struct DeviceOpaque*;  // nvmlDevice_t
// nvmlMemory_t (v1).
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];
};
// NVML_DEVICE_NAME_V2_BUFFER_SIZE.
inline constexpr unsigned int kNameBufferSize = 96;
}  // namespace nvml

// The NVML entry points, as loaded from the library (tests fill them with
// fakes). error_string may be null.
struct NvmlFunctions {
  nvml::Return (*init)() = nullptr;                                       // nvmlInit_v2
  nvml::Return (*shutdown)() = nullptr;                                   // nvmlShutdown
  nvml::Return (*get_count)(unsigned int*) = nullptr;                     // nvmlDeviceGetCount_v2
  nvml::Return (*get_handle)(unsigned int, nvml::Device*) = nullptr;      // ..GetHandleByIndex_v2
  nvml::Return (*get_name)(nvml::Device, char*, unsigned int) = nullptr;  // nvmlDeviceGetName
  nvml::Return (*get_pci_info)(nvml::Device, nvml::PciInfo*) = nullptr;   // ..GetPciInfo_v3
  nvml::Return (*get_memory)(nvml::Device, nvml::Memory*) = nullptr;      // nvmlDeviceGetMemoryInfo
  const char* (*error_string)(nvml::Return) = nullptr;                    // nvmlErrorString
};

// What NVML says about one GPU.
struct NvmlGpu {
  // As NVML prints it ("00000000:18:00.0"); callers normalise it.
  std::string pci_bus_id;
  std::string name;
  int64_t memory_bytes = 0;
};

// The GPUs NVML could describe, and one line per GPU it could not (its
// index and the failing call), in NVML's index order.
struct NvmlReport {
  std::vector<NvmlGpu> gpus;
  std::vector<std::string> problems;
};

// nvmlInit_v2, every device's name, PCI info and memory, nvmlShutdown.
// UNAVAILABLE naming the call and NVML's error when init or the device
// count fails (no driver, a driver/library mismatch); a device that fails
// is a line in problems and the others are still described.
absl::StatusOr<NvmlReport> QueryNvml(const NvmlFunctions& functions);

// Where the agent gets GPU details: the host's NVML (SystemNvml in
// agent/host/system_nvml.h); tests inject a fake.
class GpuDetailsSource {
 public:
  virtual ~GpuDetailsSource() = default;
  // UNAVAILABLE when there is no NVML (the message says why).
  virtual absl::StatusOr<NvmlReport> Query() = 0;
};

}  // namespace eb::agent
