#pragma once

// A fake sysfs tree built by a test: PCI devices under
// <root>/devices/pci<domain>:<bus>/... linked from <root>/bus/pci/devices
// (the agent's --sysfs-pci), and HCAs under <root>/class/infiniband (its
// --sysfs-infiniband) with their device links, firmware, ports and
// counters. Header-only; the tree is removed when the object goes.

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace eb::testing {

class FakeSysfs {
 public:
  explicit FakeSysfs(const std::string& tag)
      : root_(std::filesystem::temp_directory_path() /
              ("eb-sysfs-" + std::to_string(::getpid()) + "-" + tag)) {
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(pci());
    std::filesystem::create_directories(infiniband());
  }
  ~FakeSysfs() {
    std::error_code error;
    std::filesystem::remove_all(root_, error);
  }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;

  std::filesystem::path pci() const { return root_ / "bus" / "pci" / "devices"; }
  std::filesystem::path infiniband() const { return root_ / "class" / "infiniband"; }

  // `path`: the root complex then every function down to the device, e.g.
  // {"pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"}.
  // Returns the device's directory.
  std::filesystem::path AddPciDevice(const std::vector<std::string>& path, int numa_node) {
    std::filesystem::path dir = root_ / "devices";
    for (const std::string& part : path) dir /= part;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "numa_node") << numa_node << "\n";
    std::error_code error;
    std::filesystem::create_directory_symlink(dir, pci() / path.back(), error);
    return dir;
  }

  void AddHca(const std::string& name, const std::filesystem::path& device,
              const std::string& fw_ver = "28.39.1002") {
    const std::filesystem::path dir = infiniband() / name;
    std::filesystem::create_directories(dir);
    if (!device.empty()) std::filesystem::create_directory_symlink(device, dir / "device");
    std::ofstream(dir / "fw_ver") << fw_ver << "\n";
  }

  void SetPort(const std::string& hca, int port, const std::string& state,
               const std::string& phys_state, const std::string& rate = "200 Gb/sec (4X HDR)",
               const std::string& link_layer = "InfiniBand") {
    const std::filesystem::path dir = PortDir(hca, port);
    std::filesystem::create_directories(dir / "counters");
    std::filesystem::create_directories(dir / "hw_counters");
    std::ofstream(dir / "state") << state << "\n";
    std::ofstream(dir / "phys_state") << phys_state << "\n";
    std::ofstream(dir / "rate") << rate << "\n";
    std::ofstream(dir / "link_layer") << link_layer << "\n";
  }

  // The PCIe link files of a device directory (AddPciDevice's); an empty
  // value leaves its file out.
  static void SetPcieLink(const std::filesystem::path& device, const std::string& current_speed,
                          const std::string& current_width, const std::string& max_speed,
                          const std::string& max_width) {
    const std::pair<const char*, const std::string*> files[] = {
        {"current_link_speed", &current_speed},
        {"current_link_width", &current_width},
        {"max_link_speed", &max_speed},
        {"max_link_width", &max_width}};
    for (const auto& [name, value] : files) {
      if (!value->empty()) std::ofstream(device / name) << *value << "\n";
    }
  }

  // Any file, with exactly `content` (garbage, oversized, no newline).
  static void WriteFile(const std::filesystem::path& path, const std::string& content) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  }

  void SetCounter(const std::string& hca, int port, const std::string& name, uint64_t value,
                  bool hw = false) {
    std::ofstream(PortDir(hca, port) / (hw ? "hw_counters" : "counters") / name) << value << "\n";
  }

 private:
  std::filesystem::path PortDir(const std::string& hca, int port) const {
    return infiniband() / hca / "ports" / std::to_string(port);
  }

  std::filesystem::path root_;
};

}  // namespace eb::testing
