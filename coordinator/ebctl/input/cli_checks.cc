#include "coordinator/ebctl/input/cli_checks.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/spec/bounded_text.h"
#include "common/spec/identifiers.h"
#include "common/spec/limits.h"
#include "common/spec/numbers.h"

namespace eb::ebctl {

absl::StatusOr<int64_t> ParseWholeNumber(absl::string_view text, int64_t min, int64_t max,
                                         absl::string_view flag) {
  // The one parser of counts (common/spec/numbers.h).
  return spec::ParseCount(text, flag, min, max);
}

absl::StatusOr<std::vector<std::string>> ParseNodeList(absl::string_view text,
                                                       absl::string_view flag) {
  std::vector<std::string> names;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;  // "a,,b" is a typo, not a request for every node
    names.emplace_back(part);
  }
  if (names.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": an empty list (", spec::Quote(text),
                                                   "); name the nodes, or leave ", flag,
                                                   " out to run on every idle node"));
  }
  if (names.size() > static_cast<size_t>(spec::kMaxNodeNamesInRequest)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": ", names.size(), " names, at most ", spec::kMaxNodeNamesInRequest));
  }
  for (const std::string& name : names) {
    if (absl::Status checked = spec::CheckNodeName(name, flag); !checked.ok()) return checked;
  }
  return names;
}

std::optional<std::string> UnknownCommand(const std::vector<std::string>& args,
                                          const std::vector<std::string>& commands,
                                          const std::vector<std::string>& options_with_value) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return std::nullopt;
    if (!word.empty() && word[0] == '-') {
      const bool takes_value = word.find('=') == std::string::npos &&
                               std::find(options_with_value.begin(), options_with_value.end(),
                                         word) != options_with_value.end();
      if (takes_value) ++i;
      continue;
    }
    if (std::find(commands.begin(), commands.end(), word) != commands.end()) return std::nullopt;
    return word;
  }
  return std::nullopt;
}

absl::StatusOr<std::string> NcclTestsThreadingNote(absl::string_view flag, int64_t value) {
  constexpr absl::string_view kWhy =
      "ebnccl runs one rank per GPU, each in its own process and thread";
  if (value == 1) {
    return absl::StrCat(flag, " 1: ignored; ", kWhy, ", which is what it asks for");
  }
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": ", value, " is not supported: ", kWhy,
                   " (only 1 is accepted); --workers-per-node sets the ranks per node"));
}

absl::Status CheckArgumentsUtf8(const std::vector<std::string>& arguments) {
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (spec::IsValidUtf8(arguments[i])) continue;
    return absl::InvalidArgumentError(absl::StrCat("argument ", i + 1, " ",
                                                   spec::Quote(arguments[i]),
                                                   " is not valid UTF-8 (ids, names and values "
                                                   "are sent as text)"));
  }
  return absl::OkStatus();
}

}  // namespace eb::ebctl
