#pragma once

// The transport of a path NCCL's log names for a channel connection (issue
// 29, item 4), shared by the agent that reads the log and the coordinator
// that compares the ranks: "NET/IB/1/GDRDMA" -> "NET/IB", "NET/Socket/0" ->
// "NET/Socket", "P2P/CUMEM/read" -> "P2P/CUMEM", "P2P/direct pointer/read"
// -> "P2P/direct", "SHM/direct" -> "SHM/direct". Pure.

#include <string>

#include "absl/strings/string_view.h"

namespace eb::spec {

inline std::string NcclPathTransport(absl::string_view path) {
  const size_t slash = path.find('/');
  if (slash == absl::string_view::npos) return std::string(path.substr(0, path.find(' ')));
  absl::string_view second = path.substr(slash + 1);
  second = second.substr(0, second.find_first_of("/ ("));
  return std::string(path.substr(0, slash + 1)) + std::string(second);
}

}  // namespace eb::spec
