#pragma once

// `ebctl topology` (issue 31): the fabric the coordinator loaded and what it
// and the agents' inventories disagree on, as text or a JSON document
// (schema "ebnccl.topology", docs/JSON_SCHEMA.md). Rendering only.

#include <string>

#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

inline constexpr char kTopologySchema[] = "ebnccl.topology";

// Whether the topology and the inventories disagree (`ebctl topology`
// then exits 7, docs/EXIT_CODES.md).
bool TopologyMismatches(const ebnccl::v1::GetTopologyReply& reply);

// The counts, the switches, the uplinks per leaf, the node cables and,
// last, every disagreement; "no topology loaded" without one.
std::string TopologyText(const ebnccl::v1::GetTopologyReply& reply);
nlohmann::json TopologyToJson(const ebnccl::v1::GetTopologyReply& reply);

}  // namespace eb::ebctl
