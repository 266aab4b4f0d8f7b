#include "common/spec/identifiers.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/spec/limits.h"
#include "common/spec/terminal_text.h"

namespace eb::spec {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

// A name of [A-Za-z0-9._-], starting with a letter or digit.
absl::Status CheckName(absl::string_view value, absl::string_view field, int max_length,
                       absl::string_view what) {
  if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": must not be empty"));
  if (value.size() > static_cast<size_t>(max_length)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": ", value.size(), " characters, at most ", max_length, " allowed ", Quote(value)));
  }
  if (!absl::ascii_isalnum(static_cast<unsigned char>(value.front()))) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", Quote(value), " must start with a letter or digit (", what, ")"));
  }
  for (char c : value) {
    if (!IsNameChar(c)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", Quote(value), " holds ", Quote(absl::string_view(&c, 1)), "; ",
                       what, " use letters, digits, '.', '_' and '-' only"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string Quote(absl::string_view input) {
  const bool cut = input.size() > static_cast<size_t>(kMaxQuotedInput);
  const absl::string_view shown = cut ? input.substr(0, kMaxQuotedInput) : input;
  // The one sanitizer (terminal_text.h); a quote inside is escaped too, so
  // the quoted text cannot look closed early.
  std::string out = "'";
  for (char c : PrintableAscii(shown)) {
    if (c == '\'') {
      out += "\\x27";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  if (cut) absl::StrAppend(&out, "... (", input.size(), " bytes)");
  return out;
}

absl::Status CheckTestId(absl::string_view test_id, absl::string_view field) {
  return CheckName(test_id, field, kMaxTestIdLength, "test ids");
}

absl::Status CheckNodeName(absl::string_view name, absl::string_view field) {
  return CheckName(name, field, kMaxNodeNameLength, "node names");
}

absl::Status CheckRendezvousKey(absl::string_view key, absl::string_view field) {
  if (key.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": must not be empty"));
  if (key.size() > static_cast<size_t>(kMaxRendezvousKeyLength)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", key.size(), " characters, at most ",
                                                   kMaxRendezvousKeyLength, " allowed ",
                                                   Quote(key)));
  }
  for (char c : key) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", Quote(key), " holds a space or a control character"));
    }
  }
  return absl::OkStatus();
}

}  // namespace eb::spec
