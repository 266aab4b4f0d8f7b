#include "common/memory/smaps.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace eb::common {
namespace {

// "55d0c8a5b000-55d0c8a7d000 r--p 00000000 fd:01 1234   /usr/bin/x" into
// `mapping`; false when the line is not a mapping's header.
bool ParseHeader(absl::string_view line, Mapping& mapping) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(line, absl::MaxSplits(' ', 5), absl::SkipEmpty());
  if (fields.size() < 5) return false;
  const std::vector<absl::string_view> range = absl::StrSplit(fields[0], '-');
  if (range.size() != 2 || !absl::SimpleHexAtoi(range[0], &mapping.start) ||
      !absl::SimpleHexAtoi(range[1], &mapping.end) || mapping.end < mapping.start) {
    return false;
  }
  if (fields[1].size() != 4) return false;
  mapping.permissions = std::string(fields[1]);
  mapping.path = fields.size() == 6 ? std::string(absl::StripAsciiWhitespace(fields[5])) : "";
  return true;
}

}  // namespace

absl::StatusOr<std::vector<Mapping>> ParseSmaps(absl::string_view text) {
  if (text.size() > kMaxSmapsBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("smaps: ", text.size(), " bytes, at most ", kMaxSmapsBytes));
  }
  std::vector<Mapping> mappings;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++line_number;
    const size_t colon = line.find(':');
    const size_t space = line.find(' ');
    // A field line is "Name:  value"; a header starts with the range, whose
    // first space comes before any colon of its device or path.
    const bool is_field = colon != absl::string_view::npos && colon < space;
    if (!is_field) {
      Mapping mapping;
      if (!ParseHeader(line, mapping)) {
        return absl::InvalidArgumentError(absl::StrCat("smaps line ", line_number,
                                                       " is neither a mapping nor a field: '",
                                                       line.substr(0, 120), "'"));
      }
      mappings.push_back(std::move(mapping));
      continue;
    }
    if (mappings.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("smaps line ", line_number, " is a field before any mapping"));
    }
    Mapping& mapping = mappings.back();
    const absl::string_view name = line.substr(0, colon);
    absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (name == "VmFlags") {
      mapping.vm_flags = absl::StrSplit(value, ' ', absl::SkipEmpty());
      continue;
    }
    int64_t* size = name == "Rss"         ? &mapping.rss_kb
                    : name == "Anonymous" ? &mapping.anonymous_kb
                    : name == "Swap"      ? &mapping.swap_kb
                    : name == "Locked"    ? &mapping.locked_kb
                                          : nullptr;
    if (size == nullptr) continue;
    if (!absl::ConsumeSuffix(&value, " kB") || !absl::SimpleAtoi(value, size) || *size < 0) {
      return absl::InvalidArgumentError(absl::StrCat("smaps line ", line_number, ": ", name,
                                                     " is not a size in kB: '", line.substr(0, 120),
                                                     "'"));
    }
  }
  return mappings;
}

bool PagesAreFileCopies(const Mapping& mapping) {
  const auto has_flag = [&mapping](absl::string_view flag) {
    return std::find(mapping.vm_flags.begin(), mapping.vm_flags.end(), flag) !=
           mapping.vm_flags.end();
  };
  return absl::StartsWith(mapping.path, "/") && !absl::EndsWith(mapping.path, " (deleted)") &&
         mapping.permissions.size() == 4 && mapping.permissions[1] != 'w' && mapping.rss_kb > 0 &&
         mapping.anonymous_kb == 0 && mapping.swap_kb == 0 && mapping.locked_kb == 0 &&
         !has_flag("lo") && !has_flag("io") && !has_flag("pf") && !has_flag("wr");
}

}  // namespace eb::common
