#pragma once

// Parsing of "host:port" arguments (--listen, --coordinator) with errors that
// name the flag.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::common {

// The coordinator's port when an address names none: one definition for the
// coordinator, the agent and ebctl.
inline constexpr int kDefaultCoordinatorPort = 29470;

struct HostPort {
  // Host name, IPv4 address, or IPv6 address without brackets.
  std::string host;
  int port = 0;
  // "host:port", with brackets around IPv6 hosts: a gRPC target.
  std::string ToString() const;
};

// Parses "host:port", "[v6]:port", "host" (default_port), or ":port"
// (host "0.0.0.0"). `field` names the flag in errors, e.g. "--listen".
// INVALID_ARGUMENT when the port is not in 1..65535 (0 allowed when
// allow_port_zero) or the host is empty where a host is required.
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text, int default_port,
                                       absl::string_view field, bool allow_port_zero = false);

// Whether `text` is an address a server can listen on ("host:port",
// "host", ":port"; port 0 allowed), as ParseHostPort checks it; the error
// message carries no field name (a config schema prefixes FILE:LINE: key).
absl::Status CheckListenAddress(absl::string_view text);

}  // namespace eb::common
