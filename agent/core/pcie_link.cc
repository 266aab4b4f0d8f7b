#include "agent/core/pcie_link.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/gpu/pci_bus_id.h"

namespace eb::agent {
namespace {

// Quoted in errors: at most this much of what a file held.
constexpr size_t kQuotedBytes = 40;

// Escaped: the text goes into a proto string, which must be UTF-8.
std::string Quoted(absl::string_view text) {
  return absl::StrCat("'", absl::CHexEscape(text.substr(0, kQuotedBytes)),
                      text.size() > kQuotedBytes ? "..." : "", "'");
}

// A decimal number with at most one point: "2.5", "16.0", "64".
bool IsDecimal(absl::string_view text) {
  if (text.empty() || text.size() > 8) return false;
  int points = 0;
  for (char c : text) {
    if (c == '.') {
      ++points;
    } else if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return points <= 1 && text.front() != '.' && text.back() != '.';
}

bool IsPrintable(absl::string_view text) {
  for (char c : text) {
    if (!absl::ascii_isprint(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

template <typename T, typename Parse>
T ParseFile(const absl::StatusOr<std::string>& file, const std::string& path, Parse parse,
            std::vector<std::string>& errors) {
  if (!file.ok()) {
    // A missing file is unknown, not an error: a virtual function, an
    // older kernel or a device without a PCIe link has none.
    if (!absl::IsNotFound(file.status())) errors.emplace_back(file.status().message());
    return T{};
  }
  absl::StatusOr<T> value = parse(*file);
  if (!value.ok()) {
    errors.push_back(absl::StrCat(path, ": ", value.status().message()));
    return T{};
  }
  return *std::move(value);
}

}  // namespace

absl::StatusOr<std::string> ParsePcieSpeed(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text == "Unknown" || text == "Unknown speed") return std::string();
  const std::vector<absl::string_view> words = absl::StrSplit(text, ' ', absl::SkipEmpty());
  if (words.size() >= 2 && IsDecimal(words[0]) && words[1] == "GT/s" && IsPrintable(text) &&
      text.size() <= 32) {
    return std::string(text);
  }
  return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not a speed in GT/s"));
}

absl::StatusOr<uint32_t> ParsePcieWidth(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  uint32_t lanes = 0;
  if (text.size() <= 2 && absl::SimpleAtoi(text, &lanes) && lanes <= 32 &&
      absl::ascii_isdigit(static_cast<unsigned char>(text.front()))) {
    return lanes;
  }
  return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not a lane count"));
}

absl::StatusOr<uint32_t> ParsePortWidth(absl::string_view rate_text) {
  const size_t open = rate_text.find('(');
  if (open == absl::string_view::npos) return 0u;
  absl::string_view inner = rate_text.substr(open + 1);
  inner = inner.substr(0, inner.find_first_of(" )"));
  uint32_t lanes = 0;
  if (absl::ConsumeSuffix(&inner, "X") && inner.size() <= 2 && absl::SimpleAtoi(inner, &lanes) &&
      (lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8 || lanes == 12)) {
    return lanes;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(Quoted(rate_text), " does not name a port width (1X, 2X, 4X, 8X or 12X)"));
}

ebnccl::v1::PcieLink PcieLinkFromFiles(const PcieLinkFiles& files) {
  std::vector<std::string> errors;
  auto path = [&files](const char* name) { return absl::StrCat(files.dir, "/", name); };
  ebnccl::v1::PcieLink link;
  link.set_current_speed(ParseFile<std::string>(files.current_speed, path("current_link_speed"),
                                                ParsePcieSpeed, errors));
  link.set_current_width(
      ParseFile<uint32_t>(files.current_width, path("current_link_width"), ParsePcieWidth, errors));
  link.set_max_speed(
      ParseFile<std::string>(files.max_speed, path("max_link_speed"), ParsePcieSpeed, errors));
  link.set_max_width(
      ParseFile<uint32_t>(files.max_width, path("max_link_width"), ParsePcieWidth, errors));
  link.set_error(absl::StrJoin(errors, "; "));
  return link;
}

bool HasPcieLink(const ebnccl::v1::PcieLink& link) {
  return !link.current_speed().empty() || link.current_width() > 0 || !link.max_speed().empty() ||
         link.max_width() > 0 || !link.error().empty();
}

void ApplyPcieLinks(const PciTopology& topology, std::vector<ebnccl::v1::GpuInfo>& gpus) {
  for (ebnccl::v1::GpuInfo& gpu : gpus) {
    const std::string bus = common::CanonicalPciBusId(gpu.pci_bus_id());
    for (const PciDevice& device : topology.gpus) {
      if (bus.empty() || common::CanonicalPciBusId(device.bus_id) != bus) continue;
      if (HasPcieLink(device.pcie_link)) *gpu.mutable_pcie_link() = device.pcie_link;
      break;
    }
  }
}

}  // namespace eb::agent
