#pragma once

// Byte sizes on ebctl's command line and in files (baselines.toml), in the forms nccl-tests accepts
// for -b/-e/-i ("8", "64M", "1G"; binary units), plus the forms people type by habit ("512KiB",
// "64mb"). Pure functions, callable from any thread.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::spec {

// Parses `text` as a byte count: a decimal number, optionally followed by a
// unit K, M, G or T (powers of 1024, case-insensitive, optionally followed by
// "B" or "iB"; a bare "B" means bytes). A fraction is accepted when the
// result is a whole number of bytes ("1.5K" = 1536), because nccl-tests
// accepts fractions too. Surrounding blanks are ignored.
//
// Returns INVALID_ARGUMENT whose message starts with `flag` and quotes the
// text, e.g. "-b/--minbytes: '-8' is negative", "... is not a size (...)",
// "... is too large ...".
absl::StatusOr<int64_t> ParseSize(absl::string_view text, absl::string_view flag);

// Formats a byte count for messages with the largest binary unit that
// divides it exactly ("64M", "1G", "1536", "0"); ParseSize reads it back.
std::string FormatSize(int64_t bytes);

}  // namespace eb::spec
