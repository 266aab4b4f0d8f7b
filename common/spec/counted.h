#pragma once

// A count and its noun, plural by the count: "1 node", "2 nodes", "0 nodes"
// (issue 33 item 8: "1 nodes", "1 pairs tested of 6"). One helper for every
// message, table and summary that counts something, so that none says
// "node(s)" or "1 nodes". Pure; any thread.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace eb::spec {

// "<count> <singular>" when count is 1 (or -1), else "<count> <plural>";
// `plural` defaults to singular + "s" (give it for "process", "processes").
std::string Counted(int64_t count, absl::string_view singular, absl::string_view plural = {});

// The noun alone, by the same rule ("node" for 1, "nodes" otherwise).
std::string Noun(int64_t count, absl::string_view singular, absl::string_view plural = {});

}  // namespace eb::spec
