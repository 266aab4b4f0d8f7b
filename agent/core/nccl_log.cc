#include "agent/core/nccl_log.h"

#include <deque>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace eb::agent {

NcclWarnings ExtractNcclWarnings(absl::string_view log, const NcclWarningLimits& limits,
                                 bool partial_first_line) {
  NcclWarnings result;
  std::deque<std::string> kept;
  size_t kept_bytes = 0;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    const bool skip = first && partial_first_line;
    first = false;
    if (skip || line.find(" NCCL WARN ") == absl::string_view::npos) continue;
    line = absl::StripTrailingAsciiWhitespace(line);
    std::string text(line.substr(0, limits.max_line_bytes));
    if (line.size() > limits.max_line_bytes) {
      text += "...";
      result.truncated = true;
    }
    kept_bytes += text.size();
    kept.push_back(std::move(text));
    // Keep the last ones: drop the oldest until within both bounds.
    while (!kept.empty() && (kept.size() > limits.max_lines || kept_bytes > limits.max_bytes)) {
      kept_bytes -= kept.front().size();
      kept.pop_front();
      result.truncated = true;
    }
  }
  result.lines.assign(kept.begin(), kept.end());
  return result;
}

std::vector<std::string> ParseNicUse(absl::string_view log) {
  std::map<int, std::string> devices;  // index in the "Using" list -> name
  std::set<int> used;
  constexpr absl::string_view kUsing = "NET/IB : Using ";
  constexpr absl::string_view kVia = "via NET/IB/";
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (const size_t at = line.find(kUsing); at != absl::string_view::npos) {
      // "[0]mlx5_100:1/IB [1]mlx5_101:1/RoCE [RO]; OOB eth0:10.0.0.1<0>"
      absl::string_view rest = line.substr(at + kUsing.size());
      rest = rest.substr(0, rest.find(';'));
      for (absl::string_view entry : absl::StrSplit(rest, ' ', absl::SkipEmpty())) {
        if (!absl::ConsumePrefix(&entry, "[")) continue;
        const size_t close = entry.find(']');
        int index = 0;
        if (close == absl::string_view::npos || !absl::SimpleAtoi(entry.substr(0, close), &index))
          continue;
        absl::string_view name = entry.substr(close + 1);
        name = name.substr(0, name.find(':'));
        if (!name.empty()) devices[index] = std::string(name);
      }
    } else if (const size_t via = line.find(kVia);
               via != absl::string_view::npos && line.find("Channel") != absl::string_view::npos) {
      absl::string_view rest = line.substr(via + kVia.size());
      rest = rest.substr(0, rest.find_first_of("/ \t\r"));
      int index = 0;
      if (absl::SimpleAtoi(rest, &index)) used.insert(index);
    }
  }
  std::set<std::string> nics;
  for (int index : used) {
    auto it = devices.find(index);
    // A channel on a device the log did not list is still a NIC: name it by
    // its index.
    nics.insert(it != devices.end() ? it->second : "NET/IB/" + std::to_string(index));
  }
  return {nics.begin(), nics.end()};
}

}  // namespace eb::agent
