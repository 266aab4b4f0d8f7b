#include "common/spec/toml_tables.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace eb::spec {
namespace {

// Removes a trailing comment: a '#' outside a string.
absl::string_view StripComment(absl::string_view line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (in_string && line[i] == '\\') {
      ++i;
    } else if (line[i] == '"') {
      in_string = !in_string;
    } else if (line[i] == '#' && !in_string) {
      return line.substr(0, i);
    }
  }
  return line;
}

std::string ExpectedTables(const TomlTablesSchema& schema) {
  std::vector<std::string> names;
  names.reserve(schema.tables.size());
  for (const std::string& table : schema.tables) names.push_back(absl::StrCat("[[", table, "]]"));
  if (names.size() <= 1) return absl::StrJoin(names, "");
  const std::string last = names.back();
  names.pop_back();
  return absl::StrCat(absl::StrJoin(names, ", "), " or ", last);
}

// TOML's bare keys: A-Za-z0-9_-
bool IsBareKey(absl::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// TOML's decimal integer: an optional sign, digits, one '_' between two.
bool IsInteger(absl::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  if (text.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(text.front()))) return false;
  for (size_t i = 1; i < text.size(); ++i) {
    const bool digit = absl::ascii_isdigit(static_cast<unsigned char>(text[i]));
    const bool joiner = text[i] == '_' && i + 1 < text.size() &&
                        absl::ascii_isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!digit && !joiner) return false;
  }
  return true;
}

absl::StatusOr<std::string> ParseString(const TomlTablesSchema& schema, absl::string_view text,
                                        int line) {
  std::string out;
  for (size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      if (i + 1 != text.size()) return TomlLineError(schema, line, "text after the value");
      return out;
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      return TomlLineError(schema, line, "a control character in a string");
    }
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i == text.size()) break;
    switch (text[i]) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      default:
        return TomlLineError(
            schema, line,
            absl::StrCat("unsupported escape \\", text.substr(i, 1), " (only \\\" \\\\ \\n \\t)"));
    }
  }
  return TomlLineError(schema, line, "unterminated string");
}

absl::StatusOr<TomlValue> ParseValue(const TomlTablesSchema& schema, absl::string_view text,
                                     int line) {
  if (text.empty()) return TomlLineError(schema, line, "a key has no value");
  if (text.front() == '"') {
    absl::StatusOr<std::string> parsed = ParseString(schema, text, line);
    if (!parsed.ok()) return parsed.status();
    return TomlValue{*std::move(parsed), line};
  }
  std::string digits(text);
  digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
  if (IsInteger(text)) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(digits, &value)) {
      return TomlLineError(schema, line, absl::StrCat("integer ", text, " out of range"));
    }
    return TomlValue{value, line};
  }
  double value = 0;
  if (!absl::SimpleAtod(digits, &value)) {
    return TomlLineError(schema, line,
                         absl::StrCat("'", text, "' is neither a string nor a number"));
  }
  return TomlValue{value, line};
}

const TomlValue* Find(const TomlEntry& entry, const std::string& key) {
  auto it = entry.keys.find(key);
  return it == entry.keys.end() ? nullptr : &it->second;
}

absl::Status Missing(const TomlTablesSchema& schema, const TomlEntry& entry,
                     const std::string& key) {
  return TomlLineError(schema, entry.line, absl::StrCat("[[", entry.table, "]] entry needs ", key));
}

}  // namespace

absl::Status TomlLineError(const TomlTablesSchema& schema, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(schema.file, " line ", line, ": ", what));
}

