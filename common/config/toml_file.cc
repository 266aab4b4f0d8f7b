#include "common/config/toml_file.h"

#include <errno.h>
#include <string.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/config/key_path.h"
#include "common/io/bounded_file.h"
#include "toml++/toml.h"

namespace eb::common {

struct TomlFile::Document {
  toml::table table;
};

namespace {

using config_internal::Leaf;
using config_internal::Section;
using Type = ConfigSchema::Type;
using Value = ConfigSchema::Value;

// One problem found in a file, kept with its line so that the report reads
// top to bottom whatever order toml++'s sorted tables visit keys in.
struct Problem {
  uint32_t line = 0;
  std::string text;
};

class Problems {
 public:
  explicit Problems(const std::string& path) : path_(path) {}
  void Add(uint32_t line, absl::string_view key, absl::string_view what) {
    problems_.push_back({line, absl::StrCat(path_, ":", line, ": key '", key, "': ", what)});
  }
  bool empty() const { return problems_.empty(); }
  absl::Status ToStatus() {
    std::stable_sort(problems_.begin(), problems_.end(),
                     [](const Problem& a, const Problem& b) { return a.line < b.line; });
    std::vector<std::string> lines;
    for (const Problem& problem : problems_) lines.push_back(problem.text);
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }

 private:
  const std::string& path_;
  std::vector<Problem> problems_;
};

uint32_t LineOf(const toml::key& key, const toml::node& node) {
  return key.source().begin.line != 0 ? key.source().begin.line : node.source().begin.line;
}

// "string \"eight\"", "integer 8", "an array": what a wrong value was.
std::string Describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: {
      std::string text(node.as_string()->get());
      if (text.size() > 60) text = text.substr(0, 57) + "...";
      return absl::StrCat("string ", TomlQuote(text));
    }
    case toml::node_type::integer:
      return absl::StrCat("integer ", node.as_integer()->get());
    case toml::node_type::floating_point:
      return absl::StrCat("float ", node.as_floating_point()->get());
    case toml::node_type::boolean:
      return absl::StrCat("boolean ", node.as_boolean()->get() ? "true" : "false");
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

const char* Expected(Type type) {
  switch (type) {
    case Type::kString:
      return "a string";
    case Type::kInt:
      return "an integer";
    case Type::kBool:
      return "a boolean (true or false)";
    case Type::kDuration:
      return "a duration (\"30s\", \"500ms\", \"1m30s\" or an integer number of "
             "milliseconds)";
    case Type::kStringList:
      return "a list of strings";
    case Type::kIntList:
      return "a list of integers";
    case Type::kStringTable:
      return "a table of strings";
  }
  return "a value";
}

std::string WrongType(const char* expected, const toml::node& node) {
  return absl::StrCat("expected ", expected, ", got ", Describe(node));
}

std::optional<absl::Duration> ToDuration(const toml::node& node) {
  if (const auto* integer = node.as_integer()) return absl::Milliseconds(integer->get());
  if (const auto* text = node.as_string()) {
    absl::Duration duration;
    if (absl::ParseDuration(std::string(absl::StripAsciiWhitespace(text->get())), &duration)) {
      return duration;
    }
  }
  return std::nullopt;
}

// The node as the key's type, or nullopt after recording why not. List
// elements and table entries are reported at their own lines.
std::optional<Value> Convert(const toml::node& node, Type type, const std::string& key,
                             uint32_t line, Problems& problems) {
  switch (type) {
    case Type::kString:
      if (const auto* text = node.as_string()) return Value(std::string(text->get()));
      break;
    case Type::kInt:
      if (const auto* integer = node.as_integer()) return Value(integer->get());
      break;
    case Type::kBool:
      if (const auto* boolean = node.as_boolean()) return Value(boolean->get());
      break;
    case Type::kDuration:
      if (auto duration = ToDuration(node)) return Value(*duration);
      break;
    case Type::kStringList:
    case Type::kIntList: {
      const toml::array* array = node.as_array();
      if (array == nullptr) break;
      const bool strings = type == Type::kStringList;
      std::vector<std::string> texts;
      std::vector<int64_t> integers;
      bool ok = true;
      for (size_t i = 0; i < array->size(); ++i) {
        const toml::node& element = (*array)[i];
        const uint32_t element_line =
            element.source().begin.line ? element.source().begin.line : line;
        if (strings && element.is_string()) {
          texts.emplace_back(element.as_string()->get());
        } else if (!strings && element.is_integer()) {
          integers.push_back(element.as_integer()->get());
        } else {
          problems.Add(element_line, absl::StrCat(key, "[", i, "]"),
                       WrongType(strings ? "a string" : "an integer", element));
          ok = false;
        }
      }
      if (!ok) return std::nullopt;
      return strings ? Value(std::move(texts)) : Value(std::move(integers));
    }
    case Type::kStringTable: {
      const toml::table* table = node.as_table();
      if (table == nullptr) break;
      StringTable entries;
      bool ok = true;
      for (auto&& [name, value] : *table) {
        if (const auto* text = value.as_string()) {
          entries.emplace_back(std::string(name.str()), std::string(text->get()));
        } else {
          problems.Add(LineOf(name, value), absl::StrCat(key, ".", std::string(name.str())),
                       WrongType("a string", value));
          ok = false;
        }
      }
      if (!ok) return std::nullopt;
      return Value(std::move(entries));
    }
  }
  problems.Add(line, key, WrongType(Expected(type), node));
  return std::nullopt;
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Flag and key spellings as a TOML leaf would spell them: "--worker-grace-ms"
// -> "worker_grace_ms", "worker.grace" -> "worker_grace".
std::string Underscored(absl::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  return absl::StrReplaceAll(name, {{"-", "_"}, {".", "_"}});
}

absl::Status ReadFile(const std::string& path, std::string* contents, bool* missing) {
  *missing = false;
  absl::StatusOr<std::string> text = common::ReadBoundedFile(path, common::FileKind::kConfig);
  if (!text.ok()) {
    *missing = absl::IsNotFound(text.status());
    // INVALID_ARGUMENT: a config that cannot be used is a usage error (exit 2).
    return absl::InvalidArgumentError(text.status().message());
  }
  *contents = *std::move(text);
  return absl::OkStatus();
}

}  // namespace

// ---------------------------------------------------------------------------
// TomlFile

TomlFile::TomlFile() : document_(std::make_shared<Document>()) {}

absl::StatusOr<TomlFile> TomlFile::Load(const std::string& path, bool required) {
  std::string contents;
  bool missing = false;
  if (absl::Status status = ReadFile(path, &contents, &missing); !status.ok()) {
    if (missing && !required) {
      TomlFile absent;
      absent.path_ = path;
      return absent;
    }
    return status;
  }
  return Parse(contents, path);
}

absl::StatusOr<TomlFile> TomlFile::Parse(absl::string_view text, const std::string& path) {
  auto document = std::make_shared<Document>();
  // toml++ is built with exceptions (the Debian library has only that ABI);
  // this is the one place they are caught and turned into a status.
  try {
    document->table = toml::parse(std::string_view(text.data(), text.size()), path);
  } catch (const toml::parse_error& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", error.source().begin.line, ":", error.source().begin.column,
                     ": syntax error: ", std::string(error.description())));
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot parse: ", error.what()));
  }
  TomlFile file;
  file.path_ = path;
  file.exists_ = true;
  file.document_ = std::move(document);
  return file;
}

