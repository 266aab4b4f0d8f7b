#include "agent/host/infiniband_sysfs.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "agent/core/pcie_link.h"
#include "agent/host/pci_topology.h"
#include "agent/host/sysfs_file.h"

namespace eb::agent {
namespace fs = std::filesystem;

namespace {

std::string ReadLine(const fs::path& path) { return ReadSysfsValueOrEmpty(path.string()); }

// The port's width from its rate file ("400 Gb/sec (4X NDR)" -> 4), and
// why the file could not be read or parsed when it exists.
void ReadPortWidth(const fs::path& rate_file, ebnccl::v1::HcaInfo& info) {
  absl::StatusOr<std::string> rate = ReadSysfsValue(rate_file.string());
  if (!rate.ok()) {
    if (!absl::IsNotFound(rate.status())) info.set_rate_error(std::string(rate.status().message()));
    return;
  }
  absl::StatusOr<uint32_t> lanes = ParsePortWidth(*rate);
  if (lanes.ok()) {
    info.set_link_width(*lanes);
  } else {
    info.set_rate_error(absl::StrCat(rate_file.string(), ": ", lanes.status().message()));
  }
}

std::vector<std::string> ListDir(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error))
    names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// "4: ACTIVE" -> "ACTIVE"; "5: LinkUp" -> "LinkUp".
std::string StateText(const fs::path& path) {
  std::string state = ReadLine(path);
  if (const size_t colon = state.find(':'); colon != std::string::npos) {
    state = std::string(absl::StripAsciiWhitespace(state.substr(colon + 1)));
  }
  return state;
}

ebnccl::v1::PortLinkState ReadLink(const fs::path& dir) {
  ebnccl::v1::PortLinkState link;
  link.set_state(StateText(dir / "state"));
  link.set_phys_state(StateText(dir / "phys_state"));
  link.set_link_layer(ReadLine(dir / "link_layer"));
  // "200 Gb/sec (4X HDR)" -> 200.
  int64_t rate = 0;
  const std::string rate_text = ReadLine(dir / "rate");
  if (absl::SimpleAtoi(rate_text.substr(0, rate_text.find(' ')), &rate)) link.set_rate_gbps(rate);
  return link;
}

ebnccl::v1::HcaInfo ReadPort(const fs::path& device, const std::string& name, int port) {
  const fs::path dir = device / "ports" / std::to_string(port);
  ebnccl::v1::HcaInfo info;
  info.set_name(name);
  info.set_port(port);
  const ebnccl::v1::PortLinkState link = ReadLink(dir);
  info.set_state(link.state());
  info.set_phys_state(link.phys_state());
  info.set_link_layer(link.link_layer());
  info.set_rate_gbps(link.rate_gbps());
  ReadPortWidth(dir / "rate", info);
  info.set_fw_ver(ReadLine(device / "fw_ver"));
  const PciDevice pci = ReadPciDevice((device / "device").string(), name);
  info.set_numa_node(pci.numa_node);
  info.set_pci_bus_id(pci.bus_id);
  if (HasPcieLink(pci.pcie_link)) *info.mutable_pcie_link() = pci.pcie_link;
  return info;
}

}  // namespace

absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> CheckHcas(const std::vector<HcaPort>& hcas,
                                                           absl::string_view sysfs_root) {
  const fs::path root{std::string(sysfs_root)};
  std::vector<ebnccl::v1::HcaInfo> result;
  for (const HcaPort& hca : hcas) {
    const fs::path device = root / hca.name;
    std::error_code error;
    if (!fs::is_directory(device, error)) {
      const std::vector<std::string> present = ListDir(root);
      return absl::NotFoundError(
          absl::StrCat("--ib-hca: HCA ", hca.name, " does not exist (", root.string(), " lists ",
                       present.empty() ? "no HCAs" : absl::StrJoin(present, ", "), ")"));
    }
    std::vector<int> ports;
    if (hca.port > 0) {
      if (!fs::is_directory(device / "ports" / std::to_string(hca.port), error)) {
        return absl::NotFoundError(
            absl::StrCat("--ib-hca: HCA ", hca.name, " has no port ", hca.port));
      }
      ports.push_back(hca.port);
    } else {
      for (const std::string& name : ListDir(device / "ports")) {
        int port = 0;
        if (absl::SimpleAtoi(name, &port)) ports.push_back(port);
      }
      if (ports.empty()) {
        return absl::NotFoundError(absl::StrCat("--ib-hca: HCA ", hca.name, " has no ports"));
      }
    }
    for (int port : ports) result.push_back(ReadPort(device, hca.name, port));
  }
  return result;
}

std::vector<ebnccl::v1::HcaInfo> ReportHcas(const std::vector<HcaPort>& hcas,
                                            absl::string_view sysfs_root) {
  std::vector<ebnccl::v1::HcaInfo> report;
  for (const HcaPort& hca : hcas) {
    absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> ports = CheckHcas({hca}, sysfs_root);
    if (ports.ok()) {
      for (ebnccl::v1::HcaInfo& port : *ports) report.push_back(std::move(port));
      continue;
    }
    ebnccl::v1::HcaInfo& missing = report.emplace_back();
    missing.set_name(hca.name);
    missing.set_port(hca.port);
    missing.set_error(std::string(absl::StripPrefix(ports.status().message(), "--ib-hca: ")));
  }
  return report;
}

std::vector<PortSnapshot> ReadPortSnapshots(const std::vector<HcaPort>& hcas,
                                            absl::string_view sysfs_root) {
  const fs::path root{std::string(sysfs_root)};
  std::vector<PortSnapshot> snapshots;
  for (const HcaPort& hca : hcas) {
    absl::StatusOr<std::vector<ebnccl::v1::HcaInfo>> ports = CheckHcas({hca}, sysfs_root);
    if (!ports.ok()) {
      PortSnapshot& missing = snapshots.emplace_back();
      missing.hca = hca.name;
      missing.port = hca.port;
      missing.error = std::string(absl::StripPrefix(ports.status().message(), "--ib-hca: "));
      continue;
    }
    for (const ebnccl::v1::HcaInfo& port : *ports) {
      PortSnapshot& snapshot = snapshots.emplace_back();
      snapshot.hca = port.name();
      snapshot.port = port.port();
      const fs::path dir = root / port.name() / "ports" / std::to_string(port.port());
      snapshot.link = ReadLink(dir);
      for (const std::string& name : PortCounterNames()) {
        for (const char* folder : {"counters", "hw_counters"}) {
          const fs::path file = dir / folder / name;
          absl::StatusOr<std::string> text = ReadSysfsValue(file.string());
          if (absl::IsNotFound(text.status())) continue;  // this port or driver lacks it
          absl::StatusOr<uint64_t> value =
              text.ok() ? ParseCounterValue(*text, file.string()) : text.status();
          if (value.ok()) {
            snapshot.counters[name] = *value;
          } else {
            snapshot.refused.emplace_back(value.status().message());
          }
          break;
        }
      }
    }
  }
  return snapshots;
}

}  // namespace eb::agent
