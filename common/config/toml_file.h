#pragma once

// Config files for the daemons (/etc/ebnccl/<daemon>.toml): a TOML document
// read with toml++, and a typed schema that maps its keys onto the fields
// of a config struct. Errors name the file, the line and the key:
//
//   /etc/ebnccl/agent.toml:12: key 'agent.workerz': unknown key (did you mean
//   'agent.workers'?) /etc/ebnccl/agent.toml:7: key 'agent.workers': expected
//   an integer, got string "eight"
//
// Precedence is flag > file > default: the caller fills the struct with its
// defaults, parses the command line, then applies the file while skipping
// the keys whose flags were given. Flags are still parsed only in main.cc
// (STYLE.md rule 21); this library never sees argv. toml++ throws on syntax
// errors; the exception is caught here and never escapes (rule 1).

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/spec/limits.h"

namespace eb::common {

// A parsed TOML document and the path it came from (for error messages).
// Cheap to copy (the document is shared and immutable).
class TomlFile {
 public:
  // Reads and parses `path`. A file that does not exist is INVALID_ARGUMENT
  // naming it when `required` (a --config given on the command line), and an
  // empty document (exists() false) otherwise (the default path: the daemon
  // runs on flags). INVALID_ARGUMENT "PATH:LINE:COLUMN: syntax error: ..."
  // for malformed TOML, and "PATH: cannot read: ..." for other I/O errors.
  static absl::StatusOr<TomlFile> Load(const std::string& path, bool required);

  // Parses `text` as if it had been read from `path` (tests, stdin).
  // INVALID_ARGUMENT as Load on a syntax error.
  static absl::StatusOr<TomlFile> Parse(absl::string_view text, const std::string& path);

  // An empty document that names no file.
  TomlFile();

  const std::string& path() const { return path_; }
  // False for a default file that was absent.
  bool exists() const { return exists_; }
  // Whether the dotted key ("worker.env", "agent.workers") is present.
  bool Contains(absl::string_view dotted_key) const;
  // "PATH:LINE: key 'KEY'" for a key present in the file, "" otherwise: for
  // errors about a value found only later (checked against the host).
  std::string Where(absl::string_view dotted_key) const;

 private:
  friend class ConfigSchema;
  struct Document;

  std::string path_;
  bool exists_ = false;
  std::shared_ptr<const Document> document_;
};

// "KEY = VALUE" pairs of a TOML table whose values are all strings, such as
// [worker.env]; sorted by key.
using StringTable = std::vector<std::pair<std::string, std::string>>;

// Formats `text` as a TOML basic string, quotes included.
std::string TomlQuote(absl::string_view text);

// The typed keys of one config file, each bound to a setter (and a getter,
// for printing the effective configuration back as TOML).
//
// Keys are dotted paths: "agent.workers" is `workers = ...` in the [agent]
// section. Every key must be declared; an undeclared key in the file is an
// error with a "did you mean" suggestion. Sections are implied by the keys.
// A key of type string table ("worker.env") is a whole sub-table.
//
// Value types and what the file may hold for them:
//   string        "text"
//   int           123                  (range-checked by the bound form)
//   bool          true / false
//   duration      "30s", "500ms", "1m30s", "1.5s" (absl::ParseDuration), or
//                 an integer number of milliseconds
//   string list   ["a", "b"]
//   int list      [0, 1, 2]
//   string table  [section.key] then NAME = "value" lines
//
// Not thread-safe; built and used in main() only. The bound forms keep the
// field pointers, which must outlive the schema.
class ConfigSchema {
 public:
  // Setters return INVALID_ARGUMENT with a message that the schema prefixes
  // with "FILE:LINE: key 'KEY': ".
  template <typename T>
  using Setter = std::function<absl::Status(const T&)>;
  template <typename T>
  using Getter = std::function<T()>;

