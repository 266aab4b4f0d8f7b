#pragma once

// `ebctl nodes --json`: the node list document (docs/JSON_SCHEMA.md, "Node
// list"), as a tree and streamed. Pure functions, callable from any
// thread.

#include <ostream>

#include "ebnccl/v1/control.pb.h"
#include "nlohmann/json.hpp"

namespace eb::ebctl {

// The node list: schema, schema_version and nodes[] with every field of
// NodeStatus and its inventory.
nlohmann::json NodesToJson(const ebnccl::v1::ListNodesReply& reply);

// Writes NodesToJson(reply).dump(2) to `out`, a node at a time and without
// building trees (node_json_text.h): as one tree, a 1,024-node listing is
// ~20 MB of small allocations, which made up half of `ebctl nodes --json`'s
// 160-230 ms (issue 15).
void WriteNodesJson(const ebnccl::v1::ListNodesReply& reply, std::ostream& out);

}  // namespace eb::ebctl
