#pragma once

// Where `ebctl report` and `ebctl validate --report` put their HTML page.

#include <string>

#include "absl/status/status.h"

namespace eb::ebctl {

// INVALID_ARGUMENT naming `flag` when `path` is empty, a directory, or in a
// directory that does not exist or cannot be written: checked before a
// validation starts, so that hours of work do not end in an unwritable file.
absl::Status CheckReportPath(const std::string& path, const char* flag);

// Writes `html` to `path` through a temporary file beside it, renamed over
// it once complete, so that a reader never sees half a page. INTERNAL with
// the path and errno when a step fails.
absl::Status WriteReportFile(const std::string& path, const std::string& html);

// Now, as the page's "generated at" (ISO-8601 UTC).
std::string ReportTimeNow();

}  // namespace eb::ebctl
