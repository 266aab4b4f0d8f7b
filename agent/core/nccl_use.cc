#include "agent/core/nccl_use.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace eb::agent {
namespace {

constexpr absl::string_view kInfo = " NCCL INFO ";

// The leading decimal digits of `text`, consumed; false when none.
bool ConsumeInt(absl::string_view* text, int* value) {
  size_t digits = 0;
  while (digits < text->size() && digits < 9 && absl::ascii_isdigit((*text)[digits])) ++digits;
  if (digits == 0 || !absl::SimpleAtoi(text->substr(0, digits), value)) return false;
  text->remove_prefix(digits);
  return true;
}

// A name, path or value from the log: printable, bounded.
std::string Field(absl::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : text.substr(0, max_bytes)) out += absl::ascii_isprint(c) ? c : '?';
  return out;
}

// "A[x] -> B[y]": the two global ranks.
bool ParseRankPair(absl::string_view* text, int* from, int* to) {
  int device = 0;
  if (!ConsumeInt(text, from) || !absl::ConsumePrefix(text, "[") || !ConsumeInt(text, &device) ||
      !absl::ConsumePrefix(text, "] -> ") || !ConsumeInt(text, to) ||
      !absl::ConsumePrefix(text, "[") || !ConsumeInt(text, &device) ||
      !absl::ConsumePrefix(text, "]")) {
    return false;
  }
  return true;
}

// "Channel 02/0 : 0[0] -> 1[1] [send] via NET/IB/1/GDRDMA" (net.cc),
// "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" (p2p.cc),
// "Channel 00 : 0[0] -> 1[1] via SHM/direct" (shm.cc). The ring dump
// "Channel 00/02 : 0 1" has no "via" and is not a connection.
std::optional<NcclChannelUse> ParseChannel(absl::string_view text, int self_rank,
                                           const NcclUseLimits& limits) {
  if (!absl::ConsumePrefix(&text, "Channel ")) return std::nullopt;
  NcclChannelUse use;
  if (!ConsumeInt(&text, &use.channel)) return std::nullopt;
  if (absl::ConsumePrefix(&text, "/")) {
    int conn_index = 0;
    if (!ConsumeInt(&text, &conn_index)) return std::nullopt;
  }
  int from = -1, to = -1;
  if (!absl::ConsumePrefix(&text, " : ") || !ParseRankPair(&text, &from, &to)) return std::nullopt;
  bool receive = false;
  if (absl::ConsumePrefix(&text, " [send]")) {
  } else if (absl::ConsumePrefix(&text, " [receive]")) {
    receive = true;
  }
  if (!absl::ConsumePrefix(&text, " via ")) return std::nullopt;
  text = absl::StripTrailingAsciiWhitespace(text);
  if (text.empty()) return std::nullopt;
  use.path = Field(text, limits.max_field_bytes);
  if (receive) {
    use.send = false;
    use.peer_rank = from;
  } else if (from == self_rank || self_rank < 0) {
    use.peer_rank = to;
  } else {
    // p2p.cc and shm.cc print a receive as "peer -> me" without a tag.
    use.send = to != self_rank;
    use.peer_rank = to == self_rank ? from : to;
  }
  return use;
}

// " [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>" (IB) or
// " [0]eth0:10.0.0.1<0> [1]eth1:..." (Socket): name by index.
std::map<int, std::string> ParseDevices(absl::string_view text, const NcclUseLimits& limits) {
  std::map<int, std::string> devices;
  text = text.substr(0, text.find(';'));
  for (absl::string_view entry : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    int index = 0;
    if (!absl::ConsumePrefix(&entry, "[") || !ConsumeInt(&entry, &index) ||
        !absl::ConsumePrefix(&entry, "]")) {
      continue;
    }
    absl::string_view name = entry.substr(0, entry.find(':'));
    if (name.empty() || devices.size() >= limits.max_devices) continue;
    devices[index] = Field(name, limits.max_field_bytes);
  }
  return devices;
}

// What the lines read so far said.
struct Parsing {
  NcclUse use;
  // Per network name ("IB", "Socket", a plugin's): its devices by index.
  std::map<std::string, std::map<int, std::string>> devices;
  std::string plugin;
};

