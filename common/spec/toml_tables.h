#pragma once

// One reader for our data files written as TOML arrays of tables
// (baselines.toml, a hand-written fabric map): a few top-level keys, then
// entries `[[name]]` of `key = value` lines. A subset of TOML, written here
// so that the pure cores that read these files link only Abseil (toml++ is
// an I/O-layer library, cmake/EbLayers.cmake):
//
//   # comment                 whole-line, or after a value
//   version = 2               top-level keys: before the first [[table]]
//   [[intra]]                 an entry of the array of tables `intra`
//   key = "text"              a basic string: escapes \" \\ \n \t only; no
//                             raw control characters (TOML's rule)
//   key = 8                   an integer (TOML: digits, `_` between them)
//   key = 475.5               a float (also 1e3, inf, nan: the schema's
//                             accessors refuse what it cannot use)
//
// Anything else (a [table], a table the schema does not name, a key given
// twice, a bare word, an unterminated string, a line or file over the
// limits) is INVALID_ARGUMENT: "<file> line N: what". The schema then reads
// its entries with the accessors below, whose errors name the key's line.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::spec {

struct TomlValue {
  std::variant<std::string, int64_t, double> value;
  int line = 0;
};

// One `[[name]]` entry: its keys, each with its value and line.
struct TomlEntry {
  std::string table;
  int line = 0;  // of its [[header]]
  std::map<std::string, TomlValue> keys;
};

struct TomlTables {
  std::map<std::string, TomlValue> top;  // keys before the first entry
  std::vector<TomlEntry> entries;        // in file order
};

// What a file may hold. `file` names it in errors ("baselines").
struct TomlTablesSchema {
  std::string file;
  std::vector<std::string> tables;  // the [[names]] it knows
  size_t max_lines = 100000;
  size_t max_line_bytes = 4096;
  size_t max_entries = 100000;
};

absl::StatusOr<TomlTables> ParseTomlTables(absl::string_view text, const TomlTablesSchema& schema);

// "<file> line N: what"
absl::Status TomlLineError(const TomlTablesSchema& schema, int line, absl::string_view what);

// Typed access to an entry's keys; errors name the key's line (or the
// entry's header for a missing key) and "[[table]] key".
absl::Status OnlyTomlKeys(const TomlTablesSchema& schema, const TomlEntry& entry,
                          const std::vector<std::string>& allowed);
bool HasTomlKey(const TomlEntry& entry, const std::string& key);
absl::StatusOr<std::string> TomlString(const TomlTablesSchema& schema, const TomlEntry& entry,
                                       const std::string& key);
// An integer in [lo, hi].
absl::StatusOr<int64_t> TomlInteger(const TomlTablesSchema& schema, const TomlEntry& entry,
                                    const std::string& key, int64_t lo, int64_t hi);
// A finite number in (0, max]: an integer or a float; `whole` also requires
// a whole one (8.0 is 8).
absl::StatusOr<double> TomlPositiveNumber(const TomlTablesSchema& schema, const TomlEntry& entry,
                                          const std::string& key, double max, bool whole);
// The top-level keys may hold only `version`, an integer equal to
// `expected` (or none at all). Call it before reading the entries: a file
// of another version is refused first.
absl::Status CheckTomlVersion(const TomlTablesSchema& schema, const TomlTables& tables,
                              int64_t expected);

}  // namespace eb::spec
