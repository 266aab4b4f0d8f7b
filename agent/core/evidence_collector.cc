#include "agent/core/evidence_collector.h"

#include <set>
#include <utility>

#include "agent/core/nccl_log.h"
#include "agent/core/nccl_use.h"

namespace eb::agent {
namespace v1 = ebnccl::v1;

namespace {

// docs/DESIGN.md, "NCCL's own diagnosis": the end of each log is read
// (NCCL's warnings come last, as the rank fails); kMaxNodeWarningBytes
// bounds a node's share.
constexpr size_t kLogTailBytes = 64 * 1024;
constexpr size_t kMaxNodeWarningBytes = 64 * 1024;
// NCCL names the NICs of its channels at init (NCCL_DEBUG=INFO), near the
// start of the log.
constexpr size_t kLogHeadBytes = 256 * 1024;

}  // namespace

EvidenceCollector::EvidenceCollector(std::string node_name, EvidenceReaders readers)
    : node_name_(std::move(node_name)), readers_(std::move(readers)) {}

void EvidenceCollector::AtLaunch(SupervisedTest& test) const {
  if (readers_.read_ports) test.ports_before = readers_.read_ports();
  if (readers_.read_tcp) test.tcp_before = readers_.read_tcp();
}

v1::NodeTestEvidence EvidenceCollector::Collect(const SupervisedTest& test) const {
  v1::NodeTestEvidence evidence;
  AddPortDeltas(test, evidence);
  AddTcpDeltas(test, evidence);
  AddNcclRas(test, evidence);
  AddNcclWarnings(test, evidence);
  AddNicUse(test, evidence);
  return evidence;
}

void EvidenceCollector::AddPortDeltas(const SupervisedTest& test,
                                      v1::NodeTestEvidence& evidence) const {
  if (!readers_.read_ports) return;
  for (v1::PortEvidence& port : DiffPorts(node_name_, test.ports_before, readers_.read_ports())) {
    *evidence.add_ports() = std::move(port);
  }
}

void EvidenceCollector::AddTcpDeltas(const SupervisedTest& test,
                                     v1::NodeTestEvidence& evidence) const {
  if (!readers_.read_tcp) return;
  *evidence.mutable_tcp() = DiffTcp(node_name_, test.tcp_before, readers_.read_tcp());
}

void EvidenceCollector::AddNcclRas(const SupervisedTest& test, v1::NodeTestEvidence& evidence) {
  if (test.ras.has_value()) *evidence.mutable_nccl_ras() = *test.ras;
}

void EvidenceCollector::AddNcclWarnings(const SupervisedTest& test,
                                        v1::NodeTestEvidence& evidence) const {
  if (!readers_.read_log) return;
  size_t node_bytes = 0;
  for (const SupervisedWorker& worker : test.workers) {
    // A rank that finished has nothing to explain; one that failed, was
    // stopped or timed out may.
    if (!worker.spawned || worker.finished || node_bytes >= kMaxNodeWarningBytes) continue;
    const std::string tail = readers_.read_log(worker.log_path, false, kLogTailBytes);
    NcclWarnings warnings =
        ExtractNcclWarnings(tail, NcclWarningLimits{},
                            /*partial_first_line=*/tail.size() >= kLogTailBytes);
    if (warnings.lines.empty()) continue;
    v1::RankNcclWarnings& out = *evidence.add_nccl_warnings();
    out.set_rank(worker.assignment.rank());
    out.set_node_name(worker.assignment.node_name());
    out.set_truncated(warnings.truncated);
    for (std::string& line : warnings.lines) {
      node_bytes += line.size();
      *out.add_lines() = std::move(line);
    }
  }
}

void EvidenceCollector::AddNicUse(const SupervisedTest& test,
                                  v1::NodeTestEvidence& evidence) const {
  if (!readers_.read_log || test.launch.spec().transport() != v1::TRANSPORT_NCCL) return;
  for (const SupervisedWorker& worker : test.workers) {
    if (!worker.spawned) continue;
    const int rank = worker.assignment.rank();
    const std::string head = readers_.read_log(worker.log_path, true, kLogHeadBytes);
    NcclUse parsed = ParseNcclUse(head, rank);
    // A rank that logged nothing (it never started NCCL) has nothing to say.
    if (!parsed.info_level && head.find(" NCCL ") == std::string::npos) continue;
    v1::RankNicUse& use = *evidence.add_nic_use();
    use.set_rank(rank);
    use.set_node_name(worker.assignment.node_name());
    use.set_info_level(parsed.info_level);
    if (!parsed.info_level) {
      use.set_unknown_reason(
          "no NCCL INFO lines in its log (NCCL_DEBUG below INFO): what NCCL used is unknown");
      continue;
    }
    use.set_nccl_version(parsed.nccl_version);
    use.set_net_transport(parsed.net_transport);
    for (std::string& device : parsed.net_devices) *use.add_net_devices() = std::move(device);
    std::set<std::string> nics;
    for (NcclChannelUse& channel : parsed.channels) {
      if (!channel.nic.empty()) nics.insert(channel.nic);
      v1::NcclChannelPath& out = *use.add_channels();
      out.set_channel(channel.channel);
      out.set_peer_rank(channel.peer_rank);
      out.set_path(std::move(channel.path));
      out.set_nic(std::move(channel.nic));
      out.set_send(channel.send);
    }
    for (const std::string& nic : nics) *use.add_nics() = nic;
    use.set_coll_channels(parsed.coll_channels);
    if (parsed.gdr.has_value()) use.set_gdr(*parsed.gdr);
    for (std::string& entry : parsed.nccl_env) *use.add_nccl_env() = std::move(entry);
  }
}

}  // namespace eb::agent
