#include "coordinator/topology/ibnetdiscover.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace eb::topology {
namespace {

absl::Status LineError(int line, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("ibnetdiscover line ", line, ": ", what));
}

// A cursor over one line.
class Cursor {
 public:
  explicit Cursor(absl::string_view text) : text_(text) {}
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool Take(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  // A decimal integer in [lo, hi].
  bool Int(int lo, int hi, int& out) {
    size_t end = pos_;
    while (end < text_.size() && end - pos_ < 9 && absl::ascii_isdigit(text_[end])) ++end;
    if (end == pos_ || (end < text_.size() && absl::ascii_isdigit(text_[end]))) return false;
    int value = 0;
    if (!absl::SimpleAtoi(text_.substr(pos_, end - pos_), &value) || value < lo || value > hi) {
      return false;
    }
    pos_ = end;
    out = value;
    return true;
  }
  // Text up to the next `close` (not included); false without one.
  bool Until(char close, std::string& out) {
    const size_t end = text_.find(close, pos_);
    if (end == absl::string_view::npos) return false;
    out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  absl::string_view Rest() const { return text_.substr(std::min(pos_, text_.size())); }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

bool IsHex(const std::string& text) {
  return !text.empty() && text.size() <= 16 &&
         std::all_of(text.begin(), text.end(), [](char c) { return absl::ascii_isxdigit(c); });
}

// "S-7cfe900300a5a2a0" (quoted) -> type 'S', guid.
bool TypeGuid(Cursor& cursor, char& type, std::string& guid) {
  std::string quoted;
  if (!cursor.Take('"') || !cursor.Until('"', quoted)) return false;
  if (quoted.size() < 3 || quoted[1] != '-') return false;
  type = quoted[0];
  guid = absl::AsciiStrToLower(quoted.substr(2));
  return (type == 'S' || type == 'H' || type == 'R') && IsHex(guid);
}

// An optional "(hex port GUID)".
bool OptionalPortGuid(Cursor& cursor) {
  if (!cursor.Take('(')) return true;
  std::string guid;
  return cursor.Until(')', guid) && IsHex(guid);
}

struct Declared {
  char type = 'S';
  std::string description;
  int line = 0;
};

struct End {
  std::string guid;
  int port = 0;
  bool operator<(const End& o) const { return std::tie(guid, port) < std::tie(o.guid, o.port); }
  bool operator==(const End& o) const { return guid == o.guid && port == o.port; }
};

struct Listed {
  End from, to;
  char from_type = 'S', to_type = 'S';
  int line = 0;
};

// The NodeDescription after "#": the first quoted text, or "".
std::string DescriptionOf(absl::string_view rest) {
  const size_t hash = rest.find('#');
  if (hash == absl::string_view::npos) return "";
  const size_t open = rest.find('"', hash);
  if (open == absl::string_view::npos) return "";
  const size_t close = rest.find('"', open + 1);
  if (close == absl::string_view::npos) return "";
  return std::string(absl::StripAsciiWhitespace(rest.substr(open + 1, close - open - 1)));
}

bool IsKeyValue(absl::string_view line) {
  const size_t eq = line.find('=');
  if (eq == absl::string_view::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    if (!absl::ascii_isalnum(line[i]) && line[i] != '_') return false;
  }
  return true;
}

}  // namespace

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (absl::ascii_isdigit(a[i]) && absl::ascii_isdigit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && absl::ascii_isdigit(a[ie])) ++ie;
      while (je < b.size() && absl::ascii_isdigit(b[je])) ++je;
      // Compare digit runs by value: strip leading zeros, then by length.
      size_t is = i, js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

absl::StatusOr<Fabric> ParseIbnetdiscover(absl::string_view text) {
  std::map<std::string, Declared> declared;  // guid -> node
  std::vector<Listed> listed;
  const Declared* current = nullptr;
  std::string current_guid;
  int line_number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (static_cast<size_t>(line_number) > kMaxTopologyLines) {
      return LineError(line_number, absl::StrCat("more than ", kMaxTopologyLines, " lines"));
    }
    if (raw.size() > kMaxTopologyLineBytes) {
      return LineError(line_number, absl::StrCat("longer than ", kMaxTopologyLineBytes, " bytes"));
    }
    const absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      if (current == nullptr) return LineError(line_number, "a port line before any node");
      Cursor cursor(line);
      Listed link;
      link.line = line_number;
      link.from = {current_guid, 0};
      link.from_type = current->type;
      cursor.Take('[');
      if (!cursor.Int(1, kMaxSwitchPort, link.from.port) || !cursor.Take(']')) {
        return LineError(line_number,
                         absl::StrCat("not \"[port]\" with a port in 1..", kMaxSwitchPort));
      }
      if (!OptionalPortGuid(cursor)) return LineError(line_number, "a bad \"(port GUID)\"");
      cursor.SkipSpace();
      if (!TypeGuid(cursor, link.to_type, link.to.guid)) {
        return LineError(line_number, "no quoted peer \"S-<guid>\", \"H-<guid>\" or \"R-<guid>\"");
      }
      if (!cursor.Take('[') || !cursor.Int(1, kMaxSwitchPort, link.to.port) || !cursor.Take(']')) {
        return LineError(line_number, "the peer has no \"[port]\" in range");
      }
      if (!OptionalPortGuid(cursor)) return LineError(line_number, "a bad peer \"(port GUID)\"");
      cursor.SkipSpace();
      if (!cursor.AtEnd() && !cursor.Peek('#')) {
        return LineError(line_number, "text after the peer that is not a # comment");
      }
      listed.push_back(std::move(link));
      continue;
    }
    if (absl::StartsWith(line, "Switch") || absl::StartsWith(line, "Ca") ||
        absl::StartsWith(line, "Rt")) {
      Cursor cursor(line);
      const size_t word = line.find_first_of(" \t");
      const absl::string_view kind = line.substr(0, word);
      if (kind != "Switch" && kind != "Ca" && kind != "Rt") {
        return LineError(line_number, absl::StrCat("unknown node type"));
      }
      Cursor rest(line.substr(word == absl::string_view::npos ? line.size() : word));
      rest.SkipSpace();
      int ports = 0;
      if (!rest.Int(1, kMaxSwitchPort, ports)) {
        return LineError(line_number, "no port count in range after the node type");
      }
      rest.SkipSpace();
      Declared node;
      std::string guid;
      if (!TypeGuid(rest, node.type, guid)) {
        return LineError(line_number, "no quoted \"<type>-<guid>\" after the port count");
      }
      const char expected = kind == "Switch" ? 'S' : kind == "Ca" ? 'H' : 'R';
      if (node.type != expected) {
        return LineError(line_number, "the quoted type does not match the node type");
      }
      node.description = DescriptionOf(rest.Rest());
      node.line = line_number;
      if (declared.size() >= 4 * kMaxSwitches + kMaxCables) {
        return LineError(line_number, "too many nodes");
      }
      auto [it, inserted] = declared.emplace(guid, node);
      if (!inserted) {
        return LineError(line_number, absl::StrCat("node ", guid, " declared twice (line ",
                                                   it->second.line, ")"));
      }
      current = &it->second;
      current_guid = guid;
      continue;
    }
    if (IsKeyValue(line)) continue;
    return LineError(line_number, "neither a node, a port line, key=value nor a # comment");
  }

