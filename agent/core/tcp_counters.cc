#include "agent/core/tcp_counters.h"

#include <limits>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/spec/host_counters.h"
#include "common/spec/numbers.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// A table's header and value lines, split on spaces ("Tcp:" first).
std::vector<absl::string_view> Words(absl::string_view line) {
  return absl::StrSplit(line, ' ', absl::SkipEmpty());
}

// An error names the file and the value as found; a value of a megabyte
// (a fake or broken file) is cut to this, as the coordinator cuts it.
constexpr size_t kMaxErrorBytes = 512;

std::string Bounded(absl::string_view message) {
  return std::string(message.substr(0, kMaxErrorBytes));
}

}  // namespace

absl::StatusOr<std::map<std::string, uint64_t>> ParseTcpTables(absl::string_view text,
                                                               absl::string_view file) {
  std::map<std::string, uint64_t> found;
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::vector<absl::string_view> header = Words(lines[i]);
    if (header.empty() || (header[0] != "Tcp:" && header[0] != "TcpExt:")) continue;
    const std::vector<absl::string_view> values = Words(lines[i + 1]);
    if (values.empty() || values[0] != header[0]) continue;  // a header's own pair follows
    ++i;
    if (values.size() != header.size()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ": the '", header[0], "' table has ",
                                                     header.size() - 1, " fields but ",
                                                     values.size() - 1, " values"));
    }
    const absl::string_view table = header[0].substr(0, header[0].size() - 1);
    for (size_t f = 1; f < header.size(); ++f) {
      const std::string name = absl::StrCat(table, ":", header[f]);
      if (!spec::Listed(spec::kTcpCounters, name)) continue;
      absl::StatusOr<int64_t> value = spec::ParseCount(values[f], absl::StrCat(file, " ", name), 0,
                                                       std::numeric_limits<int64_t>::max());
      if (!value.ok()) return value.status();
      found[name] = static_cast<uint64_t>(*value);
    }
  }
  return found;
}

TcpSnapshot ParseTcpSnapshot(absl::string_view snmp_text, absl::string_view snmp_file,
                             absl::string_view netstat_text, absl::string_view netstat_file) {
  TcpSnapshot snapshot;
  absl::StatusOr<std::map<std::string, uint64_t>> snmp = ParseTcpTables(snmp_text, snmp_file);
  if (!snmp.ok()) {
    snapshot.error = Bounded(snmp.status().message());
    return snapshot;
  }
  absl::StatusOr<std::map<std::string, uint64_t>> netstat =
      ParseTcpTables(netstat_text, netstat_file);
  if (!netstat.ok()) {
    snapshot.error = Bounded(netstat.status().message());
    return snapshot;
  }
  snapshot.counters = std::move(*snmp);
  snapshot.counters.insert(netstat->begin(), netstat->end());
  if (snapshot.counters.count(std::string(spec::kTcpOutSegs)) == 0) {
    snapshot.counters.clear();
    snapshot.error = absl::StrCat(snmp_file, ": no 'Tcp:' table with OutSegs");
  }
  return snapshot;
}

v1::TcpEvidence DiffTcp(const std::string& node, const TcpSnapshot& before,
                        const TcpSnapshot& after) {
  v1::TcpEvidence evidence;
  evidence.set_node_name(node);
  if (!before.error.empty() || !after.error.empty()) {
    evidence.set_error(
        !after.error.empty() ? after.error : absl::StrCat("when the test started: ", before.error));
    return evidence;
  }
  for (std::string_view name : spec::kTcpCounters) {
    const auto b = before.counters.find(std::string(name));
    const auto a = after.counters.find(std::string(name));
    if (b == before.counters.end() || a == after.counters.end()) continue;
    v1::PortCounter& counter = *evidence.add_counters();
    counter.set_name(std::string(name));
    counter.set_before(b->second);
    counter.set_after(a->second);
    counter.set_reset(a->second < b->second);
    counter.set_delta(counter.reset() ? 0 : a->second - b->second);
  }
  return evidence;
}

}  // namespace eb::agent
