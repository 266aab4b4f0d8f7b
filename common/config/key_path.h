#pragma once

// Internal to eb_config: the parts of a dotted key path ("worker.env.A").

#include "absl/strings/string_view.h"

namespace eb::common::config_internal {

// "grace" of "worker.grace"; the whole path when it has no dot.
inline absl::string_view Leaf(absl::string_view path) {
  const size_t dot = path.rfind('.');
  return dot == absl::string_view::npos ? path : path.substr(dot + 1);
}

// "worker" of "worker.grace"; "" when the path has no dot (a root key).
inline absl::string_view Section(absl::string_view path) {
  const size_t dot = path.rfind('.');
  return dot == absl::string_view::npos ? absl::string_view() : path.substr(0, dot);
}

}  // namespace eb::common::config_internal