  // The switches' lines are the links; the CAs' must agree with them.
  std::map<End, std::pair<End, int>> switch_ports;  // switch end -> peer end, line
  for (const Listed& link : listed) {
    auto peer = declared.find(link.to.guid);
    if (peer == declared.end()) {
      return LineError(link.line, absl::StrCat("peer ", link.to.guid, " is never declared"));
    }
    if (peer->second.type != link.to_type) {
      return LineError(link.line, "the peer's type differs from its declaration");
    }
    if (link.from_type != 'S') continue;
    auto [it, inserted] = switch_ports.emplace(link.from, std::make_pair(link.to, link.line));
    if (!inserted) {
      return LineError(link.line, absl::StrCat("port ", link.from.port, " listed twice (line ",
                                               it->second.second, ")"));
    }
  }
  std::set<std::string> leaf_guids;
  for (const Listed& link : listed) {
    if (link.from_type == 'S' && link.to_type == 'H') leaf_guids.insert(link.from.guid);
    const auto reverse = switch_ports.find(link.to);
    if (link.to_type == 'S' && reverse != switch_ports.end() &&
        !(reverse->second.first == link.from)) {
      return LineError(link.line, absl::StrCat("the other end (line ", reverse->second.second,
                                               ") lists a different peer"));
    }
    if (link.from_type == 'H' && reverse == switch_ports.end()) {
      return LineError(link.line, "the switch's own lines do not list this link");
    }
  }

