#pragma once

// Reads the [topology] file (issue 31) through common/io/bounded_file and
// hands its text to the pure readers (coordinator/topology/fabric_source.h).
// main.cc calls it once the flags and the config file are applied; a bad
// file stops the start (exit 2), as any other config error.

#include <memory>

#include "absl/status/statusor.h"
#include "coordinator/config.h"
#include "coordinator/topology/fabric_source.h"

namespace eb::coordinator {

// The fabric of `topology.file`, read as `topology.format` says; null when
// no file is set. INVALID_ARGUMENT (or the reader's code: NOT_FOUND, ...)
// "topology.file: PATH: ..." naming the file and, for its content, the line.
absl::StatusOr<std::shared_ptr<const topology::FabricSource>> LoadTopologyFile(
    const TopologyConfig& topology);

}  // namespace eb::coordinator
