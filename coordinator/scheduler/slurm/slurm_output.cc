#include "coordinator/scheduler/slurm/slurm_output.h"

#include <cstdint>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "coordinator/scheduler/drain_reason.h"

namespace eb::scheduler::slurm {
namespace {

// What an error quotes of an untrusted line.
constexpr size_t kQuotedBytes = 80;

absl::Status LineError(absl::string_view command, size_t line_number, absl::string_view line,
                       absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("slurm: `", command, "` line ", line_number, ": ",
                                                 what, " (line: \"", OneLine(line, kQuotedBytes),
                                                 "\")"));
}

absl::Status AnswerError(absl::string_view command, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("slurm: `", command, "`: ", what));
}

// The output's lines, without the empty ones (a trailing newline). An
// error when there are more than max_lines or one is longer than
// kMaxLineBytes.
absl::StatusOr<std::vector<absl::string_view>> Lines(absl::string_view output,
                                                     absl::string_view command, size_t max_lines) {
  std::vector<absl::string_view> lines;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    ++number;
    line = absl::StripSuffix(line, "\r");
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    if (line.size() > kMaxLineBytes) {
      return LineError(command, number, line,
                       absl::StrCat("longer than ", kMaxLineBytes, " bytes"));
    }
    if (lines.size() == max_lines) {
      return AnswerError(command, absl::StrCat("more than ", max_lines, " lines: refused"));
    }
    lines.push_back(line);
  }
  return lines;
}

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-'; }

}  // namespace

bool IsValidNodeName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNodeNameBytes || !absl::ascii_isalnum(name[0])) {
    return false;
  }
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

NodeState MapSinfoState(absl::string_view raw) {
  std::string state = absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw));
  if (state.empty()) return NodeState::kUnknown;
  // A flag character after the state: not responding, powered off or
  // changing, rebooting, maintenance. None is a node to act on.
  if (absl::string_view("*~#!%$@^-").find(state.back()) != absl::string_view::npos) {
    return state.back() == '*' ? NodeState::kDown : NodeState::kUnknown;
  }
  // "allocated+drain" and the like: the base state, then its flags.
  const std::vector<std::string> parts = absl::StrSplit(state, '+');
  const std::string& base = parts[0];
  bool drain = false;
  for (size_t i = 1; i < parts.size(); ++i) drain = drain || parts[i] == "drain";
  if (base == "drained") return NodeState::kDrained;
  if (base == "draining") return NodeState::kDraining;
  if (base == "down" || base == "fail" || base == "failing" || base == "inval") {
    return NodeState::kDown;
  }
  if (base == "idle") return drain ? NodeState::kDrained : NodeState::kIdle;
  if (base == "allocated" || base == "alloc" || base == "mixed" || base == "mix" ||
      base == "completing" || base == "comp") {
    return drain ? NodeState::kDraining : NodeState::kAllocated;
  }
  return NodeState::kUnknown;
}

