// ConfigSchema: declaring keys, the bound setters with their range checks,
// and printing the current values back as TOML. Applying a file (which needs
// toml++) is in toml_file.cc.

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/config/key_path.h"
#include "common/config/toml_file.h"

namespace eb::common {

namespace {

using config_internal::Leaf;
using config_internal::Section;
using Type = ConfigSchema::Type;
using Value = ConfigSchema::Value;

bool IsBareKey(absl::string_view text) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

std::string FormatKey(absl::string_view name) {
  return IsBareKey(name) ? std::string(name) : TomlQuote(name);
}

std::string FormatValue(const Value& value) {
  struct Visitor {
    std::string operator()(const std::string& text) const { return TomlQuote(text); }
    std::string operator()(int64_t integer) const { return absl::StrCat(integer); }
    std::string operator()(bool boolean) const { return boolean ? "true" : "false"; }
    std::string operator()(absl::Duration duration) const {
      return TomlQuote(absl::FormatDuration(duration));
    }
    std::string operator()(const std::vector<std::string>& texts) const {
      std::vector<std::string> quoted;
      quoted.reserve(texts.size());
      for (const std::string& text : texts) quoted.push_back(TomlQuote(text));
      return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
    }
    std::string operator()(const std::vector<int64_t>& integers) const {
      return absl::StrCat("[", absl::StrJoin(integers, ", "), "]");
    }
    std::string operator()(const StringTable& table) const {
      std::string lines;
      for (const auto& [name, text] : table) {
        absl::StrAppend(&lines, FormatKey(name), " = ", TomlQuote(text), "\n");
      }
      return lines;
    }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace

std::string TomlQuote(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += absl::StrFormat("\\u%04X", static_cast<unsigned char>(c));
        } else {
          out += c;  // UTF-8 passes through: TOML strings are UTF-8.
        }
    }
  }
  out += '"';
  return out;
}

// ---------------------------------------------------------------------------
// ConfigSchema: declaration

ConfigSchema::Key& ConfigSchema::Declare(std::string key, Type type) {
  Key& entry = keys_.emplace_back();
  entry.name_ = std::move(key);
  entry.type_ = type;
  return entry;
}

namespace {

// Wraps a typed setter and getter over the Value variant; the schema only
// calls set with the alternative its Type names.
template <typename T>
std::function<absl::Status(const Value&)> Erase(ConfigSchema::Setter<T> set) {
  return [set = std::move(set)](const Value& value) { return set(std::get<T>(value)); };
}
template <typename T>
std::function<Value()> Erase(ConfigSchema::Getter<T> get) {
  return [get = std::move(get)]() { return Value(get()); };
}

}  // namespace

#define EB_DECLARE_ADD(Method, T, kType)                                                   \
  ConfigSchema::Key& ConfigSchema::Method(std::string key, Setter<T> set, Getter<T> get) { \
    Key& entry = Declare(std::move(key), kType);                                           \
    entry.set_ = Erase<T>(std::move(set));                                                 \
    entry.get_ = Erase<T>(std::move(get));                                                 \
    return entry;                                                                          \
  }
EB_DECLARE_ADD(AddString, std::string, Type::kString)
EB_DECLARE_ADD(AddInt, int64_t, Type::kInt)
EB_DECLARE_ADD(AddBool, bool, Type::kBool)
EB_DECLARE_ADD(AddDuration, absl::Duration, Type::kDuration)
EB_DECLARE_ADD(AddStringList, std::vector<std::string>, Type::kStringList)
EB_DECLARE_ADD(AddIntList, std::vector<int64_t>, Type::kIntList)
EB_DECLARE_ADD(AddStringTable, StringTable, Type::kStringTable)
#undef EB_DECLARE_ADD

ConfigSchema::Key& ConfigSchema::String(std::string key, std::string* field) {
  return AddString(
      std::move(key),
      [field](const std::string& value) {
        *field = value;
        return absl::OkStatus();
      },
      [field] { return *field; });
}

ConfigSchema::Key& ConfigSchema::String(std::string key, std::string* field,
                                        std::function<absl::Status(absl::string_view)> check) {
  return AddString(
      std::move(key),
      [field, check = std::move(check)](const std::string& value) {
        if (!value.empty()) {
          if (absl::Status status = check(value); !status.ok()) return status;
        }
        *field = value;
        return absl::OkStatus();
      },
      [field] { return *field; });
}

ConfigSchema::Key& ConfigSchema::Choice(std::string key, std::string* field,
                                        std::vector<std::string> choices) {
  return AddString(
      std::move(key),
      [field, choices = std::move(choices)](const std::string& value) {
        if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "must be one of ", absl::StrJoin(choices, ", "), ", got ", TomlQuote(value)));
        }
        *field = value;
        return absl::OkStatus();
      },
      [field] { return *field; });
}