// One INFO line's text (after " NCCL INFO ").
void ParseInfoLine(absl::string_view text, int self_rank, const NcclUseLimits& limits,
                   Parsing& state) {
  if (absl::ConsumePrefix(&text, "NCCL version ")) {
    state.use.nccl_version = Field(text.substr(0, text.find(' ')), limits.max_field_bytes);
  } else if (absl::ConsumePrefix(&text, "Using network ")) {
    state.use.net_transport = Field(text, limits.max_field_bytes);
  } else if (absl::ConsumePrefix(&text, "NET/Plugin: Loaded net plugin ")) {
    // "NET/Plugin: Loaded net plugin AWS Libfabric (v10)": names have spaces.
    state.plugin = Field(text.substr(0, text.rfind(" (")), limits.max_field_bytes);
  } else if (absl::StartsWith(text, "Channel ")) {
    std::optional<NcclChannelUse> channel = ParseChannel(text, self_rank, limits);
    if (!channel.has_value()) return;
    if (state.use.channels.size() >= limits.max_channels) {
      state.use.truncated = true;
      return;
    }
    state.use.channels.push_back(std::move(*channel));
  } else if (absl::StartsWith(text, "NET/")) {
    // "NET/<name> : Using [0]dev..."
    absl::string_view rest = text.substr(4);
    const size_t at = rest.find(" : Using ");
    if (at == absl::string_view::npos || at == 0) return;
    auto parsed = ParseDevices(rest.substr(at + 8), limits);
    if (!parsed.empty()) state.devices[Field(rest.substr(0, at), limits.max_field_bytes)] = parsed;
  } else if (const size_t coll = text.find(" coll channels"); coll != absl::string_view::npos) {
    int count = 0;
    absl::string_view number = text.substr(0, coll);
    if (ConsumeInt(&number, &count) && number.empty()) state.use.coll_channels = count;
  } else if (absl::StartsWith(text, "NCCL_")) {
    // "NCCL_NET set by environment to Socket", param.cc's "... to 0.", and
    // "NCCL_IB_HCA set to =mlx5_0" (recorded from 2.28.3).
    size_t set = text.find(" set by environment to ");
    size_t skip = 23;
    if (set == absl::string_view::npos) {
      set = text.find(" set to ");
      skip = 8;
    }
    if (set == absl::string_view::npos) return;
    absl::string_view value = text.substr(set + skip);
    if (absl::EndsWith(value, ".")) value.remove_suffix(1);
    std::string entry = Field(text.substr(0, set), limits.max_field_bytes) + "=" +
                        Field(value, limits.max_field_bytes);
    if (std::find(state.use.nccl_env.begin(), state.use.nccl_env.end(), entry) !=
        state.use.nccl_env.end()) {
      return;
    }
    if (state.use.nccl_env.size() >= limits.max_env) {
      state.use.truncated = true;
      return;
    }
    state.use.nccl_env.push_back(std::move(entry));
  }
}

// The devices of the transport used, each network channel's NIC, and GDR.
void Resolve(const NcclUseLimits& limits, Parsing& state) {
  if (state.use.net_transport.empty()) state.use.net_transport = state.plugin;
  // The devices of the transport used (none when NCCL chose none: a
  // failed init lists what it tried).
  const std::map<int, std::string>* listed = nullptr;
  if (auto it = state.devices.find(state.use.net_transport); it != state.devices.end()) {
    listed = &it->second;
  }
  if (listed != nullptr) {
    int next = 0;
    for (const auto& [index, name] : *listed) {
      // Indices are dense in NCCL's list; a gap is named by its index.
      for (; next < index && next < static_cast<int>(limits.max_devices); ++next) {
        state.use.net_devices.emplace_back();
      }
      state.use.net_devices.push_back(name);
      next = index + 1;
    }
  }
  bool any_net = false, any_gdr = false;
  for (NcclChannelUse& channel : state.use.channels) {
    absl::string_view path = channel.path;
    if (!absl::ConsumePrefix(&path, "NET/")) continue;
    any_net = true;
    any_gdr |= absl::StrContains(path, "/GDRDMA");
    // "IB/1/GDRDMA", "Socket/0", "IB/1(3)/GDRDMA" (through a proxy rank)
    const size_t slash = path.find('/');
    if (slash == absl::string_view::npos) continue;
    absl::string_view index_text = path.substr(slash + 1);
    int index = -1;
    if (!ConsumeInt(&index_text, &index)) continue;
    channel.nic = index < static_cast<int>(state.use.net_devices.size()) &&
                          !state.use.net_devices[index].empty()
                      ? state.use.net_devices[index]
                      : "NET/" + std::string(path.substr(0, slash)) + "/" + std::to_string(index);
  }
  // GDR is "on" when a network channel used it: a send side may go without
  // it where reads are off (NCCL_NET_GDR_READ) while its receives use it.
  if (any_net) state.use.gdr = any_gdr;
}

}  // namespace

NcclUse ParseNcclUse(absl::string_view log, int self_rank, const NcclUseLimits& limits) {
  Parsing state;
  size_t lines = 0;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (++lines > limits.max_lines) {
      state.use.truncated = true;
      break;
    }
    if (line.size() > limits.max_line_bytes) continue;
    const size_t info = line.find(kInfo);
    if (info == absl::string_view::npos) continue;
    state.use.info_level = true;
    ParseInfoLine(absl::StripTrailingAsciiWhitespace(line.substr(info + kInfo.size())), self_rank,
                  limits, state);
  }
  Resolve(limits, state);
  return std::move(state.use);
}

}  // namespace eb::agent
