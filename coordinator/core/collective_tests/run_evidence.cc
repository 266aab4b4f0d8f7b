#include "coordinator/core/collective_tests/run_evidence.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/bounded_text.h"
#include "common/spec/failure_kinds.h"
#include "common/spec/host_counters.h"
#include "coordinator/core/collective_tests/nccl_path_check.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// The rank's node in the rank map, or "" for a rank outside it.
std::string NodeOfRank(const v1::TestReport& report, int rank) {
  if (rank < 0 || rank >= report.ranks_size()) return "";
  return report.ranks(rank).node_name();
}

size_t WarningBytes(const v1::TestReport& report) {
  size_t bytes = 0;
  for (const v1::RankNcclWarnings& rank : report.nccl_warnings()) {
    for (const std::string& line : rank.lines()) bytes += line.size();
  }
  return bytes;
}

// Agents report as their workers end, in any order: list by node order,
// then HCA and port, and warnings and NIC use by rank.
void OrderEvidence(v1::TestReport& report) {
  auto node_position = [&report](const std::string& node) {
    for (const v1::RankAssignment& rank : report.ranks()) {
      if (rank.node_name() == node) return rank.node_index();
    }
    return report.ranks_size();
  };
  std::stable_sort(report.mutable_port_counters()->begin(), report.mutable_port_counters()->end(),
                   [&](const v1::PortEvidence& a, const v1::PortEvidence& b) {
                     return std::make_tuple(node_position(a.node_name()), a.hca(), a.port()) <
                            std::make_tuple(node_position(b.node_name()), b.hca(), b.port());
                   });
  std::stable_sort(report.mutable_tcp_counters()->begin(), report.mutable_tcp_counters()->end(),
                   [&](const v1::TcpEvidence& a, const v1::TcpEvidence& b) {
                     return node_position(a.node_name()) < node_position(b.node_name());
                   });
  std::stable_sort(report.mutable_nccl_warnings()->begin(), report.mutable_nccl_warnings()->end(),
                   [](const v1::RankNcclWarnings& a, const v1::RankNcclWarnings& b) {
                     return a.rank() < b.rank();
                   });
  std::stable_sort(report.mutable_nccl_ras()->begin(), report.mutable_nccl_ras()->end(),
                   [&](const v1::NcclRasStatus& a, const v1::NcclRasStatus& b) {
                     return node_position(a.node_name()) < node_position(b.node_name());
                   });
  std::stable_sort(
      report.mutable_nic_use()->begin(), report.mutable_nic_use()->end(),
      [](const v1::RankNicUse& a, const v1::RankNicUse& b) { return a.rank() < b.rank(); });
}

// A failing rank's Failure carries its NCCL warnings, unless it came with
// its own.
void CopyWarningsIntoFailures(v1::TestReport& report) {
  for (v1::Failure& failure : *report.mutable_failures()) {
    if (failure.rank() < 0 || failure.nccl_warnings_size() > 0) continue;
    for (const v1::RankNcclWarnings& rank : report.nccl_warnings()) {
      if (rank.rank() == failure.rank()) *failure.mutable_nccl_warnings() = rank.lines();
    }
  }
}

// The error counters that grew, the links that flapped and the ranks whose
// NCCL used another NIC than their nearest HCA; "" when there are none.
std::string PortEvidenceNote(const v1::TestReport& report) {
  std::vector<std::string> notes;
  bool symbol_errors = false;
  for (const v1::PortEvidence& port : report.port_counters()) {
    const std::string where = absl::StrCat(port.node_name(), " ", port.hca(), ":", port.port());
    if (port.grown_errors_size() > 0) {
      notes.push_back(absl::StrCat(where, " ", absl::StrJoin(port.grown_errors(), ", ")));
    }
    for (const v1::PortCounter& counter : port.counters()) {
      symbol_errors |= counter.name() == "symbol_error" && counter.delta() > 0;
    }
    if (port.link_flapped()) {
      notes.push_back(absl::StrCat(where, " link flapped (", port.start().state(), "/",
                                   port.start().phys_state(), " -> ", port.end().state(), "/",
                                   port.end().phys_state(), ")"));
    }
  }
  for (const v1::RankNicUse& use : report.nic_use()) {
    if (!use.unexpected()) continue;
    notes.push_back(absl::StrCat("rank ", use.rank(), " (", use.node_name(), ") used ",
                                 absl::StrJoin(use.nics(), ","), ", not its nearest HCA ",
                                 use.expected_hca()));
  }
  if (notes.empty()) return "";
  std::string text = absl::StrCat("port evidence: ", absl::StrJoin(notes, "; "));
  if (symbol_errors) absl::StrAppend(&text, " (a slow rail with growing symbol errors is a cable)");
  return text;
}

