#include "coordinator/validation/path_counters.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/spec/host_counters.h"

namespace eb::validation {
namespace v1 = ebnccl::v1;

namespace {

// The counters of one kind that grew, largest first: "1,204 symbol_error,
// 3 link_downed".
template <size_t N>
std::string Grown(const v1::PortEvidence& port, const std::string_view (&kind)[N]) {
  std::vector<const v1::PortCounter*> grown;
  for (const v1::PortCounter& counter : port.counters()) {
    if (counter.delta() > 0 && !counter.reset() && spec::Listed(kind, counter.name())) {
      grown.push_back(&counter);
    }
  }
  std::stable_sort(grown.begin(), grown.end(),
                   [](const auto* a, const auto* b) { return a->delta() > b->delta(); });
  std::vector<std::string> parts;
  parts.reserve(grown.size());
  for (const v1::PortCounter* counter : grown) {
    parts.push_back(absl::StrCat(GroupedCount(counter->delta()), " ", counter->name()));
  }
  return absl::StrJoin(parts, ", ");
}

struct TcpShare {
  uint64_t sent = 0;  // segments sent, retransmissions included
  uint64_t retransmitted = 0;
  bool read = false;
  double share() const { return sent > 0 ? static_cast<double>(retransmitted) / sent : 0.0; }
};

TcpShare ShareOf(const v1::TcpEvidence& tcp) {
  TcpShare out;
  if (!tcp.error().empty()) return out;
  uint64_t first_sends = 0;
  for (const v1::PortCounter& counter : tcp.counters()) {
    if (counter.reset()) return out;  // unknown over the test
    if (counter.name() == spec::kTcpOutSegs) {
      first_sends = counter.delta();
      out.read = true;
    }
    if (counter.name() == spec::kTcpRetransSegs) out.retransmitted = counter.delta();
  }
  // OutSegs leaves retransmissions out (Linux): what the node sent is both.
  out.sent = first_sends + out.retransmitted;
  return out;
}

std::string RetransmitPct(double share) { return absl::StrFormat("%.1f%%", share * 100.0); }

}  // namespace

std::string GroupedCount(uint64_t value) {
  const std::string digits = absl::StrCat(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::vector<v1::CounterFinding> JudgePathCounters(const v1::TestReport& report) {
  std::vector<v1::CounterFinding> links, retries;
  for (const v1::PortEvidence& port : report.port_counters()) {
    const std::string part = absl::StrCat(port.hca(), " port ", port.port());
    const std::string errors = Grown(port, spec::kLinkErrorCounters);
    // A link that went down and came back without link_downed growing
    // (start and end state differ, or a counter was reset) flapped too.
    const bool flap = port.link_flapped() && errors.find("link_downed") == std::string::npos;
    if (!errors.empty() || flap) {
      v1::CounterFinding& f = links.emplace_back();
      f.set_node_name(port.node_name());
      f.set_part(part);
      f.set_link_errors(true);
      f.set_what(absl::StrCat(errors.empty() ? "" : "counted ", errors,
                              errors.empty() || !flap ? "" : " and ",
                              flap ? "saw its link change state" : ""));
    }
    if (std::string lost = Grown(port, spec::kTransportRetryCounters); !lost.empty()) {
      v1::CounterFinding& f = retries.emplace_back();
      f.set_node_name(port.node_name());
      f.set_part(part);
      f.set_what(absl::StrCat("counted ", lost, " (transport retries: packets lost on the path)"));
    }
  }
  std::vector<std::pair<double, v1::CounterFinding>> tcp;
  for (const v1::TcpEvidence& evidence : report.tcp_counters()) {
    const TcpShare s = ShareOf(evidence);
    if (!s.read || s.sent < kMinTcpSegments || s.retransmitted < kMinRetransmits ||
        s.share() < kMinRetransmitShare) {
      continue;
    }
    v1::CounterFinding f;
    f.set_node_name(evidence.node_name());
    f.set_part("TCP");
    f.set_retransmit_pct(s.share() * 100.0);
    f.set_what(absl::StrCat("retransmitted ", RetransmitPct(s.share()), " of its ",
                            GroupedCount(s.sent), " TCP segments"));
    tcp.emplace_back(s.share(), std::move(f));
  }
  std::stable_sort(tcp.begin(), tcp.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<v1::CounterFinding> out = std::move(links);
  out.insert(out.end(), retries.begin(), retries.end());
  for (auto& entry : tcp) out.push_back(std::move(entry.second));
  return out;
}

std::string DescribePathCounters(const v1::TestReport& report,
                                 const std::vector<v1::CounterFinding>& findings) {
  // Every node's TCP share, the named node's left out: the comparison.
  auto others = [&report](const std::string& named) {
    std::vector<std::string> shares;
    for (const v1::TcpEvidence& evidence : report.tcp_counters()) {
      const TcpShare s = ShareOf(evidence);
      if (evidence.node_name() == named || !s.read) continue;
      shares.push_back(absl::StrCat(evidence.node_name(), " ", RetransmitPct(s.share())));
    }
    return shares;
  };
  if (!findings.empty()) {
    const v1::CounterFinding& first = findings.front();
    std::string line = absl::StrCat(first.node_name(), first.part() == "TCP" ? "" : " ",
                                    first.part() == "TCP" ? "" : first.part(), " ", first.what(),
                                    " during the test");
    if (first.part() == "TCP") {
      if (const auto shares = others(first.node_name()); !shares.empty()) {
        absl::StrAppend(&line, " (", absl::StrJoin(shares, ", "), ")");
      }
    }
    return line;
  }
  const auto shares = others("");
  int ports = 0;
  for (const v1::PortEvidence& port : report.port_counters()) ports += port.error().empty() ? 1 : 0;
  if (shares.empty() && ports == 0) return "";
  std::string line = "the hosts' counters saw no loss";
  if (!shares.empty()) {
    absl::StrAppend(&line, " (TCP retransmissions: ", absl::StrJoin(shares, ", "), ")");
  }
  if (ports > 0) {
    absl::StrAppend(&line, ", no link error on ", ports, " HCA port", ports == 1 ? "" : "s");
  }
  return line;
}

}  // namespace eb::validation
