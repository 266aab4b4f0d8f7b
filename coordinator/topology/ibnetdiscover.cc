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

namespace {

// What the lines say, before the links are checked against each other.
struct Listing {
  std::map<std::string, Declared> declared;  // guid -> node
  std::vector<Listed> listed;
  std::map<End, std::pair<End, int>> switch_ports;  // switch end -> peer end, line
  std::set<std::string> leaf_guids;                 // switches with a CA
};

// "[port](port GUID)  "X-guid"[peer port](peer port GUID)  # ...".
absl::StatusOr<Listed> ParsePortLine(absl::string_view line, int number, const std::string& guid,
                                     char type) {
  Cursor cursor(line);
  Listed link;
  link.line = number;
  link.from = {guid, 0};
  link.from_type = type;
  cursor.Take('[');
  if (!cursor.Int(1, kMaxSwitchPort, link.from.port) || !cursor.Take(']')) {
    return LineError(number, absl::StrCat("not \"[port]\" with a port in 1..", kMaxSwitchPort));
  }
  if (!OptionalPortGuid(cursor)) return LineError(number, "a bad \"(port GUID)\"");
  cursor.SkipSpace();
  if (!TypeGuid(cursor, link.to_type, link.to.guid)) {
    return LineError(number, "no quoted peer \"S-<guid>\", \"H-<guid>\" or \"R-<guid>\"");
  }
  if (!cursor.Take('[') || !cursor.Int(1, kMaxSwitchPort, link.to.port) || !cursor.Take(']')) {
    return LineError(number, "the peer has no \"[port]\" in range");
  }
  if (!OptionalPortGuid(cursor)) return LineError(number, "a bad peer \"(port GUID)\"");
  cursor.SkipSpace();
  if (!cursor.AtEnd() && !cursor.Peek('#')) {
    return LineError(number, "text after the peer that is not a # comment");
  }
  return link;
}

// "Switch 36 "S-guid"  # "description" ...": the node's GUID, declared.
absl::StatusOr<std::string> ParseNodeLine(absl::string_view line, int number, Listing& listing) {
  const size_t word = line.find_first_of(" \t");
  const absl::string_view kind = line.substr(0, word);
  if (kind != "Switch" && kind != "Ca" && kind != "Rt") {
    return LineError(number, "unknown node type");
  }
  Cursor rest(line.substr(word == absl::string_view::npos ? line.size() : word));
  rest.SkipSpace();
  int ports = 0;
  if (!rest.Int(1, kMaxSwitchPort, ports)) {
    return LineError(number, "no port count in range after the node type");
  }
  rest.SkipSpace();
  Declared node;
  std::string guid;
  if (!TypeGuid(rest, node.type, guid)) {
    return LineError(number, "no quoted \"<type>-<guid>\" after the port count");
  }
  const char expected = kind == "Switch" ? 'S' : kind == "Ca" ? 'H' : 'R';
  if (node.type != expected)
    return LineError(number, "the quoted type does not match the node type");
  node.description = DescriptionOf(rest.Rest());
  node.line = number;
  if (listing.declared.size() >= 4 * kMaxSwitches + kMaxCables) {
    return LineError(number, "too many nodes");
  }
  auto [it, inserted] = listing.declared.emplace(guid, node);
  if (!inserted) {
    return LineError(number,
                     absl::StrCat("node ", guid, " declared twice (line ", it->second.line, ")"));
  }
  return guid;
}

absl::StatusOr<Listing> ReadLines(absl::string_view text) {
  Listing listing;
  std::string current;  // GUID of the node whose port lines follow
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    if (static_cast<size_t>(number) > kMaxTopologyLines) {
      return LineError(number, absl::StrCat("more than ", kMaxTopologyLines, " lines"));
    }
    if (raw.size() > kMaxTopologyLineBytes) {
      return LineError(number, absl::StrCat("longer than ", kMaxTopologyLineBytes, " bytes"));
    }
    const absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line.front() == '#' || IsKeyValue(line)) continue;
    if (line.front() == '[') {
      if (current.empty()) return LineError(number, "a port line before any node");
      auto link = ParsePortLine(line, number, current, listing.declared.at(current).type);
      if (!link.ok()) return link.status();
      listing.listed.push_back(*std::move(link));
    } else if (absl::StartsWith(line, "Switch") || absl::StartsWith(line, "Ca") ||
               absl::StartsWith(line, "Rt")) {
      auto guid = ParseNodeLine(line, number, listing);
      if (!guid.ok()) return guid.status();
      current = *guid;
    } else {
      return LineError(number, "neither a node, a port line, key=value nor a # comment");
    }
  }
  return listing;
}

