#pragma once

// Which reader a topology file is for ([topology] format, docs/CONFIG.md),
// and the fabric read with it. Pure: the caller reads the file
// (common/io/bounded_file) and passes its path only to choose the reader.
//
// "auto" chooses by the file: a name ending in ".toml" is the TOML map;
// otherwise the first line that is neither blank nor a comment decides: a
// TOML table ("[", "[[") or "version =" is the TOML map, anything else
// ibnetdiscover's output (whose lines start "vendid=", "switchguid=",
// "Switch", "Ca", ...). An empty file is refused either way.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "coordinator/topology/fabric.h"

namespace eb::topology {

// The values of [topology] format.
inline constexpr char kFormatAuto[] = "auto";
inline constexpr char kFormatIbnetdiscover[] = "ibnetdiscover";
inline constexpr char kFormatToml[] = "toml";

// kFormatIbnetdiscover or kFormatToml for `format` "auto" (as above), else
// `format` itself.
std::string ResolveFabricFormat(absl::string_view format, absl::string_view path,
                                absl::string_view text);

struct FabricSource {
  Fabric fabric;
  std::string format;  // the reader used: kFormatIbnetdiscover or kFormatToml
};

// Reads `text` with the reader `format` ("auto", "ibnetdiscover", "toml")
// chooses. INVALID_ARGUMENT naming the line (the readers' errors), an
// empty text, or an unknown format.
absl::StatusOr<FabricSource> ParseFabric(absl::string_view format, absl::string_view path,
                                         absl::string_view text);

}  // namespace eb::topology
