#pragma once

// The NCCL library the workers will load, probed without initialising CUDA
// (the agent must stay CUDA-free so that it can spawn CUDA workers):
// dlopen("libnccl.so.2") and ncclGetVersion, which only returns a constant.

#include <string>

namespace eb::agent {

// "2.28.3", or "" when no NCCL library can be loaded.
std::string ProbeNcclVersion();

}  // namespace eb::agent
