#include "tests/testutil/prometheus_text.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace eb::testing {

namespace {

bool IsNameStart(char c, bool allow_colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
}
bool IsNameChar(char c, bool allow_colon) {
  return IsNameStart(c, allow_colon) || (c >= '0' && c <= '9');
}

// Consumes a metric or label name from the front of `s`.
bool ConsumeName(absl::string_view& s, bool allow_colon, std::string* name) {
  if (s.empty() || !IsNameStart(s[0], allow_colon)) return false;
  size_t n = 1;
  while (n < s.size() && IsNameChar(s[n], allow_colon)) ++n;
  *name = std::string(s.substr(0, n));
  s.remove_prefix(n);
  return true;
}

bool ParseValue(absl::string_view text, double* value) {
  if (text == "+Inf" || text == "Inf") {
    *value = INFINITY;
    return true;
  }
  if (text == "-Inf") {
    *value = -INFINITY;
    return true;
  }
  if (text == "NaN") {
    *value = NAN;
    return true;
  }
  // Plain decimal or exponent notation only (no "inf"/"nan" spellings,
  // which Go's ParseFloat would take but our renderer must not emit).
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      return false;
    }
  }
  return !text.empty() && absl::SimpleAtod(text, value);
}

// Help text: only \\ and \n are escapes; anything else after a backslash is
// taken literally (as Prometheus does).
std::string UnescapeHelp(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\\' || text[i + 1] == 'n')) {
      out += text[i + 1] == 'n' ? '\n' : '\\';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

class Parser {
 public:
  absl::StatusOr<PromText> Parse(absl::string_view text) {
    if (!text.empty() && !absl::EndsWith(text, "\n")) {
      return absl::InvalidArgumentError("the text does not end with a newline");
    }
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    for (size_t i = 0; i < lines.size(); ++i) {
      line_ = static_cast<int>(i) + 1;
      absl::Status status = ParseLine(lines[i]);
      if (!status.ok()) return status;
    }
    return std::move(result_);
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("line ", line_, ": ", what));
  }

  absl::Status ParseLine(absl::string_view line) {
    if (line.empty()) return absl::OkStatus();
    if (line[0] == '#') return ParseComment(line);
    return ParseSample(line);
  }

  absl::Status ParseComment(absl::string_view line) {
    std::vector<absl::string_view> parts = absl::StrSplit(line, absl::MaxSplits(' ', 3));
    if (parts.size() < 3 || parts[0] != "#" || (parts[1] != "HELP" && parts[1] != "TYPE")) {
      return absl::OkStatus();  // a plain comment
    }
    const std::string name(parts[2]);
    absl::string_view rest = parts.size() > 3 ? parts[3] : "";
    absl::string_view check = parts[2];
    std::string parsed;
    if (!ConsumeName(check, true, &parsed) || !check.empty()) {
      return Error(absl::StrCat("bad metric name '", name, "'"));
    }
    if (sampled_.contains(name)) {
      return Error(absl::StrCat(parts[1], " for ", name, " after its samples"));
    }
    PromFamily& family = result_.families[name];
    family.name = name;
    if (parts[1] == "HELP") {
      if (!helped_.insert(name).second) return Error(absl::StrCat("second HELP for ", name));
      family.help = UnescapeHelp(rest);
    } else {
      if (!typed_.insert(name).second) return Error(absl::StrCat("second TYPE for ", name));
      if (rest != "counter" && rest != "gauge" && rest != "histogram" && rest != "untyped") {
        return Error(absl::StrCat("unsupported type '", rest, "' for ", name));
      }
      if (rest == "counter" && !absl::EndsWith(name, "_total")) {
        return Error(absl::StrCat("counter ", name, " does not end in _total"));
      }
      family.type = std::string(rest);
    }
    return absl::OkStatus();
  }

  absl::Status ParseSample(absl::string_view line) {
    PromSample sample;
    absl::string_view s = line;
    if (!ConsumeName(s, true, &sample.name)) return Error("a sample line must start with a name");
    // A histogram's samples are <name>_bucket, <name>_sum and <name>_count.
    std::string family = sample.name;
    for (absl::string_view suffix : {"_bucket", "_sum", "_count"}) {
      absl::string_view base = sample.name;
      if (!typed_.contains(family) && absl::ConsumeSuffix(&base, suffix) &&
          result_.families.contains(std::string(base)) &&
          result_.families.at(std::string(base)).type == "histogram") {
        family = std::string(base);
      }
    }
    if (!typed_.contains(family)) {
      return Error(absl::StrCat("sample of ", sample.name, " before its TYPE line"));
    }
    if (family != current_ && sampled_.contains(family)) {
      return Error(absl::StrCat("the samples of ", family, " are not contiguous"));
    }
    current_ = family;
    sampled_.insert(family);
    if (!s.empty() && s[0] == '{') {
      s.remove_prefix(1);
      absl::Status status = ParseLabels(s, &sample.labels);
      if (!status.ok()) return status;
    }
    if (s.empty() || s[0] != ' ') return Error("expected a space before the value");
    s.remove_prefix(1);
    std::vector<absl::string_view> fields = absl::StrSplit(s, ' ');
    if (fields.empty() || fields.size() > 2) return Error(absl::StrCat("bad value '", s, "'"));
    if (!ParseValue(fields[0], &sample.value)) {
      return Error(absl::StrCat("bad value '", fields[0], "'"));
    }
    int64_t timestamp = 0;
    if (fields.size() == 2 && !absl::SimpleAtoi(fields[1], &timestamp)) {
      return Error(absl::StrCat("bad timestamp '", fields[1], "'"));
    }
    std::string key = sample.name;
    for (const auto& [k, v] : sample.labels) absl::StrAppend(&key, "\x1f", k, "\x1e", v);
    if (!series_.insert(key).second) return Error(absl::StrCat("duplicate series in '", line, "'"));
    result_.samples.push_back(std::move(sample));
    return absl::OkStatus();
  }

  // After '{': name="value" pairs separated by ',', an optional trailing ','
  // and '}'.
  absl::Status ParseLabels(absl::string_view& s, PromLabels* labels) {
    while (true) {
      if (!s.empty() && s[0] == '}') {
        s.remove_prefix(1);
        return absl::OkStatus();
      }
      std::string name;
      if (!ConsumeName(s, false, &name)) return Error("bad label name");
      if (s.size() < 2 || s[0] != '=' || s[1] != '"') {
        return Error(absl::StrCat("expected =\" after label ", name));
      }
      s.remove_prefix(2);
      std::string value;
      while (true) {
        if (s.empty()) return Error(absl::StrCat("unterminated value of label ", name));
        const char c = s[0];
        s.remove_prefix(1);
        if (c == '"') break;
        if (c == '\n') return Error("raw newline in a label value");
        if (c != '\\') {
          value += c;
          continue;
        }
        if (s.empty()) return Error("dangling backslash in a label value");
        const char escaped = s[0];
        s.remove_prefix(1);
        if (escaped == 'n') {
          value += '\n';
        } else if (escaped == '\\' || escaped == '"') {
          value += escaped;
        } else {
          return Error(absl::StrCat("bad escape \\", std::string(1, escaped), " in label ", name));
        }
      }
      if (!labels->emplace(name, value).second) {
        return Error(absl::StrCat("label ", name, " twice"));
      }
      if (!s.empty() && s[0] == ',')
        s.remove_prefix(1);
      else if (s.empty() || s[0] != '}')
        return Error("expected , or } after a label");
    }
  }

  PromText result_;
  int line_ = 0;
  std::string current_;
  std::set<std::string> helped_, typed_, sampled_, series_;
};

}  // namespace

std::optional<double> PromText::Value(const std::string& name, const PromLabels& labels) const {
  for (const PromSample& sample : samples) {
    if (sample.name == name && sample.labels == labels) return sample.value;
  }
  return std::nullopt;
}

std::map<PromLabels, double> PromText::Series(const std::string& name) const {
  std::map<PromLabels, double> series;
  for (const PromSample& sample : samples) {
    if (sample.name == name) series[sample.labels] = sample.value;
  }
  return series;
}

absl::StatusOr<PromText> ParsePrometheusText(absl::string_view text) {
  return Parser().Parse(text);
}

}  // namespace eb::testing