bool TomlFile::Contains(absl::string_view dotted_key) const {
  const toml::table* table = &document_->table;
  const std::vector<std::string> parts = absl::StrSplit(dotted_key, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const toml::node* node = table->get(parts[i]);
    if (node == nullptr) return false;
    if (i + 1 == parts.size()) return true;
    table = node->as_table();
    if (table == nullptr) return false;
  }
  return false;
}

std::string TomlFile::Where(absl::string_view dotted_key) const {
  const toml::table* table = &document_->table;
  const std::vector<std::string> parts = absl::StrSplit(dotted_key, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    auto found = table->find(parts[i]);
    if (found == table->end()) return "";
    if (i + 1 == parts.size()) {
      return absl::StrCat(path_, ":", LineOf(found->first, found->second), ": key '", dotted_key,
                          "'");
    }
    table = found->second.as_table();
    if (table == nullptr) return "";
  }
  return "";
}

// ---------------------------------------------------------------------------
// ConfigSchema: applying a file

namespace {

class Applier {
 public:
  Applier(const std::deque<ConfigSchema::Key>& keys, const std::set<std::string>& skip,
          const std::string& path)
      : skip_(skip), problems_(path) {
    for (const ConfigSchema::Key& key : keys) {
      by_name_[key.name()] = &key;
      for (absl::string_view section = Section(key.name()); !section.empty();
           section = Section(section)) {
        sections_.insert(std::string(section));
      }
    }
  }

