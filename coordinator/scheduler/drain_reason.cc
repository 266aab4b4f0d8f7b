#include "coordinator/scheduler/drain_reason.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace eb::scheduler {

std::string OneLine(absl::string_view text, size_t max_bytes) {
  std::string line;
  line.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    // Control characters separate words: a space, never a line break or an
    // escape sequence for the operator's terminal.
    if (u < 0x20 || c == ' ') {
      if (!line.empty() && line.back() != ' ') line.push_back(' ');
      continue;
    }
    // Non-ASCII and DEL: '?', so a cut can never split a UTF-8 sequence.
    line.push_back(absl::ascii_isprint(u) ? c : '?');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  if (line.size() <= max_bytes) return line;
  if (max_bytes < 3) return std::string(max_bytes, '.');
  line.resize(max_bytes - 3);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "...";
}

std::string DrainReason(absl::string_view prefix, absl::string_view validation_id,
                        absl::string_view evidence, bool repeat_offender) {
  return OneLine(absl::StrCat(prefix, " ", validation_id, ": ",
                              repeat_offender ? "repeat offender: " : "", evidence),
                 kMaxReasonBytes);
}

bool IsOurReason(absl::string_view reason, absl::string_view prefix) {
  if (prefix.empty() || !absl::StartsWith(reason, prefix)) return false;
  if (reason.size() == prefix.size()) return true;
  const char next = reason[prefix.size()];
  return next == ' ' || next == ':';
}

}  // namespace eb::scheduler