ConfigSchema::Key& ConfigSchema::Int(std::string key, int* field, int min, int max) {
  return AddInt(
      std::move(key),
      [field, min, max](int64_t value) {
        if (value < min || value > max) {
          return absl::InvalidArgumentError(
              absl::StrCat("must be between ", min, " and ", max, ", got ", value));
        }
        *field = static_cast<int>(value);
        return absl::OkStatus();
      },
      [field] { return static_cast<int64_t>(*field); });
}

ConfigSchema::Key& ConfigSchema::Bool(std::string key, bool* field) {
  return AddBool(
      std::move(key),
      [field](bool value) {
        *field = value;
        return absl::OkStatus();
      },
      [field] { return *field; });
}

ConfigSchema::Key& ConfigSchema::Duration(std::string key, absl::Duration* field,
                                          absl::Duration min, absl::Duration max) {
  return AddDuration(
      std::move(key),
      [field, min, max](absl::Duration value) {
        if (value == absl::InfiniteDuration() || value == -absl::InfiniteDuration() ||
            value < min || value > max) {
          return absl::InvalidArgumentError(
              absl::StrCat("must be between ", absl::FormatDuration(min), " and ",
                           absl::FormatDuration(max), ", got ", absl::FormatDuration(value)));
        }
        *field = value;
        return absl::OkStatus();
      },
      [field] { return *field; });
}

ConfigSchema::Key& ConfigSchema::StringList(std::string key, std::vector<std::string>* field) {
  return AddStringList(
      std::move(key),
      [field](const std::vector<std::string>& value) {
        *field = value;
        return absl::OkStatus();
      },
      [field] { return *field; });
}

ConfigSchema::Key& ConfigSchema::IntList(std::string key, std::vector<int>* field, int min,
                                         int max) {
  return AddIntList(
      std::move(key),
      [field, min, max](const std::vector<int64_t>& value) {
        for (size_t i = 0; i < value.size(); ++i) {
          if (value[i] < min || value[i] > max) {
            return absl::InvalidArgumentError(absl::StrCat("element ", i, " must be between ", min,
                                                           " and ", max, ", got ", value[i]));
          }
        }
        field->assign(value.begin(), value.end());
        return absl::OkStatus();
      },
      [field] { return std::vector<int64_t>(field->begin(), field->end()); });
}

std::vector<const ConfigSchema::Key*> ConfigSchema::keys() const {
  std::vector<const Key*> result;
  for (const Key& key : keys_) result.push_back(&key);
  return result;
}

// ---------------------------------------------------------------------------
// ConfigSchema: formatting

std::string ConfigSchema::FormatToml() const {
  // Sections in the order their first key was declared; tables after the
  // plain keys of the section they sit in.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Key*>> plain;
  for (const Key& key : keys_) {
    const std::string section(key.type() == Type::kStringTable ? key.name() : Section(key.name()));
    if (std::find(order.begin(), order.end(), section) == order.end()) order.push_back(section);
    plain[section].push_back(&key);
  }
  // The root section (keys without a dot) must come before any header.
  std::stable_partition(order.begin(), order.end(), [](const std::string& s) { return s.empty(); });
  std::string out;
  for (const std::string& section : order) {
    if (!section.empty()) {
      if (!out.empty()) out += "\n";
      std::vector<std::string> parts = absl::StrSplit(section, '.');
      for (std::string& part : parts) part = FormatKey(part);
      absl::StrAppend(&out, "[", absl::StrJoin(parts, "."), "]\n");
    }
    for (const Key* key : plain[section]) {
      if (key->type() == Type::kStringTable) {
        out += FormatValue(key->Get());
      } else {
        absl::StrAppend(&out, FormatKey(Leaf(key->name())), " = ", FormatValue(key->Get()), "\n");
      }
    }
  }
  return out;
}

}  // namespace eb::common
