#include "agent/host/infiniband_sysfs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace eb::agent {
namespace fs = std::filesystem;

namespace {

std::string ReadLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

std::vector<std::string> ListDir(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error))
    names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

ebnccl::v1::HcaInfo ReadPort(const fs::path& device, const std::string& name, int port) {
  const fs::path dir = device / "ports" / std::to_string(port);
  ebnccl::v1::HcaInfo info;
  info.set_name(name);
  info.set_port(port);
  // "4: ACTIVE" -> "ACTIVE".
  std::string state = ReadLine(dir / "state");
  if (const size_t colon = state.find(':'); colon != std::string::npos) {
    state = std::string(absl::StripAsciiWhitespace(state.substr(colon + 1)));
  }
  info.set_state(state);
  info.set_link_layer(ReadLine(dir / "link_layer"));
  // "200 Gb/sec (4X HDR)" -> 200.
  int64_t rate = 0;
  const std::string rate_text = ReadLine(dir / "rate");
  if (absl::SimpleAtoi(rate_text.substr(0, rate_text.find(' ')), &rate)) info.set_rate_gbps(rate);
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

}  // namespace eb::agent
