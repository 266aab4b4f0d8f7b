#include "coordinator/topology/fabric_toml.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "coordinator/topology/ibnetdiscover.h"

namespace eb::topology {
namespace {

using TomlValue = std::variant<std::string, int64_t>;

struct Table {
  std::string kind;  // "cable", "uplink", "switch"
  int line = 0;
  std::map<std::string, std::pair<TomlValue, int>> keys;
};

absl::Status TomlError(int line, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("topology line ", line, ": ", what));
}

// The value and what follows it (only a comment may).
absl::StatusOr<TomlValue> ParseTomlValue(absl::string_view text, int line) {
  if (text.empty()) return TomlError(line, "a key has no value");
  absl::string_view rest;
  TomlValue value;
  if (text.front() == '"') {
    std::string out;
    size_t i = 1;
    for (; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') {
        if (i + 1 >= text.size() || (text[i + 1] != '"' && text[i + 1] != '\\')) {
          return TomlError(line, "only \\\" and \\\\ are escapes here");
        }
        ++i;
      } else if (static_cast<unsigned char>(text[i]) < 0x20) {
        return TomlError(line, "a control character in a string");
      }
      out.push_back(text[i]);
    }
    if (i >= text.size()) return TomlError(line, "a string without its closing quote");
    value = out;
    rest = text.substr(i + 1);
  } else {
    const size_t end = text.find_first_of(" \t#");
    const absl::string_view number = text.substr(0, end);
    int64_t parsed = 0;
    if (!absl::SimpleAtoi(number, &parsed)) {
      return TomlError(line, "a value that is neither a \"string\" nor an integer");
    }
    value = parsed;
    rest = end == absl::string_view::npos ? absl::string_view() : text.substr(end);
  }
  rest = absl::StripLeadingAsciiWhitespace(rest);
  if (!rest.empty() && rest.front() != '#') return TomlError(line, "text after the value");
  return value;
}

absl::StatusOr<std::string> StringKey(const Table& table, const std::string& key) {
  auto it = table.keys.find(key);
  if (it == table.keys.end()) {
    return TomlError(table.line, absl::StrCat("[[", table.kind, "]] has no ", key));
  }
  if (!std::holds_alternative<std::string>(it->second.first)) {
    return TomlError(it->second.second, absl::StrCat(key, " must be a \"string\""));
  }
  return std::get<std::string>(it->second.first);
}

absl::StatusOr<int> IntKey(const Table& table, const std::string& key, int lo, int hi) {
  auto it = table.keys.find(key);
  if (it == table.keys.end()) {
    return TomlError(table.line, absl::StrCat("[[", table.kind, "]] has no ", key));
  }
  if (!std::holds_alternative<int64_t>(it->second.first)) {
    return TomlError(it->second.second, absl::StrCat(key, " must be an integer"));
  }
  const int64_t value = std::get<int64_t>(it->second.first);
  if (value < lo || value > hi) {
    return TomlError(it->second.second, absl::StrCat(key, " ", value, " outside ", lo, "..", hi));
  }
  return static_cast<int>(value);
}

absl::Status OnlyKeys(const Table& table, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : table.keys) {
    if (allowed.count(key) == 0) {
      return TomlError(value.second, absl::StrCat("unknown key ", key, " in [[", table.kind, "]]"));
    }
  }
  return absl::OkStatus();
}

