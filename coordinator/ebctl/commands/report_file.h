#pragma once

// Where `ebctl report -o` and `ebctl validate --report` put their HTML
// page: only ever a regular file, never replaced unless asked (issue 33
// item 8, issue 32 item 9). As root, `-o /dev/full` once turned the device
// into a file, and `-o F` silently overwrote F.

#include <string>

#include "absl/status/status.h"

namespace eb::ebctl {

// May an existing file be replaced: --force says yes (a regular file only).
enum class Replace { kNo, kRegularFile };

// INVALID_ARGUMENT naming `flag` when `path` is empty; names something other
// than a regular file (a directory, device, FIFO, socket or symbolic link,
// even one to a regular file); names an existing file and `replace` is kNo
// ("... exists; --force replaces it"); or is in a directory that does not
// exist or cannot be written. Checked before a validation starts, so that
// hours of work do not end in an unwritable file.
absl::Status CheckReportPath(const std::string& path, const char* flag, Replace replace);

// Writes `text` to a new temporary file in `path`'s directory (created
// exclusively, never following a link) and moves it to `path` once
// complete, so that a reader never sees half a page: with kNo by link(2),
// which fails if `path` appeared meanwhile (nothing is replaced, ever); with
// kRegularFile by rename(2), after checking again that what is there is a
// regular file. INVALID_ARGUMENT (as CheckReportPath) or INTERNAL with the
// path and errno; the temporary file is removed on every failure.
absl::Status WriteReportFile(const std::string& path, const std::string& text, Replace replace);

// Now, as the page's "generated at" (ISO-8601 UTC).
std::string ReportTimeNow();

}  // namespace eb::ebctl
