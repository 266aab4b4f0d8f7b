#include "coordinator/validation/baselines_toml.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/spec/byte_size.h"
#include "common/spec/wire_names.h"

namespace eb::validation {
namespace {

using Value = std::variant<std::string, double>;

struct Entry {
  std::string table;                                  // "intra" or "pairs"
  int line = 0;                                       // of its [[header]]
  std::map<std::string, std::pair<Value, int>> keys;  // value and its line
};

absl::Status LineError(int line, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("baselines line ", line, ": ", what));
}

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

absl::StatusOr<Value> ParseValue(absl::string_view text, int line) {
  if (text.empty()) return LineError(line, "a key has no value");
  if (text.front() == '"') {
    std::string out;
    for (size_t i = 1; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"') {
        if (i + 1 != text.size()) return LineError(line, "text after the closing quote");
        return Value(out);
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
          return LineError(line, absl::StrCat("unsupported escape \\", text.substr(i, 1)));
      }
    }
    return LineError(line, "unterminated string");
  }
  std::string number(text);
  number.erase(std::remove(number.begin(), number.end(), '_'), number.end());
  double value = 0;
  if (!absl::SimpleAtod(number, &value)) {
    return LineError(line, absl::StrCat("'", text, "' is neither a string nor a number"));
  }
  return Value(value);
}

absl::StatusOr<std::string> String(const Entry& entry, const std::string& key) {
  auto it = entry.keys.find(key);
  if (it == entry.keys.end()) {
    return LineError(entry.line, absl::StrCat("[[", entry.table, "]] entry needs ", key));
  }
  if (!std::holds_alternative<std::string>(it->second.first)) {
    return LineError(it->second.second,
                     absl::StrCat("[[", entry.table, "]] ", key, " must be a string"));
  }
  return std::get<std::string>(it->second.first);
}

// Counts, rates and bandwidths of a baseline are far below this; NaN,
// infinities and 1e300 are typos (and casting them to an integer is
// undefined).
constexpr double kMaxBaselineNumber = 1e6;

// A positive finite number up to kMaxBaselineNumber; `integer` also
// requires a whole one.
absl::StatusOr<double> Number(const Entry& entry, const std::string& key, bool integer) {
  auto it = entry.keys.find(key);
  if (it == entry.keys.end()) {
    return LineError(entry.line, absl::StrCat("[[", entry.table, "]] entry needs ", key));
  }
  const double* value = std::get_if<double>(&it->second.first);
  if (value == nullptr || !std::isfinite(*value) || !(*value > 0) || *value > kMaxBaselineNumber ||
      (integer && std::floor(*value) != *value)) {
    return LineError(it->second.second,
                     absl::StrCat("[[", entry.table, "]] ", key, " must be a positive ",
                                  integer ? "integer" : "number", " up to 1000000"));
  }
  return *value;
}

// Where the entry's figure holds: `collective` (a wire name, "all_reduce")
// and `size` ("8G"), both required: a figure is compared only at its size
// and above (baselines.h, Comparable).
absl::StatusOr<FigureAt> FigureAtOf(const Entry& entry) {
  absl::StatusOr<std::string> collective = String(entry, "collective");
  if (!collective.ok()) return collective.status();
  absl::StatusOr<std::string> size = String(entry, "size");
  if (!size.ok()) return size.status();
  const int collective_line = entry.keys.at("collective").second;
  const int size_line = entry.keys.at("size").second;
  absl::StatusOr<ebnccl::v1::Collective> parsed =
      spec::ParseWireName<ebnccl::v1::Collective>(*collective, "collective");
  if (!parsed.ok()) return LineError(collective_line, std::string(parsed.status().message()));
  absl::StatusOr<int64_t> bytes = spec::ParseSize(*size, "size");
  if (!bytes.ok()) return LineError(size_line, std::string(bytes.status().message()));
  if (*bytes <= 0) return LineError(size_line, "size must be positive");
  return FigureAt{*parsed, *bytes};
}

absl::Status CheckKeys(const Entry& entry, const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : entry.keys) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return LineError(value.second,
                       absl::StrCat("unknown key '", key, "' in [[", entry.table, "]]"));
    }
  }
  return absl::OkStatus();
}

