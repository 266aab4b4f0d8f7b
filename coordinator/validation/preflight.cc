#include "coordinator/validation/preflight.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace eb::validation {
namespace {

// A node's value of one attribute; nullopt = not compared for this node.
using Getter = std::function<std::optional<std::string>(const Node&)>;

std::string Shown(const std::string& value) { return value.empty() ? "(none)" : value; }

std::string PortKey(const Hca& hca) { return absl::StrCat(hca.name, ":", hca.port); }

const Hca* FindPort(const Node& node, const std::string& key) {
  for (const Hca& hca : node.hcas) {
    if (PortKey(hca) == key) return &hca;
  }
  return nullptr;
}

std::string NormalState(const std::string& state) {
  absl::string_view s = state;
  const size_t colon = s.find(':');
  if (colon != absl::string_view::npos) s.remove_prefix(colon + 1);
  return absl::AsciiStrToUpper(absl::StripAsciiWhitespace(s));
}

void CompareAttribute(const std::vector<Node>& nodes, const std::string& attribute,
                      const Getter& get, std::vector<NodePreflight>& out) {
  std::map<std::string, int> counts;
  std::vector<std::optional<std::string>> values(nodes.size());
  int compared = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!out[i].compared) continue;
    values[i] = get(nodes[i]);
    if (!values[i].has_value()) continue;
    ++counts[*values[i]];
    ++compared;
  }
  if (counts.size() < 2) return;
  int top = 0;
  for (const auto& [value, count] : counts) top = std::max(top, count);
  std::vector<std::string> tied;
  for (const auto& [value, count] : counts) {
    if (count == top) tied.push_back(value);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!values[i].has_value()) continue;
    const std::string& value = *values[i];
    if (tied.size() == 1 && value == tied.front()) continue;
    out[i].fit = false;
    if (tied.size() == 1) {
      out[i].reasons.push_back(
          absl::StrFormat("%s: %s here, %s on the fleet's majority (%d of %d nodes)", attribute,
                          Shown(value), Shown(tied.front()), top, compared));
    } else {
      std::vector<std::string> shown;
      shown.reserve(tied.size());
      for (const std::string& v : tied) shown.push_back(Shown(v));
      out[i].reasons.push_back(absl::StrFormat(
          "%s: %s here; no majority (%s on %d nodes each, of %d): cannot tell which is right",
          attribute, Shown(value), absl::StrJoin(shown, ", "), top, compared));
    }
  }
}

}  // namespace

std::vector<NodePreflight> RunPreflight(const std::vector<Node>& nodes) {
  std::vector<NodePreflight> out(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) out[i].compared = nodes[i].reachable;

  const std::vector<std::pair<std::string, Getter>> scalars = {
      {"gpu_model", [](const Node& n) { return std::optional<std::string>(n.gpu_model); }},
      {"gpu_count",
       [](const Node& n) { return std::optional<std::string>(absl::StrCat(n.gpu_count)); }},
      {"gpu_memory",
       [](const Node& n) -> std::optional<std::string> {
         if (n.gpu_memory_bytes == 0) return std::nullopt;  // unknown
         return absl::StrFormat("%.1f GiB", n.gpu_memory_bytes / double{1 << 30});
       }},
      {"driver_version",
       [](const Node& n) { return std::optional<std::string>(n.driver_version); }},
      {"cuda_version", [](const Node& n) { return std::optional<std::string>(n.cuda_version); }},
      {"nccl_version", [](const Node& n) { return std::optional<std::string>(n.nccl_version); }},
      {"hca_ports",
       [](const Node& n) {
         std::vector<std::string> keys;
         for (const Hca& hca : n.hcas) keys.push_back(PortKey(hca));
         std::sort(keys.begin(), keys.end());
         return std::optional<std::string>(absl::StrJoin(keys, ","));
       }},
      {"bootstrap_interface",
       [](const Node& n) { return std::optional<std::string>(n.bootstrap_interface); }},
  };
  for (const auto& [attribute, get] : scalars) CompareAttribute(nodes, attribute, get, out);

  std::set<std::string> ports;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!out[i].compared) continue;
    for (const Hca& hca : nodes[i].hcas) ports.insert(PortKey(hca));
  }
  for (const std::string& port : ports) {
    auto field = [&port](const std::function<std::string(const Hca&)>& f) -> Getter {
      return [port, f](const Node& n) -> std::optional<std::string> {
        const Hca* hca = FindPort(n, port);
        if (hca == nullptr) return std::nullopt;
        return f(*hca);
      };
    };
    CompareAttribute(nodes, absl::StrCat("hca ", port, " state"),
                     field([](const Hca& h) { return NormalState(h.state); }), out);
    CompareAttribute(nodes, absl::StrCat("hca ", port, " link_layer"),
                     field([](const Hca& h) { return h.link_layer; }), out);
    CompareAttribute(nodes, absl::StrCat("hca ", port, " rate"),
                     field([](const Hca& h) { return absl::StrCat(h.rate_gbps, "G"); }), out);
  }
  return out;
}

}  // namespace eb::validation
