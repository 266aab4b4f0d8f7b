#include "coordinator/topology_file.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/io/bounded_file.h"

namespace eb::coordinator {

absl::StatusOr<std::shared_ptr<const topology::FabricSource>> LoadTopologyFile(
    const TopologyConfig& topology) {
  if (topology.file.empty()) return nullptr;
  absl::StatusOr<std::string> text =
      common::ReadBoundedFile(topology.file, common::FileKind::kTopology);
  if (!text.ok()) {
    // The reader's message starts with the path already.
    return absl::Status(text.status().code(),
                        absl::StrCat("topology.file: ", text.status().message()));
  }
  absl::StatusOr<topology::FabricSource> source =
      topology::ParseFabric(topology.format, topology.file, *text);
  if (!source.ok()) {
    return absl::Status(source.status().code(), absl::StrCat("topology.file: ", topology.file, ": ",
                                                             source.status().message()));
  }
  return std::make_shared<const topology::FabricSource>(*std::move(source));
}

}  // namespace eb::coordinator
