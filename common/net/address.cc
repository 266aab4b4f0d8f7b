#include "common/net/address.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace eb::common {

std::string HostPort::ToString() const {
  if (host.find(':') != std::string::npos) return absl::StrCat("[", host, "]:", port);
  return absl::StrCat(host, ":", port);
}

absl::Status CheckListenAddress(absl::string_view text) {
  // Any default port will do: only the check matters here.
  absl::StatusOr<HostPort> parsed = ParseHostPort(text, 1, "address", true);
  if (parsed.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      std::string(absl::StripPrefix(parsed.status().message(), "address: ")));
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view text, int default_port,
                                       absl::string_view field, bool allow_port_zero) {
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": '", text, "' is not a valid address: ", why));
  };
  if (text.empty()) return error("empty");
  HostPort result;
  absl::string_view port_text;
  if (text.front() == '[') {
    const size_t close = text.find(']');
    if (close == absl::string_view::npos) return error("missing ']' after IPv6 address");
    result.host = std::string(text.substr(1, close - 1));
    absl::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return error("expected ':' after ']'");
      port_text = rest.substr(1);
    }
  } else {
    const size_t colon = text.rfind(':');
    if (colon != absl::string_view::npos && text.find(':') != colon) {
      return error("IPv6 addresses need brackets, e.g. [::1]:29470");
    }
    if (colon == absl::string_view::npos) {
      result.host = std::string(text);
    } else {
      result.host = std::string(text.substr(0, colon));
      port_text = text.substr(colon + 1);
      if (result.host.empty()) result.host = "0.0.0.0";
    }
  }
  if (result.host.empty()) return error("empty host");
  if (port_text.empty()) {
    result.port = default_port;
  } else if (!absl::SimpleAtoi(port_text, &result.port)) {
    return error(absl::StrCat("port '", port_text, "' is not a number"));
  }
  if (result.port < (allow_port_zero ? 0 : 1) || result.port > 65535) {
    return error(
        absl::StrCat("port ", result.port, " is outside ", allow_port_zero ? 0 : 1, "..65535"));
  }
  return result;
}

}  // namespace eb::common