  void Walk(const toml::table& table, const std::string& prefix) {
    for (auto&& [name, node] : table) {
      const std::string path = prefix.empty() ? std::string(name.str())
                                              : absl::StrCat(prefix, ".", std::string(name.str()));
      const uint32_t line = LineOf(name, node);
      if (auto found = by_name_.find(path); found != by_name_.end()) {
        ApplyKey(*found->second, node, line);
      } else if (sections_.contains(path)) {
        if (const toml::table* section = node.as_table()) {
          Walk(*section, path);
        } else {
          problems_.Add(
              line, path,
              absl::StrCat("expected a table (section [", path, "]), got ", Describe(node)));
        }
      } else {
        problems_.Add(line, path, absl::StrCat("unknown key", Suggestion(path)));
      }
    }
  }

  absl::Status Finish() { return problems_.empty() ? absl::OkStatus() : problems_.ToStatus(); }

 private:
  void ApplyKey(const ConfigSchema::Key& key, const toml::node& node, uint32_t line) {
    std::optional<Value> value = Convert(node, key.type(), key.name(), line, problems_);
    if (!value) return;
    const bool skipped =
        skip_.contains(key.name()) || (!key.flag().empty() && skip_.contains(key.flag()));
    if (skipped) return;
    if (absl::Status status = key.Set(*value); !status.ok()) {
      problems_.Add(line, key.name(), status.message());
    }
  }

  // " (did you mean 'agent.workers'?)", or "" when nothing is close. Looks at
  // the whole path, the leaf alone (a key put in the wrong section) and the
  // flag spelling (worker_grace_ms for --worker-grace-ms).
  std::string Suggestion(const std::string& path) const {
    const std::string leaf(Leaf(path));
    size_t best_score = std::string::npos;
    std::string best;
    auto consider = [&](const std::string& candidate, size_t score) {
      if (score < best_score) {
        best_score = score;
        best = candidate;
      }
    };
    for (const auto& [name, key] : by_name_) {
      consider(name, EditDistance(path, name));
      // "worker.grace_ms", "worker.binary_path": a known key with a suffix.
      const absl::string_view known = Leaf(name);
      if (Section(name) == Section(path) && std::min(known.size(), leaf.size()) >= 4 &&
          (absl::StrContains(leaf, known) || absl::StrContains(known, leaf))) {
        consider(name, 1);
      }
      consider(name, EditDistance(leaf, Leaf(name)) + 1);
      consider(name, EditDistance(leaf, Underscored(name)));
      if (!key->flag().empty()) {
        const std::string flag = Underscored(key->flag());
        consider(name, std::min(EditDistance(leaf, flag), EditDistance(Underscored(path), flag)));
      }
    }
    for (const std::string& section : sections_) consider(section, EditDistance(path, section));
    const size_t limit = std::max<size_t>(2, leaf.size() / 4);
    if (best.empty() || best_score > limit) return "";
    return absl::StrCat(" (did you mean '", best, "'?)");
  }

  const std::set<std::string>& skip_;
  Problems problems_;
  std::map<std::string, const ConfigSchema::Key*> by_name_;
  std::set<std::string> sections_;
};

}  // namespace

absl::Status ConfigSchema::Apply(const TomlFile& file, const std::set<std::string>& skip) const {
  if (!file.exists()) return absl::OkStatus();
  Applier applier(keys_, skip, file.path());
  applier.Walk(file.document_->table, "");
  return applier.Finish();
}

}  // namespace eb::common