// Clean counters speak only to a verdict about the network: a slow rail,
// too little bandwidth, a communication error or a stall; not to a worker
// that crashed or a wrong result.
bool HasNetworkVerdict(const v1::TestReport& report) {
  for (const v1::RailResult& rail : report.rails()) {
    if (rail.slow()) return true;
  }
  for (const v1::Failure& failure : report.failures()) {
    if (spec::RowOf(failure.kind()).speaks_to_network) return true;
  }
  return false;
}

// The house's one bound on outside text: a plain substr could end
// mid-character, and a string field that is not UTF-8 makes the whole
// report unserializable (issue 32 item 2).
std::string Cut(const std::string& text) { return spec::BoundedText(text, kMaxEvidenceTextBytes); }

// A counter as the agent sent it, its delta and reset recomputed: nothing
// the agent says about growth is taken on trust.
v1::PortCounter Recomputed(const v1::PortCounter& sent) {
  v1::PortCounter counter = sent;
  counter.set_name(Cut(sent.name()));
  counter.set_reset(sent.after() < sent.before());
  counter.set_delta(counter.reset() ? 0 : sent.after() - sent.before());
  return counter;
}

void MergePorts(const std::string& node, const v1::NodeTestEvidence& evidence,
                v1::TestReport& report) {
  int ports = 0;
  for (const v1::PortEvidence& port : evidence.ports()) {
    if (++ports > kMaxNodePorts) break;
    v1::PortEvidence& out = *report.add_port_counters();
    out = port;
    out.set_node_name(node);  // the session's name, not what the agent wrote
    out.set_hca(Cut(port.hca()));
    out.set_error(Cut(port.error()));
    // Only the names an agent of this build reads; which are errors, and
    // which grew, decided here.
    out.clear_counters();
    out.clear_grown_errors();
    for (const v1::PortCounter& counter : port.counters()) {
      if (out.counters_size() >= kMaxPortCounters) break;
      const bool error = spec::Listed(spec::kPortErrorCounters, counter.name());
      if (!error && !spec::Listed(spec::kPortOtherCounters, counter.name())) continue;
      v1::PortCounter& kept = *out.add_counters();
      kept = Recomputed(counter);
      kept.set_error_counter(error);
      if (error && kept.delta() > 0) {
        out.add_grown_errors(absl::StrCat(kept.name(), " +", kept.delta()));
      }
    }
    out.clear_refused_counters();
    for (const std::string& refused : port.refused_counters()) {
      if (out.refused_counters_size() >= kMaxPortRefusals) break;
      *out.add_refused_counters() = Cut(refused);
    }
  }
}

void MergeTcp(const std::string& node, const v1::TcpEvidence& tcp, v1::TestReport& report) {
  for (const v1::TcpEvidence& other : report.tcp_counters()) {
    if (other.node_name() == node) return;  // one reading per node and test
  }
  v1::TcpEvidence& out = *report.add_tcp_counters();
  out.set_node_name(node);
  out.set_error(Cut(tcp.error()));
  for (std::string_view name : spec::kTcpCounters) {
    for (const v1::PortCounter& counter : tcp.counters()) {
      if (counter.name() != name) continue;
      *out.add_counters() = Recomputed(counter);
      break;
    }
  }
}

}  // namespace

std::string NearestHca(const v1::NodeInventory& inventory, int device_index) {
  if (device_index < 0) return "";
  for (const v1::GpuInfo& gpu : inventory.gpus()) {
    if (gpu.index() == device_index) return gpu.nearest_hca();
  }
  return "";
}