absl::StatusOr<std::vector<SchedulerNode>> ParseSinfoNodes(absl::string_view output,
                                                           absl::string_view command) {
  absl::StatusOr<std::vector<absl::string_view>> lines = Lines(output, command, kMaxNodes);
  if (!lines.ok()) return lines.status();
  std::vector<SchedulerNode> nodes;
  std::set<std::string> seen;
  size_t number = 0;
  for (absl::string_view line : *lines) {
    ++number;
    // name|state|reason, the reason holding whatever '|' it has.
    const size_t first = line.find('|');
    const size_t second = first == absl::string_view::npos ? first : line.find('|', first + 1);
    if (second == absl::string_view::npos) {
      return LineError(command, number, line, "expected NAME|STATE|REASON");
    }
    SchedulerNode node;
    node.name = std::string(absl::StripAsciiWhitespace(line.substr(0, first)));
    if (!IsValidNodeName(node.name)) {
      return LineError(command, number, line, "not a valid node name");
    }
    const absl::string_view state =
        absl::StripAsciiWhitespace(line.substr(first + 1, second - first - 1));
    if (state.empty()) return LineError(command, number, line, "no state");
    node.state = MapSinfoState(state);
    const absl::string_view reason = absl::StripAsciiWhitespace(line.substr(second + 1));
    node.reason = reason == "none" ? std::string() : std::string(reason);
    if (!seen.insert(node.name).second) {
      return LineError(command, number, line,
                       absl::StrCat("node ", node.name, " is listed twice: refused"));
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view hostlist,
                                                        size_t max_names) {
  std::vector<std::string> names;
  hostlist = absl::StripAsciiWhitespace(hostlist);
  if (hostlist.empty() || hostlist == "(null)") return names;
  auto bad = [&hostlist](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("hostlist \"", OneLine(hostlist, kQuotedBytes), "\": ", what));
  };
  auto add = [&](std::string name) -> absl::Status {
    if (!IsValidNodeName(name))
      return bad(absl::StrCat("\"", OneLine(name, 80), "\" is not a name"));
    if (names.size() == max_names) return bad(absl::StrCat("more than ", max_names, " names"));
    names.push_back(std::move(name));
    return absl::OkStatus();
  };
  size_t i = 0;
  while (i < hostlist.size()) {
    // One item: a prefix, then at most one [ranges] and a suffix.
    size_t end = i;
    int depth = 0;
    while (end < hostlist.size() && !(hostlist[end] == ',' && depth == 0)) {
      if (hostlist[end] == '[') ++depth;
      if (hostlist[end] == ']') --depth;
      if (depth < 0 || depth > 1) return bad("unbalanced brackets");
      ++end;
    }
    if (depth != 0) return bad("unbalanced brackets");
    const absl::string_view item = hostlist.substr(i, end - i);
    i = end + 1;
    const size_t open = item.find('[');
    if (open == absl::string_view::npos) {
      if (absl::Status s = add(std::string(item)); !s.ok()) return s;
      continue;
    }
    const size_t close = item.find(']', open);
    const absl::string_view prefix = item.substr(0, open);
    const absl::string_view suffix = item.substr(close + 1);
    if (suffix.find('[') != absl::string_view::npos) return bad("more than one range in a name");
    for (absl::string_view range : absl::StrSplit(item.substr(open + 1, close - open - 1), ',')) {
      const std::pair<absl::string_view, absl::string_view> ends =
          absl::StrSplit(range, absl::MaxSplits('-', 1));
      const absl::string_view low_text = ends.first;
      const absl::string_view high_text = ends.second.empty() ? ends.first : ends.second;
      uint64_t low = 0;
      uint64_t high = 0;
      if (low_text.empty() || low_text.size() > 9 || high_text.size() > 9 ||
          !absl::SimpleAtoi(low_text, &low) || !absl::SimpleAtoi(high_text, &high) ||
          !absl::ascii_isdigit(low_text[0]) || !absl::ascii_isdigit(high_text[0]) || high < low) {
        return bad(absl::StrCat("bad range \"", OneLine(range, 40), "\""));
      }
      if (high - low >= max_names) return bad(absl::StrCat("more than ", max_names, " names"));
      const size_t width = low_text.size();
      for (uint64_t n = low; n <= high; ++n) {
        std::string digits = absl::StrCat(n);
        if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
        if (absl::Status s = add(absl::StrCat(prefix, digits, suffix)); !s.ok()) return s;
      }
    }
  }
  return names;
}

absl::StatusOr<std::vector<SlurmJob>> ParseSqueueJobs(absl::string_view output,
                                                      absl::string_view command) {
  absl::StatusOr<std::vector<absl::string_view>> lines = Lines(output, command, kMaxNodes);
  if (!lines.ok()) return lines.status();
  std::vector<SlurmJob> jobs;
  size_t number = 0;
  for (absl::string_view line : *lines) {
    ++number;
    const size_t first = line.find('|');
    const size_t last = line.rfind('|');
    const size_t middle = last == absl::string_view::npos || last == 0 ? absl::string_view::npos
                                                                       : line.rfind('|', last - 1);
    if (first == absl::string_view::npos || middle == absl::string_view::npos || middle <= first) {
      return LineError(command, number, line, "expected ID|NAME|STATE|NODES");
    }
    SlurmJob job;
    job.id = std::string(absl::StripAsciiWhitespace(line.substr(0, first)));
    job.name = std::string(line.substr(first + 1, middle - first - 1));
    job.state = std::string(absl::StripAsciiWhitespace(line.substr(middle + 1, last - middle - 1)));
    if (job.id.empty() || !absl::ascii_isdigit(job.id[0]) ||
        job.id.find_first_not_of("0123456789_[]-,") != std::string::npos || job.id.size() > 32) {
      return LineError(command, number, line, "not a job id");
    }
    if (job.state.empty()) return LineError(command, number, line, "no state");
    absl::StatusOr<std::vector<std::string>> nodes = ExpandHostlist(line.substr(last + 1));
    if (!nodes.ok()) return LineError(command, number, line, nodes.status().message());
    job.nodes = *std::move(nodes);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::StatusOr<std::string> ParseSbatchJobId(absl::string_view output, absl::string_view command) {
  absl::string_view text = absl::StripAsciiWhitespace(output);
  text = text.substr(0, text.find(';'));
  if (text.empty() || text.size() > 20 ||
      text.find_first_not_of("0123456789") != absl::string_view::npos) {
    return AnswerError(
        command, absl::StrCat("expected a job id, got \"", OneLine(output, kQuotedBytes), "\""));
  }
  return std::string(text);
}

}  // namespace eb::scheduler::slurm
