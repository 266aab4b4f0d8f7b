#pragma once

// The head of an HTTP/1.x request, as the metrics endpoint reads it from an
// untrusted peer (pure: no sockets, no clock). Only what a scrape needs: the
// request line (method, path, version); header fields are skipped, and the
// endpoint never reads a body (it answers and closes).

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace eb::common {

// A head longer than this is refused (431) before it is complete: a
// scraper's is a few hundred bytes.
inline constexpr size_t kMaxHttpRequestHeadBytes = 8 * 1024;

struct HttpRequestHead {
  enum class Progress { kIncomplete, kComplete, kBad };
  Progress progress = Progress::kIncomplete;
  std::string method;
  std::string path;  // the target without its query ("/metrics?x=1" -> "/metrics")
  // kBad: the status to answer (400, 431 or 505) and why.
  int status = 0;
  std::string reason;
};

// Reads `received`, all the bytes of the connection so far.
HttpRequestHead ParseHttpRequestHead(absl::string_view received,
                                     size_t max_head_bytes = kMaxHttpRequestHeadBytes);

}  // namespace eb::common