absl::StatusOr<TomlTables> ParseTomlTables(absl::string_view text, const TomlTablesSchema& schema) {
  TomlTables tables;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (static_cast<size_t>(line_number) > schema.max_lines) {
      return TomlLineError(schema, line_number,
                           absl::StrCat("more than ", schema.max_lines, " lines"));
    }
    if (raw.size() > schema.max_line_bytes) {
      return TomlLineError(schema, line_number,
                           absl::StrCat("longer than ", schema.max_line_bytes, " bytes"));
    }
    const absl::string_view line = absl::StripAsciiWhitespace(StripComment(raw));
    if (line.empty()) continue;
    if (line.front() == '[') {
      std::string name;
      if (absl::StartsWith(line, "[[") && absl::EndsWith(line, "]]") && line.size() > 4) {
        name = std::string(absl::StripAsciiWhitespace(line.substr(2, line.size() - 4)));
      }
      if (std::find(schema.tables.begin(), schema.tables.end(), name) == schema.tables.end()) {
        return TomlLineError(
            schema, line_number,
            absl::StrCat("unknown table ", line, " (expected ", ExpectedTables(schema), ")"));
      }
      if (tables.entries.size() >= schema.max_entries) {
        return TomlLineError(schema, line_number,
                             absl::StrCat("more than ", schema.max_entries, " [[tables]]"));
      }
      tables.entries.push_back(TomlEntry{std::move(name), line_number, {}});
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) {
      return TomlLineError(schema, line_number,
                           absl::StrCat("expected key = value, got '", line, "'"));
    }
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, equals)));
    if (!IsBareKey(key)) {
      return TomlLineError(schema, line_number,
                           absl::StrCat("key '", key, "' is not letters, digits, '_' or '-'"));
    }
    absl::StatusOr<TomlValue> value =
        ParseValue(schema, absl::StripAsciiWhitespace(line.substr(equals + 1)), line_number);
    if (!value.ok()) return value.status();
    std::map<std::string, TomlValue>& keys =
        tables.entries.empty() ? tables.top : tables.entries.back().keys;
    if (!keys.emplace(key, *std::move(value)).second) {
      return TomlLineError(schema, line_number, absl::StrCat("key '", key, "' given twice"));
    }
  }
  return tables;
}

absl::Status CheckTomlVersion(const TomlTablesSchema& schema, const TomlTables& tables,
                              int64_t expected) {
  for (const auto& [key, value] : tables.top) {
    if (key != "version") {
      return TomlLineError(schema, value.line,
                           absl::StrCat("key '", key, "' outside ", ExpectedTables(schema)));
    }
    const int64_t* version = std::get_if<int64_t>(&value.value);
    if (version == nullptr || *version != expected) {
      return TomlLineError(schema, value.line, absl::StrCat("version must be ", expected));
    }
  }
  return absl::OkStatus();
}

absl::Status OnlyTomlKeys(const TomlTablesSchema& schema, const TomlEntry& entry,
                          const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : entry.keys) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return TomlLineError(schema, value.line,
                           absl::StrCat("unknown key '", key, "' in [[", entry.table, "]]"));
    }
  }
  return absl::OkStatus();
}

bool HasTomlKey(const TomlEntry& entry, const std::string& key) {
  return Find(entry, key) != nullptr;
}

absl::StatusOr<std::string> TomlString(const TomlTablesSchema& schema, const TomlEntry& entry,
                                       const std::string& key) {
  const TomlValue* value = Find(entry, key);
  if (value == nullptr) return Missing(schema, entry, key);
  const std::string* text = std::get_if<std::string>(&value->value);
  if (text == nullptr) {
    return TomlLineError(schema, value->line,
                         absl::StrCat("[[", entry.table, "]] ", key, " must be a string"));
  }
  return *text;
}

absl::StatusOr<int64_t> TomlInteger(const TomlTablesSchema& schema, const TomlEntry& entry,
                                    const std::string& key, int64_t lo, int64_t hi) {
  const TomlValue* value = Find(entry, key);
  if (value == nullptr) return Missing(schema, entry, key);
  const int64_t* number = std::get_if<int64_t>(&value->value);
  if (number == nullptr) {
    return TomlLineError(schema, value->line,
                         absl::StrCat("[[", entry.table, "]] ", key, " must be an integer"));
  }
  if (*number < lo || *number > hi) {
    return TomlLineError(
        schema, value->line,
        absl::StrCat("[[", entry.table, "]] ", key, " ", *number, " outside ", lo, "..", hi));
  }
  return *number;
}

absl::StatusOr<double> TomlPositiveNumber(const TomlTablesSchema& schema, const TomlEntry& entry,
                                          const std::string& key, double max, bool whole) {
  const TomlValue* value = Find(entry, key);
  if (value == nullptr) return Missing(schema, entry, key);
  double number = std::nan("");
  if (const int64_t* integer = std::get_if<int64_t>(&value->value)) {
    number = static_cast<double>(*integer);
  } else if (const double* real = std::get_if<double>(&value->value)) {
    number = *real;
  }
  // NaN, infinities and 1e300 are typos (and casting them to an integer is
  // undefined).
  if (!std::isfinite(number) || !(number > 0) || number > max ||
      (whole && std::floor(number) != number)) {
    return TomlLineError(
        schema, value->line,
        absl::StrCat("[[", entry.table, "]] ", key, " must be a positive ",
                     whole ? "integer" : "number", " up to ", static_cast<int64_t>(max)));
  }
  return number;
}

}  // namespace eb::spec