  // Names: a switch by its description when unique, else its GUID.
  std::map<std::string, int> description_uses;
  for (const auto& [guid, node] : declared) {
    if (node.type == 'S' && !node.description.empty()) ++description_uses[node.description];
  }
  Fabric fabric;
  auto switch_name = [&](const std::string& guid) {
    const Declared& node = declared.at(guid);
    if (!node.description.empty() && description_uses[node.description] == 1) {
      return node.description;
    }
    return absl::StrCat("S-", guid);
  };
  for (const auto& [guid, node] : declared) {
    if (node.type == 'S') fabric.switch_guids[switch_name(guid)] = absl::StrCat("0x", guid);
  }
  for (const auto& [end, peer_line] : switch_ports) {
    const auto& [peer, line] = peer_line;
    const Declared& peer_node = declared.at(peer.guid);
    if (peer_node.type == 'R') continue;  // routers are not part of a two-tier fabric
    if (peer_node.type == 'H') {
      std::vector<std::string> words =
          absl::StrSplit(peer_node.description, absl::ByAnyChar(" \t"), absl::SkipEmpty());
      Cable cable;
      cable.node = words.empty() ? absl::StrCat("H-", peer.guid) : words[0];
      cable.hca = words.size() < 2 ? absl::StrCat("H-", peer.guid) : words[1];
      if (peer.port != 1) cable.hca = absl::StrCat(cable.hca, "/", peer.port);
      cable.leaf = switch_name(end.guid);
      cable.leaf_port = end.port;
      fabric.cables.push_back(std::move(cable));
      continue;
    }
    // Listed from both switches: keep one.
    if (peer < end && switch_ports.count(peer) != 0) continue;
    const bool from_leaf = leaf_guids.count(end.guid) != 0;
    const bool to_leaf = leaf_guids.count(peer.guid) != 0;
    if (from_leaf == to_leaf) {
      return LineError(line, from_leaf
                                 ? "a link between two leaves (both have CAs)"
                                 : "a link between two spines (three tiers are not modelled)");
    }
    Uplink uplink;
    uplink.leaf = switch_name(from_leaf ? end.guid : peer.guid);
    uplink.leaf_port = from_leaf ? end.port : peer.port;
    uplink.spine = switch_name(from_leaf ? peer.guid : end.guid);
    uplink.spine_port = from_leaf ? peer.port : end.port;
    fabric.uplinks.push_back(std::move(uplink));
  }

  // Rails: a node's HCAs in natural name order.
  std::map<std::string, std::vector<Cable*>> by_node;
  for (Cable& cable : fabric.cables) by_node[cable.node].push_back(&cable);
  for (auto& [node, cables] : by_node) {
    std::sort(cables.begin(), cables.end(),
              [](const Cable* a, const Cable* b) { return NaturalLess(a->hca, b->hca); });
    for (size_t r = 0; r < cables.size(); ++r) cables[r]->rail = static_cast<int>(r);
  }
  if (auto status = CheckFabric(fabric); !status.ok()) return status;
  return fabric;
}

}  // namespace eb::topology
