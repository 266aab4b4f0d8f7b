#include "agent/core/nccl_library.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace eb::agent {
namespace {

bool IsVersion(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, '.');
  if (parts.size() < 2 || parts.size() > 3) return false;
  for (absl::string_view part : parts) {
    if (part.empty() || part.find_first_not_of("0123456789") != absl::string_view::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ParseNcclVersionOutput(absl::string_view output) {
  // The last line: a library may log something first (NCCL_DEBUG and the
  // like are in the workers' environment).
  absl::string_view text = absl::StripAsciiWhitespace(output);
  if (const size_t newline = text.find_last_of('\n'); newline != absl::string_view::npos) {
    text = absl::StripAsciiWhitespace(text.substr(newline + 1));
  }
  if (text == "none") return std::string();
  if (IsVersion(text)) return std::string(text);
  return absl::InternalError(absl::StrCat("eb-worker --print-nccl-version printed '",
                                          text.substr(0, 200), "', not a version or 'none'"));
}

}  // namespace eb::agent
