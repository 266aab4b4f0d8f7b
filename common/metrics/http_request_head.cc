#include "common/metrics/http_request_head.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace eb::common {
namespace {

HttpRequestHead Bad(int status, std::string reason) {
  HttpRequestHead head;
  head.progress = HttpRequestHead::Progress::kBad;
  head.status = status;
  head.reason = std::move(reason);
  return head;
}

// RFC 9110's token characters, the method's alphabet.
bool IsToken(absl::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
           absl::string_view("!#$%&'*+-.^_`|~").find(c) != absl::string_view::npos;
  });
}

bool IsVisible(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
}

}  // namespace

HttpRequestHead ParseHttpRequestHead(absl::string_view received, size_t max_head_bytes) {
  // The head ends at an empty line; a bare LF is tolerated (RFC 9112 2.2).
  size_t end = received.find("\r\n\r\n");
  const size_t lf_end = received.find("\n\n");
  if (lf_end != absl::string_view::npos && (end == absl::string_view::npos || lf_end < end)) {
    end = lf_end;
  }
  if (end == absl::string_view::npos || end > max_head_bytes) {
    if (received.size() > max_head_bytes || end != absl::string_view::npos) {
      return Bad(431, "request head too large");
    }
    return HttpRequestHead{};
  }
  absl::string_view line = received.substr(0, received.find('\n'));
  if (absl::EndsWith(line, "\r")) line.remove_suffix(1);
  const std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
  if (parts.size() != 3 || !IsToken(parts[0]) || !IsVisible(parts[1]) || parts[1].empty()) {
    return Bad(400, "malformed request line");
  }
  if (!absl::StartsWith(parts[2], "HTTP/")) return Bad(400, "malformed request line");
  if (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0") return Bad(505, "HTTP version");
  HttpRequestHead head;
  head.progress = HttpRequestHead::Progress::kComplete;
  head.method = std::string(parts[0]);
  head.path = std::string(parts[1].substr(0, parts[1].find('?')));
  return head;
}

}  // namespace eb::common