  enum class Type { kString, kInt, kBool, kDuration, kStringList, kIntList, kStringTable };
  // A converted value; the alternative matches the key's Type, in order.
  using Value = std::variant<std::string, int64_t, bool, absl::Duration, std::vector<std::string>,
                             std::vector<int64_t>, StringTable>;

  // A declared key; returned by the Add and bound forms to name the
  // command-line flag that overrides it.
  class Key {
   public:
    // The command-line option ("--workers") whose presence skips this key.
    Key& Flag(std::string flag) {
      flag_ = std::move(flag);
      return *this;
    }
    const std::string& name() const { return name_; }
    const std::string& flag() const { return flag_; }
    Type type() const { return type_; }
    // Stores a value of this key's type through the setter (INVALID_ARGUMENT
    // when the setter refuses it), and reads the current one.
    absl::Status Set(const Value& value) const { return set_(value); }
    Value Get() const { return get_(); }

   private:
    friend class ConfigSchema;
    std::string name_;
    std::string flag_;
    Type type_ = Type::kString;
    std::function<absl::Status(const Value&)> set_;
    std::function<Value()> get_;
  };

  ConfigSchema() = default;
  ConfigSchema(ConfigSchema&&) = default;
  ConfigSchema& operator=(ConfigSchema&&) = default;

  // Generic forms: the setter validates and stores the value.
  Key& AddString(std::string key, Setter<std::string> set, Getter<std::string> get);
  Key& AddInt(std::string key, Setter<int64_t> set, Getter<int64_t> get);
  Key& AddBool(std::string key, Setter<bool> set, Getter<bool> get);
  Key& AddDuration(std::string key, Setter<absl::Duration> set, Getter<absl::Duration> get);
  Key& AddStringList(std::string key, Setter<std::vector<std::string>> set,
                     Getter<std::vector<std::string>> get);
  Key& AddIntList(std::string key, Setter<std::vector<int64_t>> set,
                  Getter<std::vector<int64_t>> get);
  Key& AddStringTable(std::string key, Setter<StringTable> set, Getter<StringTable> get);

  // Bound forms: store into the field, with range checks.
  Key& String(std::string key, std::string* field);
  // A string that `check` must accept (its error becomes the key's); the
  // empty string, "not set", is stored without asking it.
  Key& String(std::string key, std::string* field,
              std::function<absl::Status(absl::string_view)> check);
  // `field` must hold one of `choices`.
  Key& Choice(std::string key, std::string* field, std::vector<std::string> choices);
  Key& Int(std::string key, int* field, int min, int max);
  Key& Bool(std::string key, bool* field);
  // Finite, within [min, max]; by default the daemons' range of the shared
  // table (common/spec/numbers.h, kDaemonDurationRange: 1ms to a week).
  Key& Duration(std::string key, absl::Duration* field, absl::Duration min = absl::Milliseconds(1),
                absl::Duration max = absl::Milliseconds(spec::kMaxTimeoutMs));
  Key& StringList(std::string key, std::vector<std::string>* field);
  // Every element within [min, max].
  Key& IntList(std::string key, std::vector<int>* field, int min, int max);

  // Applies every declared key present in `file` through its setter, except
  // keys whose Flag() or name is in `skip` (options given on the command
  // line: flag > file); skipped keys are still type-checked. A file that
  // does not exist applies nothing. INVALID_ARGUMENT listing every problem,
  // one per line ordered by line number, each "FILE:LINE: key 'KEY': ...":
  // unknown keys (with a suggestion), wrong types, values out of range or
  // refused by a setter. On error some keys may have been applied already;
  // callers treat the error as fatal.
  absl::Status Apply(const TomlFile& file, const std::set<std::string>& skip = {}) const;

  // Every declared key as TOML, sections in declaration order, values from
  // the getters: a file that Apply() reads back to the same values.
  std::string FormatToml() const;

  // Declared keys in declaration order.
  std::vector<const Key*> keys() const;

 private:
  Key& Declare(std::string key, Type type);

  // Stable addresses: Key& handed out while more keys are declared.
  std::deque<Key> keys_;
};

}  // namespace eb::common