absl::Status AddEntry(const Entry& entry, BaselineTable& table) {
  if (entry.table == "intra") {
    absl::Status keys =
        CheckKeys(entry, {"gpu_model", "gpu_count", "busbw_gbps", "collective", "size", "source"});
    if (!keys.ok()) return keys;
    absl::StatusOr<std::string> model = String(entry, "gpu_model");
    if (!model.ok()) return model.status();
    absl::StatusOr<double> count = Number(entry, "gpu_count", /*integer=*/true);
    if (!count.ok()) return count.status();
    absl::StatusOr<double> busbw = Number(entry, "busbw_gbps", /*integer=*/false);
    if (!busbw.ok()) return busbw.status();
    absl::StatusOr<FigureAt> at = FigureAtOf(entry);
    if (!at.ok()) return at.status();
    absl::StatusOr<std::string> source = String(entry, "source");
    if (!source.ok()) return source.status();
    if (absl::StripAsciiWhitespace(*model).empty()) {
      return LineError(entry.line, "[[intra]] gpu_model is empty");
    }
    table.intra.push_back({*model, static_cast<int>(*count), *busbw, *source, *at});
    return absl::OkStatus();
  }
  absl::Status keys = CheckKeys(
      entry, {"hca_rate_gbps", "hca_count", "busbw_gbps", "collective", "size", "source"});
  if (!keys.ok()) return keys;
  absl::StatusOr<double> rate = Number(entry, "hca_rate_gbps", /*integer=*/true);
  if (!rate.ok()) return rate.status();
  absl::StatusOr<double> count = Number(entry, "hca_count", /*integer=*/true);
  if (!count.ok()) return count.status();
  absl::StatusOr<double> busbw = Number(entry, "busbw_gbps", /*integer=*/false);
  if (!busbw.ok()) return busbw.status();
  absl::StatusOr<FigureAt> at = FigureAtOf(entry);
  if (!at.ok()) return at.status();
  absl::StatusOr<std::string> source = String(entry, "source");
  if (!source.ok()) return source.status();
  table.pairs.push_back(
      {static_cast<int64_t>(*rate), static_cast<int>(*count), *busbw, *source, *at});
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BaselineTable> ParseBaselinesToml(const std::string& text) {
  BaselineTable table;
  std::optional<Entry> entry;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    const absl::string_view line = absl::StripAsciiWhitespace(StripComment(raw));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line != "[[intra]]" && line != "[[pairs]]") {
        return LineError(line_number, absl::StrCat("unknown table ", line,
                                                   " (expected [[intra]] or [[pairs]])"));
      }
      if (entry.has_value()) {
        absl::Status added = AddEntry(*entry, table);
        if (!added.ok()) return added;
      }
      entry = Entry{std::string(line.substr(2, line.size() - 4)), line_number, {}};
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) {
      return LineError(line_number, absl::StrCat("expected key = value, got '", line, "'"));
    }
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, equals)));
    absl::StatusOr<Value> value =
        ParseValue(absl::StripAsciiWhitespace(line.substr(equals + 1)), line_number);
    if (!value.ok()) return value.status();
    if (!entry.has_value()) {
      const double* version = std::get_if<double>(&*value);
      if (key != "version") {
        return LineError(line_number, absl::StrCat("key '", key, "' outside [[intra]]/[[pairs]]"));
      }
      if (version != nullptr && *version == 1) {
        // Version 1 figures said nothing of their size, and were compared
        // with 32 MiB results below the plateau they were measured at.
        return LineError(line_number,
                         "version 1 is no longer read: version 2 gives each entry the "
                         "collective and size its figure holds at (collective = \"all_reduce\", "
                         "size = \"8G\"; docs/VALIDATION.md, \"Baselines\")");
      }
      if (version == nullptr || *version != 2) {
        return LineError(line_number, "version must be 2");
      }
      continue;
    }
    if (!entry->keys.emplace(key, std::make_pair(*std::move(value), line_number)).second) {
      return LineError(line_number, absl::StrCat("key '", key, "' given twice"));
    }
  }
  if (entry.has_value()) {
    absl::Status added = AddEntry(*entry, table);
    if (!added.ok()) return added;
  }
  return table;
}

}  // namespace eb::validation