absl::Status AddTable(const Table& table, Fabric& fabric, std::set<const Cable*>& unranked) {
  if (table.kind == "cable") {
    if (auto s = OnlyKeys(table, {"node", "hca", "rail", "leaf", "leaf_port"}); !s.ok()) return s;
    Cable cable;
    auto node = StringKey(table, "node");
    if (!node.ok()) return node.status();
    auto hca = StringKey(table, "hca");
    if (!hca.ok()) return hca.status();
    auto leaf = StringKey(table, "leaf");
    if (!leaf.ok()) return leaf.status();
    auto port = IntKey(table, "leaf_port", 1, kMaxSwitchPort);
    if (!port.ok()) return port.status();
    cable.node = *node;
    cable.hca = *hca;
    cable.leaf = *leaf;
    cable.leaf_port = *port;
    const bool has_rail = table.keys.count("rail") != 0;
    if (has_rail) {
      auto rail = IntKey(table, "rail", 0, kMaxRails - 1);
      if (!rail.ok()) return rail.status();
      cable.rail = *rail;
    }
    if (fabric.cables.size() >= kMaxCables) {
      return TomlError(table.line, absl::StrCat("more than ", kMaxCables, " cables"));
    }
    fabric.cables.push_back(std::move(cable));
    if (!has_rail) unranked.insert(&fabric.cables.back());
    return absl::OkStatus();
  }
  if (table.kind == "uplink") {
    if (auto s = OnlyKeys(table, {"leaf", "leaf_port", "spine", "spine_port"}); !s.ok()) return s;
    Uplink uplink;
    auto leaf = StringKey(table, "leaf");
    if (!leaf.ok()) return leaf.status();
    auto spine = StringKey(table, "spine");
    if (!spine.ok()) return spine.status();
    auto leaf_port = IntKey(table, "leaf_port", 1, kMaxSwitchPort);
    if (!leaf_port.ok()) return leaf_port.status();
    auto spine_port = IntKey(table, "spine_port", 1, kMaxSwitchPort);
    if (!spine_port.ok()) return spine_port.status();
    uplink.leaf = *leaf;
    uplink.spine = *spine;
    uplink.leaf_port = *leaf_port;
    uplink.spine_port = *spine_port;
    if (fabric.uplinks.size() >= kMaxUplinks) {
      return TomlError(table.line, absl::StrCat("more than ", kMaxUplinks, " uplinks"));
    }
    fabric.uplinks.push_back(std::move(uplink));
    return absl::OkStatus();
  }
  if (auto s = OnlyKeys(table, {"name", "guid"}); !s.ok()) return s;
  auto name = StringKey(table, "name");
  if (!name.ok()) return name.status();
  auto guid = StringKey(table, "guid");
  if (!guid.ok()) return guid.status();
  if (fabric.switch_guids.size() >= kMaxSwitches) {
    return TomlError(table.line, absl::StrCat("more than ", kMaxSwitches, " switches"));
  }
  if (!fabric.switch_guids.emplace(*name, *guid).second) {
    return TomlError(table.line, absl::StrCat("switch ", *name, " listed twice"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Fabric> ParseFabricToml(absl::string_view text) {
  std::vector<Table> tables;
  int line_number = 0;
  bool seen_version = false;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (static_cast<size_t>(line_number) > kMaxTopologyLines) {
      return TomlError(line_number, absl::StrCat("more than ", kMaxTopologyLines, " lines"));
    }
    if (raw.size() > kMaxTopologyLineBytes) {
      return TomlError(line_number, absl::StrCat("longer than ", kMaxTopologyLineBytes, " bytes"));
    }
    const absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      const size_t close = line.find("]]");
      if (!absl::StartsWith(line, "[[") || close == absl::string_view::npos) {
        return TomlError(line_number, "only [[cable]], [[uplink]] and [[switch]] tables");
      }
      const std::string kind(absl::StripAsciiWhitespace(line.substr(2, close - 2)));
      const absl::string_view after = absl::StripLeadingAsciiWhitespace(line.substr(close + 2));
      if ((kind != "cable" && kind != "uplink" && kind != "switch") ||
          (!after.empty() && after.front() != '#')) {
        return TomlError(line_number, "only [[cable]], [[uplink]] and [[switch]] tables");
      }
      if (tables.size() >= kMaxCables + kMaxUplinks + kMaxSwitches) {
        return TomlError(line_number, "too many tables");
      }
      tables.push_back(Table{kind, line_number, {}});
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) return TomlError(line_number, "not key = value");
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, eq)));
    if (key.empty()) return TomlError(line_number, "an empty key");
    auto value = ParseTomlValue(absl::StripAsciiWhitespace(line.substr(eq + 1)), line_number);
    if (!value.ok()) return value.status();
    if (tables.empty()) {
      if (key != "version" || seen_version) {
        return TomlError(line_number, "only version = 1 may come before the first table");
      }
      if (!std::holds_alternative<int64_t>(*value) || std::get<int64_t>(*value) != 1) {
        return TomlError(line_number, "version must be 1");
      }
      seen_version = true;
      continue;
    }
    if (!tables.back().keys.emplace(key, std::make_pair(*value, line_number)).second) {
      return TomlError(line_number, absl::StrCat("key ", key, " given twice"));
    }
  }
  Fabric fabric;
  fabric.cables.reserve(std::min<size_t>(tables.size(), kMaxCables));
  std::set<const Cable*> unranked;
  for (const Table& table : tables) {
    if (auto status = AddTable(table, fabric, unranked); !status.ok()) return status;
  }
  // Cables without a rail: the node's HCAs in natural name order, after
  // the rails given explicitly.
  std::map<std::string, std::vector<Cable*>> by_node;
  for (Cable& cable : fabric.cables) {
    if (unranked.count(&cable) != 0) by_node[cable.node].push_back(&cable);
  }
  for (auto& [node, cables] : by_node) {
    std::sort(cables.begin(), cables.end(),
              [](const Cable* a, const Cable* b) { return NaturalLess(a->hca, b->hca); });
    for (size_t r = 0; r < cables.size(); ++r) cables[r]->rail = static_cast<int>(r);
  }
  if (auto status = CheckFabric(fabric); !status.ok()) return status;
  return fabric;
}

}  // namespace eb::topology
