#include "agent/core/gpu_discovery.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"

namespace eb::agent {

std::vector<ebnccl::v1::GpuInfo> DiscoverGpus(absl::string_view proc_root) {
  std::vector<ebnccl::v1::GpuInfo> gpus;
  std::error_code error;
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(proc_root), error)) {
    if (entry.is_directory(error)) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const std::filesystem::path& dir : dirs) {
    ebnccl::v1::GpuInfo gpu;
    gpu.set_index(static_cast<int>(gpus.size()));
    gpu.set_pci_bus_id(dir.filename().string());
    std::ifstream in(dir / "information");
    std::string line;
    while (std::getline(in, line)) {
      absl::string_view view(line);
      if (absl::ConsumePrefix(&view, "Model:")) {
        gpu.set_name(std::string(absl::StripAsciiWhitespace(view)));
      } else if (absl::ConsumePrefix(&view, "Bus Location:")) {
        gpu.set_pci_bus_id(std::string(absl::StripAsciiWhitespace(view)));
      }
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

std::string DriverVersion(absl::string_view version_file) {
  std::ifstream in{std::string(version_file)};
  std::string line;
  if (!std::getline(in, line)) return "";
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul ..."
  static const std::regex kVersion(R"((\d+\.\d+(\.\d+)?))");
  std::smatch match;
  const size_t module = line.find("Kernel Module");
  const std::string tail = module == std::string::npos ? line : line.substr(module);
  if (std::regex_search(tail, match, kVersion)) return match.str(1);
  return "";
}

}  // namespace eb::agent