void MergeNodeEvidence(const std::string& node, const v1::NodeTestEvidence& evidence,
                       v1::TestReport& report) {
  MergePorts(node, evidence, report);
  if (evidence.has_tcp()) MergeTcp(node, evidence.tcp(), report);
  size_t bytes = WarningBytes(report);
  for (const v1::RankNcclWarnings& rank : evidence.nccl_warnings()) {
    if (NodeOfRank(report, rank.rank()) != node) continue;
    v1::RankNcclWarnings kept;
    kept.set_rank(rank.rank());
    kept.set_node_name(node);
    kept.set_truncated(rank.truncated());
    // The last lines are the most telling: keep from the end.
    std::vector<std::string> lines;
    for (int i = rank.lines_size() - 1; i >= 0; --i) {
      if (bytes + rank.lines(i).size() > kMaxTestNcclWarningBytes) {
        kept.set_truncated(true);
        break;
      }
      bytes += rank.lines(i).size();
      lines.push_back(rank.lines(i));
    }
    std::reverse(lines.begin(), lines.end());
    for (std::string& line : lines) *kept.add_lines() = std::move(line);
    if (kept.lines_size() > 0) *report.add_nccl_warnings() = std::move(kept);
  }
  if (evidence.has_nccl_ras()) {
    size_t ras_bytes = 0;
    for (const v1::NcclRasStatus& other : report.nccl_ras()) ras_bytes += other.text().size();
    v1::NcclRasStatus& ras = *report.add_nccl_ras();
    ras = evidence.nccl_ras();
    ras.set_node_name(node);  // the session's name, not what the agent wrote
    if (ras_bytes + ras.text().size() > kMaxTestNcclRasBytes) {
      ras.clear_text();
      ras.set_truncated(true);
      ras.set_error(absl::StrCat(ras.error(), ras.error().empty() ? "" : "; ",
                                 "text dropped: the test's RAS budget (",
                                 kMaxTestNcclRasBytes / 1024,
                                 " KiB) is spent; the other nodes' replies describe the same job"));
    }
  }
  for (const v1::RankNicUse& use : evidence.nic_use()) {
    if (NodeOfRank(report, use.rank()) != node) continue;
    v1::RankNicUse& out = *report.add_nic_use();
    out = use;
    out.set_node_name(node);
    const v1::RankAssignment& assignment = report.ranks(use.rank());
    const int node_index = assignment.node_index();
    const std::string expected =
        node_index >= 0 && node_index < report.node_inventories_size()
            ? NearestHca(report.node_inventories(node_index), assignment.device_index())
            : "";
    out.set_expected_hca(expected);
    bool unexpected = false;
    for (const std::string& nic : use.nics()) unexpected |= !expected.empty() && nic != expected;
    out.set_unexpected(unexpected);
    // The node's own peers from every channel, then the channels bounded.
    ClassifyIntraNode(report, out);
    int kept_channels = 0;
    for (const v1::RankNicUse& other : report.nic_use()) kept_channels += other.channels_size();
    kept_channels -= out.channels_size();
    const int keep = std::max(0, std::min({out.channels_size(), kMaxRankNcclChannels,
                                           kMaxTestNcclChannels - kept_channels}));
    if (keep < out.channels_size()) {
      out.set_channels_dropped(out.channels_size() - keep);
      out.mutable_channels()->DeleteSubrange(keep, out.channels_size() - keep);
    }
  }
}

std::string FinishEvidence(v1::TestReport& report) {
  OrderEvidence(report);
  CopyWarningsIntoFailures(report);
  if (std::string grown = PortEvidenceNote(report); !grown.empty()) return grown;
  if (report.port_counters_size() > 0 && HasNetworkVerdict(report)) {
    return absl::StrCat("no error counter grew on the ", report.port_counters_size(), " HCA port",
                        report.port_counters_size() == 1 ? "" : "s",
                        " read: a slow rail without growing symbol errors is not the cable; "
                        "look elsewhere (GPU, PCIe, switch, configuration)");
  }
  return "";
}

}  // namespace eb::coordinator
