#include "common/gpu/pci_bus_id.h"

#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace eb::common {
namespace {

// `text` as hex of 1..`max_digits` digits (no sign, no 0x).
bool ParseHex(absl::string_view text, size_t max_digits, uint64_t* value) {
  if (text.empty() || text.size() > max_digits) return false;
  for (char c : text) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return absl::SimpleHexAtoi(text, value);
}

}  // namespace

absl::StatusOr<std::string> NormalizePciBusId(absl::string_view text) {
  const absl::string_view id = absl::StripAsciiWhitespace(text);
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", id, "' is not a PCI bus id ([domain:]bus:device.function)"));
  };
  std::vector<absl::string_view> parts = absl::StrSplit(id, ':');
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() != 3) return bad();
  const std::vector<absl::string_view> slot = absl::StrSplit(parts[2], '.');
  if (slot.size() != 2) return bad();
  uint64_t domain = 0, bus = 0, device = 0, function = 0;
  if (!ParseHex(parts[0], 8, &domain) || !ParseHex(parts[1], 2, &bus) ||
      !ParseHex(slot[0], 2, &device) || !ParseHex(slot[1], 1, &function) || device > 0x1f ||
      function > 7) {
    return bad();
  }
  return absl::StrFormat("%04x:%02x:%02x.%x", domain, bus, device, function);
}

std::string CanonicalPciBusId(absl::string_view text) {
  absl::StatusOr<std::string> normalized = NormalizePciBusId(text);
  return normalized.ok() ? *normalized : std::string(text);
}

absl::Status CheckSamePciBusId(absl::string_view actual, absl::string_view expected,
                               int cuda_device, int rank) {
  if (expected.empty()) return absl::OkStatus();
  if (CanonicalPciBusId(actual) == CanonicalPciBusId(expected)) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("rank ", rank, ": CUDA device ", cuda_device, " is the GPU at PCI ", actual,
                   ", but the agent assigned the GPU at PCI ", expected,
                   " (CUDA's device order differs from the agent's: is CUDA_VISIBLE_DEVICES or "
                   "CUDA_DEVICE_ORDER set for the worker?)"));
}

std::string FormatGpuMemory(int64_t bytes) {
  if (bytes <= 0) return "";
  const double gib = static_cast<double>(bytes) / static_cast<double>(int64_t{1} << 30);
  return absl::StrCat(static_cast<int64_t>(std::llround(gib)), " GiB");
}

}  // namespace eb::common