// The switches' lines are the links; the CAs' must agree with them.
absl::Status CheckLinks(Listing& listing) {
  for (const Listed& link : listing.listed) {
    auto peer = listing.declared.find(link.to.guid);
    if (peer == listing.declared.end()) {
      return LineError(link.line, absl::StrCat("peer ", link.to.guid, " is never declared"));
    }
    if (peer->second.type != link.to_type) {
      return LineError(link.line, "the peer's type differs from its declaration");
    }
    if (link.from_type != 'S') continue;
    auto [it, inserted] =
        listing.switch_ports.emplace(link.from, std::make_pair(link.to, link.line));
    if (!inserted) {
      return LineError(link.line, absl::StrCat("port ", link.from.port, " listed twice (line ",
                                               it->second.second, ")"));
    }
  }
  for (const Listed& link : listing.listed) {
    if (link.from_type == 'S' && link.to_type == 'H') listing.leaf_guids.insert(link.from.guid);
    const auto reverse = listing.switch_ports.find(link.to);
    if (link.to_type == 'S' && reverse != listing.switch_ports.end() &&
        !(reverse->second.first == link.from)) {
      return LineError(link.line, absl::StrCat("the other end (line ", reverse->second.second,
                                               ") lists a different peer"));
    }
    if (link.from_type == 'H' && reverse == listing.switch_ports.end()) {
      return LineError(link.line, "the switch's own lines do not list this link");
    }
  }
  return absl::OkStatus();
}

// A CA's cable: "<host> <device>" from its NodeDescription.
Cable CableOf(const Declared& ca, const End& ca_end, std::string leaf, int leaf_port) {
  std::vector<std::string> words =
      absl::StrSplit(ca.description, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  Cable cable;
  cable.node = words.empty() ? absl::StrCat("H-", ca_end.guid) : words[0];
  cable.hca = words.size() < 2 ? absl::StrCat("H-", ca_end.guid) : words[1];
  if (ca_end.port != 1) cable.hca = absl::StrCat(cable.hca, "/", ca_end.port);
  cable.leaf = std::move(leaf);
  cable.leaf_port = leaf_port;
  return cable;
}

absl::StatusOr<Fabric> BuildFabric(const Listing& listing) {
  // Names: a switch by its description when unique, else its GUID.
  std::map<std::string, int> description_uses;
  for (const auto& [guid, node] : listing.declared) {
    if (node.type == 'S' && !node.description.empty()) ++description_uses[node.description];
  }
  auto switch_name = [&](const std::string& guid) {
    const Declared& node = listing.declared.at(guid);
    if (!node.description.empty() && description_uses[node.description] == 1) {
      return node.description;
    }
    return absl::StrCat("S-", guid);
  };
  Fabric fabric;
  for (const auto& [guid, node] : listing.declared) {
    if (node.type == 'S') fabric.switch_guids[switch_name(guid)] = absl::StrCat("0x", guid);
  }
  for (const auto& [end, peer_line] : listing.switch_ports) {
    const auto& [peer, line] = peer_line;
    const Declared& peer_node = listing.declared.at(peer.guid);
    if (peer_node.type == 'R') continue;  // routers are not part of a two-tier fabric
    if (peer_node.type == 'H') {
      fabric.cables.push_back(CableOf(peer_node, peer, switch_name(end.guid), end.port));
      continue;
    }
    // Listed from both switches: keep one.
    if (peer < end && listing.switch_ports.count(peer) != 0) continue;
    const bool from_leaf = listing.leaf_guids.count(end.guid) != 0;
    if (from_leaf == (listing.leaf_guids.count(peer.guid) != 0)) {
      return LineError(line, from_leaf
                                 ? "a link between two leaves (both have CAs)"
                                 : "a link between two spines (three tiers are not modelled)");
    }
    const End& leaf = from_leaf ? end : peer;
    const End& spine = from_leaf ? peer : end;
    fabric.uplinks.push_back(
        {switch_name(leaf.guid), leaf.port, switch_name(spine.guid), spine.port});
  }
  return fabric;
}

}  // namespace

absl::StatusOr<Fabric> ParseIbnetdiscover(absl::string_view text) {
  auto listing = ReadLines(text);
  if (!listing.ok()) return listing.status();
  if (auto status = CheckLinks(*listing); !status.ok()) return status;
  auto fabric = BuildFabric(*listing);
  if (!fabric.ok()) return fabric.status();
  // Rails: a node's HCAs in natural name order.
  std::map<std::string, std::vector<Cable*>> by_node;
  for (Cable& cable : fabric->cables) by_node[cable.node].push_back(&cable);
  for (auto& [node, cables] : by_node) {
    std::sort(cables.begin(), cables.end(),
              [](const Cable* a, const Cable* b) { return NaturalLess(a->hca, b->hca); });
    for (size_t r = 0; r < cables.size(); ++r) cables[r]->rail = static_cast<int>(r);
  }
  if (auto status = CheckFabric(*fabric); !status.ok()) return status;
  return fabric;
}

}  // namespace eb::topology
