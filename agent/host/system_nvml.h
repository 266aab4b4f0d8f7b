#pragma once

// The host's NVML, loaded at run time with dlopen("libnvidia-ml.so.1") into
// the entry-point table of agent/core/nvml.h, so that the agent builds
// without nvml.h and runs on hosts without the library.

#include "agent/core/nvml.h"

namespace eb::agent {

// The host's NVML. The library is loaded on the first Query and kept
// (unloading and reloading it on every registration gains nothing);
// nvmlInit/nvmlShutdown bracket every Query (QueryNvml). Thread-safe.
GpuDetailsSource& SystemNvml();

}  // namespace eb::agent
