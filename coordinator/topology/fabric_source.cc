#include "coordinator/topology/fabric_source.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "coordinator/topology/fabric_toml.h"
#include "coordinator/topology/ibnetdiscover.h"

namespace eb::topology {
namespace {

// The first line that is neither blank nor a comment; "" when none is.
absl::string_view FirstContentLine(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty() && line.front() != '#') return line;
  }
  return "";
}

}  // namespace

std::string ResolveFabricFormat(absl::string_view format, absl::string_view path,
                                absl::string_view text) {
  if (format != kFormatAuto) return std::string(format);
  if (absl::EndsWith(path, ".toml")) return kFormatToml;
  const absl::string_view first = FirstContentLine(text);
  if (absl::StartsWith(first, "[") || absl::StartsWith(first, "version")) return kFormatToml;
  return kFormatIbnetdiscover;
}

absl::StatusOr<FabricSource> ParseFabric(absl::string_view format, absl::string_view path,
                                         absl::string_view text) {
  if (FirstContentLine(text).empty()) {
    return absl::InvalidArgumentError("the topology is empty: no cable, no uplink");
  }
  FabricSource source;
  source.format = ResolveFabricFormat(format, path, text);
  absl::StatusOr<Fabric> fabric;
  if (source.format == kFormatToml) {
    fabric = ParseFabricToml(text);
  } else if (source.format == kFormatIbnetdiscover) {
    fabric = ParseIbnetdiscover(text);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("format '", format, "': one of ", kFormatAuto,
                                                   ", ", kFormatIbnetdiscover, ", ", kFormatToml));
  }
  if (!fabric.ok()) return fabric.status();
  source.fabric = *std::move(fabric);
  return source;
}

}  // namespace eb::topology
