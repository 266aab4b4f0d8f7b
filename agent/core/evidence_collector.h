#pragma once

// What this node says about a test once its workers are gone, sent with
// WorkersStopped (issue 12; docs/DESIGN.md, "Evidence from the node"): the
// configured ports' and the host's TCP counter deltas from launch to end, what NCCL's RAS
// answered before the stop, the NCCL warnings of the ranks that did not
// finish, and the NICs NCCL's channels used. Each kind is one collector
// (an Add* step of Collect) over the host readers it needs, so another kind
// of evidence, such as what NCCL reports at init, is one more step. The
// host is reached only through the readers (agent/host implements them).
// Used on the supervisor's executor.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "agent/core/port_counters.h"
#include "agent/core/supervision_state.h"
#include "agent/core/tcp_counters.h"
#include "ebnccl/v1/agent.pb.h"

namespace eb::agent {

// The host readers of the evidence (SupervisorEnvironment's); an unset one
// leaves out what it reads.
struct EvidenceReaders {
  // Every configured HCA port (link state and counters).
  std::function<std::vector<PortSnapshot>()> read_ports;
  // The host's TCP counters (its network namespace's).
  std::function<TcpSnapshot()> read_tcp;
  // At most `max_bytes` of a rank's log, from its start or from its end;
  // "" when it cannot be read.
  std::function<std::string(const std::string& path, bool from_start, size_t max_bytes)> read_log;
};

class EvidenceCollector {
 public:
  // `node_name` is this node's, named in what is collected.
  EvidenceCollector(std::string node_name, EvidenceReaders readers);

  // At launch, before any worker starts: what the end is compared with
  // (test.ports_before).
  void AtLaunch(SupervisedTest& test) const;
  // Once every worker of `test` is gone (RAS, when asked, has answered).
  ebnccl::v1::NodeTestEvidence Collect(const SupervisedTest& test) const;

 private:
  // The ports' deltas since AtLaunch.
  void AddPortDeltas(const SupervisedTest& test, ebnccl::v1::NodeTestEvidence& evidence) const;
  // The host's TCP counters' deltas since AtLaunch.
  void AddTcpDeltas(const SupervisedTest& test, ebnccl::v1::NodeTestEvidence& evidence) const;
  // What RAS answered before the workers were signalled (StopSequence).
  static void AddNcclRas(const SupervisedTest& test, ebnccl::v1::NodeTestEvidence& evidence);
  // The NCCL warnings at the end of the logs of the ranks that did not
  // finish.
  void AddNcclWarnings(const SupervisedTest& test, ebnccl::v1::NodeTestEvidence& evidence) const;
  // The NICs an NCCL test's ranks used, from the start of their logs.
  void AddNicUse(const SupervisedTest& test, ebnccl::v1::NodeTestEvidence& evidence) const;

  const std::string node_name_;
  const EvidenceReaders readers_;
};

}  // namespace eb::agent
