#pragma once

// One node of `ebctl nodes --json` written straight to text: the same bytes
// as NodesToJson's element dumped by nlohmann (dump(2): sorted keys, two
// spaces per level), without building its tree. A 1,024-node listing as
// trees was ~20 MB of small allocations, a fifth of the command's time
// (issue 15). report_json_test checks the two agree byte for byte.

#include <string>

#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// Appends the node's object, its opening brace where `out` ends and its
// closing brace indented by `indent` spaces (its members by indent + 2).
void AppendNodeJson(const ebnccl::v1::NodeStatus& node, int indent, std::string* out);

}  // namespace eb::ebctl
